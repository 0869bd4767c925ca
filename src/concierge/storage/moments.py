"""Moments read back from the state database, as aware datetimes in UTC.

Every moment is written in UTC. SQLite and MariaDB give it back naive; a read by `Database.lookup`, which
skips SQLAlchemy's type processing, gives SQLite's stored text (``2026-12-05 01:02:03.456789``).
"""

from __future__ import annotations

from datetime import UTC, datetime


def aware(value: datetime | str | None) -> datetime | None:
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value
