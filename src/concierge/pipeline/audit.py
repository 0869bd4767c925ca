"""The audit trail: every call, allowed or refused, with who, what and how long.

`record` writes the line of a call `Pipeline.invoke` ran. `refusal` writes the line of a request refused
before it reached the pipeline: the planner declining a tool the user is not offered or a request no tool
serves, the MCP SDK rejecting a request's params, the web API refusing a conversation that is not the
user's. Its decision is ``refused:<code>``, as the pipeline's own refusals are.

`source` is the channel and client of a line (``mcp-http 127.0.0.1``); a channel sets it once for all that
one request does with ``with audit.source(...)``, so the layers below need not pass it along. Text is kept
visible: NUL, other control characters and direction overrides in a name, a message or the arguments are
stored escaped, so reading the audit cannot be turned around by what a client sent.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from concierge.errors import DatabaseError
from concierge.storage import state as schema
from concierge.storage.database import Database

log = logging.getLogger(__name__)
_INSERT = schema.audit.insert()  # built once, so its compiled form is found without keying a new statement
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


def refusal(db: Database, *, user: str, tool: str, code: str, message: str, args: Any = None,
            source: str | None = None, result_id: str | None = None) -> str:
    """The audit line of a request refused before the pipeline ran it; returns its result id.

    `tool`: the tool asked for, or what was asked (``tools/call``, ``[sql]``) when no tool was named."""
    result_id = result_id or "r_" + secrets.token_hex(5)
    record(db, user=user, tool=tool, args=args if args is not None else {}, decision=f"refused:{code}",
           result_id=result_id, rows=0, ms=0.0, message=message, source=source)
    return result_id


def record(db: Database, *, user: str, tool: str, args: Any, decision: str, result_id: str, rows: int,
           ms: float, message: str | None, source: str | None = None) -> None:
    """One audit line in the state database `db`; `source`: the channel and client, when known
    (else the one set with `source`)."""
    source = source or _SOURCE.get()
    entry = {
        "at": datetime.now(UTC),
        "user_name": user,
        "tool": _text(str(tool))[:100],
        "args": _INVISIBLE.sub(_json_escape, json.dumps(args, ensure_ascii=False, default=str))[:10_000],
        "decision": decision,
        "result_id": result_id,
        "rows": rows,
        "ms": round(ms, 3),
        "message": _text(message) if message else message,
        "source": _text(source)[:200] if source else None,
    }
    try:
        db.insert(_INSERT, entry)  # committed before the call's result is returned
    except DatabaseError as err:  # the call's own outcome matters more than its audit line
        log.error("could not write the audit line for %s: %s", result_id, err)


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


def latest(db: Database, limit: int = 20) -> list[dict[str, Any]]:
    table = schema.audit
    with db.read() as conn:
        rows = conn.execute(sa.select(table).order_by(table.c.id.desc()).limit(limit)).mappings().all()
    return [dict(r) for r in rows]
