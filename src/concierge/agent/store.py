"""Conversations, kept in the state database (beside the data unless it has its own), so a restarted
process continues them.

A conversation belongs to one user and is found by (user, session id): another
user's session behaves exactly as one that does not exist. Each turn appends
its messages (the user's text, the model's tool calls, the tool results, the
answer) in one transaction, together with the write that waits for the user's
yes, if any. That pending write's confirmation token is stored here and never
leaves the server.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from concierge.agent.providers.interface import Message, ToolCall
from concierge.sources.result import from_json
from concierge.storage import state as schema
from concierge.storage.database import Database, rows

TITLE_CHARS = 80


def new_session_id() -> str:
    return "s_" + secrets.token_hex(8)


class ConversationStore:
    def __init__(self, db: Database):
        self.db = db

    def list_sessions(self, user_name: str, search: str = "") -> list[dict[str, Any]]:
        """The user's conversations, most recently used first; with `search`, those whose title or any question
        holds it (case-insensitive, taken literally)."""
        c, m = schema.conversations, schema.conversation_messages
        count = sa.select(sa.func.count()).where(m.c.conversation_id == c.c.id).scalar_subquery()
        query = (
            sa.select(c.c.session_id, c.c.title, c.c.created_at, c.c.updated_at, c.c.pending, count.label("n"))
            .where(c.c.user_name == user_name)
            .order_by(c.c.updated_at.desc(), c.c.id.desc())
        )
        if search.strip():
            said = f"%{_escaped(search.strip().lower())}%"
            asked = sa.select(m.c.id).where(m.c.conversation_id == c.c.id, m.c.role == "user",
                                            sa.func.lower(m.c.body).like(said, escape="\\"))
            query = query.where(sa.or_(sa.func.lower(c.c.title).like(said, escape="\\"), asked.exists()))
        with self.db.read() as conn:
            rows = conn.execute(query).mappings().all()
        return [
            {
                "session_id": r["session_id"],
                "title": r["title"],
                "created_at": _iso(r["created_at"]),
                "updated_at": _iso(r["updated_at"]),
                "messages": r["n"],
                "pending": r["pending"] is not None,
            }
            for r in rows
        ]

    def rename(self, session_id: str, user_name: str, title: str) -> bool:
        """Give the conversation a title of the user's own; False when it is not this user's."""
        c = schema.conversations
        with self.db.write() as conn:
            done = conn.execute(c.update().where(c.c.session_id == session_id, c.c.user_name == user_name)
                                .values(title=title.strip()[:TITLE_CHARS]))
        return done.rowcount == 1

    def exists(self, session_id: str, user_name: str) -> bool:
        with self.db.read() as conn:
            return _conversation_id(conn, session_id, user_name) is not None

    def load(self, session_id: str, user_name: str) -> list[Message]:
        """The messages of the conversation in order; [] when it does not exist for this user."""
        return self.resume(session_id, user_name)[0]

    def pending(self, session_id: str, user_name: str) -> dict[str, Any] | None:
        """The write waiting for a yes, with its confirmation token; None when there is none."""
        with self.db.read() as conn:
            row = conn.execute(_FIND, {"session_id": session_id, "user_name": user_name}).first()
        return json.loads(row.pending) if row and row.pending else None

    def resume(self, session_id: str, user_name: str) -> tuple[list[Message], dict[str, Any] | None]:
        """The messages and the pending write (as `load` and `pending`), read by one statement."""
        found = self.db.alone(_RESUME, {"session_id": session_id, "user_name": user_name})
        if not found:
            return [], None
        messages = [message_from_json(json.loads(r["body"])) for r in found if r["body"] is not None]
        pending = found[0]["pending"]
        return messages, json.loads(pending) if pending else None

    def save_turn(
        self,
        session_id: str,
        user_name: str,
        messages: list[Message],
        *,
        pending: dict[str, Any] | None = None,
    ) -> None:
        """Append a turn's messages and set (or clear) the pending write, in one transaction."""
        now = datetime.now(UTC)
        stored = json.dumps(pending, ensure_ascii=False) if pending else None
        bodies = [json.dumps(message_to_json(msg), ensure_ascii=False) for msg in messages]
        with self.db.write() as conn:  # each statement run by the driver (`rows`): a turn's save is on its path
            cid = _conversation_id(conn, session_id, user_name)
            if cid is None:
                title = next((msg.text for msg in messages if msg.role == "user" and msg.text), "") or ""
                cid = rows(conn, _NEW, {"session_id": session_id, "user_name": user_name, "title": title[:TITLE_CHARS],
                                        "created_at": now, "updated_at": now, "pending": stored})[1][0][0]
            else:
                rows(conn, _TOUCH, {"conversation_id": cid, "updated_at": now, "pending": stored})
            for msg, body in zip(messages, bodies, strict=True):
                rows(conn, _ADD, {"conversation_id": cid, "role": msg.role, "created_at": now, "body": body})

    def amend_answer(self, session_id: str, user_name: str, text: str) -> bool:
        """Replace the text of the conversation's newest answer (the phone: what the caller heard before
        interrupting); False when it has no answer."""
        with self.db.write() as conn:
            cid = _conversation_id(conn, session_id, user_name)
            if cid is None:
                return False
            row = conn.execute(
                sa.select(_m.c.id, _m.c.body).where(_m.c.conversation_id == cid, _m.c.role == "assistant")
                .order_by(_m.c.id.desc()).limit(1)).first()
            if row is None:
                return False
            body = {**json.loads(row.body), "text": text}
            conn.execute(_m.update().where(_m.c.id == row.id).values(body=json.dumps(body, ensure_ascii=False)))
        return True

    def delete(self, session_id: str, user_name: str) -> bool:
        c, m = schema.conversations, schema.conversation_messages
        with self.db.write() as conn:
            cid = _conversation_id(conn, session_id, user_name)
            if cid is None:
                return False
            conn.execute(m.delete().where(m.c.conversation_id == cid))
            conn.execute(c.delete().where(c.c.id == cid))
        return True


_c, _m = schema.conversations, schema.conversation_messages
# Built once: a statement object keeps its compiled form cached, one built per call is keyed anew.
_FIND = sa.select(_c.c.id, _c.c.pending).where(
    _c.c.session_id == sa.bindparam("session_id"), _c.c.user_name == sa.bindparam("user_name")
)
# the conversation's pending write beside each of its messages (one row with no message where it has none)
_RESUME = sa.select(_c.c.pending, _m.c.body).select_from(_c.outerjoin(_m, _m.c.conversation_id == _c.c.id)).where(
    _c.c.session_id == sa.bindparam("session_id"), _c.c.user_name == sa.bindparam("user_name")
).order_by(_m.c.id)
_NEW, _ADD = _c.insert().returning(_c.c.id), _m.insert()
_TOUCH = _c.update().where(_c.c.id == sa.bindparam("conversation_id")).values(
    updated_at=sa.bindparam("updated_at"), pending=sa.bindparam("pending")
)


def _conversation_id(conn: sa.Connection, session_id: str, user_name: str) -> int | None:
    found = rows(conn, _FIND, {"session_id": session_id, "user_name": user_name}, 1)[1]
    return found[0][0] if found else None


def _iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).isoformat()


def message_to_json(message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message.role}
    if message.text is not None:
        out["text"] = message.text
    if message.tool_calls:
        out["tool_calls"] = [{"id": t.id, "name": t.name, "args": t.args} for t in message.tool_calls]
    if message.tool_call_id is not None:
        out["tool_call_id"] = message.tool_call_id
    if message.result is not None:
        out["result"] = message.result.to_json()
    if message.confirms:
        out["confirms"] = True
    if message.cancels:
        out["cancels"] = True
    if message.repeats:
        out["repeats"] = True
    return out


def message_from_json(data: dict[str, Any]) -> Message:
    return Message(
        role=data["role"],
        text=data.get("text"),
        tool_calls=[ToolCall(t["id"], t["name"], t["args"]) for t in data.get("tool_calls", [])],
        tool_call_id=data.get("tool_call_id"),
        result=from_json(data["result"]) if data.get("result") is not None else None,
        confirms=bool(data.get("confirms", False)),
        cancels=bool(data.get("cancels", False)),
        repeats=bool(data.get("repeats", False)),
    )


def _escaped(text: str) -> str:
    """`text` for a LIKE pattern, its wildcards taken literally."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
