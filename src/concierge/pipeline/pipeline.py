"""The one pipeline every caller uses: access → guard → execute → shape → audit.

MCP, the CLI, the agent loop and the web page all call `Pipeline.invoke`.
There is no second path that skips a step. The access check comes first: a
caller who may not use a tool is refused before the guard could tell them
which values the tool accepts.
"""

from __future__ import annotations

import logging
import re
import secrets
import time
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any

import sqlalchemy as sa

from concierge import demo
from concierge.catalog.loader import Catalog, load_catalogs
from concierge.catalog.model import SQL_PARAM, Tool
from concierge.errors import (
    CatalogError,
    CatalogProblem,
    ConciergeError,
    ConfigError,
    DatabaseError,
    ResultCode,
    WriteOutcomeUnknown,
)
from concierge.language.dates import as_date
from concierge.pipeline import access, audit, confirm, guard
from concierge.pipeline.access import Session, User
from concierge.pipeline.bind import bind
from concierge.pipeline.result import (
    Repeated,
    ToolResult,
    capped_sql,
    counted_totals,
    needs_every_row,
    new_result_id,
    plain,
    plain_args,
    shape,
    totals_sql,
)
from concierge.services import Call, HttpCaller, ServiceError
from concierge.storage import rollups, users
from concierge.storage.database import Database, first_line, normalise_url
from concierge.storage.migrate import ensure_state

log = logging.getLogger(__name__)
UNIQUE_CODE_ATTEMPTS = 3
SAME_WRITE_WITHIN = timedelta(minutes=30)  # a preview says so when the same write was done this recently
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class _DataFacts:
    """Enum values and date ranges read from the data, for the guard."""

    enum_values: dict[str, list[str]]
    date_ranges: dict[str, tuple[date, date]]
    enum_synonyms: dict[str, dict[str, str]]
    # the catalog's rollups that are built; whether one may be read is asked by each read (storage.rollups)
    rollups: dict[str, rollups.ReadCheck] = field(default_factory=dict)


class Pipeline:
    """`db` holds the business data (it may be a read-only role); `state` holds concierge's own tables
    (users, audit, confirmations, tokens, conversations): the same object unless a state database is given."""

    def __init__(self, catalogs: list[Catalog], db: Database, *, state: Database | None = None,
                 today: date | None = None, use_rollups: bool = True):
        self.catalogs = catalogs
        self.db = db
        self.state = state or db
        self._today = today
        self.tools: dict[str, Tool] = {n: t for c in catalogs for n, t in c.tools.items()}
        self.roles = {c.name: c.spec.roles for c in catalogs}
        self._catalog_of = {n: c for c in catalogs for n in c.tools}
        self._facts: dict[str, _DataFacts] = {}
        self._contexts: dict[str | None, tuple[int, guard.GuardContext, float]] = {}
        self.http = HttpCaller(catalogs)  # the tools of `kind: http` sources (concierge.services)
        self.facts_version = 0  # counts `refresh` calls: what was built from the facts of an older version is stale
        self.use_rollups = use_rollups  # False: every tool reads its base tables (to compare, or to rule them out)

    @classmethod
    def open(cls, catalog_refs: list[str], database: str | None = None, *, state_database: str | None = None,
             today: date | None = None, use_rollups: bool = True) -> Pipeline:
        """Load and check the catalogs, connect, and make sure the state tables are at their revision.

        The state lives in `state_database` when given, else beside the business data. The embedded
        default (SQLite) gets the demo data on first use; a PostgreSQL database is set up explicitly
        with `concierge db init`.
        """
        catalogs = load_catalogs(catalog_refs)
        db = Database(database)
        state = Database(state_database) if state_database and _differs(state_database, db) else db
        try:
            ensure_state(state)
            demo.seed_users(state, [c.spec.demo for c in catalogs if c.spec.demo])
            for cat in catalogs:
                if not cat.spec.demo:
                    continue
                if not demo.is_installed(db, cat.spec.demo):
                    if not db.is_sqlite:
                        raise ConfigError(
                            f"the {cat.spec.demo} demo tables are missing in {db}; "
                            f"run: concierge db init --catalog {cat.spec.demo} --database URL"
                        )
                    demo.install(db, cat.spec.demo, state_db=state)
                elif db.is_sqlite:  # an embedded file from before its catalog declared rollups
                    rollups.ensure(db, cat.spec.rollups)
        except BaseException:
            db.dispose()
            if state is not db:
                state.dispose()
            raise
        return cls(catalogs, db, state=state, today=today, use_rollups=use_rollups)

    def demo_users(self) -> list[str]:
        """The names of the users that the loaded demo catalogs bring (admin, tanaka, ...)."""
        names = [u.name for c in self.catalogs if c.spec.demo for u in demo.demo(c.spec.demo).users]
        return list(dict.fromkeys(names))

    def close(self) -> None:
        self.http.close()
        self.db.dispose()
        if self.state is not self.db:
            self.state.dispose()

    # --- clock, users, facts --------------------------------------------------
    def today(self, tool: str | None = None) -> date:
        """The configured clock; a demo catalog brings its transcripts' clock."""
        if self._today:
            return self._today
        catalog = self._catalog_of.get(tool) if tool else (self.catalogs[0] if len(self.catalogs) == 1 else None)
        if catalog and catalog.demo_today:
            return catalog.demo_today
        return date.today()

    def now(self, tool: str | None = None) -> str:
        """The clock's time of day, HH:MM: a demo catalog's `demo_time`, else the wall clock's."""
        catalog = self._catalog_of.get(tool) if tool else None
        if catalog and catalog.spec.demo_time:
            return catalog.spec.demo_time
        return datetime.now().strftime("%H:%M")

    def user(self, name: str) -> User:
        """The user called `name` as the state database has them now; `UnknownUser` when there is none.
        Never remembered: a role changed or a user removed, by any process, counts at the next request."""
        record = users.get(self.state, name)
        return User(record.name, record.role, record.display_name)

    def as_now(self, user: User) -> User | None:
        """`user` with the role the state database gives them at this moment; None once they are removed.
        Every call is decided on this, so a `User` held by a long-lived caller (a stdio MCP server, a phone
        call, a conversation waiting for a yes) never keeps rights that were taken away."""
        record = users.find(self.state, user.name)
        if record is None:
            return None
        if record.role == user.role and record.display_name == user.display_name:
            return user
        return User(record.name, record.role, record.display_name)

    def tools_for(self, user: User) -> list[Tool]:
        """The tools `user`'s role may call (no database read: pass `as_now(user)` for a `User` held long)."""
        return access.visible_tools(user, self.tools, self.roles)

    def guard_context(self, tool: str | None = None) -> guard.GuardContext:
        """Today and the values read from the data: of the tool's catalog, or of all catalogs. Enums read
        from a web API: those of the tool (a listing that fails raises `ServiceError`), or all of them
        (one that fails is left out, and read again soon); read again once their ttl has passed."""
        key = tool if tool in self._catalog_of else None
        today, version = self.today(tool), self.facts_version
        cached = self._contexts.get(key)
        if (cached is not None and cached[0] == version and cached[1].today == today
                and self.http.enums.clock() < cached[2]):
            return cached[1]
        catalogs = [self._catalog_of[key]] if key else self.catalogs
        enums: dict[str, list[str]] = {}
        ranges: dict[str, tuple[date, date]] = {}
        synonyms: dict[str, dict[str, str]] = {}
        for catalog in catalogs:
            facts = self._data_facts(catalog)
            enums.update(facts.enum_values)
            ranges.update(facts.date_ranges)
            synonyms.update(facts.enum_synonyms)
        listed = [self.tools[key]] if key else [t for c in catalogs for t in c.tools.values()]
        http_enums, expires = self.http.enum_values(listed, strict=key is not None)
        enums.update(http_enums)
        ctx = guard.GuardContext(today, enums, ranges, synonyms)
        self._contexts[key] = (version, ctx, expires)
        return ctx

    def refresh(self, catalog: str | None = None) -> None:
        """Forget the values and ranges read from the data (of one catalog, or all); read again on next use."""
        if catalog is None:
            self._facts.clear()
        else:
            self._facts.pop(catalog, None)
        self.http.refresh(catalog)
        self.facts_version += 1

    def _data_facts(self, catalog: Catalog) -> _DataFacts:
        facts = self._facts.get(catalog.name)
        if facts is None:
            enums, ranges, synonyms = {}, {}, {}
            with self.db.read() as conn:
                for p in (p for t in catalog.tools.values() for p in t.params.values()):
                    if p.enum and p.enum.query and p.enum.query not in enums:
                        enums[p.enum.query] = [str(v) for v in conn.scalars(sa.text(p.enum.query)) if v is not None]
                    if p.enum and p.enum.synonyms_query and p.enum.key not in synonyms:
                        rows = conn.execute(sa.text(p.enum.synonyms_query)).all()
                        synonyms[p.enum.key] = {str(said): str(value) for said, value in rows if said and value}
                    if p.bounds and p.bounds.query and p.bounds.query not in ranges:
                        low, high = conn.execute(sa.text(p.bounds.query)).one()
                        if low is not None:
                            ranges[p.bounds.query] = (as_date(low), as_date(high))
                readable = rollups.read_checks(conn, catalog.spec.rollups) if self.use_rollups else {}
            facts = self._facts[catalog.name] = _DataFacts(enums, ranges, synonyms, readable)
        return facts

    # --- the pipeline ------------------------------------------------------------
    def invoke(self, name: str, args: Any, user: User, *, confirmation: str | confirm.Hashed | None = None,
               source: str | None = None, session: Session | None = None) -> ToolResult:
        """`confirmation`: the token a write's preview gave (or its hash, from the agent's conversation);
        `source`: where the call came from, for the audit (``web 203.0.113.7``); None when unknown;
        `session`: the conversation (or phone call) it belongs to, for `:_session` and `:_caller`."""
        started = time.perf_counter()
        name, args, confirmation = _valid_unicode(name), _valid_unicode(args), _valid_unicode(confirmation)
        line = audit.CallLine(user.name, name, args, source, started)
        session = Session(_valid_unicode(session.id), _valid_unicode(session.caller)) if session else None
        try:
            try:
                result = self._invoke(name, args, user, confirmation, session, line)
            except sa.exc.DBAPIError as err:  # a statement the database refused: a value too long, a key taken
                raise DatabaseError(f"the database refused the call of {name} ({first_line(err)}); nothing was "
                                    "written: check the values, then try again") from err
        except ConciergeError as err:
            if not line.written:
                audit.record(self.state, **line.fields(decision="failed", result_id=new_result_id(), rows=0,
                                                       message=str(err)))
            elif not isinstance(err, WriteOutcomeUnknown):  # a write-ahead line, left pending by a raw error
                audit.settle(self.state, line.result_id, decision="failed", rows=0, ms=line.elapsed_ms(),
                             message=str(err))
            raise
        result.ms = line.elapsed_ms()
        if not line.written:  # a write's line was written with the write (`_write_data`)
            audit.record(self.state, **line.fields(decision=decision_of(result), result_id=result.result_id,
                                                   rows=result.row_count, message=result.message))
        return result

    def record_refusal(self, user: User | str, tool: str, code: str, message: str, *, args: Any = None,
                       source: str | None = None) -> str:
        """Audit a request refused before `invoke` could run it (the planner declining a tool the user is
        not offered, the MCP SDK rejecting a request's params, ...); returns the line's result id.
        `code` becomes the decision ``refused:<code>``; `source` defaults to the one the channel set."""
        name = user.name if isinstance(user, User) else user
        return audit.refusal(self.state, user=name, tool=_valid_unicode(tool), code=code,
                             message=_valid_unicode(message), args=_valid_unicode(args), source=source)

    def _invoke(self, name: str, args: Any, held: User, confirmation: str | confirm.Hashed | None,
                session: Session | None, line: audit.CallLine) -> ToolResult:
        user = self.as_now(held)  # rights as they are now, not as they were when the caller got `held`
        if user is None:
            return ToolResult(tool=name, status="refused", code=ResultCode.NOT_PERMITTED,
                              message=f"user {held.name} no longer exists; nothing was run",
                              message_ja=f"ユーザー {held.name} はもう登録されていないため、何も実行していません。")
        tool = self.tools.get(name)
        if tool is None:
            return _refused(name, args, guard.unknown_tool(name, self.tools))
        # Access before the guard: a caller who may not use a tool learns nothing of its valid values.
        permission = access.decide(user, tool, self.roles[tool.catalog])
        if isinstance(permission, access.Denied):
            return ToolResult(tool=name, status="refused", code=permission.code, message=permission.message)
        try:
            ctx = self.guard_context(name)
        except ServiceError as err:  # an enum's listing could not be read: nothing is sent
            return _service_failed(tool, args if isinstance(args, dict) else {}, err)
        decision = guard.check_args(tool, args, ctx)
        if isinstance(decision, guard.Refused):
            return _refused(name, args, decision)
        values = {**decision.args, **permission.identity, **access.session_identity(user, session),
                  "_today": self.today(name), "_now": self.now(name)}
        if self.http.handles(tool):
            return self._http(tool, decision.args, values, user, confirmation)
        if tool.mode == "read":
            return self._read(tool, decision.args, values)
        if tool.confirm and confirmation is None:
            return self._preview(tool, decision.args, values, user)
        return self._write(tool, decision.args, values, user, confirmation, line)

    def _http(self, tool: Tool, args: dict, values: dict, user: User,
              confirmation: str | confirm.Hashed | None) -> ToolResult:
        """A tool of an http source: the same confirmation as a SQL write (the preview is the arguments;
        nothing is sent before the token comes back), then the request, its status and its shaping."""
        if tool.confirm:
            if confirmation is None:
                with self.state.write() as conn:
                    token = confirm.issue(conn, user.name, tool.name, plain_args(args))
                return self._repeats(ToolResult(
                    tool=tool.name, status="confirm", args=plain_args(args), preview=plain_args(args),
                    confirmation_token=token,
                    message=("Nothing is sent yet. Show this preview to the user; when they confirm, "
                             f"call {tool.name} again with the same arguments and this confirmation token.")))
            with self.state.write() as conn:
                why = confirm.redeem(conn, confirmation, user.name, tool.name, plain_args(args))
            if why:
                return _invalid_confirmation(tool, args, why)
        try:
            call = self.http.call(tool, values)
        except ServiceError as err:
            if tool.confirm and confirmation is not None and not err.sent:
                self._give_back(confirmation)
            return _service_failed(tool, plain_args(args), err)
        return self._http_result(tool, args, call)

    def _http_result(self, tool: Tool, args: dict, call: Call) -> ToolResult:
        if call.failed is None:
            return self._ok(tool, args, call.columns, call.rows)
        return ToolResult(
            tool=tool.name, status="error", args=plain_args(args),
            code=ResultCode.NOT_FOUND if call.failed.outcome == "not_found" else None,
            message=call.failed.message.en, message_ja=call.failed.message.ja,
            ai_instruction=tool.ai_instruction.error if tool.ai_instruction else None,
        )

    def _read(self, tool: Tool, args: dict, values: dict) -> ToolResult:
        with self.db.read() as conn:
            failed = _failed_check(conn, tool, values, implied=False)
            if failed:
                return failed.model_copy(update={"args": plain_args(args)})
            spec, bound = tool.result, _sql_values(tool, values)
            statement = self._statement(tool, values, conn)
            every = needs_every_row(spec)
            # Unless a summary compares every row, only the rows shown are fetched (one more says whether
            # there are more) and the database counts and totals all the matching rows itself. SQLite's
            # cursor reads rows as they are fetched; PostgreSQL's driver would read them all, so there the
            # statement itself stops (one round trip, where a server-side cursor took three).
            sql = statement if every or self.db.is_sqlite else capped_sql(statement, spec)
            columns, fetched = self.db.fetch(conn, bind(tool, sql), bound, None if every else spec.max_rows + 1)
            rows = [dict(zip(columns, map(plain, r), strict=True)) for r in fetched]
            failed = None if rows else _failed_check(conn, tool, values, implied=True)
            if failed:
                return failed.model_copy(update={"args": plain_args(args)})
            counted = None
            if not every and len(rows) > spec.max_rows:
                sql = totals_sql(statement, columns, spec, conn.dialect.identifier_preparer.quote)
                counted = counted_totals(conn.execute(bind(tool, sql), bound).one(), columns, spec)
        return self._ok(tool, args, columns, rows, counted)

    def _statement(self, tool: Tool, values: dict, conn: sa.Connection | None = None) -> str:
        """The tool's SQL, or its rollup statement when the rollup can answer these values and is current as
        the read sees it: asked in the read's transaction `conn` (or in a read of its own), every time."""
        if tool.rollup is None or any(values.get(p) is not None for p in below_grain(tool.sql, tool.rollup.sql)):
            return tool.sql
        check = self._data_facts(self._catalog_of[tool.name]).rollups.get(tool.rollup.table)
        if check is None:
            return tool.sql
        if conn is None:
            with self.db.read() as own:
                return tool.rollup.sql if check.holds(self.db, own) else tool.sql
        return tool.rollup.sql if check.holds(self.db, conn) else tool.sql

    def _preview(self, tool: Tool, args: dict, values: dict, user: User) -> ToolResult:
        """What the write would do, and a token bound to the call and to this preview (its digest): a token
        redeemed after what the preview reads has changed writes nothing and gets a new preview instead."""
        separate = self.state is not self.db  # then the business data is only read here, the token kept apart
        with self.db.read() if separate else self.db.write() as conn:
            failed = _failed_check(conn, tool, values)
            if failed:
                return failed.model_copy(update={"args": plain_args(args)})
            preview = _preview_row(conn, tool, values)
            if not separate:
                token = confirm.issue(conn, user.name, tool.name, plain_args(args), confirm.digest(preview))
        if separate:
            with self.state.write() as conn:
                token = confirm.issue(conn, user.name, tool.name, plain_args(args), confirm.digest(preview))
        return self._repeats(_confirm_result(tool, args, preview, token, changed=False))

    def _repeats(self, preview: ToolResult) -> ToolResult:
        """The preview, with the same write done minutes ago (`SAME_WRITE_WITHIN`) when there was one: a sale
        entered twice by mistake is pointed out before the second is written."""
        if not preview.args:  # a write of no values of its own (place the order of this call): nothing to compare
            return preview
        found = audit.same_write(self.state, preview.tool, preview.args, SAME_WRITE_WITHIN)
        if found is None:
            return preview
        repeats = Repeated(at=found[0], result_id=found[1])
        return preview.model_copy(update={
            "repeats": repeats,
            "message": f"{preview.message} The same write, with exactly these values, was done "
                       f"{repeats.minutes_ago()} minute(s) ago ({repeats.result_id}): tell the user before they "
                       "confirm, in case this one is a mistake."})

    def _write(self, tool: Tool, args: dict, values: dict, user: User,
               confirmation: str | confirm.Hashed | None, line: audit.CallLine) -> ToolResult:
        """One database: the token is redeemed inside the write's transaction (exactly once). A state
        database of its own: the token is redeemed there first, and given back when the write fails
        before its commit (at most once: a crash in between leaves it used and nothing written)."""
        separate = tool.confirm and self.state is not self.db
        shown = None
        if separate:
            with self.state.write() as conn:
                shown = confirm.shown(conn, confirmation or "")
                why = confirm.redeem(conn, confirmation or "", user.name, tool.name, plain_args(args))
            if why:
                return _invalid_confirmation(tool, args, why)
        token = (confirmation or "") if tool.confirm else None
        stage = _WriteStage(token=token if not separate else None, shown=shown, separate=self.state is not self.db)
        try:
            return self._write_data(tool, args, values, user, stage, line)
        except BaseException as err:
            if stage.committing and isinstance(err, DatabaseError):
                return self._unsure(tool, args, line, stage, err)
            token_works = not separate or (not stage.committing and self._give_back(confirmation or ""))
            refused = _refused_write(err)  # the write-ahead line, if any, is settled by `invoke`
            if refused is None:
                raise
            hint = ("; the confirmation token still works once it may" if tool.confirm and token_works else
                    "; call the tool again for a new preview" if tool.confirm else "")
            raise DatabaseError(
                f"the business database refused the write of {tool.name} ({refused}): nothing was written. "
                f"The role concierge uses there may not write this; grant it the declared writes "
                f"(docs/deploy.md){hint}"
            ) from err

    def _write_data(self, tool: Tool, args: dict, values: dict, user: User, stage: _WriteStage,
                    line: audit.CallLine) -> ToolResult:
        """The write in one transaction, with its audit line where the state lives beside the data (else after
        a write-ahead line in the state database); `stage.token`: the confirmation to redeem inside it."""
        if stage.separate:
            audit.intend(self.state, **line.intent())
            line.written = True
        for attempt in range(UNIQUE_CODE_ATTEMPTS):
            stage.committing = False
            try:
                with self.db.write() as conn:
                    if tool.confirm and tool.preview_sql is not None and not self.db.is_sqlite:
                        # what is written is what the preview re-read saw: one snapshot for every statement
                        # (SQLite's single writer already sees no other write in between)
                        conn.exec_driver_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                    refusal = self._before_write(conn, tool, args, values, user, stage)
                    if refusal is not None:
                        return self._settled(refusal, line, stage)
                    result = self._run_write(conn, tool, args, {**values, **_generated(tool, self.today(tool.name))})
                    result.result_id = line.result_id
                    if not stage.separate:
                        audit.record_in(conn, **line.fields(decision="ok", result_id=result.result_id,
                                                            rows=result.row_count, message=None))
                    stage.committing = True  # past here the write may have committed though an error says not
            except sa.exc.IntegrityError:
                if tool.generated and attempt + 1 < UNIQUE_CODE_ATTEMPTS:
                    log.warning("generated code collided in %s; retrying", tool.name)
                    continue
                raise
            except DatabaseError as err:
                if not _serialization_failure(err):
                    raise
                stage.committing = False  # a snapshot another write overtook: certainly not committed
                if attempt + 1 < UNIQUE_CODE_ATTEMPTS:
                    log.info("a concurrent write overtook %s; running it again on a new snapshot", tool.name)
                    continue
                raise
            line.written = True
            if stage.separate:
                audit.settle(self.state, line.result_id, decision="ok", rows=result.row_count, ms=line.elapsed_ms(),
                             message=None)
            self.refresh(tool.catalog)
            return result
        raise AssertionError("unreachable")

    def _settled(self, result: ToolResult, line: audit.CallLine, stage: _WriteStage) -> ToolResult:
        """A write that ended before writing: its write-ahead line (if any) gets the outcome."""
        if stage.separate:
            audit.settle(self.state, line.result_id, decision=decision_of(result), rows=result.row_count,
                         ms=line.elapsed_ms(), message=result.message)
            result.result_id = line.result_id
        return result

    def _before_write(self, conn: sa.Connection, tool: Tool, args: dict, values: dict, user: User,
                      stage: _WriteStage) -> ToolResult | None:
        """Inside the write's transaction: the preview the token was shown with, the token, the checks. A
        result means nothing is written: a refusal, or a new preview when what was shown has changed."""
        if stage.token is not None:
            why = confirm.check(conn, stage.token, user.name, tool.name, plain_args(args))
            if why:
                return _invalid_confirmation(tool, args, why)
        if tool.confirm and tool.preview_sql is not None:
            shown = stage.shown if stage.separate else confirm.shown(conn, stage.token or "")
            now = _preview_row(conn, tool, values)
            if shown is not None and confirm.digest(now) != shown:
                return self._changed_preview(conn, tool, args, user, stage, now)
        if stage.token is not None:
            why = confirm.use(conn, stage.token)  # checked above, in this same transaction
            if why:
                return _invalid_confirmation(tool, args, why)
        failed = _failed_check(conn, tool, values)
        return failed.model_copy(update={"args": plain_args(args)}) if failed else None

    def _changed_preview(self, conn: sa.Connection, tool: Tool, args: dict, user: User, stage: _WriteStage,
                         now: dict[str, Any]) -> ToolResult:
        """The preview as it is now, with a new token; the old token is retired."""
        if stage.separate:
            with self.state.write() as state:
                token = confirm.issue(state, user.name, tool.name, plain_args(args), confirm.digest(now))
        else:
            confirm.retire(conn, stage.token or "")
            token = confirm.issue(conn, user.name, tool.name, plain_args(args), confirm.digest(now))
        return _confirm_result(tool, args, now, token, changed=True)

    def _run_write(self, conn: sa.Connection, tool: Tool, args: dict, values: dict) -> ToolResult:
        cursor = conn.execute(bind(tool, tool.sql), _sql_values(tool, values))
        columns = list(cursor.keys()) if cursor.returns_rows else []
        rows = [{k: plain(v) for k, v in r.items()} for r in cursor.mappings()] if columns else []
        for statement in tool.then:  # the rows of the last one that returns rows are the result
            cursor = conn.execute(bind(tool, statement), _sql_values(tool, values))
            if cursor.returns_rows:
                columns = list(cursor.keys())
                rows = [{k: plain(v) for k, v in r.items()} for r in cursor.mappings()]
        return self._ok(tool, args, columns, rows)

    def _unsure(self, tool: Tool, args: dict, line: audit.CallLine, stage: _WriteStage,
                err: DatabaseError) -> ToolResult:
        """The connection failed while the write committed. Beside the state, its audit line commits with it, so
        asking for that line settles it; else (or when the database cannot be asked) the outcome is unknown."""
        if not stage.separate:
            try:
                written = audit.was_recorded(self.state, line.result_id)
            except DatabaseError:
                written = None
            if written is False:
                raise DatabaseError(f"the write of {tool.name} was not done ({err}); nothing was written: "
                                    "it can be tried again") from err
            if written:
                line.written = True
                self.refresh(tool.catalog)
                return ToolResult(result_id=line.result_id, tool=tool.name, status="ok", args=plain_args(args),
                                  message=f"{tool.name} was written (the connection was lost as it committed)")
        else:
            audit.settle(self.state, line.result_id, decision=audit.UNKNOWN, rows=0, ms=line.elapsed_ms(),
                         message=str(err))
            line.written = True
        raise WriteOutcomeUnknown(tool.name, line.result_id, str(err)) from err

    def _give_back(self, token: str | confirm.Hashed) -> bool:
        """Make a token redeemed for a write that did not happen usable again; False when that failed."""
        try:
            with self.state.write() as conn:
                confirm.restore(conn, token)
        except Exception:
            log.exception("could not give back the confirmation token of a failed write; it stays used")
            return False
        return True

    def _ok(self, tool: Tool, args: dict, columns: list[str], rows: list[dict],
            counted: dict | None = None) -> ToolResult:
        shaped = shape(rows, tool.result, counted=counted)
        instruction = None
        if tool.ai_instruction:
            instruction = tool.ai_instruction.success if rows else tool.ai_instruction.empty
        return ToolResult(tool=tool.name, status="ok", args=plain_args(args), columns=columns,
                          ai_instruction=instruction, **shaped)


@lru_cache(maxsize=256)
def below_grain(sql: str, rollup_sql: str) -> frozenset[str]:
    """The parameters a rollup statement leaves out: given any of them, only the base table can answer."""
    return frozenset(SQL_PARAM.findall(sql)) - frozenset(SQL_PARAM.findall(rollup_sql))


def _differs(url: str, db: Database) -> bool:
    return normalise_url(url) != db.url


@dataclass
class _WriteStage:
    """Where a write is: the token to redeem inside its transaction, the digest of the preview its token was
    shown with (read before, where the state has a database of its own), and whether it is committing."""

    token: str | confirm.Hashed | None
    shown: str | None
    separate: bool  # the state (tokens, audit) lives in a database of its own
    committing: bool = False


def decision_of(result: ToolResult) -> str:
    return result.status if result.code is None else f"{result.status}:{result.code}"


def _preview_row(conn: sa.Connection, tool: Tool, values: dict) -> dict[str, Any]:
    if tool.preview_sql is None:  # the loader refuses such a catalog; a Tool made in code may lack it
        raise CatalogError([CatalogProblem(tool.catalog, f"tools.{tool.name}.preview_sql",
                                           "a tool that needs confirmation must declare preview_sql")])
    row = conn.execute(bind(tool, tool.preview_sql), _sql_values(tool, values)).mappings().first()
    return {k: plain(v) for k, v in (row or {}).items()}


def _confirm_result(tool: Tool, args: dict, preview: dict[str, Any], token: str, *, changed: bool) -> ToolResult:
    again = f"call {tool.name} again with the same arguments and this confirmation token."
    message = (f"Nothing was written: what the preview reads changed after it was shown. Show this new preview "
               f"to the user; when they confirm, {again}" if changed else
               f"Nothing is written yet. Show this preview to the user; when they confirm, {again}")
    return ToolResult(tool=tool.name, status="confirm", args=plain_args(args), preview=preview,
                      confirmation_token=token, message=message,
                      code=ResultCode.PREVIEW_CHANGED if changed else None)


def _invalid_confirmation(tool: Tool, args: dict, why: str) -> ToolResult:
    return ToolResult(tool=tool.name, status="refused", code=ResultCode.CONFIRMATION_INVALID, message=why,
                      args=plain_args(args))


# SQLSTATE of a write the role may not do: insufficient privilege, read-only transaction or database
_REFUSED_STATES = ("42501", "25006")


def _serialization_failure(err: BaseException) -> bool:
    """SQLSTATE 40001: the transaction's snapshot was overtaken by a concurrent write; nothing of it committed."""
    orig = getattr(err.__cause__, "orig", None)
    return getattr(orig, "sqlstate", None) == "40001"


def _refused_write(err: BaseException) -> str | None:
    """The database's own words when `err` is a write the role or the database does not allow, else None."""
    for cause in (err, err.__cause__):
        orig = getattr(cause, "orig", None)
        if orig is None:
            continue
        text = (str(orig).strip().splitlines() or [type(orig).__name__])[0]
        if getattr(orig, "sqlstate", None) in _REFUSED_STATES or "readonly database" in text:
            return text
    return None


def _refused(name: str, args: Any, refusal: guard.Refused) -> ToolResult:
    return ToolResult(tool=name, status="refused", code=refusal.code, message=refusal.message, param=refusal.param,
                      valid=refusal.valid, args=args if isinstance(args, dict) else {}, message_ja=refusal.message_ja)


def _service_failed(tool: Tool, args: dict, err: ServiceError) -> ToolResult:
    """A web API that could not be reached or answered nothing usable, as a result in both languages."""
    return ToolResult(tool=tool.name, status="error", message=str(err), message_ja=err.message_ja,
                      args=plain_args(args),
                      ai_instruction=tool.ai_instruction.error if tool.ai_instruction else None)


def _failed_check(conn: sa.Connection, tool: Tool, values: dict, *, implied: bool | None = None) -> ToolResult | None:
    """The error of the first of the tool's checks that fails, else None. `implied`: only the checks that
    the tool's rows imply (True: run when it returned none) or only the others (False); None: all."""
    for check in tool.checks:
        if implied is not None and check.implied_by_rows is not implied:
            continue
        if conn.execute(bind(tool, check.sql), _sql_values(tool, values)).first() is None:
            offered = conn.execute(bind(tool, check.offer), _sql_values(tool, values)) if check.offer else None
            rows = [{k: plain(v) for k, v in r.items()} for r in offered.mappings()] if offered else []
            return ToolResult(
                tool=tool.name,
                status="error",
                code=ResultCode.NOT_FOUND,
                message=check.message.en,
                message_ja=check.message.ja,
                columns=list(rows[0]) if rows else [],
                rows=rows,
                row_count=len(rows),
                ai_instruction=tool.ai_instruction.error if tool.ai_instruction else None,
            )
    return None


def _sql_values(tool: Tool, values: dict) -> dict:
    """The values bound to the SQL: `contains` strings become escaped LIKE patterns."""
    out = dict(values)
    for name, param in tool.params.items():
        if param.match == "contains" and out.get(name) is not None:
            out[name] = "%" + _escape_like(out[name]) + "%"
    return out


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _generated(tool: Tool, today: date) -> dict[str, str]:
    stamp = datetime.now().strftime("%H%M%S")
    return {
        name: f"{gen.prefix}{today:%Y%m%d}{stamp}-{secrets.token_hex(3).upper()}"
        for name, gen in tool.generated.items()
    }


def _valid_unicode(value: Any) -> Any:
    """Text as a strict UTF-8 decoder would have read it: unpaired surrogates (which JSON escapes
    can carry, and which no database or JSON encoder accepts) become U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace") if _SURROGATE.search(value) else value
    if isinstance(value, dict):
        return {_valid_unicode(k): _valid_unicode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_valid_unicode(v) for v in value]
    return value
