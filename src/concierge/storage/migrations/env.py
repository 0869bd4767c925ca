"""The Alembic environment: runs on the connection `concierge.storage.migrate` hands over, in its transaction."""

from __future__ import annotations

from alembic import context

from concierge.storage import state

config = context.config
connection = config.attributes.get("connection")
if connection is None or context.is_offline_mode():
    raise RuntimeError("concierge's migrations run through `concierge db upgrade` (concierge.storage.migrate)")

context.configure(
    connection=connection,
    target_metadata=state.metadata,
    version_table=state.VERSION_TABLE,
    render_as_batch=True,  # SQLite alters a table by copying it
)
with context.begin_transaction():
    context.run_migrations()
