"""Shared fixtures: a fresh demo database on SQLite and on a real PostgreSQL (and MariaDB: mysql_databases.py).

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
import sqlalchemy as sa
from agent_fakes import ScriptedProvider, WireServer
from demo_databases import drop_templates, with_demos
from mysql_databases import fresh_database as fresh_mysql_database
from mysql_databases import reachable, server_url, throwaway_server
from pg_databases import fresh_database

from concierge.demo.bootstrap import open_pipeline
from concierge.pipeline.pipeline import Pipeline

FARM_TODAY = date(2025, 5, 15)
POS_TODAY = date(2026, 8, 31)

# The files that take longest, longest first (`--durations` of a whole run, 2 cores, 3 workers), then every other
# file in its order. The workers of `.ci/run` (`--dist loadfile --no-loadscope-reorder`) take files in this order,
# so no long file starts when the others are nearly done: xdist's own order (most tests first) started these last,
# as most of them have one to six tests.
LONGEST_FIRST = (
    "tests/onboarding/test_jaffle_flow.py",
    "tests/mcp/test_mcp_interop.py",
    "tests/deploy/test_bench_replicas.py",
    "tests/home/test_home_mcp.py",
    "tests/bench/test_load_smoke.py",
    "tests/web/test_web_browser.py",
    "tests/test_doc_snippets.py",
    "tests/web/test_web_serve.py",
    "tests/faults/test_fuzz_arguments.py",
    "tests/home/test_home_eval.py",
    "tests/web/test_signin_throttle.py",
    "tests/planner/test_held_out_sets.py",
    "tests/mcp/test_mcp_limits.py",
    "tests/mcp/test_mcp_noise.py",
    "tests/home/test_devices_cli.py",
    "tests/mcp/test_mcp_stdio.py",
    "tests/mcp/test_mcp_frames.py",
    "tests/deploy/test_replicas.py",
    "tests/phone/test_call_end.py",
    "tests/faults/test_concurrent_writes.py",
    "tests/mcp/test_mcp_pipes.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """`LONGEST_FIRST` first; a file's tests keep their order among themselves (a stable sort by file)."""
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


@pytest.fixture(scope="session", autouse=True)
def _demo_templates() -> Iterator[None]:
    """The demo templates `with_demos` made in this test process (tests/support/demo_databases.py), removed at its
    end."""
    yield
    drop_templates()


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
    # Tests talk to loopback only: a proxy set for the developer's machine never sees them (httpx, like curl,
    # proxies 127.0.0.1 unless NO_PROXY lists it).
    listed = os.environ.get("NO_PROXY") or os.environ.get("no_proxy") or ""
    loopback = ",".join(filter(None, [listed, "127.0.0.1,localhost,::1"]))
    monkeypatch.setenv("NO_PROXY", loopback)
    monkeypatch.setenv("no_proxy", loopback)


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


@pytest.fixture(scope="session")
def mariadb_server(tmp_path_factory) -> Iterator[sa.URL]:
    """The MariaDB (or MySQL) server of the tests: CONCIERGE_TEST_MYSQL_URL, 127.0.0.1:3306, or one started here."""
    url = os.environ.get("CONCIERGE_TEST_MYSQL_URL")
    if url or reachable("127.0.0.1", 3306):
        yield server_url(url)
        return
    try:
        with throwaway_server(tmp_path_factory.mktemp("mariadb"), _free_port()) as started:
            yield started
    except (RuntimeError, OSError) as err:
        pytest.fail(f"no MariaDB for the tests ({err}): start one on 127.0.0.1:3306 (bash .ci/run does, as root), "
                    "install mariadb-server so the tests can start their own, or set CONCIERGE_TEST_MYSQL_URL")


@pytest.fixture
def mysql_url(mariadb_server) -> Iterator[str]:
    """A fresh, empty MariaDB database for one test (utf8mb4, compared as the other databases compare)."""
    with fresh_mysql_database(mariadb_server) as url:
        yield url


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'demo.db'}"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres),
                        pytest.param("mariadb", marks=pytest.mark.mysql)])
def any_db_url(request) -> str:
    """A fresh, empty database, once each on SQLite, PostgreSQL and MariaDB."""
    fixture = {"sqlite": "sqlite_url", "postgres": "pg_url", "mariadb": "mysql_url"}[request.param]
    return request.getfixturevalue(fixture)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request) -> str:
    """A fresh database with both demos installed, once on SQLite and once on PostgreSQL."""
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    with_demos(url, "farm", "pos")
    return url


@pytest.fixture
def pipeline(db_url) -> Iterator[Pipeline]:
    """Both demo catalogs on a fresh database; each tool uses its demo's own clock."""
    p = open_pipeline(["farm", "pos"], db_url)
    try:
        yield p
    finally:
        p.close()


@pytest.fixture
def admin(pipeline):
    return pipeline.user("admin")
