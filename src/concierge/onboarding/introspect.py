"""What a business database says about itself: its tables and views, their columns, keys and
comments (SQLAlchemy's inspector), and a few facts read from the data (row counts, the distinct
values of low-cardinality text columns, the first and last date of date columns and how many rows leave
them empty, the number of
distinct values and the range of number columns).

Everything is computed by the database: `COUNT(*)`, `MIN`/`MAX`, and `SELECT DISTINCT ... LIMIT`
that stops as soon as a column has shown more values than an enum may have. No row is scanned in
Python, so a table of 10^7 rows costs a few aggregate queries. The queries are SQLAlchemy Core, so
that the dialect quotes every name (a space, a quote, ``%(x)s``, a colon, any script, a reserved
word) and no name is ever read as SQL text or as a parameter. The result is plain frozen
dataclasses (`Schema` > `Table` > `Column`) that `onboarding.draft` reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

import sqlalchemy as sa

from concierge.errors import DatabaseError
from concierge.onboarding import rights
from concierge.onboarding.duckdb_schema import DuckDBInspector
from concierge.onboarding.rights import SUMMARY_MIN_ROWS
from concierge.storage.database import Database

ENUM_MAX_VALUES = 30  # a text column with at most this many distinct values (and far fewer than rows) is an enum
TEXT_SAMPLE = 50  # values of a text column looked at to tell whether it holds ISO dates
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}(?P<time>[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?")

Kind = Literal["text", "integer", "number", "boolean", "date", "timestamp", "other"]


@dataclass(frozen=True)
class ForeignKey:
    columns: tuple[str, ...]
    table: str  # the referenced table
    referred: tuple[str, ...]  # its columns


@dataclass(frozen=True)
class Index:
    name: str
    columns: tuple[str, ...]
    unique: bool


@dataclass(frozen=True)
class Column:
    name: str
    type_name: str  # as the database declares it (VARCHAR(40), TIMESTAMP, TEXT ...)
    kind: Kind  # what it holds; a TEXT column of ISO dates is a `date` (or `timestamp`) stored as text
    nullable: bool
    comment: str | None = None
    primary_key: bool = False
    stored_as_text: bool = False  # a date or timestamp kept in a text column ('2025-05-01')
    native_text: bool = True  # for text: a plain string type (not a database enum type), compared as is
    values: tuple[str, ...] | None = None  # the distinct values, where the column is low-cardinality text
    few: tuple[str, ...] | None = None  # a text column's distinct values, where at most ENUM_MAX_VALUES
    first: str | None = None  # the first and last date (ISO) of a date column
    last: str | None = None
    samples: tuple[str, ...] = ()  # a few values of a text column (for the pattern of a key)
    uuid: bool = False  # a native uuid column (PostgreSQL's uuid): text to a request, compared as a uuid
    distinct: int | None = None  # a number column's distinct values, and its least and greatest (measures.py)
    low: float | None = None
    high: float | None = None
    nulls: int | None = None  # how many rows a date column leaves empty (a shipped_date of orders not shipped)

    @property
    def is_date(self) -> bool:
        return self.kind in ("date", "timestamp")


@dataclass(frozen=True)
class Table:
    name: str
    is_view: bool
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...]
    foreign_keys: tuple[ForeignKey, ...]
    indexes: tuple[Index, ...]
    row_count: int
    comment: str | None = None

    def column(self, name: str) -> Column:
        return next(c for c in self.columns if c.name == name)

    def fk_of(self, column: str) -> ForeignKey | None:
        return next((fk for fk in self.foreign_keys if fk.columns == (column,)), None)


@dataclass(frozen=True)
class Schema:
    dialect: str  # sqlite | postgresql | duckdb
    database: str  # the database's name (PostgreSQL) or the file's stem (SQLite)
    tables: tuple[Table, ...]
    # large tables whose owner this user is, so that summary tables and their triggers may be made beside them
    summarisable: frozenset[str] = frozenset()

    def table(self, name: str) -> Table | None:
        return next((t for t in self.tables if t.name == name), None)

    @property
    def row_count(self) -> int:
        return sum(t.row_count for t in self.tables if not t.is_view)


def introspect(db: Database) -> Schema:
    """Read the schema of the database's default schema (PostgreSQL: the search path's first, `public`)."""
    engine = db.engine
    try:
        inspector = DuckDBInspector(db) if engine.dialect.name == "duckdb" else sa.inspect(engine)
        names = [(n, False) for n in inspector.get_table_names()] + [(n, True) for n in inspector.get_view_names()]
        state = _state_tables()
        tables = []
        with db.read() as conn:
            for name, is_view in sorted(names, key=lambda n: (n[1], n[0])):
                if name in state or name.startswith(("sqlite_", "alembic_", "concierge_")):
                    continue
                tables.append(_table(conn, inspector, name, is_view))
            large = [t.name for t in tables if not t.is_view and t.row_count >= SUMMARY_MIN_ROWS]
            summarisable = rights.summarisable(conn, engine.url, large) if large else frozenset()
    except sa.exc.SQLAlchemyError as err:
        raise DatabaseError(f"could not read the schema of {db}: {err.__class__.__name__}: {err}") from None
    return Schema(engine.dialect.name, _database_name(engine.url), tuple(tables), summarisable)


def _state_tables() -> set[str]:
    """concierge's own tables (also named concierge_*), which are never business data."""
    from concierge.storage import state

    return set(state.metadata.tables)


def _database_name(url: sa.URL) -> str:
    if url.get_backend_name() in ("sqlite", "duckdb"):  # a file: its name without the extension
        path = url.database or "memory"
        return re.sub(r"\.[^./]*$", "", path.rsplit("/", 1)[-1]) or "memory"
    return url.database or "database"


def _table(conn: sa.Connection, inspector, name: str, is_view: bool) -> Table:
    pk = tuple(inspector.get_pk_constraint(name).get("constrained_columns") or ()) if not is_view else ()
    fks = () if is_view else tuple(
        ForeignKey(tuple(fk["constrained_columns"]), fk["referred_table"], tuple(fk["referred_columns"]))
        for fk in inspector.get_foreign_keys(name) if fk.get("referred_table") and fk.get("constrained_columns"))
    indexes = () if is_view else tuple(
        Index(ix.get("name") or "", tuple(c for c in ix["column_names"] if c), bool(ix.get("unique")))
        for ix in inspector.get_indexes(name))
    try:
        comment = inspector.get_table_comment(name).get("text")
    except NotImplementedError:  # SQLite keeps no comments
        comment = None
    table = sa.table(name)
    rows = int(conn.scalar(sa.select(sa.func.count()).select_from(table)) or 0)
    fk_columns = {c for fk in fks for c in fk.columns}
    columns = [_column(conn, table, col, rows, primary=col["name"] in pk, foreign=col["name"] in fk_columns,
                       sole_key=len(pk) == 1)
               for col in inspector.get_columns(name)]
    return Table(name, is_view, tuple(columns), pk, fks, indexes, rows, comment or None)


def _kind(type_: sa.types.TypeEngine) -> Kind:
    if isinstance(type_, sa.Uuid):  # keys written as text ('22912016-b9f2-...'), whatever the storage
        return "text"
    if isinstance(type_, sa.Boolean):
        return "boolean"
    if isinstance(type_, sa.Integer):
        return "integer"
    if isinstance(type_, sa.Numeric | sa.Float):
        return "number"
    if isinstance(type_, sa.DateTime):
        return "timestamp"
    if isinstance(type_, sa.Date):
        return "date"
    if isinstance(type_, sa.String):
        return "text"
    return "other"


def _column(conn: sa.Connection, table: sa.TableClause, info: dict, rows: int, *, primary: bool,
            foreign: bool, sole_key: bool = True) -> Column:
    type_ = info["type"]
    dialect = conn.dialect.name
    kind = _kind(type_)
    base = Column(
        name=info["name"], type_name=_type_name(type_, conn), kind=kind, nullable=bool(info.get("nullable", True)),
        comment=info.get("comment") or None, primary_key=primary,
        native_text=kind != "text" or not isinstance(type_, sa.Enum | sa.Uuid),
        uuid=isinstance(type_, sa.Uuid) and dialect != "sqlite",
    )
    stored_as_text = kind == "text" or (dialect == "sqlite" and kind in ("date", "timestamp"))
    if rows == 0:
        return base
    col: sa.ColumnClause = sa.column(info["name"])
    present = sa.select(col).select_from(table).where(col.is_not(None))
    samples: tuple[str, ...] = ()
    if stored_as_text:
        samples = tuple(str(v) for v in conn.scalars(present.limit(TEXT_SAMPLE)))
        isos = [_ISO.fullmatch(s.strip()) for s in samples]
        if samples and all(isos):
            timed = any(m and m["time"] for m in isos)
            kind = "timestamp" if timed or kind == "timestamp" else "date"
            base = replace(base, kind=kind, stored_as_text=True)
        elif kind in ("date", "timestamp"):  # a SQLite date column holding something else (epoch numbers ...)
            return replace(base, kind="other")
    if kind in ("date", "timestamp"):
        low, high, present = conn.execute(
            sa.select(sa.func.min(col), sa.func.max(col), sa.func.count(col)).select_from(table)).one()
        return replace(base, first=_iso(low), last=_iso(high), nulls=rows - int(present or 0))
    if kind == "text":
        values = few = None
        if not (primary and sole_key) and not foreign:  # a part of a key of several columns (a store) is a value
            found = [str(v) for v in conn.scalars(present.distinct().limit(ENUM_MAX_VALUES + 1))]
            if 0 < len(found) <= ENUM_MAX_VALUES:
                few = tuple(sorted(found))
                values = few if len(found) * 2 <= rows else None
        return replace(base, values=values, few=few, samples=samples[:20])
    if kind in ("integer", "number") and not primary and not foreign:
        distinct, low, high = conn.execute(
            sa.select(sa.func.count(sa.distinct(col)), sa.func.min(col), sa.func.max(col)).select_from(table)).one()
        return replace(base, distinct=int(distinct or 0), low=_float(low), high=_float(high))
    return base


def _float(value) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):  # a number column holding text (SQLite keeps what it is given)
        return None


def _type_name(type_: sa.types.TypeEngine, conn: sa.Connection) -> str:
    try:
        return type_.compile(dialect=conn.dialect)
    except Exception:  # noqa: BLE001 - a type this dialect cannot render: its class name is enough
        return type(type_).__name__


def _iso(value) -> str | None:
    if value is None:
        return None
    text = value.isoformat() if hasattr(value, "isoformat") else str(value)
    return text[:10]
