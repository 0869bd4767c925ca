"""PostgreSQL made unreachable for one database without stopping the shared server.

Every session of the database is terminated (pg_terminate_backend, what a server shutdown does
to them) and new connections are refused (ALLOW_CONNECTIONS false) until the block ends;
`sessions_ended` ends the sessions alone, as a server restarted in a moment does.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from sqlalchemy.engine import make_url


def sessions_ended(pg_server: dict, url: str) -> None:
    with _admin(pg_server) as admin:
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                      (make_url(url).database,))


def _admin(pg_server: dict) -> psycopg.Connection:
    return psycopg.connect(host=pg_server["host"], port=pg_server["port"], user=pg_server["user"],
                           password=pg_server["password"], dbname="postgres", autocommit=True)


@contextmanager
def database_down(pg_server: dict, url: str) -> Iterator[None]:
    name = make_url(url).database
    admin = _admin(pg_server)
    try:
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
        yield
    finally:
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        admin.close()
