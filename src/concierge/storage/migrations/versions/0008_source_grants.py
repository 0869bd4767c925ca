"""The grants people gave concierge on web APIs (`kind: oauth2_authorization_code` sources): one sealed refresh
token per source, see storage/source_grants.py.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "concierge_source_grants",
        sa.Column("source", sa.String(100), primary_key=True),
        sa.Column("refresh_token", sa.Text, nullable=False),
        sa.Column("scope", sa.String(500), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("renewed_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("concierge_source_grants")
