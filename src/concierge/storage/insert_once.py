"""A row inserted unless one with its primary key is there, in the words of each database, without a race.

PostgreSQL and SQLite: ``INSERT ... ON CONFLICT DO NOTHING RETURNING key``, one statement. MySQL and MariaDB have
no ON CONFLICT; their ON DUPLICATE KEY UPDATE counts a row found as one changed (SQLAlchemy connects with
FOUND_ROWS), and ``INSERT IGNORE`` share-locks a row it finds, so that two callers that lock the row next
(SELECT ... FOR UPDATE) deadlock. There the row is first locked for update where it is (the usual case: no
insert at all), and only a key not there yet is inserted with IGNORE. Two transactions that make the same key at
once may still deadlock; the database then rolls one back whole, and `Database.retrying` runs it again.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from concierge.storage.database import is_mysql


def insert_once(conn: sa.Connection, table: sa.Table, row: dict[str, Any]) -> bool:
    """Insert `row` into `table` unless a row with its primary key is there; whether it did. On MySQL the row,
    found or made, is locked until commit."""
    key = list(table.primary_key.columns)
    if is_mysql(conn.dialect):
        found = sa.select(*key).where(*(c == row[c.name] for c in key)).with_for_update()
        if conn.execute(found).first() is not None:
            return False
        return conn.execute(sa.insert(table).prefix_with("IGNORE").values(**row)).rowcount == 1
    insert = (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(table)
    return conn.execute(insert.values(**row).on_conflict_do_nothing().returning(*key)).first() is not None
