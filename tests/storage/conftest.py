"""Fixtures of the storage tests: a second PostgreSQL database, for state kept apart from the data."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from pytest_postgresql.janitor import DatabaseJanitor


@pytest.fixture
def state_pg_url(pg_server) -> Iterator[str]:
    """Another fresh, empty PostgreSQL database, beside `pg_url`'s."""
    name = f"concierge_state_{uuid.uuid4().hex[:10]}"
    janitor = DatabaseJanitor(user=pg_server["user"], host=pg_server["host"], port=pg_server["port"],
                              dbname=name, password=pg_server["password"])
    janitor.init()
    auth = pg_server["user"] + (f":{pg_server['password']}" if pg_server["password"] else "")
    try:
        yield f"postgresql+psycopg://{auth}@{pg_server['host']}:{pg_server['port']}/{name}"
    finally:
        janitor.drop()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def state_url(request, tmp_path) -> str:
    """A fresh, empty database for state tables, once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'state.db'}"
    return request.getfixturevalue("state_pg_url")
