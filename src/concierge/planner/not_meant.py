"""The values said in the negative: 春巻きじゃなくて, not the cola, 郊外店じゃなくて本店. An order's edit reads them as
the line a swap replaces (planner/lines.py); a question never reads them as what it is about."""

from __future__ import annotations

from typing import Any

from concierge.language.tokens import Utterance, tokenise
from concierge.planner import words
from concierge.planner.slots import Slots


def values(slots: Slots) -> set[Any]:
    said = tokenise(slots.text)
    return {value for h in slots.enums for _, value in h.value
            if _not_after(said, h.end) is not None or _not_before(said, h.start)}


def said(slots: Slots, value: Any) -> str:
    """The words that said `value` in the negative, as said (郊外店じゃなくて)."""
    for h in slots.enums:
        if any(v == value for _, v in h.value):
            end = _not_after(tokenise(slots.text), h.end)
            return slots.text[h.start:end or h.end]
    return str(value)


def _not_after(said: Utterance, end: int) -> int | None:
    """Where the words that say the value said up to `end` is not meant end (春巻き|じゃなくて), if they are said."""
    first = said.starting(end, end + 1)
    if not first:
        return None
    return next((m.end for p in words.token_patterns("not_meant", "after") if (m := p.at(said, first[0]))), None)


def _not_before(said: Utterance, start: int) -> bool:
    """Whether "not" (the) is said right before the value said at `start` (not the coke)."""
    return any((m := p.ending(said, start, reach=2)) is not None and m.end < start
               for p in words.token_patterns("not_meant", "before"))
