"""Where each reader (user, conversation) last wrote on the primary, so that its reads on a read replica see
that write (storage/replicas.py).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "concierge_read_positions",
        sa.Column("user_name", sa.String(50), primary_key=True),
        sa.Column("session_id", sa.String(100), primary_key=True),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.Column("written_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("concierge_read_positions")
