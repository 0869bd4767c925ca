"""The revision of concierge's own tables: find it, check it, upgrade or downgrade it with Alembic.

Where a state database stands, and what opening it does:

    empty      no state table at all       created at the head revision
    current    at the head revision        used as it is
    unversioned  state tables, no version  made by a release before versioning: `concierge db upgrade`
    behind     an older revision           `concierge db upgrade`
    ahead      a revision this concierge does not know (made by a newer one): refused

Behind and unversioned are refused by every command but `concierge db upgrade`, except on the
embedded default (the SQLite file in the user data folder), which upgrades itself. A database is
checked once per `Database` object: the first command on it pays one inspection, the calls after none.
Migrations run inside one write transaction (``BEGIN IMMEDIATE`` on SQLite, an advisory lock on
PostgreSQL), so two processes opening an empty database at once create it once. MySQL and MariaDB commit each
CREATE and ALTER by itself: there a named lock (GET_LOCK) keeps the second process waiting, and a migration that
fails half-way leaves the steps before it done (each revision checks what exists before it creates).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from alembic.util import CommandError

from concierge.errors import StateSchemaError
from concierge.storage import duckdb_file, state
from concierge.storage.database import Database, embedded_url, first_line, is_mysql, normalise_url

SCRIPT_LOCATION = "concierge.storage:migrations"  # found in the installed package, wherever it is
_LOCK_KEY = 0x636F6E63  # PostgreSQL advisory lock of concierge's migrations ("conc")
_MYSQL_LOCK = "concierge_migrations"  # its MySQL named lock, held by the session until released
_MYSQL_LOCK_WAIT_S = 120
_checked: weakref.WeakSet[Database] = weakref.WeakSet()


@dataclass(frozen=True)
class Revision:
    """Where one state database stands."""

    current: str | None  # the recorded revision; None when there is no version table
    head: str
    tables: bool  # whether any state table exists

    @property
    def kind(self) -> str:
        if self.current is None:
            return "unversioned" if self.tables else "empty"
        if self.current == self.head:
            return "current"
        return "behind" if self.current in known_revisions() else "ahead"

    def describe(self) -> str:
        return {"empty": "empty", "unversioned": "unversioned (a release before versioning)"}.get(
            self.kind, self.current or "")


def _config(conn: sa.Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", SCRIPT_LOCATION)
    config.attributes["connection"] = conn
    return config


@cache
def _script() -> ScriptDirectory:
    return ScriptDirectory.from_config(_config())


def head() -> str:
    found = _script().get_current_head()
    assert found is not None, "the package's migrations are missing"
    return found


@cache
def known_revisions() -> frozenset[str]:
    return frozenset(s.revision for s in _script().walk_revisions())


def inspect(db: Database) -> Revision:
    with db.read() as conn:
        return _inspect(conn)


def _inspect(conn: sa.Connection) -> Revision:
    names = set(sa.inspect(conn).get_table_names())
    current = None
    if state.VERSION_TABLE in names:
        current = conn.scalar(sa.text(f"SELECT version_num FROM {state.VERSION_TABLE}"))
    return Revision(current, head(), bool(names & {t.name for t in state.metadata.sorted_tables}))


def is_embedded(db: Database) -> bool:
    return db.url == normalise_url(embedded_url())


def ensure_state(db: Database) -> None:
    """Make sure `db`'s state tables are at the head revision, or say which command brings them there.

    An empty database is created at head; the embedded default is upgraded; otherwise a state that
    is behind, unversioned or ahead raises `StateSchemaError`. Checked once per `Database`.
    """
    if db in _checked:
        return
    duckdb_file.refuse_state(db.engine.url)
    found = inspect(db)
    if found.kind == "empty" or (found.kind in ("behind", "unversioned") and is_embedded(db)):
        upgrade(db)
    elif found.kind != "current":
        raise StateSchemaError(_refusal(db, found))
    _checked.add(db)


def _refusal(db: Database, found: Revision) -> str:
    where = display_url(db)
    if found.kind == "ahead":
        return (
            f"the state tables in {where} are at revision {found.current}, which this concierge does not know "
            f"(it knows up to {found.head}): they were upgraded by a newer concierge. Use that version, or "
            f"with it run `concierge db downgrade {found.head} --state-database {where}`"
        )
    was = "were made by a concierge before versioning" if found.kind == "unversioned" else (
        f"are at revision {found.current}")
    return (
        f"the state tables in {where} {was}; this concierge needs revision {found.head}. "
        f"Back the database up, then run `concierge db upgrade --state-database {where}`"
    )


def display_url(db: Database) -> str:
    """The URL of `db` with its password hidden."""
    return db.engine.url.render_as_string(hide_password=True)


def upgrade(db: Database, target: str = "head") -> tuple[Revision, Revision]:
    """Apply the migrations up to `target`; returns where the database stood before and after."""
    with _migrating(db) as conn:
        before = _inspect(conn)
        if before.kind == "ahead":
            raise StateSchemaError(_refusal(db, before))
        if before.current != (head() if target == "head" else target):
            command.upgrade(_config(conn), target)
        after = _inspect(conn)
    _checked.discard(db)
    if after.kind == "current":
        _checked.add(db)
    return before, after


def downgrade(db: Database, target: str) -> tuple[Revision, Revision]:
    """Undo the migrations after revision `target` (at least 0001: nothing drops the state tables)."""
    if target not in known_revisions():
        raise StateSchemaError(
            f"there is no state revision {target!r}; revisions: {', '.join(sorted(known_revisions()))} "
            f"(to drop every state table, drop them by hand: no command does it)"
        )
    with _migrating(db) as conn:
        before = _inspect(conn)
        if before.kind == "ahead":
            raise StateSchemaError(
                f"the state tables in {display_url(db)} are at revision {before.current}, unknown to this concierge: "
                "downgrade them with the concierge that upgraded them"
            )
        if before.kind in ("empty", "unversioned"):
            raise StateSchemaError(
                f"the state tables in {display_url(db)} are {before.describe()}: nothing to downgrade")
        if before.current != target:
            command.downgrade(_config(conn), target)
        after = _inspect(conn)
    _checked.discard(db)
    return before, after


@contextmanager
def _migrating(db: Database) -> Iterator[sa.Connection]:
    """One write transaction that only one process holds at a time (SQLite: its own write lock is enough);
    a migration that fails is rolled back whole and says why."""
    try:
        with db.write() as conn, _mysql_lock(conn):
            if conn.dialect.name == "postgresql":
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
            yield conn
    except sa.exc.DBAPIError as err:
        raise StateSchemaError(
            f"could not change the state tables in {display_url(db)}: {first_line(err)}. Nothing was changed. "
            "The role needs to create and alter tables there; a read-only role on the business data wants "
            "concierge's tables in a database of their own: state_database (docs/deploy.md)"
        ) from err
    except (CommandError, RuntimeError) as err:
        raise StateSchemaError(f"could not migrate the state tables in {display_url(db)}: {err}") from err


@contextmanager
def _mysql_lock(conn: sa.Connection) -> Iterator[None]:
    """On MySQL and MariaDB, the migrations' named lock for the block (a pooled session would keep it after)."""
    if not is_mysql(conn.dialect):
        yield
        return
    if conn.scalar(sa.text("SELECT GET_LOCK(:name, :wait)"), {"name": _MYSQL_LOCK, "wait": _MYSQL_LOCK_WAIT_S}) != 1:
        raise RuntimeError(f"another process has been migrating for {_MYSQL_LOCK_WAIT_S} s; try again later")
    try:
        yield
    finally:
        conn.execute(sa.text("SELECT RELEASE_LOCK(:name)"), {"name": _MYSQL_LOCK})
