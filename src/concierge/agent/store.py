"""Conversations, kept in the database beside the data, so a restarted process continues them.

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

from concierge import schema
from concierge.agent.protocol import Message, ToolCall
from concierge.db import Database

TITLE_CHARS = 80


def new_session_id() -> str:
    return "s_" + secrets.token_hex(8)


class ConversationStore:
    def __init__(self, db: Database):
        self.db = db

    def list_sessions(self, user_name: str) -> list[dict[str, Any]]:
        """The user's conversations, most recently used first."""
        c, m = schema.conversations, schema.conversation_messages
        count = sa.select(sa.func.count()).where(m.c.conversation_id == c.c.id).scalar_subquery()
        query = (
            sa.select(c.c.session_id, c.c.title, c.c.created_at, c.c.updated_at, c.c.pending, count.label("n"))
            .where(c.c.user_name == user_name)
            .order_by(c.c.updated_at.desc(), c.c.id.desc())
        )
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

    def exists(self, session_id: str, user_name: str) -> bool:
        with self.db.read() as conn:
            return _conversation_id(conn, session_id, user_name) is not None

    def load(self, session_id: str, user_name: str) -> list[Message]:
        """The messages of the conversation in order; [] when it does not exist for this user."""
        m = schema.conversation_messages
        with self.db.read() as conn:
            cid = _conversation_id(conn, session_id, user_name)
            if cid is None:
                return []
            bodies = conn.scalars(sa.select(m.c.body).where(m.c.conversation_id == cid).order_by(m.c.id))
            return [message_from_json(json.loads(b)) for b in bodies]

    def pending(self, session_id: str, user_name: str) -> dict[str, Any] | None:
        """The write waiting for a yes, with its confirmation token; None when there is none."""
        c = schema.conversations
        with self.db.read() as conn:
            text = conn.scalar(
                sa.select(c.c.pending).where(c.c.session_id == session_id, c.c.user_name == user_name)
            )
        return json.loads(text) if text else None

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
        c, m = schema.conversations, schema.conversation_messages
        with self.db.write() as conn:
            cid = _conversation_id(conn, session_id, user_name)
            if cid is None:
                title = next((msg.text for msg in messages if msg.role == "user" and msg.text), "") or ""
                cid = conn.execute(
                    c.insert().values(session_id=session_id, user_name=user_name, title=title[:TITLE_CHARS],
                                      created_at=now, updated_at=now)
                ).inserted_primary_key[0]
            conn.execute(
                c.update().where(c.c.id == cid).values(
                    updated_at=now, pending=json.dumps(pending, ensure_ascii=False) if pending else None
                )
            )
            if messages:
                conn.execute(
                    m.insert(),
                    [{"conversation_id": cid, "role": msg.role, "created_at": now,
                      "body": json.dumps(message_to_json(msg), ensure_ascii=False)} for msg in messages],
                )

    def delete(self, session_id: str, user_name: str) -> bool:
        c, m = schema.conversations, schema.conversation_messages
        with self.db.write() as conn:
            cid = _conversation_id(conn, session_id, user_name)
            if cid is None:
                return False
            conn.execute(m.delete().where(m.c.conversation_id == cid))
            conn.execute(c.delete().where(c.c.id == cid))
        return True


def _conversation_id(conn: sa.Connection, session_id: str, user_name: str) -> int | None:
    c = schema.conversations
    return conn.scalar(sa.select(c.c.id).where(c.c.session_id == session_id, c.c.user_name == user_name))


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
        out["result"] = message.result
    return out


def message_from_json(data: dict[str, Any]) -> Message:
    return Message(
        role=data["role"],
        text=data.get("text"),
        tool_calls=[ToolCall(t["id"], t["name"], t["args"]) for t in data.get("tool_calls", [])],
        tool_call_id=data.get("tool_call_id"),
        result=data.get("result"),
    )
