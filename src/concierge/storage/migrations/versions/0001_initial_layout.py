"""The state tables as the releases before versioning made them: users, audit, confirmations, API tokens,
conversations and their messages.

A database made by one of those releases has these tables and no version table; upgrading it creates
only what is missing here (a table, never a column) and then records revision 0001.

Revision ID: 0001
Revises:
Create Date: 2025-06-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _tables() -> list[tuple[str, list]]:
    """Each table's name and its columns and constraints (fresh objects for each call)."""
    return [
        ("concierge_users", [
            sa.Column("name", sa.String(50), primary_key=True),
            sa.Column("role", sa.String(50), nullable=False),
            sa.Column("display_name", sa.String(100), nullable=False),
            sa.Column("password_hash", sa.String(200), nullable=True),
        ]),
        ("concierge_audit", [
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
        ]),
        ("concierge_confirmations", [
            sa.Column("token_hash", sa.String(64), primary_key=True),
            sa.Column("user_name", sa.String(50), nullable=False),
            sa.Column("tool", sa.String(100), nullable=False),
            sa.Column("args", sa.Text, nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        ]),
        ("concierge_api_tokens", [
            sa.Column("token_hash", sa.String(64), primary_key=True),
            sa.Column("user_name", sa.String(50), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("label", sa.String(100), nullable=True),
        ]),
        ("concierge_conversations", [
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("session_id", sa.String(64), nullable=False),
            sa.Column("user_name", sa.String(50), nullable=False),
            sa.Column("title", sa.String(200), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("pending", sa.Text, nullable=True),
            sa.UniqueConstraint("user_name", "session_id", name="uq_concierge_conversations_user_session"),
        ]),
        ("concierge_messages", [
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("conversation_id", sa.Integer,
                      sa.ForeignKey("concierge_conversations.id", ondelete="CASCADE"), nullable=False),
            sa.Column("role", sa.String(20), nullable=False),
            sa.Column("body", sa.Text, nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        ]),
    ]


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    for name, parts in _tables():
        if not inspector.has_table(name):
            op.create_table(name, *parts)
            continue
        have = {c["name"] for c in inspector.get_columns(name)}
        missing = [p.name for p in parts if isinstance(p, sa.Column) and p.name not in have]
        if missing:
            raise RuntimeError(
                f"table {name} lacks the column(s) {', '.join(missing)}: it was made by a concierge older than "
                "any release; export what it holds and let concierge create the tables anew"
            )
    if not {i["name"] for i in inspector.get_indexes("concierge_messages")} & {"ix_concierge_messages_conversation"}:
        op.create_index("ix_concierge_messages_conversation", "concierge_messages", ["conversation_id", "id"])


def downgrade() -> None:
    raise RuntimeError("revision 0001 is the first: downgrading below it would drop every state table")
