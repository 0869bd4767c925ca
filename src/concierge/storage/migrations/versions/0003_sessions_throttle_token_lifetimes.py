"""Web sessions kept server-side, the sign-in throttle, and API tokens that expire, are revoked and say when used.

`concierge_web_sessions`: one row per signed-in browser (the hash of the id its cookie carries), so that
signing out, a password change, removing the user or `concierge user sign-out NAME` end a session in
every server process at once. Cookies made before this revision name no session: they sign in again.
`concierge_signin_throttle`: the failed sign-ins of each account and each client address, shared by
every server process. `concierge_api_tokens`: `expires_at`, `last_used_at` and `revoked_at`, empty for
the tokens made before this revision (they never expire and have not been used since).

Revision ID: 0003
Revises: 0002
Create Date: 2025-07-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("concierge_api_tokens") as batch:
        batch.add_column(sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "concierge_web_sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("user_name", sa.String(50), nullable=False),
        sa.Column("fingerprint", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("source", sa.String(200), nullable=True),
    )
    op.create_index("ix_concierge_web_sessions_user", "concierge_web_sessions", ["user_name"])
    op.create_table(
        "concierge_signin_throttle",
        sa.Column("key", sa.String(120), primary_key=True),
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("last_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("blocked_until", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_concierge_signin_throttle_last", "concierge_signin_throttle", ["last_at"])


def downgrade() -> None:
    op.drop_index("ix_concierge_signin_throttle_last", table_name="concierge_signin_throttle")
    op.drop_table("concierge_signin_throttle")
    op.drop_index("ix_concierge_web_sessions_user", table_name="concierge_web_sessions")
    op.drop_table("concierge_web_sessions")
    with op.batch_alter_table("concierge_api_tokens") as batch:
        batch.drop_column("revoked_at")
        batch.drop_column("last_used_at")
        batch.drop_column("expires_at")
