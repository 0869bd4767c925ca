"""The summary table (rollup) drafted beside a large table, so that its summary and comparison tools answer
from a few thousand summed rows instead of millions (docs/catalog.md, "Rollups").

Drafted where the table has at least `rights.SUMMARY_MIN_ROWS` rows, the database user may build it
(`Schema.summarisable`), and the table keeps a date of its own (a day, not a time), never empty. Its grain is
that date and as many of the table's enum columns as keep it at most a tenth of the table's rows, fewest
values first; it sums the table's own amounts. A tool reads it only with the values it can answer: a filter
or a grouping by a column the rollup does not keep (a store among a thousand) reads the table itself."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from math import prod
from typing import Any

from concierge.catalog.model import SQL_PARAM
from concierge.onboarding.columns import amount_columns, enum_columns
from concierge.onboarding.draft.dated import period_date
from concierge.onboarding.introspect import Column, Schema, Table

SHRINK = 10  # a rollup is worth keeping where it has at most a tenth of the table's rows
_NAMED = re.compile(r'\b([A-Za-z_]\w*)\.(?:"((?:[^"]|"")+)"|`([^`]+)`|([A-Za-z_]\w*))')


@dataclass(frozen=True)
class Grain:
    """A drafted rollup: `name` sums `table` by `columns` (its date first), `sums` summed."""

    name: str
    table: str
    columns: tuple[str, ...]
    sums: tuple[str, ...]
    rows: int  # at most this many rows: the days times the values of each column

    def declaration(self) -> dict[str, Any]:
        return {"table": self.table, "group_by": list(self.columns), "sums": list(self.sums)}

    def keeps(self, sql: str) -> bool:
        """Whether every column `sql` names is one the rollup keeps, as the table's own (alias t)."""
        for m in _NAMED.finditer(sql):
            column = m.group(2).replace('""', '"') if m.group(2) else m.group(3) or m.group(4)
            if m.group(1) != "t" or column not in (*self.columns, *self.sums):
                return False
        return True


def grain(schema: Schema, table: Table) -> Grain | None:
    """The rollup of `table` (the module docstring), or None where none is worth drafting."""
    dated = period_date(table, [])
    sums = [c for c in amount_columns(table) if not c.nullable]
    if table.name not in schema.summarisable or table.is_view or dated is None or not sums:
        return None
    day = dated[1]
    if day.kind != "date" or day.nullable or day.first is None or day.last is None:
        return None
    days = (date.fromisoformat(day.last[:10]) - date.fromisoformat(day.first[:10])).days + 1
    limit = table.row_count // SHRINK
    if days > limit:
        return None
    kept: list[Column] = []
    for col in sorted(enum_columns(table), key=lambda c: len(c.values or ())):
        if col is day or col.nullable or col in sums:
            continue
        if days * prod(len(c.values or ()) for c in [*kept, col]) <= limit:
            kept.append(col)
    rows = days * prod(len(c.values or ()) for c in kept)
    return Grain(f"concierge_daily_{table.name}"[:63], table.name, (day.name, *(c.name for c in kept)),
                 tuple(c.name for c in sums), rows)


def statement_where(grain: Grain, where: list[str]) -> list[str] | None:
    """The conditions of a tool's statement that its rollup statement keeps: those over the rollup's columns.
    One over other columns is left out only where parameters of its own decide whether it applies (a call that
    gives one reads the table); None where a condition that always applies cannot be kept."""
    kept: list[str] = []
    left: list[str] = []
    for w in where:
        (kept if grain.keeps(w) else left).append(w)
    given = {p for w in left for p in SQL_PARAM.findall(w)}
    if any(not SQL_PARAM.search(w) for w in left) or given & {p for w in kept for p in SQL_PARAM.findall(w)}:
        return None
    return kept
