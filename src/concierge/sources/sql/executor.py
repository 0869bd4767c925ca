"""The tools of `kind: sql` sources: parameterised SQL on the business database.

Reads run in a read-only transaction and fetch only the rows shown (the database counts and totals the rest);
a rollup answers where it can and is current. A write runs in one transaction with the pipeline's step
(its token and audit line, where the state lives beside the data), re-reading its preview first.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import lru_cache
from typing import Any

import sqlalchemy as sa

from concierge.catalog.loader import Catalog
from concierge.catalog.model import SQL_PARAM, Tool, ToolRollup
from concierge.errors import CatalogError, CatalogProblem, DatabaseError, ResultCode
from concierge.language.dates import as_date
from concierge.sources.executor import Executor, Shown, WriteStep
from concierge.sources.result import (
    Failure,
    ToolResult,
    counted_totals,
    needs_every_row,
    plain_args,
    plain_rows,
    shaped,
    totals_sql,
)
from concierge.sources.sql.bind import bind, bound_names, sql_values
from concierge.sources.sql.capped import capped
from concierge.sources.sql.written import SideEffects, tables_read, tables_written
from concierge.storage import rollups
from concierge.storage.database import Database, again_if_lost, first_line, mysql_errno, overtaken, prepare
from concierge.storage.database import rows as driver_rows
from concierge.storage.replicas import Reader, Replicas

log = logging.getLogger(__name__)
UNIQUE_CODE_ATTEMPTS = 3
ROLLUP_LOOK_S = 30.0  # how often a rollup not built yet is looked for


@dataclass(frozen=True)
class Needed:
    """An optional enum a write's check refuses a value without (a whole cake with no size): the parameter, the
    check (its index in `Tool.checks`) and the values its offer names (4号, 5号, 6号)."""

    param: str
    check: int
    offered: tuple[str, ...]


@dataclass(frozen=True)
class DataFacts:
    """Enum values and date ranges read from the data, for the guard."""

    enum_values: dict[str, list[str]]
    date_ranges: dict[str, tuple[date, date]]
    enum_synonyms: dict[str, dict[str, str]]
    enum_shared: dict[str, dict[str, list[str]]]  # `EnumSource.key` -> a value naming several rows -> their keys
    # the catalog's rollups that are built; whether one may be read is asked by each read (storage.rollups)
    rollups: dict[str, rollups.ReadCheck] = field(default_factory=dict)
    # when each rollup not built then was last looked for (a first `db refresh` while serving)
    unbuilt: dict[str, float] = field(default_factory=dict)
    # `EnumSource.key` -> a value of `fits_param` -> the values of the enum it takes, read with `fits_query`
    enum_fits: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    # a write -> a value of its required enum -> what its checks refuse it without (`Needed`)
    needs: dict[str, dict[str, Needed]] = field(default_factory=dict)


NEEDS_READ_MOST = 200  # values of a write's key whose needs are read ahead, at most (one check each)
# The needs read ahead are kept across the reads of the facts a write causes (an order's line written changes none
# of them) while the values are the same, this long at most: the guard checks every write whatever they say.
NEEDS_KEPT_S = 300.0


class SqlExecutor(Executor):
    """The SQL tools of `catalogs` on `db`; `use_rollups` False: every tool reads its base tables. With `replicas`,
    the read tools read on a replica, unless the reader's own last write is not there yet (`storage.replicas`)."""

    def __init__(self, catalogs: list[Catalog], db: Database, *, use_rollups: bool = True,
                 replicas: Replicas | None = None):
        self.db = db
        self.replicas = replicas
        self.use_rollups = use_rollups
        self._catalog_of = {n: c for c in catalogs for n in c.tools}
        self._facts: dict[str, DataFacts] = {}
        self._needs_kept: dict[str, tuple[dict[str, list[str]], float, dict[str, dict[str, Needed]]]] = {}
        self._facts_queries: dict[str, tuple[str, ...]] = {}  # by catalog: the queries its facts last ran
        self._facts_read: dict[str, frozenset[str] | None] = {}  # by catalog: the tables its facts read
        self._side_effects = SideEffects()
        prepare(db.engine.dialect, (bind(t, sql) for c in catalogs for t in c.tools.values() if self.handles(t)
                                    for sql in _statements(t, db.is_sqlite)))

    def handles(self, tool: Tool) -> bool:
        return tool.http is None

    def beside(self, state: object) -> bool:
        return state is self.db

    def changes_facts(self, tool: Tool) -> bool:
        """Whether a write of `tool` may change its catalog's facts: unless it is certain that it cannot
        (sources/sql/written.py). The tables of the statements are read once per tool, those of the facts once
        per catalog; the database's triggers and keys are looked for again (`SideEffects`)."""
        catalog = self._catalog_of[tool.name]
        dialect = self.db.engine.dialect.name
        written = tables_written((tool.sql, *tool.then), dialect)
        if written is None:
            return True
        if catalog.name not in self._facts_read:
            try:
                self._facts_read[catalog.name] = self._facts_tables(catalog, dialect)
            except (DatabaseError, sa.exc.SQLAlchemyError):  # the write is done: its facts are read again, later
                return True
        read = self._facts_read[catalog.name]
        if read is None:
            return True
        if not read:  # the catalog reads no values from the data
            return False
        changed = self._side_effects.changed(self.db, written)
        return changed is None or bool(changed & read)

    def _facts_tables(self, catalog: Catalog, dialect: str) -> frozenset[str] | None:
        """The tables the catalog's facts read (the queries `facts` runs, the checks its needs may run); None
        where one cannot be read, or is a view, or the catalog has rollups (their tables are read apart)."""
        if catalog.spec.rollups:
            return None
        self.facts(catalog)  # the queries it runs, as it runs them
        checks = [q for t in catalog.tools.values() for index, _, _ in _need_checks(t)
                  for q in (t.checks[index].sql, t.checks[index].offer or "")]
        read = tables_read((*self._facts_queries[catalog.name], *checks), dialect)
        if read is None:
            return None
        with self.db.read() as conn:
            seen = sa.inspect(conn)
            views = {v.lower() for schema in seen.get_schema_names() for v in (
                *seen.get_view_names(schema=schema),
                *(seen.get_materialized_view_names(schema=schema) if dialect == "postgresql" else ()))}
        return None if read & views else read

    def refresh(self, catalog: str | None = None) -> None:
        if catalog is None:
            self._facts.clear()
        else:
            self._facts.pop(catalog, None)

    def close(self) -> None:
        self.db.dispose()
        if self.replicas is not None:
            self.replicas.dispose()

    # --- what the guard reads of the data ---------------------------------------
    def facts(self, catalog: Catalog) -> DataFacts:
        """The catalog's enum values, synonyms and date bounds read from the data, and its built rollups."""
        facts = self._facts.get(catalog.name)
        if facts is None:
            enums, ranges, synonyms, shared, fits = {}, {}, {}, {}, {}
            ran: list[str] = []
            with self.db.read() as conn:  # one read, each query with the whole read timeout to itself
                def data(sql: str) -> list[sa.Row]:
                    ran.append(sql)
                    self.db.restart_timeout()
                    return list(conn.execute(sa.text(sql)).all())

                for p in (p for t in catalog.tools.values() for p in t.params.values()):
                    if p.enum and p.enum.query and p.enum.query not in enums:
                        enums[p.enum.query] = [str(r[0]) for r in data(p.enum.query) if r[0] is not None]
                    if p.enum and p.enum.synonyms_query and p.enum.key not in synonyms:
                        rows = data(p.enum.synonyms_query)
                        synonyms[p.enum.key] = {str(said): str(value) for said, value in rows if said and value}
                    if p.enum and p.enum.shared_query and p.enum.key not in shared:
                        shared[p.enum.key] = _keys_by_value(data(p.enum.shared_query))
                    if p.enum and p.enum.fits_query and p.enum.key not in fits:
                        fits[p.enum.key] = _values_by_key(data(p.enum.fits_query))
                    if p.bounds and p.bounds.query and p.bounds.query not in ranges:
                        (low, high), = data(p.bounds.query)
                        if low is not None:
                            ranges[p.bounds.query] = (as_date(low), as_date(high))
            self._facts_queries[catalog.name] = tuple(ran)
            readable: dict[str, rollups.ReadCheck] = {}
            if self.use_rollups:
                with self.db.read() as conn:
                    readable = rollups.read_checks(conn, catalog.spec.rollups)
            unbuilt = dict.fromkeys(set(catalog.spec.rollups) - set(readable) if self.use_rollups else (),
                                    time.monotonic())
            needs = self._needs_of(catalog, enums)
            facts = self._facts[catalog.name] = DataFacts(enums, ranges, synonyms, shared, readable, unbuilt,
                                                                fits, needs)
        return facts

    def _needs_of(self, catalog: Catalog, enums: dict[str, list[str]]) -> dict[str, dict[str, Needed]]:
        """The needs of the catalog's writes (`_needs`), read again only where the values changed or the last read
        is `NEEDS_KEPT_S` old: never one query per value after every write of an order's line."""
        kept = self._needs_kept.get(catalog.name)
        now = time.monotonic()
        if kept is not None and kept[0] == enums and now - kept[1] < NEEDS_KEPT_S:
            return kept[2]
        needs = {t.name: found for t in catalog.tools.values() if (found := self._needs(t, enums))}
        self._needs_kept[catalog.name] = ({k: list(v) for k, v in enums.items()}, now, needs)
        return needs

    def _needs(self, tool: Tool, enums: dict[str, list[str]]) -> dict[str, Needed]:
        """What a write's checks refuse each value of its one required enum without: a check with an `offer` over
        that value and one optional enum alone, that fails with the optional one not given (a whole cake with no
        size), and the values of it the offer names (4号, 5号, 6号). Read with the facts, so that a request that
        leaves it out is asked, never sent."""
        out: dict[str, Needed] = {}
        for index, key, optional in _need_checks(tool):
            keyed, option = tool.params[key], tool.params[optional]
            values = enums.get(keyed.enum.query or "", []) if keyed.enum else []
            allowed = set(enums.get(option.enum.query or "", []) or option.enum.values or []) if option.enum else set()
            if len(values) > NEEDS_READ_MOST:
                continue
            try:
                found = self._refused_without(tool, index, key, optional, values, allowed)
                out.update({v: n for v, n in found.items() if v not in out})
            except sa.exc.SQLAlchemyError as err:  # asked for then by the write's own refusal, as before
                log.warning("the needs of %s were not read ahead: %s", tool.name, first_line(err))
        return out

    def _refused_without(self, tool: Tool, index: int, key: str, option: str, values: list[str],
                         allowed: set[str]) -> dict[str, Needed]:
        """The values of `key` that check `index` refuses with `option` not given, and the options it offers."""
        check, out = tool.checks[index], {}
        with self.db.read() as conn:
            for value in values:
                bound = {key: value, option: None}
                if conn.execute(bind(tool, check.sql), bound).first() is not None:
                    continue
                offered = [str(r[0]) for r in conn.execute(bind(tool, check.offer or ""), bound).all()]
                out[value] = Needed(option, index, tuple(v for v in offered if v in allowed))
        return out

    # --- reads ---------------------------------------------------------------------
    def read(self, tool: Tool, args: dict[str, Any], values: dict[str, Any]) -> ToolResult:
        if self.replicas is None:
            return again_if_lost(lambda: self._read(self.db, tool, args, values))
        place = self.replicas.place(_reader(values))
        try:
            result = again_if_lost(lambda: self._read(place.db, tool, args, values))
        except DatabaseError as err:  # a replica that stopped under a read: the primary answers it
            place = self.replicas.after_failure(place, err)
            result = self._read(place.db, tool, args, values)
        result.read_from = place.said
        return result

    def _read(self, db: Database, tool: Tool, args: dict[str, Any], values: dict[str, Any]) -> ToolResult:
        with db.read() as conn:
            failed = failed_check(conn, tool, values, implied=False)
            if failed:
                return failed.model_copy(update={"args": plain_args(args)})
            spec, bound = tool.result, sql_values(tool, values)
            statement = self.statement(tool, values, conn)
            every = needs_every_row(spec)
            # Unless a summary compares every row, only the rows shown are fetched (one more says whether
            # there are more) and the database counts and totals all the matching rows itself. SQLite's
            # cursor reads rows as they are fetched; PostgreSQL's driver would read them all, so there the
            # statement itself stops (one round trip, where a server-side cursor took three).
            sql = statement if every or db.is_sqlite else capped(statement, spec, conn.dialect.name)
            columns, fetched = driver_rows(conn, bind(tool, sql), bound, None if every else spec.max_rows + 1)
            rows = plain_rows(columns, fetched)
            failed = None if rows else failed_check(conn, tool, values, implied=True)
            if failed:
                return failed.model_copy(update={"args": plain_args(args)})
            counted = None
            if not every and len(rows) > spec.max_rows:
                sql = totals_sql(statement, columns, spec, conn.dialect.identifier_preparer.quote)
                counted = counted_totals(conn.execute(bind(tool, sql), bound).one(), columns, spec)
        return shaped(tool, args, columns, rows, counted)

    def statement(self, tool: Tool, values: dict, conn: sa.Connection | None = None) -> str:
        """The tool's SQL, or its rollup statement when the rollup can answer these values and is current as
        the read sees it: asked in the read's transaction `conn` (or in a read of its own), every time."""
        if tool.rollup is None or not answers(tool.sql, tool.rollup, values):
            return tool.sql
        check = self._rollup_check(self._catalog_of[tool.name], tool.rollup.table)
        if check is None:
            return tool.sql
        if conn is None:
            with self.db.read() as own:
                return tool.rollup.sql if check.holds(self.db, own) else tool.sql
        return tool.rollup.sql if check.holds(self.db, conn) else tool.sql

    def _rollup_check(self, catalog: Catalog, name: str) -> rollups.ReadCheck | None:
        """The read check of rollup `name` where it is built; one not built when the facts were read is looked
        for again at most every `ROLLUP_LOOK_S`, so that a first `db refresh` needs no restart."""
        facts = self.facts(catalog)
        looked = facts.unbuilt.get(name)
        if looked is not None and time.monotonic() - looked >= ROLLUP_LOOK_S:
            facts.unbuilt[name] = time.monotonic()
            with self.db.read() as conn:
                found = rollups.read_checks(conn, {name: catalog.spec.rollups[name]})
            if found:
                facts.rollups.update(found)
                del facts.unbuilt[name]
        return facts.rollups.get(name)

    # --- writes --------------------------------------------------------------------
    def preview(self, tool: Tool, args: dict[str, Any], values: dict[str, Any]) -> ToolResult | Shown:
        with self.db.read() as conn:
            failed = failed_check(conn, tool, values)
            if failed:
                return failed.model_copy(update={"args": plain_args(args)})
            return Shown(preview_row(conn, tool, values), rereadable=True, nothing_yet=self.nothing_yet)

    def write(self, tool: Tool, args: dict[str, Any], values: dict[str, Any], step: WriteStep) -> ToolResult:
        """The write in one transaction with `step`; a generated code that collides, or a snapshot another
        write overtook, runs it again (nothing of the earlier attempt committed)."""
        for attempt in range(UNIQUE_CODE_ATTEMPTS):
            step.committing = False
            try:
                with self.db.write() as conn:
                    if tool.confirm and tool.preview_sql is not None and not self.db.is_sqlite:
                        # what is written is what the preview re-read saw: one snapshot for every statement
                        # (SQLite's single writer already sees no other write in between)
                        conn.exec_driver_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                    refusal = self._before_write(conn, tool, args, values, step)
                    if refusal is not None:
                        return refusal
                    today = values.get("_today") or date.today()
                    result = self._run_write(conn, tool, args, {**values, **_generated(tool, today)})
                    step.record(conn, result)
                    step.committing = True  # past here the write may have committed though an error says not
            except sa.exc.IntegrityError:
                if tool.generated and attempt + 1 < UNIQUE_CODE_ATTEMPTS:
                    log.warning("generated code collided in %s; retrying", tool.name)
                    continue
                raise
            except DatabaseError as err:
                if not overtaken(err):
                    raise
                step.committing = False  # a snapshot another write overtook: certainly not committed
                if attempt + 1 < UNIQUE_CODE_ATTEMPTS:
                    log.info("a concurrent write overtook %s; running it again on a new snapshot", tool.name)
                    continue
                raise
            if self.replicas is not None and result.ok:
                self._wrote(self.replicas, _reader(values))
            return result
        raise AssertionError("unreachable")

    def _wrote(self, replicas: Replicas, reader: Reader) -> None:
        """Remember where the primary stood after the write, so the writer's next reads see it; a failure
        here leaves the write done (its reads may then miss it on a lagging replica, and this is logged)."""
        try:
            replicas.wrote(reader)
        except (DatabaseError, sa.exc.SQLAlchemyError):
            log.exception("could not record the position of a write for its reads on replicas")

    def _before_write(self, conn: sa.Connection, tool: Tool, args: dict, values: dict,
                      step: WriteStep) -> ToolResult | None:
        """Inside the write's transaction: the token, the preview it was shown with, the checks. A result means
        nothing is written: a refusal, or a new preview when what was shown has changed."""
        refusal = step.check(conn)
        if refusal is not None:
            return refusal
        if tool.confirm and tool.preview_sql is not None:
            changed = step.changed(conn, preview_row(conn, tool, values))
            if changed is not None:
                return changed
        refusal = step.use(conn)
        if refusal is not None:
            return refusal
        failed = failed_check(conn, tool, values)
        return failed.model_copy(update={"args": plain_args(args)}) if failed else None

    def _run_write(self, conn: sa.Connection, tool: Tool, args: dict, values: dict) -> ToolResult:
        bound = sql_values(tool, values)
        columns: list[str] = []
        rows: list[dict[str, Any]] = []
        for statement in (tool.sql, *tool.then):  # the rows of the last one that returns rows are the result
            returned, fetched = driver_rows(conn, bind(tool, statement), bound)
            if returned:
                columns, rows = returned, plain_rows(returned, fetched)
        return shaped(tool, args, columns, rows)


def _statements(tool: Tool, sqlite: bool) -> Iterator[str]:
    """The statements a call of `tool` sends as they are declared: its own (a read's, on SQLite, where no limit is
    added to it) and its checks' and preview's."""
    if tool.mode == "write" or sqlite:
        yield from (tool.sql, *tool.then)
    for check in tool.checks:
        yield check.sql
        if check.offer:
            yield check.offer
    if tool.preview_sql:
        yield tool.preview_sql


def _reader(values: dict[str, Any]) -> Reader:
    """Whose writes a read must see: the user and their conversation (`:_user`, `:_session`)."""
    return str(values.get("_user")), str(values.get("_session"))


def answers(sql: str, rollup: ToolRollup, values: dict) -> bool:
    """Whether a tool's rollup statement can answer these values: none below its grain, each under `only` one
    it lists."""
    if any(values.get(p) is not None for p in below_grain(sql, rollup.sql)):
        return False
    return all(values.get(p) in allowed for p, allowed in rollup.only.items())


@lru_cache(maxsize=256)
def below_grain(sql: str, rollup_sql: str) -> frozenset[str]:
    """The parameters a rollup statement leaves out: given any of them, only the base table can answer."""
    return frozenset(SQL_PARAM.findall(sql)) - frozenset(SQL_PARAM.findall(rollup_sql))


def preview_row(conn: sa.Connection, tool: Tool, values: dict) -> dict[str, Any]:
    if tool.preview_sql is None:  # the loader refuses such a catalog; a Tool made in code may lack it
        raise CatalogError([CatalogProblem(tool.catalog, f"tools.{tool.name}.preview_sql",
                                           "a tool that needs confirmation must declare preview_sql")])
    columns, fetched = driver_rows(conn, bind(tool, tool.preview_sql), sql_values(tool, values), 1)
    return plain_rows(columns, fetched)[0] if fetched else {}


def failed_check(conn: sa.Connection, tool: Tool, values: dict, *, implied: bool | None = None) -> Failure | None:
    """The error of the first of the tool's checks that fails, else None. `implied`: only the checks that
    the tool's rows imply (True: run when it returned none) or only the others (False); None: all."""
    bound = sql_values(tool, values)
    for check in tool.checks:
        if implied is not None and check.implied_by_rows is not implied:
            continue
        if not driver_rows(conn, bind(tool, check.sql), bound, 1)[1]:
            rows = plain_rows(*driver_rows(conn, bind(tool, check.offer), bound)) if check.offer else []
            return Failure(
                tool=tool.name,
                code=ResultCode.NOT_FOUND,
                message=check.message.en,
                message_ja=check.message.ja,
                columns=list(rows[0]) if rows else [],
                rows=rows,
                row_count=len(rows),
                ai_instruction=tool.ai_instruction.error if tool.ai_instruction else None,
            )
    return None


# SQLSTATE of a write the role may not do: insufficient privilege, read-only transaction or database
_REFUSED_STATES = ("42501", "25006")
_SQLITE_READONLY = 8  # SQLite's primary result code of a write to a read-only database
# MySQL's numbers of the same: command denied, read-only transaction, server started --read-only
_MYSQL_REFUSED = (1142, 1792, 1290)


def refused_write(err: BaseException) -> str | None:
    """The database's own words when `err` is a write the role or the database does not allow, else None."""
    for cause in (err, err.__cause__):
        orig = getattr(cause, "orig", None)
        if orig is None:
            continue
        sqlite_code = getattr(orig, "sqlite_errorcode", None)
        if (getattr(orig, "sqlstate", None) in _REFUSED_STATES or mysql_errno(orig) in _MYSQL_REFUSED
                or sqlite_code is not None and sqlite_code & 0xFF == _SQLITE_READONLY):
            return first_line(orig)
    return None


def _generated(tool: Tool, today: date) -> dict[str, str]:
    stamp = datetime.now().strftime("%H%M%S")
    return {
        name: f"{gen.prefix}{today:%Y%m%d}{stamp}-{secrets.token_hex(3).upper()}"
        for name, gen in tool.generated.items()
    }


def _values_by_key(rows: Sequence[sa.Row]) -> dict[str, list[str]]:
    """Rows of (a value of one parameter, a value of another it takes) as the values each one takes."""
    out: dict[str, list[str]] = {}
    for key, value in rows:
        if key is not None and value is not None:
            out.setdefault(str(key), []).append(str(value))
    return out


def _need_checks(tool: Tool) -> list[tuple[int, str, str]]:
    """The checks of a write that are read ahead as its needs (`SqlExecutor._needs`): those with an `offer` over
    one required enum read from the data and one optional enum, and nothing else; each as (index, that required
    parameter, the optional one). Only their tables are facts a write can change: a check over the order's own
    lines is run at the call, never kept."""
    if tool.mode != "write":
        return []
    out = []
    for index, check in ((i, c) for i, c in enumerate(tool.checks) if c.offer):
        names = set(bound_names(check.sql)) | set(bound_names(check.offer or ""))
        params = {n: tool.params.get(n) for n in names}
        key = [n for n, p in params.items() if p is not None and p.required and p.enum and p.enum.query]
        optional = [n for n, p in params.items() if p is not None and not p.required and p.enum]
        if len(key) == 1 and len(optional) == 1 and len(names) == 2:
            out.append((index, key[0], optional[0]))
    return out


def _keys_by_value(rows: Sequence[sa.Row]) -> dict[str, list[str]]:
    """Rows of (a value, the key of a row it names) as the keys of each value naming more than one row."""
    out: dict[str, list[str]] = {}
    for value, key in rows:
        if value is not None and key is not None:
            out.setdefault(str(value), []).append(str(key))
    return {v: keys for v, keys in out.items() if len(keys) > 1}
