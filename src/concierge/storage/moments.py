"""Moments read back from the state database, as aware datetimes in UTC: every moment is written in UTC, and
SQLite and MariaDB give it back naive."""

from __future__ import annotations

from datetime import UTC, datetime


def aware(value: datetime | None) -> datetime | None:
    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value
