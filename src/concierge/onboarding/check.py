"""`concierge catalog check`: catalogs checked against the live database, writing nothing.

What is checked, for each catalog file (every finding names the file and the key):

1. the YAML itself: the loader's checks (keys, types, parameters, the roles a tool names are declared,
   a tool declared twice);
2. every statement (``sql``, ``preview_sql``, ``checks``) prepares on the database: ``EXPLAIN`` with
   the parameters bound as the pipeline binds them (typed), so a missing table or column and, on
   PostgreSQL, a parameter of the wrong type show without the statement running;
3. every enum and bounds query runs and returns values;
4. parameter types fit the columns they are compared with (``col = :p``, ``col >= :p``,
   ``col LIKE :p``, ``col BETWEEN :a AND :b``, ``col IN (:p)``), by the types the database reports;
5. a write tool runs with sample values (enum values, values from the data, values of the declared
   pattern) inside a transaction that is rolled back, so a constraint it would violate shows.

Problems fail the check (exit 1). Two kinds of finding do not: drafted text still to review (the
catalog's ``review:`` list, so a fresh draft from ``concierge init`` passes) and a write that could not
be exercised because its checks found no row for the sample values (a note).

Each tool is checked in one transaction that is rolled back (a read-only one for read tools); every
statement in it runs in a savepoint of its own, so one failure does not hide the next.
"""

from __future__ import annotations

import random
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import rstr
import sqlalchemy as sa

from concierge import demo
from concierge.catalog.loader import Catalog, load_catalog
from concierge.catalog.model import IDENTITY_PARAMS, Param, Tool
from concierge.errors import CatalogError, CatalogProblem
from concierge.language.dates import as_date
from concierge.onboarding.duckdb_schema import DuckDBInspector
from concierge.sources.sql.bind import bind, sql_values
from concierge.storage import duckdb_file, rollups
from concierge.storage.database import Database, first_line

CHECK_USER = "concierge-check"
REVIEW = "drafted text to review"
REVIEW_HINT = ("drafted texts: read and correct each, then remove its key from the review: list of its catalog "
               "(they do not fail the check)")


@dataclass
class Report:
    """What a check found. `problems` fail it; `reviews` and `notes` are reminders."""

    catalogs: int = 0
    tools: int = 0
    problems: list[CatalogProblem] = field(default_factory=list)
    notes: list[CatalogProblem] = field(default_factory=list)
    reviews: list[CatalogProblem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        def n(count: int, one: str, many: str) -> str:
            return f"{count} {one if count == 1 else many}"

        parts = [n(len(self.problems), "problem", "problems")]
        if self.notes:
            parts.append(n(len(self.notes), "note", "notes"))
        parts.append(n(len(self.reviews), "drafted text to review", "drafted texts to review"))
        return (f"{n(self.catalogs, 'catalog', 'catalogs')}, {n(self.tools, 'tool', 'tools')} checked: "
                + ", ".join(parts))


def check_catalogs(refs: list[str], db: Database, *, today: date | None = None) -> Report:
    """Check the catalogs `refs` (files or demo names) against the database `db`."""
    report = Report()
    owner: dict[str, str] = {}
    with db.errors():
        columns = _Columns(db)
        for ref in refs:
            report.catalogs += 1
            try:
                catalog = load_catalog(ref)
            except CatalogError as err:
                report.problems.extend(err.problems)
                continue
            report.tools += len(catalog.tools)
            for name in catalog.tools:
                if name in owner:
                    report.problems.append(
                        CatalogProblem(catalog.file, f"tools.{name}", f"also declared in {owner[name]}"))
                owner.setdefault(name, catalog.file)
            report.reviews.extend(CatalogProblem(catalog.file, key, REVIEW) for key in catalog.spec.review)
            if catalog.spec.demo and not demo.is_installed(db, catalog.spec.demo):
                report.problems.append(CatalogProblem(
                    catalog.file, "demo", f"the tables of the {catalog.spec.demo} demo are not in this database; "
                    f"install them with: concierge db init --catalog {catalog.spec.demo} --database URL"))
                continue
            clock = today or catalog.demo_today or date.today()
            built = _rollups(db, catalog, report)
            for tool in catalog.tools.values():
                if tool.http is not None:  # a web API's tool runs no statement on this database
                    report.notes.append(CatalogProblem(catalog.file, f"tools.{tool.name}",
                                                       "calls a web API: not checked against the database"))
                    continue
                for kind, finding in _ToolCheck(db, catalog, tool, columns, clock, built).run():
                    (report.problems if kind == "problem" else report.notes).append(finding)
    return report


def _rollups(db: Database, catalog: Catalog, report: Report) -> frozenset[str]:
    """Which of the catalog's rollups tools read now; the others are noted, with what to do."""
    declared = catalog.spec.rollups
    if not declared or db.engine.dialect.name not in ("sqlite", "postgresql"):
        return frozenset()  # MySQL, MariaDB and DuckDB keep no rollups: `db refresh` says so and what to do
    with db.read() as conn:
        built = rollups.current(conn, declared)
    for name, rollup in declared.items():
        if name not in built:
            readers = ", ".join(t.name for t in catalog.tools.values() if t.rollup and t.rollup.table == name)
            report.notes.append(CatalogProblem(
                catalog.file, f"rollups.{name}", f"not built or not current: {readers} read {rollup.table} itself "
                "on every call; build it with: concierge db refresh"))
    return built


# --- one tool -------------------------------------------------------------------------------------------
class _RolledBack(Exception):
    """Leaves the tool's transaction so that it is rolled back."""


class _ToolCheck:
    def __init__(self, db: Database, catalog: Catalog, tool: Tool, columns: _Columns, today: date,
                 built: frozenset[str] = frozenset()):
        self.db, self.catalog, self.tool, self.columns, self.today = db, catalog, tool, columns, today
        self.built = built  # the rollups that are current: their statements are prepared too
        self.key = f"tools.{tool.name}"
        self.found: list[tuple[str, CatalogProblem]] = []
        self.enum_values: dict[str, list[str]] = {}
        self.last_dates: dict[str, date] = {}

    def problem(self, key: str, message: str) -> None:
        self.found.append(("problem", CatalogProblem(self.catalog.file, key, message)))

    def note(self, key: str, message: str) -> None:
        self.found.append(("note", CatalogProblem(self.catalog.file, key, message)))

    def statements(self) -> dict[str, str]:
        texts = {f"{self.key}.sql": self.tool.sql}
        if self.tool.rollup is not None and self.tool.rollup.table in self.built:
            texts[f"{self.key}.rollup.sql"] = self.tool.rollup.sql
        if self.tool.preview_sql:
            texts[f"{self.key}.preview_sql"] = self.tool.preview_sql
        for i, check in enumerate(self.tool.checks):
            texts[f"{self.key}.checks.{i}.sql"] = check.sql
        return texts

    def run(self) -> list[tuple[str, CatalogProblem]]:
        write = self.tool.mode == "write"
        if write and self.db.refuses_writes:
            self.problem(f"{self.key}.mode", f"a write tool cannot run here: {self.db.refuses_writes}")
            return self.found
        try:
            with self.db.write() if write else self.db.read() as conn:
                self._data_queries(conn)
                comparisons = {where: _comparisons(sql) for where, sql in self.statements().items()}
                self._types(conn, comparisons)
                values = self._samples(conn, comparisons)
                prepared = {where: self._prepare(conn, where, sql, values) for where, sql in self.statements().items()}
                if write and all(prepared.values()):
                    self._exercise(conn, values)
                raise _RolledBack
        except _RolledBack:
            pass
        return self.found

    # enum and bounds queries ---------------------------------------------------------------------------
    def _data_queries(self, conn: sa.Connection) -> None:
        for pname, p in self.tool.params.items():
            pkey = f"{self.key}.params.{pname}"
            if p.enum and p.enum.query:
                rows = self._attempt(conn, f"{pkey}.enum.query", p.enum.query)
                if rows is not None:
                    values = [str(r[0]) for r in rows if r and r[0] is not None]
                    if values:
                        self.enum_values[pname] = values
                    else:
                        self.problem(f"{pkey}.enum.query", "the query returns no values (is its table empty?); "
                                     "the parameter would accept nothing")
            if p.bounds and p.bounds.query:
                rows = self._attempt(conn, f"{pkey}.bounds.query", p.bounds.query)
                if rows is None:
                    continue
                if len(rows) != 1 or len(rows[0]) != 2:
                    self.problem(f"{pkey}.bounds.query", "the query must return one row of two columns "
                                 "(first date, last date)")
                elif rows[0][0] is None or rows[0][1] is None:
                    self.problem(f"{pkey}.bounds.query", "the query returns no dates (is its table empty?)")
                else:
                    try:
                        as_date(rows[0][0])
                        self.last_dates[pname] = as_date(rows[0][1])
                    except ValueError:
                        self.problem(f"{pkey}.bounds.query", f"the query returns {rows[0][0]!r}, {rows[0][1]!r}, "
                                     "not dates")

    def _attempt(self, conn: sa.Connection, key: str, sql: str) -> list[tuple] | None:
        try:
            with duckdb_file.attempt(conn):
                return [tuple(r) for r in conn.execute(sa.text(sql)).fetchmany(10_000)]
        except sa.exc.DBAPIError as err:
            self.problem(key, f"the query fails: {first_line(err)}")
            return None

    # parameter types against column types -------------------------------------------------------------
    def _types(self, conn: sa.Connection, comparisons: dict[str, list[_Comparison]]) -> None:
        reported: set[tuple[str, str]] = set()
        for where, found in comparisons.items():
            for c in found:
                param = self.tool.params.get(c.param)
                if param is None:
                    continue
                column = self.columns.resolve(conn, c)
                if column is None or (c.param, column.name) in reported:
                    continue
                message = _mismatch(param, c, column, sqlite=self.db.is_sqlite)
                if message:
                    reported.add((c.param, column.name))
                    self.problem(f"{self.key}.params.{c.param}", f"{message} (in {where})")

    # sample values -----------------------------------------------------------------------------------
    def _samples(self, conn: sa.Connection, comparisons: dict[str, list[_Comparison]]) -> dict[str, Any]:
        targets: dict[str, list[_Column]] = {}
        for found in comparisons.values():
            for c in found:
                column = self.columns.resolve(conn, c)
                if column is not None:
                    targets.setdefault(c.param, []).append(column)
        for param, (table, name) in _inserted_columns(self.tool.sql):
            resolved = self.columns.get(conn, table, name)
            if resolved is not None:
                targets.setdefault(param, []).append(resolved.referenced or resolved)
        values: dict[str, Any] = {}
        for pname, p in self.tool.params.items():
            values[pname] = self._sample(conn, pname, p, targets.get(pname, []))
        values.update({"_user": CHECK_USER, "_role": self.tool.roles[0], "_all_rows": True, "_today": self.today,
                       "_now": "12:00", "_session": "catalog-check", "_caller": None})
        stamp = datetime.now().strftime("%H%M%S")
        for gname, gen in self.tool.generated.items():
            values[gname] = f"{gen.prefix}{self.today:%Y%m%d}{stamp}-{secrets.token_hex(3).upper()}"
        return values

    def _sample(self, conn: sa.Connection, pname: str, p: Param, columns: list[_Column]) -> Any:
        if p.default is not None:
            if p.type == "date":
                return self.today if p.default == "today" else date.fromisoformat(p.default)
            return p.default
        if p.type == "enum":
            values = (p.enum.values if p.enum and p.enum.values else None) or self.enum_values.get(pname) or ["x"]
            return values[0]
        if p.type == "date":
            if p.bounds and p.bounds.max and p.bounds.max != "today":
                return min(date.fromisoformat(p.bounds.max), self.today)
            return self.last_dates.get(pname, self.today)
        if p.type == "integer":
            low = p.min if p.min is not None else 1
            return min(low, p.max) if p.max is not None else low
        for column in columns:  # a string: a value the data has, where the parameter meets a column
            value = self.columns.sample(conn, column, p.pattern)
            if value is not None:
                return value
        text = _pattern_sample(p.pattern) if p.pattern else None
        if text is None:
            text = "check"
            if p.min_length:
                text = text.ljust(p.min_length, "x")
        return text[: p.max_length] if p.max_length else text

    # prepare and run -------------------------------------------------------------------------------
    def _prepare(self, conn: sa.Connection, where: str, sql: str, values: dict[str, Any]) -> bool:
        """EXPLAIN the statement with its typed parameters: compiled and planned, not run."""
        statement = bind(self.tool, "EXPLAIN " + sql.strip().rstrip(";"))
        try:
            with duckdb_file.attempt(conn):
                conn.execute(statement, sql_values(self.tool, values)).fetchall()
            return True
        except sa.exc.DBAPIError as err:
            self.problem(where, f"does not prepare on {conn.dialect.name}: {first_line(err)}")
            return False

    def _exercise(self, conn: sa.Connection, values: dict[str, Any]) -> None:
        """Run the write with sample values (its checks first, as the pipeline does); rolled back after."""
        bound = sql_values(self.tool, values)
        shown = ", ".join(f"{k}={values[k]!r}" for k in self.tool.params)
        try:
            with duckdb_file.attempt(conn):
                for i, check in enumerate(self.tool.checks):
                    if conn.execute(bind(self.tool, check.sql), bound).first() is None:
                        self.note(f"{self.key}.checks.{i}.sql", f"the write was not tried: this check finds no row "
                                  f"for the sample values ({shown})")
                        return
                conn.execute(bind(self.tool, self.tool.sql), bound)
        except sa.exc.IntegrityError as err:
            self.problem(f"{self.key}.sql", f"with sample values ({shown}) the write violates a constraint: "
                         f"{first_line(err)}")
        except sa.exc.DBAPIError as err:
            self.problem(f"{self.key}.sql", f"with sample values ({shown}) the write fails: {first_line(err)}")


# --- reading the SQL ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Comparison:
    param: str
    op: str
    column: str
    alias: str | None
    tables: dict[str, str]  # alias or name -> table name, of the statement


_NAME = r"[A-Za-z_][A-Za-z0-9_$]*"
_COL = rf"(?:(?P<alias>{_NAME})\.)?(?P<col>{_NAME})"
_WRAP = r"(?:(?:LOWER|UPPER|TRIM)\s*\(\s*)?"
_OPS = r"=|<>|!=|<=|>=|<|>|\bNOT\s+I?LIKE\b|\bI?LIKE\b"
_COL_OP_PARAM = re.compile(rf"{_WRAP}{_COL}\s*\)?\s*(?P<op>{_OPS})\s*{_WRAP}:(?P<param>{_NAME})", re.I)
_PARAM_OP_COL = re.compile(
    rf"(?<![:\w]):(?P<param>{_NAME})\s*\)?\s*(?P<op>=|<>|!=|<=|>=|<|>)\s*{_WRAP}{_COL}\b(?!\s*\()", re.I)
_BETWEEN = re.compile(rf"{_COL}\s+(?:NOT\s+)?BETWEEN\s+:(?P<a>{_NAME})\s+AND\s+:(?P<b>{_NAME})", re.I)
_IN = re.compile(rf"{_COL}\s+(?:NOT\s+)?IN\s*\(\s*:(?P<param>{_NAME})\s*\)", re.I)
_KEYWORDS = {
    "where", "join", "on", "left", "right", "inner", "outer", "cross", "full", "natural", "group", "order",
    "limit", "offset", "set", "values", "using", "union", "having", "window", "returning", "select", "as",
    "and", "or", "not", "null", "is", "then", "else", "end", "when", "case", "in", "between", "like", "ilike",
    "default", "true", "false", "current_date", "current_timestamp",
}
_QUALIFIED = rf"{_NAME}(?:\.{_NAME})?"
_TABLE_REF = re.compile(
    rf"\b(?:FROM|JOIN|UPDATE|INTO)\s+(?P<table>{_QUALIFIED})(?:\s+(?:AS\s+)?(?P<alias>{_NAME}))?", re.I)
_INSERT = re.compile(
    rf"\bINSERT\s+INTO\s+(?P<table>{_QUALIFIED})\s*\((?P<cols>[^)]*)\)\s*VALUES\s*\((?P<vals>[^)]*)\)", re.I)


def _tables(sql: str) -> dict[str, str]:
    tables: dict[str, str] = {}
    for m in _TABLE_REF.finditer(sql):
        table, alias = m["table"], m["alias"]
        tables.setdefault(table.split(".")[-1].lower(), table)
        if alias and alias.lower() not in _KEYWORDS:
            tables[alias.lower()] = table
    return tables


def _comparisons(sql: str) -> list[_Comparison]:
    """Where a parameter meets a column: `col op :p`, `:p op col`, BETWEEN, IN."""
    tables = _tables(sql)
    found = []
    for pattern in (_COL_OP_PARAM, _PARAM_OP_COL, _IN):
        for m in pattern.finditer(sql):
            if m["col"].lower() not in _KEYWORDS:
                found.append(_Comparison(m["param"], m["op"].upper(), m["col"], m["alias"], tables))
    for m in _BETWEEN.finditer(sql):
        if m["col"].lower() not in _KEYWORDS:
            found.extend(_Comparison(p, "BETWEEN", m["col"], m["alias"], tables) for p in (m["a"], m["b"]))
    return [c for c in found if c.param not in IDENTITY_PARAMS]


def _inserted_columns(sql: str) -> Iterator[tuple[str, tuple[str, str]]]:
    """(param, (table, column)) for each `:param` an INSERT puts into a column."""
    for m in _INSERT.finditer(sql):
        cols = [c.strip().strip('"') for c in m["cols"].split(",")]
        vals = [v.strip() for v in m["vals"].split(",")]
        for col, val in zip(cols, vals, strict=False):
            if re.fullmatch(rf":{_NAME}", val):
                yield val[1:], (m["table"], col)


# --- what the database says about columns -------------------------------------------------------------
@dataclass(frozen=True)
class _Column:
    table: str
    name: str
    type: Any
    referenced: _Column | None = None  # the column a foreign key points at

    @property
    def category(self) -> str:
        t = self.type
        if isinstance(t, sa.Boolean):
            return "boolean"
        if isinstance(t, sa.Integer | sa.Numeric | sa.Float):
            return "number"
        if isinstance(t, sa.Date | sa.DateTime):
            return "date"
        if isinstance(t, sa.String):
            return "text"
        return "other"


class _Columns:
    """Columns of the tables the statements name, read once through SQLAlchemy's inspector."""

    def __init__(self, db: Database):
        self.db = db
        self._tables: dict[str, dict[str, _Column] | None] = {}

    def table(self, conn: sa.Connection, table: str) -> dict[str, _Column] | None:
        key = table.lower()
        if key not in self._tables:
            schema, _, name = table.rpartition(".")
            inspector = DuckDBInspector(conn) if conn.dialect.name == "duckdb" else sa.inspect(conn)
            try:
                with duckdb_file.attempt(conn):
                    cols = inspector.get_columns(name, schema=schema or None)
                    fks = inspector.get_foreign_keys(name, schema=schema or None)
            except (sa.exc.NoSuchTableError, sa.exc.DBAPIError):
                self._tables[key] = None
                return None
            columns = {c["name"].lower(): _Column(table, c["name"], c["type"]) for c in cols}
            self._tables[key] = columns
            for fk in fks:
                target_table = ".".join(p for p in (fk.get("referred_schema"), fk["referred_table"]) if p)
                for own, ref in zip(fk["constrained_columns"], fk["referred_columns"], strict=False):
                    target = self.get(conn, target_table, ref)
                    if own.lower() in columns and target is not None:
                        c = columns[own.lower()]
                        columns[own.lower()] = _Column(c.table, c.name, c.type, referenced=target)
        return self._tables[key]

    def get(self, conn: sa.Connection, table: str, column: str) -> _Column | None:
        cols = self.table(conn, table)
        return cols.get(column.lower()) if cols else None

    def resolve(self, conn: sa.Connection, c: _Comparison) -> _Column | None:
        if c.alias:
            table = c.tables.get(c.alias.lower())
            return self.get(conn, table, c.column) if table else None
        candidates = [col for t in dict.fromkeys(c.tables.values()) if (col := self.get(conn, t, c.column))]
        return candidates[0] if len(candidates) == 1 else None

    def sample(self, conn: sa.Connection, column: _Column, pattern: str | None) -> Any:
        """A value the column holds (one matching `pattern`, if one is declared)."""
        schema, _, name = column.table.rpartition(".")
        col: sa.ColumnClause[Any] = sa.column(column.name)
        query = sa.select(col).select_from(sa.table(name, schema=schema or None)).where(col.is_not(None)).limit(50)
        try:
            with duckdb_file.attempt(conn):
                values = [v for v in conn.scalars(query) if isinstance(v, str)]
        except sa.exc.DBAPIError:
            return None
        for value in values:
            if pattern is None or re.search(pattern, value):
                return value
        return None


_FITS = {  # parameter type -> the column categories it may be compared with
    "string": {"text", "other"},
    "enum": {"text", "other"},
    "integer": {"number", "other"},
    "date": {"date", "other"},
}
_DECLARE = {"text": "string", "number": "integer", "date": "date", "boolean": "a boolean flag is not a parameter type"}


def _mismatch(param: Param, c: _Comparison, column: _Column, *, sqlite: bool) -> str | None:
    a = "an" if param.type[0] in "aeiou" else "a"
    fits = _FITS[param.type] | ({"text"} if sqlite and param.type == "date" else set())  # SQLite keeps dates as text
    what = f"{column.table}.{column.name}, a {column.category} column ({column.type})"
    if "LIKE" in c.op and param.type not in ("string", "enum"):
        return f"{a} {param.type} parameter is matched with LIKE against {what}; LIKE takes a string"
    if column.category in fits:
        return None
    suggestion = _DECLARE.get(column.category, "")
    hint = f"; declare type: {suggestion}" if suggestion and " " not in suggestion else ""
    return f"{a} {param.type} parameter is compared with {what}{hint}"


# --- small helpers --------------------------------------------------------------------------------------
def _pattern_sample(pattern: str) -> str | None:
    """A string that matches `pattern`, the same one on every run; None when none can be made."""
    try:
        text = rstr.Rstr(random.Random(0)).xeger(pattern)
    except (ValueError, TypeError, IndexError, re.error):
        return None
    return text if re.search(pattern, text) else None
