"""The state tables exactly as the releases before versioning made them (storage/state.py before revision
0001 existed, `metadata.create_all` with no version table), and a state database of that layout with data.

Frozen on purpose: the product's own layout moves on, this one must not.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime

import sqlalchemy as sa

from concierge.pipeline.confirm import canonical
from concierge.storage.passwords import hash_password

metadata = sa.MetaData()

users = sa.Table(
    "concierge_users", metadata,
    sa.Column("name", sa.String(50), primary_key=True),
    sa.Column("role", sa.String(50), nullable=False),
    sa.Column("display_name", sa.String(100), nullable=False),
    sa.Column("password_hash", sa.String(200), nullable=True),
)
audit = sa.Table(
    "concierge_audit", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("user_name", sa.String(50), nullable=False),
    sa.Column("tool", sa.String(100), nullable=False),
    sa.Column("args", sa.Text, nullable=False),
    sa.Column("decision", sa.String(30), nullable=False),
    sa.Column("result_id", sa.String(40), nullable=False),
    sa.Column("rows", sa.Integer, nullable=False),
    sa.Column("ms", sa.Float, nullable=False),
    sa.Column("message", sa.Text, nullable=True),
)
confirmations = sa.Table(
    "concierge_confirmations", metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("user_name", sa.String(50), nullable=False),
    sa.Column("tool", sa.String(100), nullable=False),
    sa.Column("args", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
)
api_tokens = sa.Table(
    "concierge_api_tokens", metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("user_name", sa.String(50), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("label", sa.String(100), nullable=True),
)
conversations = sa.Table(
    "concierge_conversations", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("session_id", sa.String(64), nullable=False),
    sa.Column("user_name", sa.String(50), nullable=False),
    sa.Column("title", sa.String(200), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("pending", sa.Text, nullable=True),
    sa.UniqueConstraint("user_name", "session_id", name="uq_concierge_conversations_user_session"),
)
messages = sa.Table(
    "concierge_messages", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("conversation_id", sa.Integer, sa.ForeignKey("concierge_conversations.id", ondelete="CASCADE"),
              nullable=False),
    sa.Column("role", sa.String(20), nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_concierge_messages_conversation", "conversation_id", "id"),
)
TABLES = [users, audit, confirmations, api_tokens, conversations, messages]

SALE = {"code_customer": "0016", "products": "かぼちゃ4個", "price": 600, "date_sales_str": "2025-05-06"}


@dataclass
class Seeded:
    """What was put in: the secrets a person holds, to use after the upgrade."""

    passwords: dict[str, str] = field(default_factory=dict)
    api_token: str = "ct_" + "k" * 43
    confirmation: str = "cf_" + "c" * 24
    session_id: str = "s_0123456789abcdef"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def make(conn: sa.Connection) -> Seeded:
    """Create the previous layout on `conn` and fill every table."""
    metadata.create_all(conn)
    seeded = Seeded(passwords={"admin": "correct-horse-1", "tanaka": "battery-staple-2"})
    now = datetime.now(UTC)
    conn.execute(users.insert(), [
        {"name": "admin", "role": "admin", "display_name": "管理者", "password_hash": hash_password("correct-horse-1")},
        {"name": "tanaka", "role": "staff", "display_name": "田中", "password_hash": hash_password("battery-staple-2")},
        {"name": "suzuki", "role": "staff", "display_name": "鈴木", "password_hash": None},
    ])
    conn.execute(audit.insert(), [
        {"at": now, "user_name": "admin", "tool": "get_sales", "args": json.dumps({"code_customer": "0016"}),
         "decision": "ok", "result_id": f"r_{i:04d}", "rows": i, "ms": 1.5 * i, "message": None if i else "note"}
        for i in range(5)
    ])
    conn.execute(confirmations.insert().values(
        token_hash=_sha(seeded.confirmation), user_name="admin", tool="add_sale", args=canonical(SALE),
        created_at=now,
    ))
    conn.execute(api_tokens.insert().values(token_hash=_sha(seeded.api_token), user_name="tanaka", created_at=now,
                                            label="claude desktop"))
    cid = conn.execute(conversations.insert().values(
        session_id=seeded.session_id, user_name="admin", title="How many customers?", created_at=now,
        updated_at=now, pending=None,
    )).inserted_primary_key[0]
    conn.execute(messages.insert(), [
        {"conversation_id": cid, "role": "user", "created_at": now,
         "body": json.dumps({"role": "user", "text": "How many customers?"})},
        {"conversation_id": cid, "role": "assistant", "created_at": now,
         "body": json.dumps({"role": "assistant", "text": "There are 20 customers."}, ensure_ascii=False)},
    ])
    return seeded


def dump(conn: sa.Connection) -> dict[str, list[tuple]]:
    """Every row of every previous-layout table, in its previous columns, in key order."""
    out = {}
    for table in TABLES:
        key = list(table.primary_key.columns)
        out[table.name] = [tuple(r) for r in conn.execute(sa.select(*table.columns).order_by(*key))]
    return out


def farm_without_state(url: str) -> None:
    """The farm demo's tables and rows in `url`, and no state table there (its users go to a scratch database)."""
    from concierge import demo
    from concierge.storage.database import Database

    database, scratch = Database(url), Database("sqlite://")
    try:
        demo.install(database, "farm", state_db=scratch)
    finally:
        database.dispose()
        scratch.dispose()
