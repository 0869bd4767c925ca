"""Values of the data that are also words of the question: the request's structure outranks the data.

A POS export can carry products named 売上, 全商品, ランキング or Sales. A value read from the data whose
words are all words of the question's frame (the catalogs' keywords, topics and count cues, the values
and labels they list, the words of any request: `Lexicon.frame`) is read as that value only where the
sentence places it as one:

- quoted: 『売上』の売上, 「ランキング」, "Total";
- named: 売上という商品, 商品名が売上, 商品名: 売上, the product named Total, product Sales (a label of its values
  just before it, with a space, and the name capitalised).

Where a label of its values starts a compound with it and the question is about it (商品ランキングの売上:
the sales of the product ランキング, or the product ranking by sales?), or where a word in Latin letters is
capitalised inside the sentence as a name is (total sales of Sales), the sentence leaves it open and the
planner asks, naming both readings. Anywhere else it is the question's own word: 先週の売上は？ asks for
the sales of every product, 先週の売上ランキング for the ranking, 全商品ランキング and product sales are the
question's words too. A value placed as one is no keyword.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cache

from concierge.language.japanese import and_particle, of_particle
from concierge.language.other_forms import spoken_forms
from concierge.language.patterns import Match, Pattern
from concierge.language.tokens import Utterance, japanese, tokenise
from concierge.planner import words
from concierge.planner.lexicon import Lexicon, spelt
from concierge.planner.measure import names_a_measure
from concierge.planner.nouns import noun
from concierge.planner.statuses import is_status
from concierge.planner.text import Hit, fold

Span = tuple[int, int]
EnumHit = Hit[frozenset[tuple[str, str]]]

# Marks that set a word apart as said: 『売上』, 「ランキング」, "Total" (not brackets: 売上（合計） is a note).
QUOTES = {"「": "」", "『": "』", '"': '"', "'": "'", "“": "”", "‘": "’", "【": "】", "《": "》", "〈": "〉"}
# Said between a value and a label of its values after it: 売上という商品, 売上って商品.
NAMED_AFTER = words.said("clauses", "named_after")
# Said between a label of its values and the value after it: 商品名が売上, 商品: 売上, product named Sales.
_LABEL_ENDS_JA = words.said("clauses", "label_ends_ja")
# After a word placed as what the question is about: 商品ランキングの売上 (the sales of the product ランキング?).
OWNED = of_particle()
_ENDS = ".!?。！？:：、,"  # what a sentence or a phrase starts after
_LOOK_BACK = 40  # characters before a word where its label is looked for (no label is longer)
# What may stand between words of the frame inside one value: 売上の合計, Total Sales.
_BETWEEN = set(" \u3000・-" + of_particle() + and_particle())


class Placement(Enum):
    NAMED = "named"  # the sentence says it is the value
    OPEN = "open"  # the sentence leaves it open: asked
    FRAME = "frame"  # a word of the question


@dataclass(frozen=True)
class Twofold:
    """A word that is a value of the data and a word of the question, which the sentence leaves open."""

    said: str
    span: Span
    group: str
    value: str


@dataclass
class Placed:
    hits: list[EnumHit] = field(default_factory=list)  # the values read, the question's own words taken out
    named: list[Span] = field(default_factory=list)  # words of the frame named as values: no keyword there
    asked: list[Twofold] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)  # (words said, value): read as the question's


def place(text: str, masked: str, hits: list[EnumHit], lexicon: Lexicon) -> Placed:
    """The enum values read (`hits`, positions in `text`), each value of the data that is also a word of the
    frame kept, asked about or given back to the question as its placement in the sentence says.
    `masked` is the folded text with what was read before the values masked (dates, codes)."""
    in_frame = _in_frame(len(text), lexicon.frame.find(masked))
    utterance = tokenise(text)
    out = Placed()
    for hit in hits:
        data = frozenset((key, value) for key, value in hit.value if key not in lexicon.static_values)
        if not data or not _framed(text, hit.start, hit.end, in_frame):
            out.hits.append(hit)
            continue
        labels = frozenset(label for key, _ in data for label in lexicon.enums[key].labels)
        how = Placement.NAMED if _spelt_as_value(text, masked, hit.start, hit.end) \
            or _a_snake_value_said(text[hit.start:hit.end], data) or _listed_with_another(text, hit, hits, data) \
            or _rows_named_after(utterance, masked, hit.end, _rows_of(lexicon, data)) \
            else _placement(utterance, masked, hit.start, hit.end, labels)
        if how is Placement.NAMED:
            out.hits.append(hit)
            out.named.append((hit.start, hit.end))
            continue
        if hit.value - data:  # トップ: also a value the catalog lists (an order), which stays
            out.hits.append(replace(hit, value=hit.value - data))
        said = text[hit.start:hit.end]
        out.dropped += [(said, value) for _, value in data]
        if how is Placement.OPEN:
            out.asked += [Twofold(said, (hit.start, hit.end), key, value) for key, value in sorted(data)]
    return out


def _listed_with_another(text: str, hit: EnumHit, hits: list[EnumHit], data: frozenset[tuple[str, str]]) -> bool:
    """Whether another value of the same column is said joined to it (予約とキャンセル それぞれ, cancelled or
    booked): the values listed, each one of the data."""
    groups = {key for key, _ in data}
    for other in hits:
        if other is hit or not any(key in groups for key, _ in other.value):
            continue
        first, second = (hit, other) if hit.end <= other.start else (other, hit)
        if text[first.end:second.start].strip().lower() in _LISTING:
            return True
    return False


_LISTING = frozenset(words.said("clauses", "listing"))


def _rows_of(lexicon: Lexicon, data: frozenset[tuple[str, str]]) -> frozenset[str]:
    """The nouns (folded) of the rows whose status the values are, of the tools that filter by it (レッスン of the
    lessons' status 予約); none for values of any other column (a product 全商品 before 売上 stays the question's)."""
    groups = {key for key, _ in data}
    return frozenset(fold(noun(t).ja) for (name, pname), group in lexicon.enum_of.items()
                     if group.key in groups and noun(t := lexicon.tools[name]).ja
                     and is_status(t, pname))


def _rows_named_after(said: Utterance, folded: str, end: int, nouns: frozenset[str]) -> bool:
    """Whether the rows the value is one of are named right after it, as what it says of them: 予約のレッスン,
    予約中のレッスン (the value, a suffix of it, の, the noun of the rows), not 予約の件数."""
    at = end
    for i in said.starting(end, len(folded) + 1):
        token = said.tokens[i]
        if token.start != at or not token.is_suffix:
            break
        at = token.end
    if not folded.startswith(OWNED, at):
        return False
    return any(folded.startswith(n, at + len(OWNED)) for n in nouns)


def _spelt_as_value(text: str, folded: str, start: int, end: int) -> bool:
    """Words that only a value spells so: joined by a hyphen (no-show, drop-off), or in Latin letters inside a Japanese
    sentence (先月のdoneの売上), where they are no word of its question unless they name a figure (先月のsales)."""
    said = text[start:end]
    if any(b == "-" and _latin(a) and _latin(c) for a, b, c in zip(said, said[1:], said[2:], strict=False)):
        return True
    return said.isascii() and japanese(text) and not names_a_measure(folded[start:end])


def _a_snake_value_said(said: str, data: frozenset[tuple[str, str]]) -> bool:
    """Words that say a value the data writes in snake case (no shows: no_show): no question joins them so."""
    return any("_" in value and " ".join(said.lower().split()) in spoken_forms(value) for _, value in data)


def _latin(ch: str) -> bool:
    return ch.isascii() and ch.isalpha()


def _in_frame(size: int, frame: list[Hit[str]]) -> list[bool]:
    """For each position of the text, whether a word of the frame covers it."""
    covered = [False] * size
    for hit in frame:
        covered[hit.start:hit.end] = [True] * (hit.end - hit.start)
    return covered


def _framed(text: str, start: int, end: int, in_frame: list[bool]) -> bool:
    """Whether the words at text[start:end] are all words of the frame (ランキング, 売上合計, Total Sales)."""
    inside = range(start, end)
    return any(in_frame[i] for i in inside) and all(in_frame[i] or text[i] in _BETWEEN for i in inside)


def _placement(said: Utterance, folded: str, start: int, end: int, labels: frozenset[str]) -> Placement:
    """How the sentence places the word at text[start:end]: as a value, leaving it open, or not at all."""
    text = said.text
    if _quoted(text, start, end) or _named_after(said, folded, end, labels):
        return Placement.NAMED
    label = _label_before(said, folded, start, labels)
    if label is not None and (label[1] == "named" or (label[1] == "gap" and not text[start:end].islower())):
        return Placement.NAMED  # 商品名が売上, product Sales, 商品 売上
    if label is not None and label[1] == "glued" and _starts_word(said, label[0]) and folded.startswith(OWNED, end):
        return Placement.OPEN  # 商品ランキングの売上: the product ranking, or the product ランキング?
    if _capitalised_within(text, start, end):
        return Placement.OPEN  # total sales of Sales: sales, or the product Sales?
    return Placement.FRAME  # 全商品ランキング, 売れ筋商品ランキング, 商品売上, product sales


def _capitalised_within(text: str, start: int, end: int) -> bool:
    """A word in Latin letters capitalised inside a sentence, as a name is (not at its start)."""
    before = text[max(0, start - _LOOK_BACK):start].rstrip()
    return text[start:end].isascii() and text[start:start + 1].isupper() and bool(before) and before[-1] not in _ENDS


def _starts_word(said: Utterance, i: int) -> bool:
    """Whether a word starts at text[i]: at the start, after a particle, a space or a sign."""
    before = said.ending_at(i)
    return before is None or before.is_particle or not before.surface[-1].isalnum()


def _quoted(text: str, start: int, end: int) -> bool:
    opening = text[start - 1] if start > 0 else ""
    return opening in QUOTES and text[end:end + 1] == QUOTES[opening]


def _named_after(said: Utterance, folded: str, end: int, labels: frozenset[str]) -> bool:
    """Whether a label of the value's values follows it, named: 売上という商品, 売上って商品."""
    after = said.starting(end, len(folded))
    if not labels or not after or folded[end:said.tokens[after.start].start].strip():
        return False
    named = spelt(said, folded, said.tokens[after.start].start, NAMED_AFTER)
    rest = said.starting(named, len(folded)) if named is not None else range(0)
    return bool(rest) and any(folded.startswith(label, said.tokens[rest.start].start) for label in labels)


def _label_before(said: Utterance, folded: str, start: int, labels: frozenset[str]) -> tuple[int, str] | None:
    """Where a label said just before a position begins, and how it is said there: "named" (商品名が, product
    named, 商品:), "gap" (a space between) or "glued" (商品売上)."""
    found = [(label_start, order, how) for order, (how, label_end) in enumerate(_label_ends(said, folded, start))
             for label_start in _labels_ending(said, folded, label_end, labels, max(0, start - _LOOK_BACK))]
    return (min(found)[0], min(found)[2]) if found else None


def _labels_ending(said: Utterance, folded: str, end: int, labels: frozenset[str], least: int) -> list[int]:
    """Where the labels that end at `end` begin (at a token, after `least`)."""
    return [end - len(label) for label in labels if folded.endswith(label, 0, end)
            and end - len(label) >= least and said.starts_at(end - len(label))]


def _label_ends(said: Utterance, folded: str, start: int) -> list[tuple[str, int]]:
    """Where a label before `start` may end, with how it is said: named by the words between, after a space, or
    glued to what is at `start`."""
    ends = []
    for pattern in _named_before():
        m = pattern.ending(said, start, reach=1)
        if m is not None and m.first > 0 and _spaced_as(said, m, start):
            ends.append(("named", said.tokens[m.first - 1].end))
    particle = said.ending_at(start)
    if particle is not None and particle.surface in words.said("clauses", "named_before_ja"):
        before = said.ending_at(particle.start)
        if before is not None and folded.endswith(_LABEL_ENDS_JA, 0, before.end):
            ends.append(("named", before.end))
    gap = folded[:start].rstrip()
    if len(gap) < start and said.ending_at(len(gap)) is not None:
        ends.append(("gap", len(gap)))
    return [*ends, ("glued", start)]


@cache
def _named_before() -> tuple[Pattern, ...]:
    """A mark (商品: 売上) or an English word (product named Sales) said between a label and its value."""
    return (Pattern.parse([{"surface": words.said("label_said", "marks")}]),
            Pattern.parse([{"form": words.said("clauses", "named_before_en")}]))


def _spaced_as(said: Utterance, m: Match, start: int) -> bool:
    """Whether a word naming a value (named, called) has spaces on both sides, as said; a mark (:) needs none."""
    if not said.tokens[m.first].surface[:1].isalpha():
        return True
    before = said.tokens[m.first - 1].end
    return said.text[before:m.start].isspace() and said.text[m.end:start].isspace()
