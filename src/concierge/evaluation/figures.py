"""The figures generated questions expect, computed here by SQL of our own from the introspected schema
(`onboarding.introspect`), never by a catalog's statements: a drafted tool that counts or sums the wrong
rows cannot agree with itself. The SQL is SQLAlchemy Core, so the dialect quotes every name."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import sqlalchemy as sa

from concierge.onboarding.columns import Display
from concierge.onboarding.introspect import Column, ForeignKey, Table
from concierge.storage.database import Database, is_mysql

MONEY_DIGITS = Decimal("0.01")  # amounts that are not whole numbers are money in a currency with cents


@dataclass(frozen=True)
class Entity:
    key: Any
    name: str
    rows: int  # rows of the referring table that point at it
    total: Decimal | None = None


class Figures:
    """Counts, totals and rankings of one database's tables."""

    def __init__(self, db: Database):
        self.db = db

    def _scalar(self, query: sa.Select) -> Any:
        with self.db.read() as conn:
            return conn.execute(query).scalar()

    def _rows(self, query: sa.Select) -> list[sa.Row]:
        with self.db.read() as conn:
            return list(conn.execute(query))

    def count(self, table: Table, date_col: Column | None = None, start: date | None = None,
              end: date | None = None) -> int:
        """Rows of the table (with a date in [start, end) when given)."""
        query: sa.Select[Any] = sa.select(sa.func.count()).select_from(sa.table(table.name))
        if date_col is not None and start is not None and end is not None:
            query = query.where(*_within(date_col, start, end))
        return int(self._scalar(query) or 0)

    def total(self, table: Table, amount: Column, date_col: Column | None = None, start: date | None = None,
              end: date | None = None) -> Decimal:
        query: sa.Select[Any] = sa.select(sa.func.sum(sa.column(amount.name))).select_from(sa.table(table.name))
        if date_col is not None and start is not None and end is not None:
            query = query.where(*_within(date_col, start, end))
        return _decimal(self._scalar(query))

    def months(self, table: Table, date_col: Column) -> list[tuple[str, int]]:
        """('YYYY-MM', rows) of each month with rows, the busiest first (then the earliest)."""
        month = _month(date_col, self.db.engine.dialect.name).label("month")
        count = sa.func.count().label("n")
        query = (sa.select(month, count).select_from(sa.table(table.name))
                 .where(sa.column(date_col.name).is_not(None)).group_by(month).order_by(count.desc(), month))
        return [(str(m), int(n)) for m, n in self._rows(query)]

    def per_entity(self, table: Table, fk: ForeignKey, ref: Table, display: Display,
                   amount: Column | None = None, limit: int = 20) -> list[Entity]:
        """The referenced rows with the most referring rows (or the largest total of `amount`), first."""
        t, r = _table(table).alias("t"), _table(ref).alias("r")
        key, name = r.c[fk.referred[0]], _shown_name(r, display)
        rows = sa.func.count().label("rows")
        total = sa.func.sum(t.c[amount.name]).label("total") if amount else sa.null()
        query = (sa.select(key, name, rows, total).select_from(r.join(t, t.c[fk.columns[0]] == key))
                 .group_by(key, name).order_by((total if amount else rows).desc(), name).limit(limit))
        return [Entity(k, str(n), int(c), _decimal(s) if amount else None) for k, n, c, s in self._rows(query)
                if n is not None]

    def named_alone(self, ref: Table, display: Display, name: str) -> bool:
        """Whether no other row's name holds this one (a search for it finds that row alone)."""
        r = _table(ref)
        query = (sa.select(sa.func.count()).select_from(r)
                 .where(sa.func.lower(_shown_name(r, display)).contains(name.lower(), autoescape=True)))
        return int(self._scalar(query) or 0) == 1


def shown(value: Decimal | int, column: Column) -> str:
    """A figure as an answer prints it: whole numbers as they are, other amounts rounded to cents, both with
    thousands separators and without trailing zeros (81.20 is written 81.2, which 81.20 contains)."""
    number = Decimal(value)
    if column.kind != "integer":
        number = number.quantize(MONEY_DIGITS, rounding=ROUND_HALF_UP)
    if number == number.to_integral_value():
        return f"{int(number):,}"
    return f"{number.normalize():,}"


def _table(table: Table) -> sa.TableClause:
    return sa.table(table.name, *(sa.column(c.name, sa.String() if c.kind == "text" else None)
                                  for c in table.columns))


def _shown_name(row: sa.FromClause, display: Display) -> sa.ColumnElement[Any]:
    """A row's name as a person reads it: its name column, or its names joined with a space (first last)."""
    parts = [row.c[c.name] for c in display.columns]
    if len(parts) == 1:
        return parts[0]
    joined: sa.ColumnElement[Any] = sa.func.coalesce(parts[0], "")
    for part in parts[1:]:
        joined = joined + " " + sa.func.coalesce(part, "")
    return sa.func.trim(joined)


def _decimal(value: Any) -> Decimal:
    if value is None:
        return Decimal(0)
    return value if isinstance(value, Decimal) else Decimal(str(value))


def _within(col: Column, start: date, end: date) -> list[sa.ColumnElement[bool]]:
    """The column within [start, end): ISO texts compare as texts, native dates and timestamps as dates."""
    c: sa.ColumnClause[Any] = sa.column(col.name)
    if col.stored_as_text:
        return [c >= start.isoformat(), c < end.isoformat()]
    return [c >= sa.literal(start, sa.Date), c < sa.literal(end, sa.Date)]


def _month(col: Column, dialect: str) -> sa.ColumnElement[Any]:
    c: sa.ColumnClause[Any] = sa.column(col.name)
    if col.stored_as_text or dialect == "sqlite":
        return sa.func.substr(c, 1, 7)
    if is_mysql(dialect):
        return sa.func.date_format(c, "%Y-%m")
    return sa.func.to_char(c, "YYYY-MM")
