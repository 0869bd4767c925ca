"""OAuth 2.1 for remote MCP hosts: registered clients, authorization codes, grants and their tokens.

`concierge_oauth_clients`: clients that registered themselves (RFC 7591); a client known by its metadata
document URL is read from that URL instead. `concierge_oauth_codes`: an authorization code between consent and
its exchange (only its hash). `concierge_oauth_grants`: one consent of a user to a client, which
`concierge token list` shows and `concierge token revoke` ends. `concierge_oauth_tokens`: the hashes of a grant's
access and refresh tokens.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "concierge_oauth_clients",
        sa.Column("client_id", sa.String(64), primary_key=True),
        sa.Column("info", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "concierge_oauth_codes",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column("client_id", sa.String(500), nullable=False),
        sa.Column("client_name", sa.String(200), nullable=False),
        sa.Column("user_name", sa.String(50), nullable=False),
        sa.Column("scopes", sa.String(200), nullable=False),
        sa.Column("code_challenge", sa.String(128), nullable=False),
        sa.Column("redirect_uri", sa.Text, nullable=False),
        sa.Column("redirect_explicit", sa.Boolean, nullable=False),
        sa.Column("resource", sa.String(500), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("grant_id", sa.String(12), nullable=True),
    )
    op.create_table(
        "concierge_oauth_grants",
        sa.Column("id", sa.String(12), primary_key=True),
        sa.Column("client_id", sa.String(500), nullable=False),
        sa.Column("client_name", sa.String(200), nullable=False),
        sa.Column("user_name", sa.String(50), nullable=False),
        sa.Column("scopes", sa.String(200), nullable=False),
        sa.Column("resource", sa.String(500), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_concierge_oauth_grants_user", "concierge_oauth_grants", ["user_name"])
    op.create_table(
        "concierge_oauth_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("grant_id", sa.String(12), nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_concierge_oauth_tokens_grant", "concierge_oauth_tokens", ["grant_id"])


def downgrade() -> None:
    op.drop_index("ix_concierge_oauth_tokens_grant", table_name="concierge_oauth_tokens")
    op.drop_table("concierge_oauth_tokens")
    op.drop_index("ix_concierge_oauth_grants_user", table_name="concierge_oauth_grants")
    op.drop_table("concierge_oauth_grants")
    op.drop_table("concierge_oauth_codes")
    op.drop_table("concierge_oauth_clients")
