"""The audit trail: every call, allowed or refused, with who, what and how long."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from concierge.errors import DatabaseError
from concierge.storage import state as schema
from concierge.storage.database import Database

log = logging.getLogger(__name__)
_INSERT = schema.audit.insert()  # built once, so its compiled form is found without keying a new statement


def record(db: Database, *, user: str, tool: str, args: Any, decision: str, result_id: str, rows: int,
           ms: float, message: str | None, source: str | None = None) -> None:
    """One audit line in the state database `db`; `source`: the channel and client, when known."""
    entry = {
        "at": datetime.now(UTC),
        "user_name": user,
        "tool": _text(str(tool))[:100],
        "args": json.dumps(args, ensure_ascii=False, default=str)[:10_000],
        "decision": decision,
        "result_id": result_id,
        "rows": rows,
        "ms": round(ms, 3),
        "message": _text(message) if message else message,
        "source": _text(source)[:200] if source else None,
    }
    try:
        with db.write() as conn:
            conn.execute(_INSERT, entry)
    except DatabaseError as err:  # the call's own outcome matters more than its audit line
        log.error("could not write the audit line for %s: %s", result_id, err)


def _text(text: str) -> str:
    """PostgreSQL text cannot hold NUL; a name or message quoting one keeps it visible, escaped."""
    return text.replace("\x00", "\\x00")


def latest(db: Database, limit: int = 20) -> list[dict[str, Any]]:
    table = schema.audit
    with db.read() as conn:
        rows = conn.execute(sa.select(table).order_by(table.c.id.desc()).limit(limit)).mappings().all()
    return [dict(r) for r in rows]
