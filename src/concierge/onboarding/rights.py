"""Whether the database user may keep summary tables (rollups) beside a large table: make a table of its own
and triggers on that table. PostgreSQL: the user is (a member of) the table's owner and may create in its
schema. SQLite: the file and its folder are writable. Other databases keep no rollups."""

from __future__ import annotations

import os
from pathlib import Path

import sqlalchemy as sa

SUMMARY_MIN_ROWS = 100_000  # below this a summary over the table itself answers in milliseconds


def summarisable(conn: sa.Connection, url: sa.URL, tables: list[str]) -> frozenset[str]:
    """Those of `tables` (of the default schema) whose summaries this connection's user may build."""
    backend = url.get_backend_name()
    if backend == "sqlite":
        return frozenset(tables) if _writable_file(url) else frozenset()
    if backend == "postgresql":
        rows = conn.execute(sa.text(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relname = ANY(:names) "
            "AND pg_has_role(current_user, c.relowner, 'USAGE') "
            "AND has_schema_privilege(current_user, n.oid, 'CREATE')"), {"names": tables})
        return frozenset(r[0] for r in rows)
    return frozenset()


def _writable_file(url: sa.URL) -> bool:
    if not url.database or url.database == ":memory:" or url.query.get("mode") == "ro":
        return False
    path = Path(url.database.removeprefix("file:"))
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
