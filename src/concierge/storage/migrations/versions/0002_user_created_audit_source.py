"""When each user was added, and where each audited call came from.

`concierge_users.created_at`: empty for the users added before this revision. `concierge_audit.source`:
the channel and client of the call (``cli``, ``web 203.0.113.7``, ``mcp-http 10.0.0.5``), empty
where the caller did not say.

Revision ID: 0002
Revises: 0001
Create Date: 2025-06-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("concierge_users") as batch:
        batch.add_column(sa.Column("created_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("concierge_audit") as batch:
        batch.add_column(sa.Column("source", sa.String(200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("concierge_audit") as batch:
        batch.drop_column("source")
    with op.batch_alter_table("concierge_users") as batch:
        batch.drop_column("created_at")
