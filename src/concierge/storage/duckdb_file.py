"""A DuckDB file as the business database (``duckdb:///path/file.duckdb``, through duckdb-engine): read-only.

DuckDB lets one process write to a file only while no other process has it open, even to read. concierge
runs as several processes on one database (`serve`, `ask`, `catalog check`), so it opens DuckDB files
read-only, which any number of processes may do together, and refuses writes (`WRITES_REFUSED`). A process
that writes to the file (a loader, a notebook) locks concierge out until it closes the file: the message
says so.

DuckDB has no statement timeout: a statement still running after the read timeout is stopped by
``interrupt()`` from a timer, and fails with DuckDB's "Interrupted!".

The state tables (users, audit, sessions) are written all the time, so they never live in a DuckDB file
(`refuse_state`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event

from concierge.errors import ConfigError, DatabaseError

BACKEND = "duckdb"
WRITES_REFUSED = (
    "a DuckDB file is read-only to concierge: DuckDB lets a process write to a file only while no other "
    "process has it open, which would lock out every other concierge process; declare write tools on a "
    "SQLite or PostgreSQL database"
)
INSTALL = "pip install 'concierge[files]' (duckdb and duckdb-engine)"
_TIMER = "concierge_duckdb_timer"  # in a connection's `info`: the timer of the statement it runs


def is_duckdb(url: sa.URL) -> bool:
    return url.get_backend_name() == BACKEND


def create_engine(url: sa.URL, read_timeout_s: float) -> sa.Engine:
    """An engine whose connections open the file read-only and stop a statement after `read_timeout_s`."""
    path = _existing_file(url.database)
    try:
        engine = sa.create_engine(url, connect_args={"read_only": True})
    except (sa.exc.NoSuchModuleError, ImportError):
        raise ConfigError(f"duckdb:/// URLs need the DuckDB driver for SQLAlchemy: {INSTALL}") from None
    event.listen(engine, "do_connect", _opener(path))
    event.listen(engine, "before_cursor_execute", _start_timer(read_timeout_s))
    for name in ("after_cursor_execute", "commit", "rollback"):
        event.listen(engine, name, _stop_timer)
    return engine


def refuse_state(url: sa.URL) -> None:
    """concierge's own tables are written on every call: never in a DuckDB file."""
    if is_duckdb(url):
        raise ConfigError(
            f"concierge keeps its own tables (users, audit, sessions) in SQLite or PostgreSQL, not in the DuckDB file "
            f"{url.database}: set state_database, e.g. state_database = \"sqlite:///state.db\" in concierge.toml "
            "(or CONCIERGE_STATE_DATABASE, or --state-database)"
        )


def _existing_file(database: str | None) -> Path:
    if not database or database == ":memory:":
        raise ConfigError("a DuckDB business database is a file: duckdb:///path/shop.duckdb "
                          "(an in-memory DuckDB would be empty)")
    path = Path(database).expanduser()
    if not path.is_file():
        raise DatabaseError(f"no DuckDB file at {path.absolute()}; check the path in the URL "
                            "(duckdb:///relative.duckdb, duckdb:////absolute/path.duckdb)")
    return path


def _opener(path: Path):
    def do_connect(dialect: sa.Dialect, _record: Any, cargs: tuple, cparams: dict) -> Any:
        try:
            return dialect.connect(*cargs, **cparams)
        except dialect.loaded_dbapi.Error as err:
            if "Could not set lock" not in str(err):
                raise
            raise type(err)(
                f"the DuckDB file {path} is open for writing in another process ({str(err).split('held in ')[-1]}); "
                "concierge reads DuckDB files read-only, which DuckDB allows only while no process writes: "
                "close that process's connection"
            ) from err

    return do_connect


def _start_timer(timeout_s: float):
    def before(conn: sa.Connection, _cursor: Any, *_: Any) -> None:
        _stop_timer(conn)
        driver = conn.connection.driver_connection
        if driver is None:
            return
        timer = threading.Timer(timeout_s, driver.interrupt)
        timer.daemon = True
        conn.info[_TIMER] = timer
        timer.start()

    return before


def _stop_timer(conn: sa.Connection, *_: Any) -> None:
    timer = conn.info.pop(_TIMER, None)
    if timer is not None:
        timer.cancel()


@contextmanager
def attempt(conn: sa.Connection) -> Iterator[None]:
    """A savepoint around statements that may fail. DuckDB has none, and a failed statement aborts its
    transaction: there the read transaction is ended and a new one begun (read-only, so nothing is lost)."""
    if not is_duckdb(conn.engine.url):
        with conn.begin_nested():
            yield
        return
    try:
        yield
    except sa.exc.DBAPIError:
        cursor = conn.connection.cursor()
        try:
            cursor.execute("ROLLBACK")
            cursor.execute("BEGIN TRANSACTION")
        finally:
            cursor.close()
        raise
