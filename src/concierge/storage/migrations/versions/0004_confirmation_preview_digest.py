"""A confirmation token binds the preview it was shown with.

`concierge_confirmations.preview_digest`: the digest of the preview's rows and totals when the token was
issued; a write redeemed after they changed writes nothing and shows the new preview. Empty for tokens
issued before this revision (they are redeemed as before).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("concierge_confirmations") as batch:
        batch.add_column(sa.Column("preview_digest", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("concierge_confirmations") as batch:
        batch.drop_column("preview_digest")
