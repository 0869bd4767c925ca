"""A value of the data said to be left out of a read: 「仕入先別の入荷数量合計（返品除く）」, 「返品以外で何本入った」,
"sales except the cancelled ones". A drafted tool filters by one value, never by all but one, so such a read is
refused with what can be asked instead: never the figure of that value alone (返品 read as the filter), nor of
every row (the value dropped). The words are data: `[excluded]` in planner/words/questions.toml.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

from concierge.catalog.model import EnumExtract, Tool
from concierge.language.tokens import tokenise
from concierge.planner import words
from concierge.planner.lexicon import Lexicon
from concierge.planner.slots import Slots
from concierge.planner.text import fold

__all__ = ["Excluded", "counted_in", "excluded", "said_excluded"]

_PARTICLES = ("は", "を", "が", "の", "、", " ")


@dataclass(frozen=True)
class Excluded:
    """The words said (返品以外) and the parameter of the tool whose value they leave out, if it has one."""

    said: str
    param: str | None


def excluded(tool: Tool, slots: Slots, lexicon: Lexicon) -> Excluded | None:
    """The first value of the data the request says to leave out, with the tool's parameter that takes it."""
    text = slots.text
    if slots.every_but:  # 返品以外で, except returns: read apart as values left alone
        said = said_excluded(text)
        if said is not None:
            return Excluded(said, _param(tool, lexicon, slots.kept_groups))
    for hit in slots.enums:
        groups = {k for k, _ in hit.value}
        if groups <= set(lexicon.static_values):
            continue  # a word of the catalog's own lists (by status), not a value of the data
        end = _japanese_after(text, hit.end)
        start = _english_before(text, hit.start) if end is None else None
        if end is None and start is None:
            continue
        said = text[hit.start:end] if end is not None else text[start:hit.end]
        return Excluded(said.strip(), _param(tool, lexicon, groups))
    said = said_excluded(text)
    return Excluded(said, None) if said is not None else None


def said_excluded(text: str) -> str | None:
    """The words that say a part is left out (返品以外, キャンセル抜きで, except returns), of a value or of words
    that name none: refused all the same, never answered for every row."""
    utterance = tokenise(text)
    for word in _longest_first("ja"):
        at = text.find(word)
        before = list(utterance.starting(0, at)) if at > 0 else []
        nouns: list[int] = []
        end = at
        while before and utterance.tokens[before[-1]].end == end and (
                utterance.tokens[before[-1]].is_noun or utterance.tokens[before[-1]].is_suffix
                or (nouns and utterance.tokens[before[-1]].is_prefix)):
            nouns.append(before.pop())  # 弁償|金 of 弁償金は別で; never 来院 of 来院 キャンセル除いて
            end = utterance.tokens[nouns[-1]].start
        if any(utterance.tokens[i].is_noun for i in nouns):
            return text[utterance.tokens[nouns[-1]].start:at + len(word)]
    said = [t.surface.lower() for t in utterance.tokens]
    for word in _longest_first("en"):
        parts = word.split()
        for i in range(len(said) - len(parts)):
            then = i + len(parts)
            if said[i:then] == parts and said[then].isalpha():
                after = utterance.tokens[then + (said[then] == "the" and then + 1 < len(said))]
                return text[utterance.tokens[i].start:after.end]
    return None


def counted_in(slots: Slots) -> Slots:
    """The slots without the values said to be counted in (キャンセルも入れて何件, including the cancelled ones): a
    read of every row, whose answer says which of them it holds; never those values alone."""
    text = slots.text
    kept = [h for h in slots.enums
            if _japanese_after(text, h.end, "in_ja") is None and _english_before(text, h.start, "in_en") is None]
    return slots if len(kept) == len(slots.enums) else replace(slots, enums=kept)


@cache
def _longest_first(key: str, folded: bool = False) -> tuple[str, ...]:
    """The words of `[excluded] key`, as said (or folded), the longest first: 返品は除く before 除く."""
    listed = words.words("excluded", key) if folded else words.said("excluded", key)
    return tuple(sorted(listed, key=len, reverse=True))


def _param(tool: Tool, lexicon: Lexicon, groups: set[str]) -> str | None:
    return next((p for p, param in tool.params.items() if isinstance(param.extract, EnumExtract)
                 and lexicon.enum_of[(tool.name, p)].key in groups), None)


def _japanese_after(text: str, end: int, key: str = "ja") -> int | None:
    """Where a word of leaving out (or of counting in) said right after `end` ends (返品|以外, 返品|は除く)."""
    rest = text[end:]
    for word in _longest_first(key):
        for lead in ("", *_PARTICLES):
            if rest.startswith(lead + word):
                return end + len(lead) + len(word)
    return None


def _english_before(text: str, start: int, key: str = "en") -> int | None:
    """Where a word of leaving out (or of counting in) said right before `start` begins (except| the |returns)."""
    before = fold(text[:start]).rstrip()
    if before.endswith(" the") or before == "the":
        before = before[:-3].rstrip()
    for word in _longest_first(key, folded=True):
        if before.endswith(word) and (len(before) == len(word) or not before[-len(word) - 1].isalpha()):
            return len(before) - len(word)
    return None
