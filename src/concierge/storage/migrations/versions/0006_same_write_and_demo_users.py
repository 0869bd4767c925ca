"""The audit's lines found by tool and time, and the demos whose users were added.

- `ix_concierge_audit_tool_at`: a write's preview asks whether the same write was done minutes ago.
- `concierge_demo_users`: each demo whose users were added to this state database, once. A demo catalog loaded
  later (the home demo beside farm and pos) gets its own users; a demo user an administrator removed stays
  removed. A database from before this revision is marked on first use for the demos it has users of.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_concierge_audit_tool_at", "concierge_audit", ["tool", "at"])
    op.create_table(
        "concierge_demo_users",
        sa.Column("demo", sa.String(100), primary_key=True),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("concierge_demo_users")
    op.drop_index("ix_concierge_audit_tool_at", table_name="concierge_audit")
