"""The audit trail: every call, allowed or refused, with who, what and how long.

`record` writes the line of a call `Pipeline.invoke` ran. `refusal` writes the line of a request refused
before it reached the pipeline: the planner declining a tool the user is not offered or a request no tool
serves, the MCP SDK rejecting a request's params, the web API refusing a conversation that is not the
user's. Its decision is ``refused:<code>``, as the pipeline's own refusals are. `stranger` writes the line
of a request refused before anyone signed in (a failed sign-in, a guessed bearer token, a cross-site
write), bounded per client address and kind: the first lines of each minute, then one summary line that
counts the rest, so that a stranger cannot grow the audit without bound.

A write's line survives a crash: where the state lives beside the data it is written inside the write's
own transaction (`record_in`), so a committed write always has it; where the state has a database of its
own, a write-ahead line (`intend`, decision ``pending``) is committed before the write and settled after
it (`settle`), and `reconcile` marks the lines a stopped process left pending as ``unknown``.

`source` is the channel and client of a line (``mcp-http 127.0.0.1``); a channel sets it once for all that
one request does with ``with audit.source(...)``, so the layers below need not pass it along. Text is kept
visible: NUL, other control characters and direction overrides in a name, a message or the arguments are
stored escaped, so reading the audit cannot be turned around by what a client sent.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa

from concierge.errors import DatabaseError
from concierge.sources.result import new_result_id
from concierge.storage import clients
from concierge.storage import state as schema
from concierge.storage.database import Database
from concierge.storage.database import rows as driver_rows
from concierge.storage.insert_once import insert_once

log = logging.getLogger(__name__)
PENDING = "pending"  # a write-ahead line: the write has not reported its outcome yet
UNKNOWN = "unknown"  # the write's process stopped before its outcome was known: it may have been written
UNKNOWN_MESSAGE = ("the process stopped between this write and its outcome: it may have been written; "
                   "check the data before repeating it")
RECONCILE_AFTER = timedelta(minutes=5)  # longer than any write may run (the statement timeout is far shorter)
_INSERT = schema.audit.insert()  # built once, so its compiled form is found without keying a new statement
# an outcome known late wins over `unknown` (reconcile may have judged a slow write stopped); setting it twice
# sets the same
_SETTLE = schema.audit.update().where(
    schema.audit.c.result_id == sa.bindparam("line"),
    schema.audit.c.decision.in_([sa.bindparam("pending"), sa.bindparam("unknown")]),
).values(decision=sa.bindparam("outcome"), rows=sa.bindparam("count"), ms=sa.bindparam("took"),
         message=sa.bindparam("said"))
_SOURCE: ContextVar[str | None] = ContextVar("concierge_audit_source", default=None)
# NUL, C0 and C1 controls but tab and newline, and the bidirectional embeddings, overrides and isolates
_INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@contextmanager
def source(name: str | None) -> Iterator[None]:
    """The audit lines written inside (in this task, the tasks and worker threads it starts) came from `name`."""
    token = _SOURCE.set(name)
    try:
        yield
    finally:
        _SOURCE.reset(token)


def current_source() -> str | None:
    return _SOURCE.get()


@dataclass
class CallLine:
    """The audit line of one call, filled in as the call goes; `written` once a line of it is in the audit."""

    user: str
    tool: str
    args: Any
    source: str | None
    started: float
    result_id: str = field(default_factory=new_result_id)
    written: bool = False

    def elapsed_ms(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 3)

    def fields(self, *, decision: str, result_id: str, rows: int, message: str | None) -> dict[str, Any]:
        return {"user": self.user, "tool": self.tool, "args": self.args, "decision": decision,
                "result_id": result_id, "rows": rows, "ms": self.elapsed_ms(), "message": message,
                "source": self.source}

    def intent(self) -> dict[str, Any]:
        return {"user": self.user, "tool": self.tool, "args": self.args, "result_id": self.result_id,
                "source": self.source}


def refusal(db: Database, *, user: str, tool: str, code: str, message: str, args: Any = None,
            source: str | None = None, result_id: str | None = None) -> str:
    """The audit line of a request refused before the pipeline ran it; returns its result id.

    `tool`: the tool asked for, or what was asked (``tools/call``, ``[sql]``) when no tool was named."""
    result_id = result_id or new_result_id()
    record(db, user=user, tool=tool, args=args if args is not None else {}, decision=f"refused:{code}",
           result_id=result_id, rows=0, ms=0.0, message=message, source=source)
    return result_id


def record(db: Database, *, user: str, tool: str, args: Any, decision: str, result_id: str, rows: int,
           ms: float, message: str | None, source: str | None = None) -> None:
    """One audit line in the state database `db`; `source`: the channel and client, when known
    (else the one set with `source`)."""
    entry = _entry(user=user, tool=tool, args=args, decision=decision, result_id=result_id, rows=rows, ms=ms,
                   message=message, source=source)
    try:
        db.write_one(_INSERT, entry)  # committed before the call's result is returned
    except DatabaseError as err:  # the call's own outcome matters more than its audit line
        log.error("could not write the audit line for %s: %s", result_id, err)


def record_in(conn: sa.Connection, *, user: str, tool: str, args: Any, decision: str, result_id: str, rows: int,
              ms: float, message: str | None, source: str | None = None) -> None:
    """The audit line of a write, inside the write's own transaction (the state beside the data): the line
    commits with the write or not at all, so a committed write always has its line."""
    driver_rows(conn, _INSERT, _entry(user=user, tool=tool, args=args, decision=decision, result_id=result_id,
                                      rows=rows, ms=ms, message=message, source=source))


def intend(db: Database, *, user: str, tool: str, args: Any, result_id: str, source: str | None = None) -> None:
    """The write-ahead line of a write to a database that does not hold the state: committed before the
    write starts (it raises when it cannot be written, and then nothing is written), settled after it."""
    db.write_one(_INSERT, _entry(user=user, tool=tool, args=args, decision=PENDING, result_id=result_id, rows=0,
                                 ms=0.0, message="the write is under way", source=source))


def settle(db: Database, result_id: str, *, decision: str, rows: int, ms: float, message: str | None) -> bool:
    """The outcome of a write whose line `intend` wrote; False when it could not be recorded (the line stays
    pending, and `reconcile` reports it)."""
    try:
        db.write_one(_SETTLE, {"line": result_id, "pending": PENDING, "unknown": UNKNOWN, "outcome": decision,
                               "count": rows, "took": round(ms, 3), "said": _text(message) if message else message})
    except DatabaseError as err:
        log.error("could not record the outcome of write %s: %s", result_id, err)
        return False
    return True


def was_recorded(db: Database, result_id: str) -> bool:
    """Whether the line of `result_id` exists: for a write audited inside its own transaction, whether the
    write committed. Raises `DatabaseError` when the database cannot be asked."""
    table = schema.audit
    with db.read() as conn:
        return conn.scalar(sa.select(table.c.id).where(table.c.result_id == result_id)) is not None


def reconcile(db: Database, *, older_than: timedelta = RECONCILE_AFTER) -> list[dict[str, Any]]:
    """Writes whose process stopped between their write-ahead line and their outcome: each becomes
    ``unknown`` (it may have been written) and is returned, for a person to check against the data."""
    table = schema.audit
    cutoff = datetime.now(UTC) - older_than
    with db.write() as conn:
        stale = conn.execute(sa.select(table).where(table.c.decision == PENDING, table.c.at < cutoff)
                             .order_by(table.c.id)).mappings().all()
        if stale:
            conn.execute(table.update().where(table.c.id.in_([r["id"] for r in stale]))
                         .values(decision=UNKNOWN, message=UNKNOWN_MESSAGE))
    return [{**dict(r), "decision": UNKNOWN, "message": UNKNOWN_MESSAGE} for r in stale]


def _entry(*, user: str, tool: str, args: Any, decision: str, result_id: str, rows: int, ms: float,
           message: str | None, source: str | None) -> dict[str, Any]:
    source = source or _SOURCE.get()
    return {
        "at": datetime.now(UTC),
        "user_name": _text(user)[:50],
        "tool": _text(str(tool))[:100],
        "args": _INVISIBLE.sub(_json_escape, json.dumps(args, ensure_ascii=False, default=str))[:10_000],
        "decision": decision,
        "result_id": result_id,
        "rows": rows,
        "ms": round(ms, 3),
        "message": _text(message) if message else message,
        "source": _text(source)[:200] if source else None,
    }


def _text(text: str) -> str:
    """PostgreSQL text cannot hold NUL, and control or direction characters would act on whoever reads the
    audit; a name or message quoting one keeps it visible, escaped (``\\x00``, ``\\u202e``)."""
    return _INVISIBLE.sub(_escape, text)


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _json_escape(found: re.Match[str]) -> str:
    """Inside JSON text such a character can only be in a string, where ``\\uXXXX`` stands for it."""
    return f"\\u{ord(found.group()):04x}"


def same_write(db: Database, tool: str, args: dict[str, Any], within: timedelta) -> tuple[datetime, str] | None:
    """The time and result id of the latest write of `tool` with exactly `args` done in the last `within`
    (by anyone), else None: a sale entered twice by mistake."""
    table = schema.audit
    since = datetime.now(UTC) - within
    with db.read() as conn:
        lines = conn.execute(sa.select(table.c.at, table.c.result_id, table.c.args)
                             .where(table.c.tool == tool, table.c.at >= since, table.c.decision == "ok")
                             .order_by(table.c.at.desc()).limit(50)).all()
    for at, result_id, said in lines:
        try:
            same = json.loads(said) == args
        except ValueError:
            continue
        if same:
            return at, result_id
    return None


def latest(db: Database, limit: int = 20) -> list[dict[str, Any]]:
    table = schema.audit
    with db.read() as conn:
        rows = conn.execute(sa.select(table).order_by(table.c.id.desc()).limit(limit)).mappings().all()
    return [dict(r) for r in rows]


# --- refusals of strangers: bounded per source and kind -------------------------------------------------
NOISE_LINES = 20  # lines of one source and kind written one by one in each window
NOISE_WINDOW = timedelta(minutes=1)
_NOISE_KEPT = timedelta(hours=1)  # the counts of windows older than this are deleted


def stranger(db: Database, *, kind: str, user: str, tool: str, decision: str, message: str, source: str,
             args: Any = None) -> None:
    """The audit line of a request refused before anyone was signed in (a failed sign-in, an unknown bearer
    token, a cross-site write), bounded so that a stranger cannot grow the audit without bound.

    In each window of `NOISE_WINDOW` from the first, a (source, kind, decision) has its first `NOISE_LINES`
    lines written one by one; the rest of the window is counted into one summary line, kept up to date in
    place: ``and 512 more like this from web 203.0.113.7 since 12:00:05 UTC`` (tool `kind`, user ``?``, the
    same decision, ``{"more": 512, ...}`` as its arguments). The counts are in the state database, so every
    server process counts together. An IPv6 client is counted by its /64 (one host holds that many).
    `kind` names the channel (``sign-in``): never text the client chose, or each new text would count anew."""
    try:
        written = _counted(db, kind, decision, source)
    except DatabaseError as err:  # as for `record`: the request's own answer matters more
        log.error("could not count the audit line of %s from %s: %s", kind, source, err)
        return
    if written:
        record(db, user=user, tool=tool, args=args if args is not None else {}, decision=decision,
               result_id=new_result_id(), rows=0, ms=0.0, message=message, source=source)


@dataclass(frozen=True)
class _Window:
    source: str  # the source as counted (an IPv6 client by its /64)
    kind: str  # the channel and decision
    start: datetime
    lines: int
    more: int
    summary_id: int | None


def _counted(db: Database, kind: str, decision: str, source: str) -> bool:
    """Count one line of (source, kind, decision); True when it is to be written, False when the window's
    summary line counted it."""
    now = datetime.now(UTC)
    table = schema.audit_noise

    def count(conn: sa.Connection) -> bool:
        window = _noise_window(conn, _text(noise_source(source))[:200], f"{kind} {decision}"[:100], now)
        this = table.update().where(table.c.source == window.source, table.c.kind == window.kind)
        if window.lines < NOISE_LINES:
            conn.execute(this.values(lines=window.lines + 1))
            return True
        summary_id = _summarised(conn, window, kind, decision, now)
        conn.execute(this.values(more=window.more + 1, summary_id=summary_id))
        return False

    return db.retrying(count)


def noise_source(source: str) -> str:
    """The source a stranger's lines are counted by: ``web 2001:db8:1:2::/64`` for any client of that /64,
    else the source itself (`storage.clients.counted`)."""
    channel, _, address = source.rpartition(" ")
    return f"{channel} {clients.counted(address)}".strip() if channel else clients.counted(address)


def _noise_window(conn: sa.Connection, source: str, kind: str, now: datetime) -> _Window:
    """The current window of (source, kind), its row made or started anew if need be, locked until commit."""
    table = schema.audit_noise
    insert_once(conn, table, {"source": source, "kind": kind, "window_start": now, "lines": 0, "more": 0,
                              "summary_id": None})
    row = conn.execute(sa.select(table.c.window_start, table.c.lines, table.c.more, table.c.summary_id)
                       .where(table.c.source == source, table.c.kind == kind).with_for_update()).one()
    start = row.window_start if row.window_start.tzinfo else row.window_start.replace(tzinfo=UTC)
    if now - start < NOISE_WINDOW:
        return _Window(source, kind, start, row.lines, row.more, row.summary_id)
    conn.execute(table.update().where(table.c.source == source, table.c.kind == kind)
                 .values(window_start=now, lines=0, more=0, summary_id=None))
    old = (sa.select(table.c.source, table.c.kind).where(table.c.window_start < now - _NOISE_KEPT)
           .with_for_update(skip_locked=True))  # another process's row in use is left to a later window
    conn.execute(table.delete().where(sa.tuple_(table.c.source, table.c.kind).in_(old)))
    return _Window(source, kind, now, 0, 0, None)


def _summarised(conn: sa.Connection, window: _Window, kind: str, decision: str, now: datetime) -> int:
    """The window's summary line, written or brought up to date to count one more; its id."""
    more = window.more + 1
    args = {"more": more, "since": window.start.isoformat(timespec="seconds"),
            "last": now.isoformat(timespec="seconds")}
    message = (f"and {more} more like this from {window.source} since {window.start:%H:%M:%S} UTC "
               f"(the first {NOISE_LINES} of each {_minutes(NOISE_WINDOW)} are written one by one)")
    if window.summary_id is None:
        entry = _entry(user="?", tool=kind, args=args, decision=decision, result_id=new_result_id(),
                       rows=0, ms=0.0, message=message, source=window.source)
        return conn.execute(_INSERT.returning(schema.audit.c.id), entry).scalar_one()
    table = schema.audit
    kept = conn.execute(table.update().where(table.c.id == window.summary_id)
                        .values(args=json.dumps(args), message=_text(message))).rowcount
    if not kept:  # the line was deleted meanwhile (the audit pruned): the count starts a line anew
        return _summarised(conn, replace(window, summary_id=None), kind, decision, now)
    return window.summary_id


def _minutes(window: timedelta) -> str:
    minutes = window.total_seconds() / 60
    return "minute" if minutes == 1 else f"{minutes:g} minutes"
