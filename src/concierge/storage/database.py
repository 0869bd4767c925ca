"""Engines and transactions on the embedded default (SQLite) or PostgreSQL.

Reads run in read-only transactions with a statement timeout, on connections
of their own that are set up so once, when made (no statement per read sets
them); each write runs in one transaction of its own (``BEGIN IMMEDIATE`` on SQLite, so two
writers queue instead of failing half-way). On SQLite this process's writers also
queue on a lock of their own: SQLite's busy handler would sleep 1-100 ms between
retries while another of our threads holds the write lock.
"""

from __future__ import annotations

import getpass
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

import platformdirs
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.pool import StaticPool

from concierge.errors import ConfigError, DatabaseError
from concierge.storage import duckdb_file

ENV_DATABASE = "CONCIERGE_DATABASE"
READ_TIMEOUT_S = 10.0


def default_url() -> str:
    if os.environ.get(ENV_DATABASE):
        return os.environ[ENV_DATABASE]
    return embedded_url()


def embedded_url() -> str:
    """The embedded default: a SQLite file in the user data folder (its state tables upgrade themselves)."""
    folder = Path(platformdirs.user_data_dir("concierge", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'concierge.db'}"


def normalise_url(url: str) -> str:
    """Accept the URLs people paste (postgres://, postgresql://) and use psycopg 3."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


class Database:
    def __init__(self, url: str | None = None, *, read_timeout_s: float = READ_TIMEOUT_S):
        self.url = normalise_url(url or default_url())
        self.read_timeout_s = read_timeout_s
        self.engine = _create_engine(self.url, read_timeout_s)
        self.is_sqlite = self.engine.dialect.name == "sqlite"
        self._deadline = threading.local()
        self._readers: sa.pool.Pool | None = None
        self._appender: sa.pool.Pool | None = None  # PostgreSQL: autocommit connections for `insert`
        self._writer = threading.RLock()
        self._write_conn: sa.Connection | None = None  # SQLite file: one connection, for writes in turn
        self._mode = threading.local()  # .write: what the transaction this thread begins next is for
        self.refuses_writes: str | None = None  # why this database takes no writes, where it takes none
        if self.is_sqlite:
            self._install_sqlite_hooks()
            if not isinstance(self.engine.pool, StaticPool):
                # Reads get connections of their own that stay read-only: switching `query_only` on a
                # connection makes SQLite prepare again every statement that connection has cached.
                self._readers = self.engine.pool.recreate()
                event.listen(self._readers, "connect", _read_only)
        elif duckdb_file.is_duckdb(self.engine.url):
            self.refuses_writes = duckdb_file.WRITES_REFUSED  # its connections are read-only: one pool
        else:
            self._readers = self.engine.pool.recreate()
            event.listen(self._readers, "connect", _pg_reader(int(read_timeout_s * 1000)))
            self._appender = self.engine.pool.recreate()
            event.listen(self._appender, "connect", _autocommit)

    def __repr__(self) -> str:
        return f"Database({self.engine.url.render_as_string(hide_password=True)!r})"

    def dispose(self) -> None:
        with self._writer:
            if self._write_conn is not None:
                self._write_conn.close()
                self._write_conn = None
        self.engine.dispose()
        if self._readers is not None:
            self._readers.dispose()
            self._readers = self._readers.recreate()
        if self._appender is not None:
            self._appender.dispose()
            self._appender = self._appender.recreate()

    def errors(self):
        """A context in which driver errors become DatabaseError, a failed connection with what to do."""
        return _translate_errors(self.engine.url)

    @contextmanager
    def read(self) -> Iterator[sa.Connection]:
        with self._connect(write=False) as conn, _translate_errors(), conn.begin():
            if self.is_sqlite:
                shared = self._readers is None  # the one connection to an in-memory database
                self._deadline.at = time.monotonic() + self.read_timeout_s
                if shared:
                    _on_driver(conn, "PRAGMA query_only = ON")
                try:
                    yield conn
                finally:
                    self._deadline.at = None
                    if shared:
                        _on_driver(conn, "PRAGMA query_only = OFF")
            else:  # read-only, REPEATABLE READ and the timeout are the connection's defaults (`_pg_reader`)
                yield conn

    @contextmanager
    def write(self) -> Iterator[sa.Connection]:
        if self.refuses_writes:
            raise DatabaseError(self.refuses_writes)
        if not self.is_sqlite:
            with self._connect(write=True) as pg, _translate_errors(), pg.begin():
                yield pg
            return
        with self._writer:
            conn = self._write_conn
            if self._readers is None or conn is not None and conn.in_transaction():  # in-memory, or nested
                with self._connect(write=True) as own, _translate_errors(), own.begin():
                    yield own
                return
            if conn is None or conn.closed or conn.invalidated:
                with _translate_errors(self.engine.url):
                    conn = self._write_conn = self.engine.connect()
            ok = False
            try:
                self._mode.write = True
                with _translate_errors(), conn.begin():
                    yield conn
                ok = True
            finally:
                if not ok:  # whatever went wrong, the next write starts on a fresh connection
                    self._write_conn = None
                    conn.close()

    def fetch(self, conn: sa.Connection, statement: sa.TextClause, values: dict,
              limit: int | None = None) -> tuple[list[str], Sequence[Sequence[Any]]]:
        """The column names and the rows (the first `limit`, or all) of a read statement on `conn`, run by the
        driver itself: SQLAlchemy's work per statement costs more than a small indexed query does."""
        with self._driver(conn, statement, values) as cursor:
            columns = [d[0] for d in cursor.description]
            return columns, cursor.fetchall() if limit is None else cursor.fetchmany(limit)

    def insert(self, statement: sa.Insert, row: dict) -> None:
        """One row, committed before this returns, run by the driver itself. On PostgreSQL the statement is
        a transaction of its own on an autocommit connection: one round trip, where BEGIN, INSERT and COMMIT
        take three."""
        if self._appender is None:
            with self.write() as conn, self._driver(conn, statement, row):
                return
        with _translate_errors(self.engine.url):
            conn = sa.Connection(self.engine, connection=_checkout(self._appender, self.engine.dialect))
        with conn, _translate_errors(), self._driver(conn, statement, row):
            return

    def lookup(self, statement: sa.Select, values: dict) -> dict[str, Any] | None:
        """The first row of one read by key, or None: one statement where a read transaction sends three
        (PostgreSQL: on an autocommit connection; SQLite: a lone SELECT, which opens no transaction)."""
        pool = self._appender if self._appender is not None else self._readers
        if pool is None:  # an in-memory SQLite database: its one connection
            with self.read() as shared:
                found = shared.execute(statement, values).mappings().first()
            return None if found is None else dict(found)
        with _translate_errors(self.engine.url):
            conn = sa.Connection(self.engine, connection=_checkout(pool, self.engine.dialect))
        with conn, _translate_errors(), self._driver(conn, statement, values) as cursor:
            row = cursor.fetchone()
            return None if row is None else dict(zip([d[0] for d in cursor.description], row, strict=True))

    @contextmanager
    def _driver(self, conn: sa.Connection, statement: sa.TextClause | sa.Insert | sa.Select,
                values: dict) -> Iterator[Any]:
        """A cursor of the driver that ran `statement` with `values` bound as SQLAlchemy binds them. The
        engine's cursor listeners see the statement (with no execution context); a driver error is raised
        as SQLAlchemy raises it, and a lost connection is not given back to the pool."""
        dialect = self.engine.dialect
        keys = tuple(values) if isinstance(statement, sa.Insert) else ()
        sql, processors, order = _compiled(statement, dialect, keys)
        params: dict | list = {k: processors[k](v) if k in processors else v for k, v in values.items()}
        if order is not None:  # a positional paramstyle (DuckDB's $1): the values in the statement's order
            params = [cast(dict, params)[k] for k in order]
        cursor = conn.connection.cursor()
        try:
            conn.dispatch.before_cursor_execute(conn, cursor, sql, params, None, False)
            cursor.execute(sql, params)
            conn.dispatch.after_cursor_execute(conn, cursor, sql, params, None, False)
            yield cursor
        except dialect.loaded_dbapi.Error as err:
            if dialect.is_disconnect(err, conn.connection.dbapi_connection, cursor):
                conn.invalidate(err)
            raise sa.exc.DBAPIError.instance(sql, params, err, dialect.loaded_dbapi.Error, dialect=dialect) from err
        finally:
            cursor.close()

    @contextmanager
    def _connect(self, *, write: bool) -> Iterator[sa.Connection]:
        with _translate_errors(self.engine.url):
            if write or self._readers is None:
                conn = self.engine.connect()
            else:  # a connection of the engine (its listeners see it), from the readers' pool
                conn = sa.Connection(self.engine, connection=_checkout(self._readers, self.engine.dialect))
        self._mode.write = write
        try:
            yield conn
        finally:
            conn.close()

    def _install_sqlite_hooks(self) -> None:
        deadline, mode = self._deadline, self._mode

        @event.listens_for(self.engine, "connect")
        def _on_connect(dbapi_conn, _record):
            dbapi_conn.isolation_level = None  # we emit BEGIN ourselves, below
            cur = dbapi_conn.cursor()
            if self.engine.url.database not in (None, "", ":memory:"):
                cur.execute("PRAGMA journal_mode = WAL")
                # WAL + NORMAL: never corrupt, durable across a crash of our process; only an OS crash
                # or power cut may lose the last commits (use PostgreSQL where that matters).
                cur.execute("PRAGMA synchronous = NORMAL")
            cur.execute("PRAGMA busy_timeout = 30000")
            cur.execute("PRAGMA foreign_keys = ON")
            cur.close()

            def _progress() -> int:
                at = getattr(deadline, "at", None)
                return 1 if at is not None and time.monotonic() > at else 0

            dbapi_conn.set_progress_handler(_progress, 10_000)

        @event.listens_for(self.engine, "begin")
        def _on_begin(conn):
            write = getattr(mode, "write", None)  # None: a connection not from read() or write()
            mode.write = None
            _on_driver(conn, "BEGIN" if write is False else "BEGIN IMMEDIATE")


@lru_cache(maxsize=1024)
def _compiled(statement: sa.TextClause | sa.Insert | sa.Select, dialect: sa.Dialect,
              keys: tuple[str, ...]) -> tuple[str, dict[str, Callable[[Any], Any]], tuple[str, ...] | None]:
    """A statement's text for the driver (an insert's of the columns `keys`), how SQLAlchemy converts
    the value of each typed parameter, and, for a positional paramstyle, the parameters in order."""
    compiled = statement.compile(dialect=dialect, column_keys=list(keys) or None)
    processors: dict[str, Callable[[Any], Any]] = {}
    for name, bound in compiled.binds.items():
        process = bound.type.dialect_impl(dialect).bind_processor(dialect)
        if process is not None:
            processors[name] = process
    order = tuple(compiled.positiontup or ()) if dialect.positional else None
    return compiled.string, processors, order


def _read_only(dbapi_conn, _record) -> None:
    dbapi_conn.execute("PRAGMA query_only = ON")


def _pg_reader(timeout_ms: int):
    """Make a new PostgreSQL connection's transactions read-only, REPEATABLE READ (a capped result's rows
    and its totals, two statements, see one snapshot even while writes land between them) and stopped
    after `timeout_ms`."""

    def on_connect(dbapi_conn, _record) -> None:
        dbapi_conn.execute("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        dbapi_conn.execute(f"SET statement_timeout = {timeout_ms}")
        dbapi_conn.commit()

    return on_connect


def _autocommit(dbapi_conn, _record) -> None:
    dbapi_conn.autocommit = True


def _checkout(pool: sa.pool.Pool, dialect: sa.Dialect) -> sa.pool.PoolProxiedConnection:
    """A connection of `pool`; a failure to connect raised as the engine would have raised it."""
    base = dialect.loaded_dbapi.Error
    try:
        return pool.connect()
    except base as err:
        raise sa.exc.DBAPIError.instance(None, None, err, base, dialect=dialect) from err


def _on_driver(conn: sa.Connection, sql: str) -> None:
    """A SQLite statement without parameters or rows, run by the driver itself (SQLAlchemy's work per
    statement costs several times what these do); a failure is wrapped as SQLAlchemy wraps one."""
    try:
        cast(sqlite3.Connection, conn.connection.driver_connection).execute(sql)
    except sqlite3.Error as err:
        raise sa.exc.DBAPIError.instance(sql, None, err, sqlite3.Error) from err


# The drivers SQLAlchemy may ask for, and what installs each (a missing one is named, never a traceback).
DRIVERS = {
    "psycopg": "pip install 'psycopg[binary]'",
    "psycopg_binary": "pip install 'psycopg[binary]'",
    "psycopg2": "pip install psycopg2-binary",
    "pg8000": "pip install pg8000",
    "asyncpg": "pip install asyncpg",
    "pymysql": "pip install pymysql",
    "MySQLdb": "pip install mysqlclient",
}
URL_EXAMPLES = "sqlite:///shop.db (a file), postgresql://USER:PASSWORD@HOST:5432/NAME"
CONNECT_TIMEOUT_S = 10


def _create_engine(url: str, read_timeout_s: float = READ_TIMEOUT_S) -> sa.Engine:
    try:
        parsed = sa.engine.make_url(url)
    except sa.exc.ArgumentError:
        raise ConfigError(f"{url!r} is not a database URL; write one such as {URL_EXAMPLES}") from None
    if duckdb_file.is_duckdb(parsed):
        return duckdb_file.create_engine(parsed, read_timeout_s)
    try:
        if parsed.get_backend_name() == "sqlite":
            memory = parsed.database in (None, "", ":memory:")
            if not memory:
                _sqlite_folder_exists(str(parsed.database))
            kwargs = {"poolclass": StaticPool} if memory else {}
            # Named binding: a parameter used twice is one `:name` to SQLite, so it sees that two
            # expressions are the same (positional `?`s would make each use a value of its own).
            return sa.create_engine(url, connect_args={"check_same_thread": False, "timeout": 30},
                                    paramstyle="named", **kwargs)
        connect_args = {} if "connect_timeout" in parsed.query else {"connect_timeout": CONNECT_TIMEOUT_S}
        return sa.create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20, pool_timeout=30,
                                connect_args=connect_args)
    except sa.exc.NoSuchModuleError:
        raise ConfigError(
            f"concierge cannot speak {parsed.drivername!r} databases; it runs on SQLite and PostgreSQL: {URL_EXAMPLES}"
        ) from None
    except ImportError as err:  # the driver of a known dialect is not installed, or cannot load
        name = (err.name or "").split(".")[0]
        fix = DRIVERS.get(name, "pip install 'psycopg[binary]'" if parsed.get_backend_name() == "postgresql"
                          else f"pip install {name or 'the driver'}")
        raise ConfigError(
            f"the database driver {name or parsed.drivername!r} for {parsed.drivername} URLs is not installed "
            f"or does not load ({err}); install it: {fix}"
        ) from None


def _sqlite_folder_exists(database: str) -> None:
    path = Path(database.removeprefix("file:").split("?")[0]).expanduser()
    folder = path.absolute().parent
    if not folder.is_dir():
        raise DatabaseError(
            f"cannot open the SQLite file {path}: its folder {folder} does not exist; "
            f"create it (mkdir -p {folder}) or correct the path in the URL (sqlite:///relative.db, sqlite:////abs/path.db)"
        )


@dataclass(frozen=True)
class _Failure:
    """A connection failure we know, and what to do about it. It is told by the server's SQLSTATE or SQLite's
    result code where the driver has one, or by libpq's own flag (`needs_password`); `words` tell apart the causes
    one code covers. The message names the database and user of the URL, never words read from the driver.
    libpq gives no SQLSTATE for a connection the server refused at start-up (its FATAL comes as text only) nor
    for its own failures (refused, unknown host, no answer): those are told by their words, and a server that
    words them in another language gets the general message with its own words."""

    message: str
    sqlstate: str | None = None
    sqlite_code: int | None = None
    words: re.Pattern[str] | None = None
    needs_password: bool = False
    code_alone: bool = True  # the SQLSTATE alone tells this cause (28000 covers three)

    def matches(self, sqlstate: str | None, sqlite_code: int | None, text: str, needs_password: bool) -> bool:
        if self.needs_password:
            return needs_password
        if self.sqlite_code is not None:
            return sqlite_code is not None and sqlite_code & 0xFF == self.sqlite_code
        if sqlstate is not None:
            if sqlstate != self.sqlstate:
                return False  # the server said what it was: another failure
            if self.code_alone:
                return True
        return self.words is not None and self.words.search(text) is not None


_SQLITE_CANTOPEN = 14

_CONNECT_FAILURES = [
    _Failure("the PostgreSQL server at {where} has no database {database!r}: check the name at the end of the URL, "
             "list the databases with `psql -h {host} -p {port} -l`, or create it with "
             "`createdb -h {host} -p {port} {database}`", sqlstate="3D000",
             words=re.compile(r"database .* does not exist")),
    _Failure("the PostgreSQL server at {where} refused the password of user {user!r}: check the user and password "
             "in the URL (postgresql://USER:PASSWORD@HOST/NAME; write @ : / in a password as %40 %3A %2F)",
             sqlstate="28P01", words=re.compile(r"password authentication failed")),
    _Failure("the PostgreSQL server at {where} has no user {user!r}: check the user name in the URL, or create the "
             "role (CREATE ROLE {user} LOGIN PASSWORD '...')",
             sqlstate="28000", code_alone=False, words=re.compile(r"role .* does not exist")),
    _Failure("the PostgreSQL role {user!r} may not log in at {where}: ALTER ROLE {user} LOGIN, or use another user",
             sqlstate="28000", code_alone=False, words=re.compile(r"is not permitted to log in")),
    _Failure("the PostgreSQL server at {where} does not accept this user from this machine: ask its administrator "
             "to allow it in pg_hba.conf, or check the user and database in the URL",
             sqlstate="28000", code_alone=False, words=re.compile(r"pg_hba\.conf")),
    _Failure("the user of the URL may not connect to that database at {where}: GRANT CONNECT ON DATABASE ... TO "
             "that user", sqlstate="42501", words=re.compile(r"permission denied for database")),
    _Failure("cannot open the SQLite file {database}: check the path in the URL, and that its folder is writable",
             sqlite_code=_SQLITE_CANTOPEN),
    _Failure("the PostgreSQL server at {where} asks for a password: put it in the URL "
             "(postgresql://USER:PASSWORD@HOST/NAME) or in PGPASSWORD or ~/.pgpass", needs_password=True),
    _Failure("cannot reach PostgreSQL at {where} (connection refused): is the server running, and are the host and "
             "port in the URL right?", words=re.compile(r"Connection refused|could not connect to server", re.I)),
    _Failure("cannot reach PostgreSQL at {where}: the host name {host!r} is unknown; check the host in the URL",
             words=re.compile(r"failed to resolve host|could not translate host name|Name or service not known", re.I)),
    _Failure("cannot reach PostgreSQL at {where} (no answer): check the host and port in the URL, and that no "
             "firewall stands between this machine and the server",
             words=re.compile(r"timeout expired|timed out|Network is unreachable|No route to host", re.I)),
]


def _connect_failure(err: Exception, url: sa.URL | None) -> str | None:
    """The actionable message for a connection that failed, if it is one we know."""
    if url is None:
        return None
    orig = getattr(err, "orig", None) or err
    sqlstate, sqlite_code = getattr(orig, "sqlstate", None), getattr(orig, "sqlite_errorcode", None)
    needs_password = bool(getattr(getattr(orig, "pgconn", None), "needs_password", False))
    text = str(orig)
    host, port = url.host or "localhost", url.port or 5432
    for failure in _CONNECT_FAILURES:
        if failure.matches(sqlstate, sqlite_code, text, needs_password):
            return failure.message.format(where=f"{host}:{port}", host=host, port=port, database=url.database,
                                          user=url.username or getpass.getuser())
    return None


@contextmanager
def _translate_errors(url: sa.URL | None = None) -> Iterator[None]:
    """Driver errors as DatabaseError; given the URL, a failed connection says what to do."""
    try:
        yield
    except sa.exc.OperationalError as err:
        known = _connect_failure(err, url)
        if known:
            raise DatabaseError(known) from err
        raise DatabaseError(f"database error (unavailable, timed out or refused): {first_line(err)}") from err
    except sa.exc.InterfaceError as err:
        raise DatabaseError(f"the database connection failed: {first_line(err)}") from err


def first_line(err: Exception) -> str:
    """The driver's own first line of a database error (SQLAlchemy's adds the statement and a link)."""
    orig = getattr(err, "orig", None) or err
    text = str(orig).strip()
    return text.splitlines()[0] if text else type(orig).__name__
