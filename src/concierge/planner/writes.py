"""Several writes said in one message: each carries its own values, or the planner asks.

「0016にかぼちゃ4個を600円、0017にナス3個を300円で売った」 is two sales. Each code said gets the goods,
the sum and the day said in the same order (the first goods and sum with the first code, and so on);
when the counts do not line up, which belongs to which is asked, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from concierge.catalog.model import AmountExtract, CodeExtract, ItemsExtract, Tool
from concierge.planner.slots import Slots, english_item_groups


@dataclass(frozen=True)
class Unpaired:
    """The codes said outnumber (or are outnumbered by) the goods or sums said with them."""

    params: tuple[str, ...]


def pair(tool: Tool, slots: Slots, values: dict[str, list[Any]], periods: list[dict[str, str]]
         ) -> list[tuple[dict[str, list[Any]], list[dict[str, str]]]] | Unpaired | None:
    """One (values, periods) per write when several codes are said to a write tool; None when it is one write."""
    if tool.mode != "write":
        return None
    codes = [n for n, p in tool.params.items() if isinstance(p.extract, CodeExtract) and len(values.get(n, [])) > 1]
    if len(codes) != 1:
        return None
    code = codes[0]
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
