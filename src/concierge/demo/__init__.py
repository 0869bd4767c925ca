"""The demo businesses, and installing one (its tables, generated rows and users) into a database.

Each demo is a package here (`farm`, `pos`) registered as a plug-in (`concierge.plugins`).
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa

from concierge.catalog.loader import load_catalog
from concierge.plugins import Demo, demo, demos
from concierge.storage import rollups, state
from concierge.storage.database import Database
from concierge.storage.migrate import ensure_state


def add_users(state_db: Database, plugin: Demo) -> None:
    """The demo's users, where missing (no password: `user set-password`, or printed on first serve); the demo is
    marked as having had its users added."""
    with state_db.write() as conn:
        have = set(conn.scalars(sa.select(state.users.c.name)))
        new = [{"name": u.name, "role": u.role, "display_name": u.display_name}
               for u in plugin.users if u.name not in have]
        if new:
            conn.execute(state.users.insert(), new)
        _mark(conn, [plugin.name])


def has_users(state_db: Database) -> bool:
    with state_db.read() as conn:
        return conn.scalar(sa.select(state.users.c.name).limit(1)) is not None


def seed_users(state_db: Database, names: list[str]) -> None:
    """The users of each of these demos whose users were never added to this state database: a demo loaded beside
    others later (home after farm and pos) gets its own. Once added they are the administrator's to manage: a demo
    user removed stays removed."""
    with state_db.write() as conn:
        marked = set(conn.scalars(sa.select(state.demo_users.c.demo)))
        if not marked and conn.scalar(sa.select(state.users.c.name).limit(1)) is not None:
            marked = _mark_earlier(conn)  # users from before demos were marked: those demos had theirs
    for name in names:
        if name not in marked:
            add_users(state_db, demo(name))
            marked.add(name)


def _mark_earlier(conn: sa.Connection) -> set[str]:
    """A state database from before the marks: every demo with one of its users there had its users added."""
    have = set(conn.scalars(sa.select(state.users.c.name)))
    earlier = [name for name in demos() if any(u.name in have for u in demo(name).users)]
    _mark(conn, earlier)
    return set(earlier)


def _mark(conn: sa.Connection, names: list[str]) -> None:
    marked = set(conn.scalars(sa.select(state.demo_users.c.demo)))
    rows = [{"demo": n, "added_at": datetime.now(UTC)} for n in names if n not in marked]
    if rows:
        conn.execute(state.demo_users.insert(), rows)


def is_installed(db: Database, name: str) -> bool:
    inspector = sa.inspect(db.engine)
    return all(inspector.has_table(t.name) for t in demo(name).tables)


def install(db: Database, name: str, *, replace: bool = False, state_db: Database | None = None) -> dict[str, int]:
    """Create the demo's tables and load their generated rows; returns row counts per table.

    The demo's users are added when its rows are loaded, not when the tables were there already:
    a demo user an administrator removed stays removed."""
    plugin = demo(name)
    ensure_state(state_db or db)
    tables = list(plugin.tables)
    if not tables:  # a demo of a web API only (home): its users are all there is to install, once
        seed_users(state_db or db, [plugin.name])
        return {}
    with db.write() as conn:
        if replace:
            plugin.metadata.drop_all(conn, tables=list(reversed(tables)))
        plugin.metadata.create_all(conn, tables=tables)
        declared = load_catalog(str(plugin.catalog)).spec.rollups
        if conn.scalar(sa.select(sa.func.count()).select_from(tables[0])):
            rollups.build_missing(conn, declared)
            return {t.name: conn.scalar(sa.select(sa.func.count()).select_from(t)) or 0 for t in tables}
        data = plugin.generate()
        for table in tables:
            if data.get(table.name):  # a table that starts empty (a demo's orders) gets no insert
                conn.execute(table.insert(), data[table.name])
        rollups.build_missing(conn, declared)
    add_users(state_db or db, plugin)
    return {t.name: len(data.get(t.name, [])) for t in tables}
