"""Fresh PostgreSQL databases for one test, on the server the `pg_server` fixture found or started."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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


@contextmanager
def sqlite_or_postgres(backend: str, request, folder: Path, prefix: str) -> Iterator[str]:
    """A fresh database for a module's fixture: a SQLite file in `folder`, or a PostgreSQL database on the
    `pg_server` fixture's server, dropped when the block ends."""
    if backend == "sqlite":
        yield f"sqlite:///{folder / f'{prefix}.db'}"
        return
    with fresh_database(request.getfixturevalue("pg_server"), prefix=prefix) as url:
        yield url
