"""The databases cases run on, each case leaving nothing behind for the next.

A demo domain: a fresh copy of its demo database per case (a temporary SQLite file). A catalog of the
settings folder: the settings' own database, and

- where no catalog of the settings declares a write, that database itself: every call is a read, run
  in a read-only transaction, so no case can change what the next one reads, and nothing is copied;
- where one does, on SQLite a copy of the file per case (made with SQLite's backup API, so a server
  writing meanwhile is no harm); on PostgreSQL one transaction per case, on one connection, rolled
  back when the case ends (`RolledBack`): nothing is copied, the case reads its own writes, and no other
  connection ever sees them.

concierge's own tables (users, audit, conversations, confirmations) are a throwaway SQLite file for
the whole run, with the installation's users copied into it: a rehearsal adds no audit line and no
conversation to the installation, and each user keeps their real role. Where the installation has no
user yet (a folder just `init`ed), a stand-in `admin` is made with the catalogs' admin role.
"""

from __future__ import annotations

import shutil
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event

from concierge.catalog.loader import Catalog, load_catalogs
from concierge.demo.bootstrap import open_pipeline
from concierge.pipeline.pipeline import Pipeline
from concierge.settings import Settings
from concierge.storage import users
from concierge.storage.database import Database, normalise_url
from concierge.storage.migrate import ensure_state

DEFAULT_USER = "admin"


class DemoDatabases:
    """One demo database per domain, made once; each case gets a fresh copy of it.

    The copies of a domain take turns at one path, on one engine, with the catalogs parsed
    once: a case sees only its own fresh data, and does not pay again for what depends only
    on the catalog and the SQL dialect (parsing, compiled statements). The demo's data is copied
    over the last case's with SQLite's backup API, under the engine's open connections, as a
    restore would be: they read the fresh data at their next transaction, connected already.
    """

    def __init__(self, folder: Path):
        self.folder = folder
        self.domains: dict[str, tuple[list[Catalog], Database, Path, Path]] = {}

    def fresh(self, domain: str) -> tuple[list[Catalog], Database]:
        if domain not in self.domains:
            template = self.folder / f"{domain}-template.db"
            made = open_pipeline([domain], f"sqlite:///{template}")
            made.close()
            path = self.folder / f"{domain}.db"
            self.domains[domain] = (made.catalogs, Database(f"sqlite:///{path}"), template, path)
        catalogs, db, template, path = self.domains[domain]
        if path.exists():
            _backup(str(template), path)
            db.restored()  # the restore's cost, not the case's first turn's
        else:
            _replace(template, path)
        return catalogs, db

    def close(self) -> None:
        for _, db, _, _ in self.domains.values():
            db.dispose()


class SettingsData:
    """The catalogs of a settings folder on its database, for the cases whose domain is one of them."""

    def __init__(self, settings: Settings, folder: Path):
        self.catalogs = [c for c in load_catalogs(list(settings.catalogs)) if not c.spec.demo]
        self.names = [c.name for c in self.catalogs]
        self.url = normalise_url(settings.database)
        self.where = str(settings.file) if settings.file else "the settings"
        self.folder = folder
        self.writes = any(t.mode == "write" for c in self.catalogs for t in c.tools.values())
        self.sqlite = sa.make_url(self.url).get_backend_name() == "sqlite"
        self.notes: list[str] = []
        self.state = Database(f"sqlite:///{folder / 'state.db'}")
        ensure_state(self.state)
        self.users = self._copy_users(settings.state_url)
        self.default_user = DEFAULT_USER if DEFAULT_USER in self.users or len(self.users) != 1 else self.users[0]
        self._shared = None if self.writes else Database(self.url)
        self._template: Path | None = None
        if self.writes and self.sqlite:
            self._template = folder / "business-template.db"
            _backup(sa.make_url(self.url).database or "", self._template)

    def _copy_users(self, state_url: str) -> list[str]:
        found = _installation_users(state_url)
        for record in found:
            users.add(self.state, record.name, record.role, record.display_name)
        if found:
            return [r.name for r in found]
        roles = [r for c in self.catalogs for r in c.spec.roles]
        role = DEFAULT_USER if DEFAULT_USER in roles else (roles[0] if roles else DEFAULT_USER)
        users.add(self.state, DEFAULT_USER, role)
        self.notes.append(f"no users in the installation yet: the cases acted as a stand-in {DEFAULT_USER!r} "
                          f"(role {role}); add yours with concierge user add NAME --role ROLE")
        return []

    @contextmanager
    def pipeline(self, case_id: str, today: date) -> Iterator[Pipeline]:
        """The pipeline of one case, on data no earlier case has changed; closed (and rolled back) after."""
        if self._shared is not None:
            db = self._shared
        elif self._template is not None:
            path = self.folder / "business.db"
            _replace(self._template, path)
            db = Database(f"sqlite:///{path}")
        else:
            db = RolledBack(self.url)
        pipeline = Pipeline(self.catalogs, db, state=self.state, today=today)
        try:
            yield pipeline
        finally:
            pipeline.close()

    def close(self) -> None:
        if self._shared is not None:
            self._shared.dispose()
        self.state.dispose()


class RolledBack(Database):
    """A PostgreSQL database for one case: every read and write on one connection, inside one transaction
    that `dispose` rolls back. Each `read` and `write` is a savepoint of it (a failed statement undoes only
    its own), one at a time. The transaction is one REPEATABLE READ snapshot from its start, so a write's
    own request for one (which PostgreSQL refuses once a statement has run) is already met and skipped."""

    def __init__(self, url: str):
        super().__init__(url)
        self._lock = threading.RLock()
        self._case: sa.Connection | None = self.engine.connect()
        event.listen(self._case, "before_cursor_execute", _skip_isolation, retval=True)
        self._outer = self._case.begin()
        self._case.exec_driver_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")

    @contextmanager
    def read(self) -> Iterator[sa.Connection]:
        if self._case is None:
            raise RuntimeError("the case's transaction is over")
        with self._lock, self.errors(), self._case.begin_nested():
            yield self._case

    write = read

    def lookup(self, statement: sa.Select, values: dict) -> dict[str, Any] | None:
        with self.read() as conn:
            found = conn.execute(statement, values).mappings().first()
        return None if found is None else dict(found)

    def insert(self, statement: sa.Insert, row: dict) -> None:
        with self.write() as conn:
            conn.execute(statement, row)

    def dispose(self) -> None:
        with self._lock:
            if self._case is not None:
                self._outer.rollback()
                self._case.close()
                self._case = None
        super().dispose()


def _skip_isolation(_conn, _cursor, statement: str, parameters, _context, _many):
    if statement.lstrip().upper().startswith("SET TRANSACTION ISOLATION LEVEL") and _conn.in_nested_transaction():
        return "SELECT 1", parameters
    return statement, parameters


def _installation_users(state_url: str) -> list[users.UserRecord]:
    """The users of the installation's state database (none where its SQLite file does not exist yet)."""
    parsed = sa.make_url(normalise_url(state_url))
    if parsed.get_backend_name() == "sqlite" and not Path(parsed.database or "").is_file():
        return []
    db = Database(state_url)
    try:
        ensure_state(db)
        return users.all_users(db)
    finally:
        db.dispose()


def _backup(source: str, target: Path) -> None:
    """A consistent copy of a SQLite file, read-only on the source, whatever writes it meanwhile."""
    with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    src.close()
    dst.close()


def _replace(template: Path, path: Path) -> None:
    for leftover in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        leftover.unlink(missing_ok=True)
    shutil.copyfile(template, path)
