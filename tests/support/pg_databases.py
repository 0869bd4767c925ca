"""Fresh PostgreSQL databases for one test, on the server the `pg_server` fixture found or started."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from pytest_postgresql.janitor import DatabaseJanitor


@contextmanager
def fresh_database(pg_server: dict, prefix: str = "concierge_test") -> Iterator[str]:
    """The URL of a new, empty database, dropped when the block ends."""
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    janitor = DatabaseJanitor(user=pg_server["user"], host=pg_server["host"], port=pg_server["port"],
                              dbname=name, password=pg_server["password"])
    janitor.init()
    auth = pg_server["user"] + (f":{pg_server['password']}" if pg_server["password"] else "")
    try:
        yield f"postgresql+psycopg://{auth}@{pg_server['host']}:{pg_server['port']}/{name}"
    finally:
        janitor.drop()
