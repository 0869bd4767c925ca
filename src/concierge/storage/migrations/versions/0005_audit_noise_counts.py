"""Unauthenticated refusals counted per source and kind, so that a stranger cannot grow the audit without bound.

`concierge_audit_noise`: for each source (``web 203.0.113.7``; an IPv6 client by its /64) and kind of refusal
(``sign-in refused:sign_in_failed``), the current window of time: how many of its lines were written one by
one, how many more were counted into the window's summary line, and that line's id. Rows of windows long
past are deleted as new windows start; nothing from before this revision needs one.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "concierge_audit_noise",
        sa.Column("source", sa.String(200), primary_key=True),
        sa.Column("kind", sa.String(100), primary_key=True),
        sa.Column("window_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lines", sa.Integer, nullable=False),
        sa.Column("more", sa.Integer, nullable=False),
        sa.Column("summary_id", sa.Integer, nullable=True),
    )
    op.create_index("ix_concierge_audit_noise_window", "concierge_audit_noise", ["window_start"])


def downgrade() -> None:
    op.drop_index("ix_concierge_audit_noise_window", table_name="concierge_audit_noise")
    op.drop_table("concierge_audit_noise")
