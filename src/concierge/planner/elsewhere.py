"""A figure the request names that the chosen tool does not have is asked of the summary that has it.

「その顧客の支払い合計は？」 after a question about customer 12, 「患者負担額の合計は？」, "How much has customer 5
paid?": the keyword names the entity (顧客, 患者), the figure is a measure of another table (the payments, the
bills). The entity's own read tool would list its row, a figure nobody asked for. The call moves to a summary of
the catalog that adds that figure up (a measure whose label is said, else a sum of money or a quantity named by
the words of planner/words/questions.toml) and takes everything the request says and points back at (その顧客:
the customer). Where none can, the request says so (planner/plan.py): never the entity's rows as its answer.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from concierge.catalog.model import Tool
from concierge.planner import comparisons, leftover, measure, ranking, words
from concierge.planner.lexicon import Lexicon
from concierge.planner.nouns import noun
from concierge.planner.slots import Slots
from concierge.planner.text import fold


@dataclass(frozen=True)
class Elsewhere:
    """The summary that has the figure named (`tool`, None when no summary can take the request), and the
    words that named it."""

    tool: Tool | None
    said: str


def figure_tool(tool: Tool, slots: Slots, lexicon: Lexicon, offered: Collection[str],
                entity: Collection[str] = ()) -> Elsewhere | None:
    """The summary for a figure `tool` lacks; None when the tool has the figure, or the request names none.
    `entity` are the parameters the conversation's entity is carried in (customer_id after customer 12)."""
    if tool.mode != "read" or measure.ranks(tool) or ranking.GROUP in tool.params:
        return None
    text = _without_noun(slots.cue_text, tool)  # "sales orders": the rows asked for, not their sales
    kinds = [k for k in ("money", "quantity") if words.pattern("measures", k).search(text)]
    found: list[tuple[tuple, Tool, str]] = []
    for other in ranking.summaries(lexicon, tool.catalog, offered):
        labelled = measure.by_name(other, text)
        figure = (labelled or measure.named(other, text)) if (kinds or labelled) else None
        if figure is None or figure.startswith(measure.COUNT_OF) or _has(tool, other, figure) \
                or (labelled is None and tool.result.money) or comparisons.unasked(other, slots):
            continue  # the tool's own rows show it: an invoice's total, named as money
        takes = sum(p in other.params for p in {*slots.referred, *entity})
        found.append(((labelled is not None, takes, -len(other.params)), other, measure.labels(other, figure)))
    if not found:
        return None
    said = max(found, key=lambda f: f[0])[2].split("|")[0]
    fits = [(rank, other) for rank, other, _ in found if not leftover.left(other, slots, lexicon, set(offered))
            and all(p in other.params for p in {*slots.referred, *entity})]
    if not fits:
        return Elsewhere(None, said) if any(rank[0] for rank, _, _ in found) else None
    return Elsewhere(max(fits, key=lambda f: f[0])[1], said)


def _without_noun(text: str, tool: Tool) -> str:
    """The request without the words of the tool's own noun (sales orders, 売上伝票), blanked out in place."""
    n = noun(tool)
    for said in sorted({n.many.lower(), n.one.lower(), fold(n.ja)}, key=len, reverse=True):
        if said:
            text = text.replace(said, " " * len(said))
    return text


def _has(tool: Tool, summary: Tool, figure: str) -> bool:
    """Whether the tool's own rows show the figure's column (an invoice's total): then it answers itself."""
    column = measure.column(summary, figure)
    own = {f.split("|")[0] for f in [measure.labels(tool, c) for c in tool.result.labels]}
    return column in tool.result.labels or measure.labels(summary, figure).split("|")[0] in own
