"""Several writes said in one message: each carries its own values, or the planner asks.

「0016にかぼちゃ4個を600円、0017にナス3個を300円で売った」 is two sales. Each code said gets the goods,
the sum and the day said in the same order (the first goods and sum with the first code, and so on);
when the counts do not line up, which belongs to which is asked, never guessed.

「唐揚げ弁当を大盛りで2つと、のり弁当1つ」 is two writes of values read from the data (`each`): the message
is cut between the values, at the と / 、 / and that joins them, and each value gets what is said in its
own part (大盛り and 2 with 唐揚げ弁当, 1 with のり弁当), in the order said. A value said bare before a joiner
while a later part says values (唐揚げ弁当とのり弁当を2つ) could take them or not: which is asked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from concierge.catalog.model import AmountExtract, CodeExtract, CountExtract, ItemsExtract, Tool
from concierge.language.patterns import Match
from concierge.language.tokens import Token, Utterance, tokenise
from concierge.planner import words
from concierge.planner.lexicon import Lexicon, of_fixed_values, reads_data
from concierge.planner.slots import Slots, count, english_item_groups
from concierge.planner.text import MASK, mask, number

Pairs = list[tuple[dict[str, list[Any]], list[dict[str, str]]]]
_MOST_DIGITS = 3  # a count said in digits has at most three (1000 is a price, a year, a code)


@dataclass(frozen=True)
class Unpaired:
    """The codes said outnumber (or are outnumbered by) the goods or sums said with them; or values said
    after several data values (`said`) may belong to one of them or to all."""

    params: tuple[str, ...]
    said: tuple[str, ...] = ()


def pair(tool: Tool, slots: Slots, values: dict[str, list[Any]], periods: list[dict[str, str]], lexicon: Lexicon,
         said_in: Callable[[str], dict[str, list[Any]]]) -> Pairs | Unpaired | None:
    """One (values, periods) per write when several codes, or several values of the data, are said to a
    write tool; None when it is one write. `said_in(text)`: the tool's values said in a part of the text."""
    if tool.mode != "write":
        return None
    codes = [n for n, p in tool.params.items() if isinstance(p.extract, CodeExtract) and len(values.get(n, [])) > 1]
    if len(codes) == 1:
        return _by_code(tool, slots, values, periods, codes[0])
    if codes:
        return None
    keys = [n for n, p in tool.params.items() if p.required and reads_data(p) and len(values.get(n, [])) > 1]
    if not keys:
        return _part_apart(tool, slots.text, slots.folded, values, periods, said_in) \
            or _counted_parts(tool, slots.text, values, periods, said_in)
    if len(keys) != 1:
        return None
    # The command's verb said once holds for every value (キッチンとリビングの電気つけて): one of fixed values,
    # required, with one value said.
    verbs = frozenset(n for n, p in tool.params.items()
                      if p.required and of_fixed_values(p) and len(values.get(n, [])) == 1)
    return each(slots, values, periods, keys[0], lexicon.enum_of[(tool.name, keys[0])].key, said_in, verbs, tool)


def _by_code(tool: Tool, slots: Slots, values: dict[str, list[Any]], periods: list[dict[str, str]],
             code: str) -> Pairs | Unpaired:
    n = len(values[code])
    goods = next((p for p, param in tool.params.items() if isinstance(param.extract, ItemsExtract)), None)
    money = next((p for p, param in tool.params.items() if isinstance(param.extract, AmountExtract)), None)
    said: dict[str | None, list[Any]] = {goods: [g for g, _ in slots.items] or english_item_groups(slots),
                                         money: [a for a, _ in slots.amounts]}
    uneven = tuple(p for p, found in said.items() if p is not None and len(found) != n)
    if uneven:
        return Unpaired(uneven)
    days = [d for d in slots.dates if d.range.start == d.range.end]
    out = []
    for i, value in enumerate(values[code]):
        own = {**values, code: [value]}
        own.update({p: [found[i]] for p, found in said.items() if p is not None})
        day = [{k: days[i].range.start.isoformat() for k in periods[0]}] if len(days) == n and periods[0] else periods
        out.append((own, day))
    return out


def each(slots: Slots, values: dict[str, list[Any]], periods: list[dict[str, str]], key: str, group: str,
         said_in: Callable[[str], dict[str, list[Any]]], verbs: frozenset[str], tool: Tool
         ) -> Pairs | Unpaired | None:
    """One write per value of parameter `key` (enum `group`) said, in the order said, each with the values
    said in its own part; `verbs` are said once for all of them."""
    mine = set(values[key])
    found = [(value, h.start, h.end) for h in slots.enums for g, value in sorted(h.value)
             if g == group and value in mine]
    hits = [hit for i, hit in enumerate(found) if not i or hit[1] >= found[i - 1][2]]  # one value per phrase
    if len(hits) < 2:
        return None
    cuts, said = [0], tokenise(slots.text)
    for (_, _, end), (_, start, _) in zip(hits, hits[1:], strict=False):
        joined = _joined_after(said, end, start)  # 牛丼と|親子丼: what follows the last joiner is the next one's
        count_before = _count_before(said, end, start)  # one nori bento | one salmon bento
        cuts.append(joined if joined is not None else count_before if count_before is not None else start)
    cuts.append(len(slots.text))
    parts = [{p: v for p, v in said_in(slots.text[a:b]).items() if p != key and p not in verbs}
             for a, b in zip(cuts, cuts[1:], strict=False)]
    spread = _distributed(slots, hits[-1][2])
    if spread is not None:  # 1つずつ, 全部大盛りで: for each of them
        each_one = {p: v for p, v in said_in(slots.text[spread:]).items() if p != key}
        parts[-1] = {p: v for p, v in said_in(slots.text[cuts[-2]:spread]).items() if p != key and p not in verbs}
        verbs = verbs | frozenset(each_one)
        values = {**values, **each_one}
    for i, own in enumerate(parts):
        later = sorted({p for j, part in enumerate(parts[i + 1 :], i + 1) for p in part
                        if not _article_only(said, cuts[j])})  # a miso soup: its own one
        if not own and later:
            return Unpaired(tuple(later), tuple(dict.fromkeys(value for value, _, _ in hits)))
    per_value = {p for part in parts for p in part} - verbs
    shared = {p: v for p, v in values.items() if p != key and p not in per_value}
    out: Pairs = []
    for (value, _, _), own, a, b in zip(hits, parts, cuts, cuts[1:], strict=False):
        line = {**shared, **own, key: [value]}
        out += _part_apart(tool, slots.text[a:b], slots.folded[a:b], line, periods, said_in) \
            or [(line, periods)]  # two gyudon, one of them large, and a coke
    return out


def count_said(said: Utterance, i: int) -> int | None:
    """The count token `i` says (2, 三, two), if it says one: never digits or a word glued to letters or digits
    (x2, 2nd), nor digits past three (1000)."""
    token = said.tokens[i]
    if token.surface.isdigit() and len(token.surface) > _MOST_DIGITS:
        return None
    n = number(token.surface)
    if n is None or (i > 0 and _glued(said.tokens[i - 1], token)) \
            or (i + 1 < len(said.tokens) and _glued(token, said.tokens[i + 1])):
        return None
    return n


def said_after(said: Utterance, i: int, key: str) -> Match | None:
    """A match of `[line_counts] key` right after token `i`."""
    if i + 1 >= len(said.tokens):
        return None
    return next((m for p in words.token_patterns("line_counts", key) if (m := p.at(said, i + 1))), None)


def not_a_count(said: Utterance, i: int) -> tuple[int, int] | None:
    """Where a count is said in the negative or of the whole a part is taken from (3つじゃなくて, not three,
    3つのうち): the span of the words, else None."""
    token = said.tokens[i]
    after = said_after(said, i, "not_after")
    if after is not None:
        return token.start, after.end
    before = next((m for p in words.token_patterns("line_counts", "not_before")
                   if (m := p.ending(said, token.start, reach=1)) and m.end < token.start), None)
    return (before.start, token.end) if before else None


def counts_said(slots: Slots) -> tuple[Utterance, list[tuple[int, int]], dict[int, tuple[int, int]]]:
    """The request's tokens, the counts it says (token, number; none inside a value read), and of those the ones said
    in the negative or of a whole, with the span of their words (みっつじゃなくて ふたつ: the 3)."""
    said = tokenise(slots.text)
    counts = [(i, n) for i, t in enumerate(said.tokens)
              if MASK not in slots.read_text[t.start:t.end] and (n := count_said(said, i)) is not None]
    return said, counts, {i: span for i, _ in counts if (span := not_a_count(said, i)) is not None}


def written_count(slots: Slots, lexicon: Lexicon, tool: Tool, pname: str) -> int | None:
    """The count a write is given, never one said in the negative (缶ビール 24本じゃなくて12本: 12); said with no unit
    nor cue where it is the tool's one count and said in place of another (should be 12 not 24, 24じゃなくて12)."""
    _, counts, negated = counts_said(slots)
    if negated:
        slots = replace(slots, read_text=mask(slots.read_text, negated.values()))
    found = count(slots, lexicon, tool.name, pname)
    if found is not None or not negated or not tool.params[pname].required \
            or [n for n, p in tool.params.items() if isinstance(p.extract, CountExtract)] != [pname]:
        return found
    meant = [n for i, n in counts if i not in negated]
    return meant[0] if len(meant) == 1 else None


def _glued(first: Token, then: Token) -> bool:
    """Whether two tokens touch where a Latin letter or a digit meets another (x|2, 2|nd)."""
    meet = first.surface[-1:] + then.surface[:1]
    return first.end == then.start and meet.isascii() and meet.isalnum()


def _joined_after(said: Utterance, start: int, end: int) -> int | None:
    """Where the words after the last word of `[joiners] words` said within [start, end) begin, if one is."""
    joiners = words.said("joiners", "words")
    found = [t.end for i in said.starting(start, end) if (t := said.tokens[i]).end <= end
             and t.surface.lower() in joiners]
    return found[-1] if found else None


def _count_before(said: Utterance, start: int, end: int) -> int | None:
    """Where a count said right before `end` begins (one nori bento | one salmon bento), the count begun at or
    after `start`."""
    within = said.starting(start, end)
    if not within or said.tokens[within[-1]].end > end or count_said(said, within[-1]) is None:
        return None
    return said.tokens[within[-1]].start


def _article_only(said: Utterance, start: int) -> bool:
    """Whether the words from `start` on begin with an article (and a miso soup): that part's one is its own."""
    first = said.starting(start, len(said.text))
    if not first or said.text[start:said.tokens[first[0]].start].strip():
        return False
    return any(p.at(said, first[0]) for p in words.token_patterns("write_parts", "article_only"))


def _distributed(slots: Slots, end: int) -> int | None:
    """Where the values given to each of several values begin, after the last of them (`end`): the words
    after it where a word of `after` follows them (を1つずつ), else from a word of `before` on (全部大盛りで)."""
    rest = slots.folded[end:]
    if words.pattern("distributive", "after").search(rest):
        return end
    m = words.pattern("distributive", "before").search(rest)
    return end + m.start() if m else None


def _counted_parts(tool: Tool, text: str, values: dict[str, list[Any]], periods: list[dict[str, str]],
                   said_in: Callable[[str], dict[str, list[Any]]]) -> Pairs | None:
    """唐揚げ弁当 大盛りみっつと 普通のをひとつ, gyudon, two regular and one large: one value said with parts joined,
    each with a count of its own, is one write a part, each with what its part says (普通の: no option); None where
    fewer than two parts say a count."""
    counts = [n for n, p in tool.params.items() if isinstance(p.extract, CountExtract)]
    if len(counts) != 1:
        return None
    said = tokenise(text)
    cuts = [t.end for t in said.tokens if t.surface.lower() in words.said("joiners", "words")]
    parts: list[dict[str, list[Any]]] = []
    begun = 0
    for end in [*cuts, len(text)]:  # a part with no count of its own is said with the next (gyudon, | two …)
        own = said_in(text[begun:end])
        if counts[0] in own:
            parts.append(own)
            begun = end
    if len(parts) < 2 or begun < len(text) and said_in(text[begun:]):
        return None
    per_part = {p for part in parts for p in part if not tool.params[p].required}  # the item said once holds for all
    shared = {p: v for p, v in values.items() if p not in per_part}
    return [({**shared, **part}, periods) for part in parts]


def _set_apart(text: str, folded: str) -> tuple[int, int] | None:
    """Where the words that set a part apart are (うち, one of them), else where a count said again with は begins
    after a first count (ふたつ ひとつは大盛りで): (start, where the part's own words begin)."""
    m = words.pattern("distributive", "part").search(folded)
    if m is not None:
        return m.start(), m.end()
    said = tokenise(text)
    numerals = [i for i, t in enumerate(said.tokens) if t.is_numeral]
    again = [m for p in words.token_patterns("distributive", "part_counted") for m in p.finditer(said)
             if numerals and m.first > numerals[0]]
    return (again[0].start, again[0].start) if again else None


def _part_apart(tool: Tool, text: str, folded: str, values: dict[str, list[Any]], periods: list[dict[str, str]],
                said_in: Callable[[str], dict[str, list[Any]]]) -> Pairs | None:
    """牛丼3つ、うち1つは大盛り: the quantity said less the part set apart, and the part with what is said of it;
    None where no part is set apart of a quantity said."""
    counts = [n for n, p in tool.params.items() if isinstance(p.extract, CountExtract)]
    apart = _set_apart(text, folded)
    if apart is None or len(counts) != 1:
        return None
    count = counts[0]
    whole, part = said_in(text[:apart[0]]), said_in(text[apart[1]:])
    n, some = (whole.get(count) or [None])[0], (part.get(count) or [1])[0]
    said_of_part = {p: v for p, v in part.items() if p != count}
    if not isinstance(n, int) or not isinstance(some, int) or not 0 < some < n or not said_of_part:
        return None
    rest = {p: v for p, v in values.items() if p not in said_of_part}
    return [({**rest, count: [n - some]}, periods), ({**values, **said_of_part, count: [some]}, periods)]
