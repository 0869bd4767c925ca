"""The date a drafted tool's period is over: a row's own event date, else that of the row it belongs to."""

from __future__ import annotations

from concierge.onboarding import measures
from concierge.onboarding.columns import date_columns
from concierge.onboarding.draft.intents import of_sales
from concierge.onboarding.draft.paths import Join
from concierge.onboarding.introspect import Column, Table


def period_date(table: Table, joins: list[Join]) -> tuple[str, Column, Table] | None:
    """The date a summary's period is over: the table's own, else that of a table it points at, the one its key
    belongs to first (an order line's order, not its product's first day on sale)."""
    own = [c for c in date_columns(table) if measures.event_date(c)]
    if own:
        return "t", own[0], table
    for j in sorted(joins, key=lambda j: (j.key(table).name not in table.primary_key,  # a line's order first
                                          not of_sales(j.table.name, j.table.comment))):
        theirs = [c for c in date_columns(j.table) if measures.event_date(c)]
        if theirs and j.table.name != table.name:
            return j.alias, theirs[0], j.table
    return None
