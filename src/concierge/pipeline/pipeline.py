"""The one pipeline every caller uses: access → guard → execute → shape → audit.

MCP, the CLI, the agent loop and the web page all call `Pipeline.invoke`.
There is no second path that skips a step. The access check comes first: a
caller who may not use a tool is refused before the guard could tell them
which values the tool accepts.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

import sqlalchemy as sa

from concierge.catalog.loader import Catalog, load_catalogs
from concierge.catalog.model import Tool
from concierge.errors import ConciergeError, DatabaseError, ResultCode, WriteOutcomeUnknown
from concierge.pipeline import access, audit, confirm, guard
from concierge.pipeline.access import Session, User
from concierge.sources.executor import Executor, Executors, NotDone, WriteStep
from concierge.sources.http import ServiceError
from concierge.sources.http.executor import HttpExecutor
from concierge.sources.result import (
    BaseResult,
    Confirmation,
    Failure,
    Refusal,
    Repeated,
    Rows,
    ToolResult,
    new_result_id,
    plain_args,
)
from concierge.sources.sql.executor import Needed, SqlExecutor, refused_write
from concierge.storage import users
from concierge.storage.database import Database, first_line, normalise_url
from concierge.storage.migrate import ensure_state
from concierge.storage.replicas import ReplicaConfig, Replicas

log = logging.getLogger(__name__)
SAME_WRITE_WITHIN = timedelta(minutes=30)  # a preview says so when the same write was done this recently
ROLE_FRESH_S = 0.05  # a role read this recently is a role read now (`as_now`)
_clock = time.monotonic  # what `User.read_at` is measured on
Prepare = Callable[[list[Catalog], Database, Database], None]  # (catalogs, business db, state db)
_SURROGATE = re.compile("[\ud800-\udfff]")


class Pipeline:
    """`db` holds the business data (it may be a read-only role); `state` holds concierge's own tables
    (users, audit, confirmations, tokens, conversations): the same object unless a state database is given."""

    def __init__(self, catalogs: list[Catalog], db: Database, *, state: Database | None = None,
                 today: date | None = None, use_rollups: bool = True, replicas: ReplicaConfig | None = None):
        self.catalogs = catalogs
        self.db = db
        self.state = state or db
        self._today = today
        self.tools: dict[str, Tool] = {n: t for c in catalogs for n, t in c.tools.items()}
        self.roles = {c.name: c.spec.roles for c in catalogs}
        self._catalog_of = {n: c for c in catalogs for n in c.tools}
        self._contexts: dict[str | None, tuple[int, guard.GuardContext, float]] = {}
        # use_rollups False: every tool reads its base tables (to compare, or to rule them out)
        # with replicas: the read tools read there, writes and the reads that must see them on `db`
        reads = Replicas(db, self.state, replicas) if replicas is not None and replicas.urls else None
        self.sql = SqlExecutor(catalogs, db, use_rollups=use_rollups, replicas=reads)
        self.http = HttpExecutor(catalogs, self.state)  # the tools of `kind: http` sources
        self.executors = Executors([self.http, self.sql])
        self.facts_version = 0  # counts `refresh` calls: what was built from the facts of an older version is stale

    @classmethod
    def open(cls, catalog_refs: list[str], database: str | None = None, *, state_database: str | None = None,
             today: date | None = None, use_rollups: bool = True, prepare: Prepare | None = None,
             replicas: ReplicaConfig | None = None) -> Pipeline:
        """Load and check the catalogs, connect, and make sure the state tables are at their revision.

        The state lives in `state_database` when given, else beside the business data. `prepare` runs
        once the state is ready (the demos install their data with it: `concierge.demo.bootstrap`).
        `replicas`: the read replicas of `database` (storage/replicas.py).
        """
        catalogs = load_catalogs(catalog_refs)
        db = Database(database)
        state = Database(state_database) if state_database and _differs(state_database, db) else db
        try:
            ensure_state(state)
            if prepare is not None:
                prepare(catalogs, db, state)
        except BaseException:
            db.dispose()
            if state is not db:
                state.dispose()
            raise
        try:
            return cls(catalogs, db, state=state, today=today, use_rollups=use_rollups, replicas=replicas)
        except BaseException:
            db.dispose()
            if state is not db:
                state.dispose()
            raise

    def close(self) -> None:
        self.executors.close()
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

    def set_today(self, today: date | None) -> None:
        """Set the configured clock (None: the demo's, else the wall's), as the eval does for each case it plays."""
        self._today = today

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
        call, a conversation waiting for a yes) never keeps rights that were taken away. A `User` this gave
        less than ROLE_FRESH_S ago is taken as it is: the turn that read it at its start (its offer of tools)
        makes its calls within milliseconds, and a call takes longer than that to run anyway."""
        if user.read_at is not None and _clock() - user.read_at < ROLE_FRESH_S:
            return user
        asked = _clock()
        record = users.find(self.state, user.name)
        if record is None:
            return None
        return User(record.name, record.role, record.display_name, read_at=asked)

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
                and self.http.caller.enums.clock() < cached[2]):
            return cached[1]
        catalogs = [self._catalog_of[key]] if key else self.catalogs
        enums: dict[str, list[str]] = {}
        ranges: dict[str, tuple[date, date]] = {}
        synonyms: dict[str, dict[str, str]] = {}
        shared: dict[str, dict[str, list[str]]] = {}
        fits: dict[str, dict[str, list[str]]] = {}
        needs: dict[str, dict[str, Needed]] = {}
        for catalog in catalogs:
            facts = self.sql.facts(catalog)
            enums.update(facts.enum_values)
            ranges.update(facts.date_ranges)
            synonyms.update(facts.enum_synonyms)
            shared.update(facts.enum_shared)
            fits.update(facts.enum_fits)
            needs.update(facts.needs)
        listed = [self.tools[key]] if key else [t for c in catalogs for t in c.tools.values()]
        http_enums, expires = self.http.caller.enum_values(listed, strict=key is not None)
        enums.update(http_enums)
        ctx = guard.GuardContext(today, enums, ranges, synonyms, shared, fits, needs)
        self._contexts[key] = (version, ctx, expires)
        return ctx

    def refresh(self, catalog: str | None = None) -> None:
        """Forget the values and ranges read from the data (of one catalog, or all); read again on next use."""
        self.executors.refresh(catalog)
        self.facts_version += 1

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
            message = "; ".join(m for m in (result.message, result.read_from) if m) or None
            audit.record(self.state, **line.fields(decision=decision_of(result), result_id=result.result_id,
                                                   rows=result.any_row_count(), message=message))
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
            return Refusal(tool=name, code=ResultCode.NOT_PERMITTED,
                           message=f"user {held.name} no longer exists; nothing was run",
                           message_ja=f"ユーザー {held.name} はもう登録されていないため、何も実行していません。")
        tool = self.tools.get(name)
        if tool is None:
            return _refused(name, args, guard.unknown_tool(name, self.tools))
        # Access before the guard: a caller who may not use a tool learns nothing of its valid values.
        permission = access.decide(user, tool, self.roles[tool.catalog])
        if isinstance(permission, access.Denied):
            return Refusal(tool=name, code=permission.code, message=permission.message)
        try:
            ctx = self.guard_context(name)
        except ServiceError as err:  # an enum's listing could not be read: nothing is sent
            return _not_done(tool, args if isinstance(args, dict) else {}, err)
        decision = guard.check_args(tool, args, ctx)
        if isinstance(decision, guard.Refused):
            return _refused(name, args, decision)
        values = {**decision.args, **permission.identity, **access.session_identity(user, session),
                  "_today": self.today(name), "_now": self.now(name)}
        executor = self.executors.of(tool)
        try:
            if tool.mode == "read":
                return executor.read(tool, decision.args, values)
            if tool.confirm and confirmation is None:
                return self._preview(tool, executor, decision.args, values, user)
        except NotDone as err:
            return _not_done(tool, decision.args, err)
        return self._write(tool, executor, _Write(decision.args, values, user, confirmation, line))

    def _preview(self, tool: Tool, executor: Executor, args: dict, values: dict, user: User) -> ToolResult:
        """What the write would do, and a token bound to the call and, where it can be read again before the
        write, to this preview (its digest): a token redeemed after it has changed writes nothing and gets a
        new preview instead."""
        shown = executor.preview(tool, args, values)
        if isinstance(shown, BaseResult):
            return shown
        digest = confirm.digest(shown.row) if shown.rereadable else None
        with self.state.write() as conn:
            token = confirm.issue(conn, user.name, tool.name, plain_args(args), digest)
        return self._repeats(_confirm_result(tool, args, shown.row, token, nothing_yet=shown.nothing_yet))

    def _repeats(self, preview: Confirmation) -> Confirmation:
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

    def _write(self, tool: Tool, executor: Executor, call: _Write) -> ToolResult:
        """Beside the state (one database): the token is redeemed inside the write's transaction (exactly once)
        and the audit line commits with the write. Apart (a state database of its own, or a web API): the token
        is redeemed first and given back when nothing was done (at most once: a crash in between leaves it used
        and nothing written), and a write-ahead line is settled with the outcome."""
        beside = executor.beside(self.state)
        step = _Step(self, tool, call, beside=beside)
        redeemed = tool.confirm and not beside
        if redeemed:
            with self.state.write() as conn:
                step.shown = confirm.shown(conn, call.token)
                why = confirm.redeem(conn, call.token, call.user.name, tool.name, plain_args(call.args))
            if why:
                return _invalid_confirmation(tool, call.args, why)
        if not beside:
            audit.intend(self.state, **call.line.intent())
            call.line.written = True
        try:
            result = executor.write(tool, call.args, call.values, step)
        except NotDone as err:
            if redeemed and not err.sent:
                self._give_back(call.token)
            result = _not_done(tool, call.args, err)
        except BaseException as err:
            return self._failed_write(tool, call, step, redeemed, err)
        if not beside:
            audit.settle(self.state, call.line.result_id, decision=decision_of(result), rows=result.any_row_count(),
                         ms=call.line.elapsed_ms(), message=result.message)
            result.result_id = call.line.result_id
        if result.status == "ok":
            call.line.written = True
            if executor.changes_facts(tool):
                self.refresh(tool.catalog)
        return result

    def _failed_write(self, tool: Tool, call: _Write, step: _Step, redeemed: bool, err: BaseException) -> ToolResult:
        """A write that raised: unsure when it failed as it committed, else a refusal the database gave in its own
        words (with what the token can still do), else the error itself."""
        if step.committing and isinstance(err, DatabaseError):
            return self._unsure(tool, call, step.beside, err)
        token_works = not redeemed or (not step.committing and self._give_back(call.token))
        refused = refused_write(err)  # the write-ahead line, if any, is settled by `invoke`
        if refused is None:
            raise err
        hint = ("; the confirmation token still works once it may" if tool.confirm and token_works else
                "; call the tool again for a new preview" if tool.confirm else "")
        raise DatabaseError(
            f"the database refused the write of {tool.name} ({refused}); nothing was written. The database "
            f"role concierge connects as may not write this; grant it the declared writes (docs/deploy.md){hint}"
        ) from err

    def _unsure(self, tool: Tool, call: _Write, beside: bool, err: DatabaseError) -> ToolResult:
        """The connection failed while the write committed. Beside the state, its audit line commits with it, so
        asking for that line settles it; else (or when the database cannot be asked) the outcome is unknown."""
        line = call.line
        if beside:
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
                return Rows(result_id=line.result_id, tool=tool.name, args=plain_args(call.args),
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


def _differs(url: str, db: Database) -> bool:
    return normalise_url(url) != db.url


@dataclass
class _Write:
    """A checked write call: its arguments as given, the values bound (with identity and clock), its user,
    the token it came with (when it needs one) and its audit line."""

    args: dict
    values: dict
    user: User
    confirmation: str | confirm.Hashed | None
    line: audit.CallLine

    @property
    def token(self) -> str | confirm.Hashed:
        return self.confirmation or ""


class _Step(WriteStep):
    """The pipeline's part inside a write's transaction (`sources.executor.WriteStep`). Beside the state it
    checks, compares and uses the token and writes the audit line in the write's transaction; apart, the token
    was redeemed before (`shown`: the digest of the preview it was shown with) and the line is kept apart."""

    def __init__(self, pipeline: Pipeline, tool: Tool, call: _Write, *, beside: bool):
        self.pipeline, self.tool, self.call, self.beside = pipeline, tool, call, beside
        self.shown: str | None = None
        self.committing = False

    def check(self, conn: sa.Connection | None) -> ToolResult | None:
        if not (self.beside and self.tool.confirm) or conn is None:
            return None
        why = confirm.check(conn, self.call.token, self.call.user.name, self.tool.name, plain_args(self.call.args))
        return _invalid_confirmation(self.tool, self.call.args, why) if why else None

    def changed(self, conn: sa.Connection | None, now: dict[str, Any]) -> ToolResult | None:
        shown = confirm.shown(conn, self.call.token) if self.beside and conn is not None else self.shown
        if shown is None or confirm.digest(now) == shown:
            return None
        args, user = plain_args(self.call.args), self.call.user.name
        if self.beside and conn is not None:
            confirm.retire(conn, self.call.token)
            token = confirm.issue(conn, user, self.tool.name, args, confirm.digest(now))
        else:
            with self.pipeline.state.write() as state:
                token = confirm.issue(state, user, self.tool.name, args, confirm.digest(now))
        return _confirm_result(self.tool, self.call.args, now, token, nothing_yet=None)

    def use(self, conn: sa.Connection | None) -> ToolResult | None:
        if not (self.beside and self.tool.confirm) or conn is None:
            return None
        why = confirm.use(conn, self.call.token)  # checked above, in this same transaction
        return _invalid_confirmation(self.tool, self.call.args, why) if why else None

    def record(self, conn: sa.Connection | None, result: ToolResult) -> None:
        line = self.call.line
        result.result_id = line.result_id
        if self.beside and conn is not None:
            audit.record_in(conn, **line.fields(decision="ok", result_id=result.result_id, rows=result.any_row_count(),
                                                message=None))


def decision_of(result: ToolResult) -> str:
    code = None if isinstance(result, Rows) else result.code
    return result.status if code is None else f"{result.status}:{code}"


def _confirm_result(tool: Tool, args: dict, row: dict[str, Any], token: str, *,
                    nothing_yet: str | None) -> Confirmation:
    """A preview and its token; `nothing_yet`: the executor's sentence for a first preview (None: the preview of
    a write refused because what it reads changed after it was shown)."""
    again = f"call {tool.name} again with the same arguments and this confirmation token."
    message = (f"{nothing_yet} Show this preview to the user; when they confirm, {again}" if nothing_yet else
               f"Nothing was written: what the preview reads changed after it was shown. Show this new preview "
               f"to the user; when they confirm, {again}")
    return Confirmation(tool=tool.name, args=plain_args(args), preview=row, confirmation_token=token,
                        message=message, code=None if nothing_yet else ResultCode.PREVIEW_CHANGED)


def _invalid_confirmation(tool: Tool, args: dict, why: str) -> Refusal:
    return Refusal(tool=tool.name, code=ResultCode.CONFIRMATION_INVALID, message=why, args=plain_args(args))


def _refused(name: str, args: Any, refusal: guard.Refused) -> Refusal:
    return Refusal(tool=name, code=refusal.code, message=refusal.message, param=refusal.param, valid=refusal.valid,
                   args=args if isinstance(args, dict) else {}, message_ja=refusal.message_ja)


def _not_done(tool: Tool, args: dict, err: NotDone | ServiceError) -> Failure:
    """A source that could not be reached or answered nothing usable, as a result in both languages."""
    return Failure(tool=tool.name, message=str(err), message_ja=err.message_ja, args=plain_args(args),
                   ai_instruction=tool.ai_instruction.error if tool.ai_instruction else None)


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
