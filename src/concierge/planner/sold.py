"""How many were sold is the quantity the sales lines add up, not how many rows there are.

"How many units of Chai have we sold?", 「かつお節 500gは今までに何個売れた？」, "How many tracks did we sell in
2012?": a question of how many, said with selling or a quantity (words in planner/words/questions.toml), goes to
the summary whose rows are the lines sold: one that sums a quantity (a measure that is neither money nor a count)
and takes every value the request says (the product, the period). The figure it states is that quantity
(planner/measure.py). A question that names no quantity and no selling keeps its tool: 注文明細は何件 counts rows.
How many of a thing, counted in a counter of goods (何台, 何個), of rows that are events (dated) with a quantity
is that quantity too (エアコンクリーニングは何台やった: the units cleaned, not the jobs); of rows that are things
(アルバムは何枚) it is how many rows there are.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from concierge.catalog.model import Tool
from concierge.planner import leftover, measure, people_tables, ranking, words
from concierge.planner.counting import COUNTING
from concierge.planner.lexicon import Lexicon, takes_dates
from concierge.planner.nouns import noun
from concierge.planner.slots import Slots
from concierge.planner.text import fold


@dataclass(frozen=True)
class Sold:
    """The line summary that answers, and the `rank_by` value of the quantity it states."""

    tool: Tool
    figure: str
    args: dict[str, Any]  # the grouping kept to none where the noun of what was sold read as one (tracks)
    tied: tuple[str, ...] = ()  # other summaries of other rows that count as well (visits, product sales): asked


def lines_sold(tool: Tool, slots: Slots, lexicon: Lexicon, offered: Collection[str]) -> Sold | None:
    text = slots.cue_text
    asked = COUNTING.search(slots.text)
    if tool.mode != "read" or asked is None:
        return None
    sold = words.pattern("sold", "words").search(text) is not None
    quantity = words.pattern("measures", "quantity").search(text) is not None
    goods = asked["counter"] in _GOODS and takes_dates(tool)  # エアコンクリーニングは何台やった: the units of the jobs
    if not (sold or quantity or goods):
        return None
    own = noun(tool)
    found = sorted(ranking.summaries(lexicon, tool.catalog, offered),
                   key=lambda t: (not _sells(t), t.name != tool.name,
                                  noun(t).ja != own.ja and noun(t).many != own.many))
    for other in found:
        if not (sold or quantity) and noun(other).ja != own.ja:  # counted in units, only of the same rows
            continue
        figure = _quantity(other)
        if figure is not None and not leftover.left(other, slots, lexicon, set(offered)):
            return Sold(other, figure, _ungrouped(other, slots, lexicon))
    return None


_GOODS = frozenset(words.said("counters", "goods"))
_OF_PEOPLE = frozenset(words.said("counters", "people"))  # 佐藤さんは何人: people named so, counted


def times_counted(tool: Tool, slots: Slots, lexicon: Lexicon, offered: Collection[str]) -> Sold | None:
    """How many times something happened counts the rows of events, not of a list of things: 「カットは何回出た？」
    is the lines of the menu カット, never the menus of the kind カット. A request that counts in 回 / times on a tool
    whose rows have no date, or are the person it names, goes to a summary of dated rows that takes every value it
    says."""
    asked = COUNTING.search(slots.text)
    times = (asked is not None and asked["counter"] == "回") or ranking.asks_times(slots)
    person = tool.mode == "read" and people_tables.own_row_named(slots, lexicon, tool.name)
    if person and asked is not None and asked["counter"] not in _OF_PEOPLE:
        times = True  # スタッフの鈴木さんの担当件数: the rentals he handled, never his one row
    if tool.mode != "read" or not times or (takes_dates(tool) and not person):
        return None
    found = [(other, count) for other in ranking.summaries(lexicon, tool.catalog, offered)
             if (count := measure.count_of(other)) is not None
             and takes_dates(other) and not leftover.left(other, slots, lexicon, set(offered))]
    if not found:
        return None
    (first, count), rest = found[0], found[1:]
    return Sold(first, count, {}, tuple(t.name for t, _ in rest if noun(t).ja != noun(first).ja))




def _sells(tool: Tool) -> bool:
    """Whether a summary's own words say its rows were sold (units sold, 何個売れた): the sales lines, not the
    lines of a purchase order, which count pieces too."""
    sold = words.pattern("sold", "words")
    return tool.intents is not None and any(sold.search(fold(k)) for k in tool.intents.keywords)


def _ungrouped(tool: Tool, slots: Slots, lexicon: Lexicon) -> dict[str, Any]:
    """How many tracks did we sell: "tracks" names what was sold, not a grouping by track (by track would)."""
    p = tool.params[ranking.GROUP]
    group = lexicon.enum_of[(tool.name, ranking.GROUP)].key
    said = [slots.text[h.start:h.end] for h in slots.enums if any(k == group for k, _ in h.value)]
    if said and all(not ranking.AFFIX.search(fold(w)) for w in said):
        return {ranking.GROUP: p.default}
    return {}


def _quantity(tool: Tool) -> str | None:
    """The `rank_by` value of the quantity a summary adds up, if it adds one up."""
    money = set(tool.result.money)
    found = [v for v in measure.ranks(tool) if not v.startswith(measure.COUNT_OF) and v not in money]
    named = [v for v in found if words.pattern("measures", "quantity").search(measure.labels(tool, v))]
    return next(iter(named or found), None)
