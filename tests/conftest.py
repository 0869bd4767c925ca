"""Shared fixtures: a fresh demo database on SQLite and on a real PostgreSQL.

PostgreSQL is found, in this order: the URL in CONCIERGE_TEST_PG_URL; the
server on 127.0.0.1:5432 (where `.ci/run` makes sure one runs); a throwaway
server started from the local PostgreSQL binaries by pytest-postgresql (when
not running as root). If none works the PostgreSQL tests fail; they never skip.
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from agent_fakes import ScriptedProvider, WireServer
from demo_databases import with_demos
from pg_databases import fresh_database

from concierge.pipeline.pipeline import Pipeline

FARM_TODAY = date(2025, 5, 15)
POS_TODAY = date(2026, 8, 31)


@pytest.fixture
def wire_server() -> Iterator[WireServer]:
    """A local server in a vendor's wire format (Chat Completions, streamed or not), replying as scripted."""
    server = WireServer()
    server.thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
        server.thread.join()


@pytest.fixture
def provider() -> ScriptedProvider:
    """A provider that replies what the test enqueues (tests/support/agent_fakes.py)."""
    return ScriptedProvider()


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory, monkeypatch):
    """No test touches the user's real embedded database."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("CONCIERGE_DATABASE", f"sqlite:///{home / 'concierge.db'}")
    monkeypatch.delenv("CONCIERGE_TODAY", raising=False)


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory) -> Iterator[dict]:
    url = os.environ.get("CONCIERGE_TEST_PG_URL")
    if url:
        from sqlalchemy.engine import make_url

        u = make_url(url)
        yield {"host": u.host or "127.0.0.1", "port": u.port or 5432, "user": u.username or "postgres",
               "password": u.password}
        return
    if _reachable("127.0.0.1", 5432):
        yield {"host": "127.0.0.1", "port": 5432, "user": "postgres", "password": None}
        return
    pg_ctl = shutil.which("pg_ctl") or next(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), None)
    if pg_ctl is None or os.geteuid() == 0:
        pytest.fail(
            "no PostgreSQL for the tests: start one on 127.0.0.1:5432 (bash .ci/run does), "
            "or set CONCIERGE_TEST_PG_URL"
        )
    from pytest_postgresql.executors.proc import PostgreSQLExecutor

    folder = tmp_path_factory.mktemp("pg")
    port = _free_port()
    executor = PostgreSQLExecutor(
        executable=str(pg_ctl), host="127.0.0.1", port=port, datadir=str(folder / "data"),
        unixsocketdir=str(folder), logfile=str(folder / "log"), startparams="-w", dbname="postgres",
    )
    with executor:
        yield {"host": "127.0.0.1", "port": port, "user": "postgres", "password": None}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def pg_url(pg_server) -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test."""
    with fresh_database(pg_server) as url:
        yield url


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'demo.db'}"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request) -> str:
    """A fresh database with both demos installed, once on SQLite and once on PostgreSQL."""
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    with_demos(url, "farm", "pos")
    return url


@pytest.fixture
def pipeline(db_url) -> Iterator[Pipeline]:
    """Both demo catalogs on a fresh database; each tool uses its demo's own clock."""
    p = Pipeline.open(["farm", "pos"], db_url)
    try:
        yield p
    finally:
        p.close()


@pytest.fixture
def admin(pipeline):
    return pipeline.user("admin")
