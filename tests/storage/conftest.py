"""Fixtures of the storage tests: a second PostgreSQL database, for state kept apart from the data; state tables
on each database concierge runs on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pg_databases import fresh_database


@pytest.fixture
def state_pg_url(pg_server) -> Iterator[str]:
    """Another fresh, empty PostgreSQL database, beside `pg_url`'s."""
    with fresh_database(pg_server, "concierge_state") as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres),
                        pytest.param("mysql", marks=pytest.mark.mysql)])
def state_url(request, tmp_path) -> str:
    """A fresh, empty database for state tables, once on SQLite, PostgreSQL and MariaDB."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'state.db'}"
    return request.getfixturevalue("state_pg_url" if request.param == "postgres" else "mysql_url")
