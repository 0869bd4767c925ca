"""Cutting one message into clauses: sentences, requests joined by それから / and then, conditions.

A clause that states a condition ("…0件の場合、", "If …,", "… only if …") is marked with
the parsed `Condition` and always comes just before the clause it governs. Clauses that
ask for nothing on their own (「販売登録して。」 followed by the details) are joined again
by the planner, which knows the catalog's keywords; this module only cuts.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from concierge.language.patterns import Match, Pattern
from concierge.language.tokens import Utterance, tokenise
from concierge.planner import words
from concierge.planner.conditions import EN_INFIX, EN_PREFIX, JA_MARKER, Condition, parse


@dataclass(frozen=True)
class Clause:
    start: int
    end: int
    condition: Condition | None = None  # this clause is the condition of the next one


_ABBREVIATIONS = frozenset(words.said("clauses", "abbreviations"))
_COMMAS = frozenset(words.said("clause_cuts", "comma"))
Span = tuple[int, int]


def clauses(text: str) -> list[Clause]:
    """The clauses of a normalised message, in the order they should be handled."""
    out: list[Clause] = []
    said = tokenise(text)
    found = _found(said)
    for start, end in _split(said, _sentences(said, found), _connectors(said, found)):
        out.extend(_conditions(text, start, end))
    return out


def _sentences(said: Utterance, found: dict[str, list[Match]]) -> list[Span]:
    spans, start = [], 0
    for a, b in sorted([*_stops(said, found), *_new_lines(said)]):
        if a >= start:
            spans.append((start, a))
            start = b
    spans.append((start, len(said.text)))
    return spans


def _stops(said: Utterance, found: dict[str, list[Match]]) -> list[Span]:
    """The marks that end a sentence; a full stop only before a space or the end, never after an abbreviation."""
    return [(m.start, m.end) for m in found["stops"]] + \
        [(m.start, m.end) for m in found["full_stop"] if _ends_sentence(said, m.first)]


def _ends_sentence(said: Utterance, i: int) -> bool:
    """Whether the full stop at token `i` ends a sentence: the end or a space follows, and no abbreviation before."""
    tokens = said.tokens
    if i + 1 < len(tokens) and tokens[i + 1].start == tokens[i].end:
        return False
    return i == 0 or tokens[i - 1].surface.lower() not in _ABBREVIATIONS


def _new_lines(said: Utterance) -> list[Span]:
    """The line breaks between the words: from the first to the last of each run of them."""
    edges = [0, *(e for t in said.tokens for e in (t.start, t.end)), len(said.text)]
    text, found = said.text, []
    for a, b in zip(edges[::2], edges[1::2], strict=True):
        first = text.find("\n", a, b)
        if first >= 0:
            found.append((first, text.rfind("\n", a, b) + 1))
    return found


def _split(said: Utterance, spans: list[Span], cuts: list[Span]) -> list[Span]:
    out = []
    for start, end in spans:
        cursor = start
        for a, b in cuts:
            if start <= a and b <= end:
                out.append((cursor, a))
                cursor = b
        out.append((cursor, end))
    return [(s, e) for s, e in (_trim(said.text, s, e) for s, e in out) if e > s]


def _connectors(said: Utterance, found: dict[str, list[Match]]) -> list[Span]:
    """The words that join one request to the next, left to right, none overlapping."""
    spans = [(m.start, m.end) for m in found["then"]]
    spans += [(m.start, m.end) for m in found["then_marked"] if _after_space_or_comma(said, m.first, True)]
    spans += [(m.start, m.end) for m in found["then_en"] if _after_space_or_comma(said, m.first)]
    spans += [(m.start, said.tokens[m.first].end) for m in found["and_asking"]
              if _asks_after(said, m)]  # please show: the next clause's words
    out: list[Span] = []
    for a, b in sorted(spans, key=lambda span: (span[0], -span[1])):
        if not out or a >= out[-1][1]:
            out.append((a, b))
    return out


_KEYS = ("stops", "full_stop", "then", "then_marked", "then_en", "and_asking")


def _found(said: Utterance) -> dict[str, list[Match]]:
    """The matches of the patterns of each key of `_KEYS`, from each token one of their first words is
    (overlapping), in one pass over the words."""
    found: dict[str, list[Match]] = {key: [] for key in _KEYS}
    starts = _starts()
    for i, t in enumerate(said.tokens):
        keys = starts.get(t.surface.lower(), ()) + starts.get(t.lemma.lower(), ()) + starts.get(t.normal.lower(), ())
        for key in dict.fromkeys(keys):
            found[key] += [m for p in _patterns(key) if (m := p.at(said, i)) is not None]
    return found


@cache
def _patterns(key: str) -> tuple[Pattern, ...]:
    """The token patterns of `[clause_cuts] key` (`then_en`: of `[clauses] then_en`, a word a slot)."""
    if key == "then_en":
        return tuple(Pattern.parse([{"form": w} for w in phrase.split()]) for phrase in words.said("clauses", key))
    return words.token_patterns("clause_cuts", key)


@cache
def _starts() -> dict[str, tuple[str, ...]]:
    """The keys whose patterns' first slot takes each word."""
    out: dict[str, tuple[str, ...]] = {}
    for key in _KEYS:
        for w in {w for p in _patterns(key) for w in p.slots[0].forms | p.slots[0].surfaces}:
            out[w] = (*out.get(w, ()), key)
    return out


def _after_space_or_comma(said: Utterance, i: int, at_start: bool = False) -> bool:
    """Whether token `i` comes after a space or a comma (or at the start, where `at_start`)."""
    if i == 0:
        return at_start
    before = said.tokens[i - 1]
    return before.end < said.tokens[i].start or before.surface in _COMMAS


def _asks_after(said: Utterance, m: Match) -> bool:
    """Whether "and" (please) at `m` comes after a space, and a word of asking follows it (and show me)."""
    tokens = said.tokens
    return m.first > 0 and m.last < len(tokens) and tokens[m.first - 1].end < m.start \
        and tokens[m.first].end < tokens[m.first + 1].start \
        and tokens[m.last].surface.lower() in words.said("clauses", "asking_en")


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in " \t、,:：":
        start += 1
    while end > start and text[end - 1] in " \t、,:：":
        end -= 1
    return start, end


def _conditions(text: str, start: int, end: int) -> list[Clause]:
    clause = text[start:end]
    m = JA_MARKER.search(clause)
    if m and m.end() < len(clause):
        condition = parse(clause[: m.end()])
        if condition:
            return [Clause(start, start + m.start(), condition), Clause(*_trim(text, start + m.end(), end))]
    prefix = EN_PREFIX.match(clause)
    if prefix:
        comma = clause.find(",", prefix.end())
        cut = comma if comma > 0 else len(clause)
        condition = parse(clause[prefix.end() : cut])
        if condition and comma > 0:
            return [Clause(start + prefix.end(), start + comma, condition), Clause(*_trim(text, start + comma, end))]
        if condition:
            return [Clause(start + prefix.end(), end, condition)]
    infix = EN_INFIX.search(clause)
    if infix:
        condition = parse(clause[infix.end() :])
        if condition:
            return [Clause(start + infix.end(), end, condition), Clause(start, start + infix.start())]
    return [Clause(start, end)]
