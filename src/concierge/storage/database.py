"""Engines and transactions on the embedded default (SQLite), PostgreSQL or MySQL/MariaDB.

Reads run in read-only transactions with a statement timeout, on connections
of their own that are set up so once, when made (no statement per read sets
them). A pooled connection of reads or audit lines is checked before use only when it sat
idle (`IDLE_PING_S`): one that a statement finds dropped makes the pool connect
anew, and a tool's read runs once more (`again_if_lost`). Each write runs in one
transaction of its own (``BEGIN IMMEDIATE`` on SQLite, so two
writers queue instead of failing half-way). On SQLite this process's writers also
queue on a lock of their own: SQLite's busy handler would sleep 1-100 ms between
retries while another of our threads holds the write lock.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar, cast

import platformdirs
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.pool import StaticPool

from concierge.errors import ConfigError, ConnectionLost, DatabaseError
from concierge.storage import duckdb_file

T = TypeVar("T")
ENV_DATABASE = "CONCIERGE_DATABASE"
READ_TIMEOUT_S = 10.0
IDLE_PING_S = 1.0  # a pooled connection of reads or audit lines idle longer than this is checked before use


def default_url() -> str:
    if os.environ.get(ENV_DATABASE):
        return os.environ[ENV_DATABASE]
    return embedded_url()


def embedded_url() -> str:
    """The embedded default: a SQLite file in the user data folder (its state tables upgrade themselves)."""
    folder = Path(platformdirs.user_data_dir("concierge", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'concierge.db'}"


# The URLs people paste, and the driver each gets: psycopg 3 for PostgreSQL, PyMySQL for MySQL and MariaDB
# (`mariadb://` also makes SQLAlchemy refuse a server that is not MariaDB).
_DEFAULT_DRIVERS = {"postgres://": "postgresql+psycopg://", "postgresql://": "postgresql+psycopg://",
                    "mysql://": "mysql+pymysql://", "mariadb://": "mariadb+pymysql://"}
MYSQL_DIALECTS = ("mysql", "mariadb")  # SQLAlchemy's names of the MySQL family


def normalise_url(url: str) -> str:
    """Accept the URLs people paste (postgres://, postgresql://, mysql://, mariadb://) with our default driver."""
    for prefix, full in _DEFAULT_DRIVERS.items():
        if url.startswith(prefix):
            return full + url[len(prefix) :]
    return url


def is_mysql(dialect: sa.Dialect | str) -> bool:
    """Whether a dialect (or its name) is MySQL's or MariaDB's."""
    return (dialect if isinstance(dialect, str) else dialect.name) in MYSQL_DIALECTS


@compiles(sa.DateTime, *MYSQL_DIALECTS)
def _mysql_datetime(type_: sa.DateTime, compiler: Any, **kw: Any) -> str:
    """A DateTime made on MySQL keeps microseconds, as on PostgreSQL and SQLite (plain DATETIME drops them, and a
    time written is then not the time read back)."""
    return "DATETIME(6)"


@compiles(sa.Float, *MYSQL_DIALECTS)
def _mysql_double(type_: sa.Float, compiler: Any, **kw: Any) -> str:
    """A Float made on MySQL is a double, as PostgreSQL's FLOAT is (MySQL's FLOAT has 24 bits)."""
    return "DOUBLE" if type_.precision is None else compiler.visit_float(type_, **kw)


_SCHEMA_READ = "SELECT 1 FROM sqlite_master LIMIT 1"


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
            dialect = self.engine.dialect
            self._readers = self.engine.pool.recreate()
            reader = _mysql_reader if is_mysql(dialect) else _pg_reader
            event.listen(self._readers, "connect", reader(dialect, read_timeout_s))
            self._appender = self.engine.pool.recreate()
            event.listen(self._appender, "connect", _autocommit(dialect))
            _ping_after_idle(self._readers, dialect, IDLE_PING_S)
            _ping_after_idle(self._appender, dialect, IDLE_PING_S)
            _ping_after_idle(self.engine.pool, dialect, 0.0)  # a write is not run again: check each connection

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

    def restored(self) -> None:
        """Every open connection to this SQLite file reads the schema again now, as each would at its next statement
        once the file was restored under it (SQLite's backup API moves its schema version on)."""
        if not self.is_sqlite or not isinstance(self._readers, sa.pool.QueuePool):
            return
        idle = [self._readers.connect() for _ in range(self._readers.checkedin())]
        try:
            for conn in idle:
                conn.cursor().execute(_SCHEMA_READ).close()
        finally:
            for conn in idle:
                conn.close()
        with self._writer:
            if self._write_conn is not None and not self._write_conn.closed:
                _on_driver(self._write_conn, _SCHEMA_READ)

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
            else:  # read-only, REPEATABLE READ, the timeout: the connection's defaults (`_pg_reader`, `_mysql_reader`)
                yield conn

    def restart_timeout(self) -> None:
        """Give the next statement of this thread's read the whole read timeout again: SQLite's clock runs once per
        read (`read`), the other databases time each statement already."""
        if getattr(self._deadline, "at", None) is not None:
            self._deadline.at = time.monotonic() + self.read_timeout_s

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

    def retrying(self, work: Callable[[sa.Connection], T], attempts: int = 10) -> T:
        """`work` in a write transaction, run again in a new one when the database rolled it back for a concurrent
        one (`overtaken`: nothing of it committed). MySQL does so for a deadlock, which two transactions that make
        a row unless it is there and then lock it may run into (storage/insert_once.py)."""
        for attempt in range(attempts):
            try:
                with self.write() as conn:
                    return work(conn)
            except DatabaseError as err:
                if not overtaken(err) or attempt + 1 == attempts:
                    raise
        raise AssertionError("unreachable")

    def write_one(self, statement: sa.Insert | sa.Update, row: dict) -> None:
        """One statement (a row added, or one row's columns set), committed before this returns, run by the
        driver itself. On PostgreSQL the statement is a transaction of its own on an autocommit connection: one
        round trip, where BEGIN, the statement and COMMIT take three. A statement sent on a connection found
        dropped is sent again on a new one: a cut between the commit and its answer would leave an added line
        twice, where not sending it again would lose it (an update must be one that may run twice)."""
        if self._appender is None:
            if self._lone(statement, row):
                return
            with self.write() as conn, driven(conn, statement, row):
                return
        appender = self._appender

        def append() -> None:
            with self._pooled(appender) as conn, driven(conn, statement, row):
                return

        again_if_lost(append)

    def _lone(self, statement: sa.Insert | sa.Update, row: dict) -> bool:
        """On a SQLite file, the statement run alone on the writers' connection: a transaction of its own, where
        BEGIN IMMEDIATE and COMMIT cost it as much again. False when that connection is not open or is in a
        transaction (then `write` makes one)."""
        if not self.is_sqlite or self._readers is None:
            return False
        with self._writer:
            conn = self._write_conn
            if conn is None or conn.closed or conn.invalidated or conn.in_transaction():
                return False
            with _translate_errors(), driven(conn, statement, row):
                return True

    def lookup(self, statement: sa.Select, values: dict) -> dict[str, Any] | None:
        """The first row of one read by key, or None (`alone`)."""
        found = self.alone(statement, values, 1)
        return found[0] if found else None

    def alone(self, statement: sa.Select, values: dict, limit: int | None = None) -> list[dict[str, Any]]:
        """The rows (the first `limit`, or all) of one read statement, as dicts: one statement where a read
        transaction sends three (PostgreSQL: on an autocommit connection; SQLite: a lone SELECT, which opens no
        transaction). One statement sees one snapshot of the data."""
        pool = self._appender if self._appender is not None else self._readers
        if pool is None:  # an in-memory SQLite database: its one connection
            with self.read() as shared:
                columns, fetched = rows(shared, statement, values, limit)
        else:
            pooled = pool

            def look() -> tuple[list[str], Sequence[Sequence[Any]]]:
                with self._pooled(pooled) as conn:
                    return rows(conn, statement, values, limit)

            columns, fetched = again_if_lost(look)
        return [dict(zip(columns, r, strict=True)) for r in fetched]

    def _renew(self) -> None:
        """Make every pool connect anew for each connection it made so far, at its next checkout: a connection
        found dropped means the server dropped the others too (SQLAlchemy's engine does so for its own pool)."""
        for pool in (self.engine.pool, self._readers, self._appender):
            if pool is not None:
                pool._invalidate(cast(sa.pool.PoolProxiedConnection, None), _checkin=False)

    @contextmanager
    def _pooled(self, pool: sa.pool.Pool) -> Iterator[sa.Connection]:
        """A connection of the engine from `pool`, for one statement outside a transaction; its errors translated,
        and the pools renewed when the connection turns out to have been dropped."""
        with _translate_errors(self.engine.url):
            conn = sa.Connection(self.engine, connection=_checkout(pool, self.engine.dialect))
        try:
            with conn, _translate_errors():
                yield conn
        except ConnectionLost:
            self._renew()
            raise

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
        except ConnectionLost:
            self._renew()
            raise
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


@contextmanager
def driven(conn: sa.Connection, statement: sa.TextClause | sa.Insert | sa.Update | sa.Select,
            values: dict) -> Iterator[Any]:
    """A cursor of the driver that ran `statement` with `values` bound as SQLAlchemy binds them, on `conn` (of
    any engine, in a transaction or not): SQLAlchemy's work per statement costs more than a small indexed query
    does. The engine's cursor listeners see the statement (with no execution context); a driver error is
    raised as SQLAlchemy raises it, and a lost connection is not given back to the pool."""
    dialect = conn.dialect
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
        lost = dialect.is_disconnect(err, conn.connection.dbapi_connection, cursor)
        if lost:
            conn.invalidate(err)
        raise sa.exc.DBAPIError.instance(sql, params, err, dialect.loaded_dbapi.Error, dialect=dialect,
                                         connection_invalidated=lost) from err
    finally:
        cursor.close()


def rows(conn: sa.Connection, statement: sa.TextClause | sa.Select | sa.Insert | sa.Update, values: dict,
         limit: int | None = None) -> tuple[list[str], Sequence[Sequence[Any]]]:
    """The column names and the rows (the first `limit`, or all) of a statement on `conn`, run by the driver
    (`driven`); no columns and no rows for a statement that returns none."""
    with driven(conn, statement, values) as cursor:
        if cursor.description is None:
            return [], []
        columns = [d[0] for d in cursor.description]
        return columns, cursor.fetchall() if limit is None else cursor.fetchmany(limit)


def prepare(dialect: sa.Dialect, statements: Iterable[sa.TextClause]) -> None:
    """Compile statements for `dialect` now, so that `driven` finds them compiled: SQLAlchemy's compiling of a
    statement with a dozen parameters costs a third of a millisecond, which the first call of each tool paid. One
    that does not compile is left to the call that sends it, which says what is wrong with it."""
    for statement in statements:
        with contextlib.suppress(sa.exc.SQLAlchemyError):
            _compiled(statement, dialect, ())


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


def _pg_reader(_dialect: sa.Dialect, timeout_s: float):
    """Make a new PostgreSQL connection's transactions read-only, REPEATABLE READ (a capped result's rows
    and its totals, two statements, see one snapshot even while writes land between them) and stopped
    after `timeout_s`."""

    def on_connect(dbapi_conn, _record) -> None:
        dbapi_conn.execute("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        dbapi_conn.execute(f"SET statement_timeout = {int(timeout_s * 1000)}")
        dbapi_conn.commit()

    return on_connect


def _mysql_reader(dialect: sa.Dialect, timeout_s: float):
    """The same for a MySQL or MariaDB connection. Their timeouts differ: MariaDB's `max_statement_time` (seconds)
    stops any statement; MySQL's `max_execution_time` (milliseconds) stops a SELECT, and reads are SELECTs. The
    engine's first connection told the dialect which server it is, before this runs."""

    def on_connect(dbapi_conn, _record) -> None:
        timeout = (f"max_statement_time = {timeout_s:g}" if getattr(dialect, "is_mariadb", False)
                   else f"max_execution_time = {max(1, int(timeout_s * 1000))}")
        with dbapi_conn.cursor() as cursor:
            cursor.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            cursor.execute(f"SET SESSION {timeout}")
        dbapi_conn.commit()

    return on_connect


def _standard_strings(dbapi_conn, _record) -> None:
    """Catalog SQL reads on MySQL as on PostgreSQL and SQLite: in a string literal a backslash is a backslash
    (LIKE ... ESCAPE '\\'), || joins texts, and a name in double quotes is a name ("change", a word MySQL
    reserves). The driver and SQLAlchemy see the mode and quote values and names to match."""
    with dbapi_conn.cursor() as cursor:
        cursor.execute("SET SESSION sql_mode = CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES,PIPES_AS_CONCAT,ANSI_QUOTES')")
    dbapi_conn.commit()


def _autocommit(dialect: sa.Dialect):
    def on_connect(dbapi_conn, _record) -> None:
        dialect.set_isolation_level(dbapi_conn, "AUTOCOMMIT")

    return on_connect


def _ping_after_idle(pool: sa.pool.Pool, dialect: sa.Dialect, idle_s: float) -> None:
    """Check a connection of `pool` before it is handed out when it sat idle longer than `idle_s` (0: every
    time, as SQLAlchemy's pre-ping does); one that fails is made anew. A connection in steady use is not
    checked: the round trip would cost a small read a third of its time."""

    @event.listens_for(pool, "checkin")
    def _idle_from(_dbapi_conn, record) -> None:
        record.info["idle_from"] = time.monotonic()

    @event.listens_for(pool, "checkout")
    def _check(dbapi_conn, record, _proxy) -> None:
        since = record.info.pop("idle_from", None)
        if since is None or time.monotonic() - since <= idle_s:
            return
        try:
            dialect.do_ping(dbapi_conn)
        except dialect.loaded_dbapi.Error as err:
            if dialect.is_disconnect(err, dbapi_conn, None):
                raise sa.exc.DisconnectionError() from err  # the pool connects anew and hands that out
            raise


def again_if_lost(work: Callable[[], T]) -> T:
    """`work`, run once more when its connection turned out to have been dropped (`ConnectionLost`; its pool
    then connects anew), so a restarted server costs the call that meets it a retry, not an error. Only for
    work that may run twice."""
    try:
        return work()
    except ConnectionLost:
        return work()


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
    "pymysql": "pip install 'concierge[mysql]'",
    "MySQLdb": "pip install mysqlclient",
}
URL_EXAMPLES = ("sqlite:///shop.db (a file), postgresql://USER:PASSWORD@HOST:5432/NAME, "
                "mysql://USER:PASSWORD@HOST:3306/NAME (MySQL or MariaDB)")
_DEFAULT_PORTS = {"postgresql": 5432, "mysql": 3306, "mariadb": 3306}
_INSTALL = {"postgresql": "pip install 'psycopg[binary]'", "mysql": "pip install 'concierge[mysql]'",
            "mariadb": "pip install 'concierge[mysql]'"}
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
        connect_args: dict[str, Any] = {}
        if "connect_timeout" not in parsed.query:
            connect_args["connect_timeout"] = CONNECT_TIMEOUT_S
        mysql = is_mysql(parsed.get_backend_name())
        if mysql and "charset" not in parsed.query:
            connect_args["charset"] = "utf8mb4"  # every character: 𠮷 and emoji need 4 bytes, MySQL's utf8 has 3
        engine = sa.create_engine(url, pool_size=10, max_overflow=20, pool_timeout=30,
                                  connect_args=connect_args)
        if mysql:  # first (the dialect then reads the mode), and before the pools of reads and appends are made
            event.listen(engine, "connect", _standard_strings, insert=True)
        return engine
    except sa.exc.NoSuchModuleError:
        raise ConfigError(
            f"concierge cannot speak {parsed.drivername!r} databases; it runs on SQLite, PostgreSQL and MySQL/MariaDB: "
            f"{URL_EXAMPLES}"
        ) from None
    except ImportError as err:  # the driver of a known dialect is not installed, or cannot load
        name = (err.name or "").split(".")[0]
        fix = DRIVERS.get(name, _INSTALL.get(parsed.get_backend_name(), f"pip install {name or 'the driver'}"))
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
    """A connection failure we know, and what to do about it. It is told by the server's SQLSTATE, MySQL's error
    number or SQLite's result code where the driver has one, or by libpq's own flag (`needs_password`); `words`
    tell apart the causes one code covers. The message names the database and user of the URL, never words read
    from the driver.
    libpq gives no SQLSTATE for a connection the server refused at start-up (its FATAL comes as text only) nor
    for its own failures (refused, unknown host, no answer): those are told by their words, and a server that
    words them in another language gets the general message with its own words."""

    message: str
    sqlstate: str | None = None
    sqlite_code: int | None = None
    mysql_code: int | None = None
    words: re.Pattern[str] | None = None
    needs_password: bool = False
    code_alone: bool = True  # the SQLSTATE alone tells this cause (28000 covers three)

    def matches(self, sqlstate: str | None, sqlite_code: int | None, text: str, needs_password: bool,
                mysql_code: int | None = None) -> bool:
        if self.needs_password:
            return needs_password
        if self.sqlite_code is not None:
            return sqlite_code is not None and sqlite_code & 0xFF == self.sqlite_code
        if self.mysql_code is not None:
            return mysql_code == self.mysql_code and (self.words is None or self.words.search(text) is not None)
        if mysql_code is not None:
            return False  # a MySQL failure is told by its number only
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
    # MySQL and MariaDB: the server's (or the client library's) error number, the same on both
    _Failure("the MySQL/MariaDB server at {where} has no database {database!r}: check the name at the end of the "
             "URL, list the databases with `mariadb -h {host} -P {port} -u {user} -p -e 'SHOW DATABASES'`, or create "
             "it: CREATE DATABASE `{database}` CHARACTER SET utf8mb4", mysql_code=1049),
    _Failure("the MySQL/MariaDB server at {where} refused the password of user {user!r}: check the user and password "
             "in the URL (mysql://USER:PASSWORD@HOST/NAME; write @ : / in a password as %40 %3A %2F)",
             mysql_code=1045),
    _Failure("the MySQL/MariaDB server at {where} does not let user {user!r} in from this machine (no such user, or "
             "one that may log in only through the server's socket): check the user in the URL, or create one: "
             "CREATE USER '{user}'@'%' IDENTIFIED BY '...'", mysql_code=1698),
    _Failure("the MySQL/MariaDB user {user!r} may not use the database {database!r} at {where}: "
             "GRANT SELECT ON `{database}`.* TO '{user}'@'%' (and INSERT, UPDATE, DELETE for declared writes)",
             mysql_code=1044),
    _Failure("cannot reach MySQL/MariaDB at {where}: the host name {host!r} is unknown; check the host in the URL",
             mysql_code=2003, words=re.compile(r"Name or service not known|nodename nor servname|Errno -[235]\b",
                                               re.I)),
    _Failure("cannot reach MySQL/MariaDB at {where} (no answer): check the host and port in the URL, and that no "
             "firewall stands between this machine and the server", mysql_code=2003,
             words=re.compile(r"timed out|Network is unreachable|No route to host", re.I)),
    _Failure("cannot reach MySQL/MariaDB at {where} (connection refused): is the server running, and are the host "
             "and port in the URL right?", mysql_code=2003),
]


def mysql_errno(orig: object) -> int | None:
    """The error number of a MySQL or MariaDB driver's error (its first argument), else None."""
    args = getattr(orig, "args", ())
    driver = type(orig).__module__.split(".")[0]
    return args[0] if driver in ("pymysql", "MySQLdb") and args and isinstance(args[0], int) else None


def _connect_failure(err: Exception, url: sa.URL | None) -> str | None:
    """The actionable message for a connection that failed, if it is one we know."""
    if url is None:
        return None
    orig = getattr(err, "orig", None) or err
    sqlstate, sqlite_code = getattr(orig, "sqlstate", None), getattr(orig, "sqlite_errorcode", None)
    needs_password = bool(getattr(getattr(orig, "pgconn", None), "needs_password", False))
    text = str(orig)
    host, port = url.host or "localhost", url.port or _DEFAULT_PORTS.get(url.get_backend_name(), 5432)
    for failure in _CONNECT_FAILURES:
        if failure.matches(sqlstate, sqlite_code, text, needs_password, mysql_errno(orig)):
            return failure.message.format(where=f"{host}:{port}", host=host, port=port, database=url.database,
                                          user=url.username or getpass.getuser())
    return None


@contextmanager
def _translate_errors(url: sa.URL | None = None) -> Iterator[None]:
    """Driver errors as DatabaseError (a connection a statement found dropped: ConnectionLost); given the URL,
    a failed connection says what to do."""
    try:
        yield
    except sa.exc.OperationalError as err:
        known = _connect_failure(err, url)
        if known:
            raise DatabaseError(known) from err
        if err.connection_invalidated:
            raise ConnectionLost(f"the database connection was lost: {first_line(err)}") from err
        raise DatabaseError(f"database error (unavailable, timed out or refused): {first_line(err)}") from err
    except sa.exc.InterfaceError as err:
        if err.connection_invalidated:
            raise ConnectionLost(f"the database connection was lost: {first_line(err)}") from err
        raise DatabaseError(f"the database connection failed: {first_line(err)}") from err


_MYSQL_DEADLOCK = 1213  # InnoDB rolled the whole transaction back (SQLSTATE 40001)


def overtaken(err: BaseException) -> bool:
    """Whether the database rolled a write transaction back for a concurrent one, so that nothing of it committed
    and it may run again: SQLSTATE 40001 (PostgreSQL: its snapshot was overtaken; MySQL: a deadlock)."""
    orig = getattr(err.__cause__, "orig", None)
    return getattr(orig, "sqlstate", None) == "40001" or mysql_errno(orig) == _MYSQL_DEADLOCK


def first_line(err: Exception) -> str:
    """The driver's own first line of a database error (SQLAlchemy's adds the statement and a link)."""
    orig = getattr(err, "orig", None) or err
    number = mysql_errno(orig)
    text = f"{orig.args[1]} (error {number})" if number is not None and len(orig.args) > 1 else str(orig).strip()
    return text.splitlines()[0] if text else type(orig).__name__
