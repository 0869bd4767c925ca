"""Demo businesses installed into a database a test made: the one way a test puts demo data in place.

Installing a demo (tables, generated rows, rollups, users) costs a few tenths of a second on SQLite and more on
PostgreSQL, and most tests want the same few sets. So each set is installed once per test process into a template
(a SQLite file in a temporary folder; a PostgreSQL database on the test's server), and an empty database a test
made gets a copy of it: the file copied, or the database made again from the template (CREATE DATABASE ...
TEMPLATE). A database that already holds something has the demos installed into it as ever. `drop_templates`
removes them (tests/conftest.py, at the end of each test process: xdist's workers end without running `atexit`).
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import uuid
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import URL, make_url

from concierge import demo
from concierge.storage.database import Database, normalise_url

_templates: dict[tuple[str, ...], str] = {}  # (server or "sqlite", *names) -> template file or database name
_servers: dict[str, URL] = {}  # server (its maintenance URL as text) -> its URL, for dropping its templates


def with_demos(url: str, *names: str) -> str:
    """Install the demos `names` (tables, data, rollups) into the database at `url`; returns `url`."""
    parsed = make_url(normalise_url(url))
    if names and parsed.get_backend_name() == "sqlite" and _empty_file(parsed.database):
        shutil.copyfile(_sqlite_template(names), str(parsed.database))
    elif names and parsed.get_backend_name() == "postgresql" and _empty_database(parsed):
        _copy_database(parsed, names)
    else:
        install(url, *names)
    return url


def install(url: str, *names: str) -> None:
    """The demos installed into the database at `url` by `concierge.demo.install`, without a template."""
    database = Database(url)
    try:
        for name in names:
            demo.install(database, name)
    finally:
        database.dispose()


# --- SQLite: a file copied ---------------------------------------------------------------------
def _empty_file(path: str | None) -> bool:
    return bool(path) and path != ":memory:" and (not Path(path).exists() or Path(path).stat().st_size == 0)


_folder: list[Path] = []


def _sqlite_template(names: tuple[str, ...]) -> str:
    key = ("sqlite", *names)
    if key not in _templates:
        if not _folder:
            _folder.append(Path(tempfile.mkdtemp(prefix="concierge-demo-templates-")))
        path = _folder[0] / f"{'-'.join(names)}.db"
        install(f"sqlite:///{path}", *names)  # WAL checkpointed and closed: the one file is the whole database
        _templates[key] = str(path)
    return _templates[key]


# --- PostgreSQL: the database made again from a template ------------------------------------------
def _maintenance(url: URL) -> sa.Engine:
    return sa.create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")


def _empty_database(url: URL) -> bool:
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            return not conn.scalar(sa.text(
                "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'"))
    finally:
        engine.dispose()


def _pg_template(url: URL, names: tuple[str, ...]) -> str:
    server = url.set(database="postgres").render_as_string(hide_password=False)
    key = (server, *names)
    if key not in _templates:
        _servers[server] = url
        name = f"concierge_template_{'_'.join(names)}_{uuid.uuid4().hex[:8]}"
        engine = _maintenance(url)
        try:
            with engine.connect() as conn:
                conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
        finally:
            engine.dispose()
        install(url.set(database=name).render_as_string(hide_password=False), *names)
        _templates[key] = name
    return _templates[key]


def _copy_database(url: URL, names: tuple[str, ...]) -> None:
    """The empty database at `url` dropped and made again from the template of `names`, under its own name."""
    template = _pg_template(url, names)
    engine = _maintenance(url)
    try:
        with engine.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE "{url.database}"'))
            conn.execute(sa.text(f'CREATE DATABASE "{url.database}" TEMPLATE "{template}"'))
    finally:
        engine.dispose()


def drop_templates() -> None:
    """The templates this process made, removed: the SQLite folder, and each PostgreSQL template database."""
    for key, template in list(_templates.items()):
        if key[0] != "sqlite":
            _drop(_servers[key[0]], template)
    _templates.clear()
    if _folder:
        shutil.rmtree(_folder.pop(), ignore_errors=True)


def _drop(url: URL, name: str) -> None:
    engine = _maintenance(url)
    # the server may be gone already (one the tests started and stopped): its databases with it
    with contextlib.suppress(sa.exc.SQLAlchemyError), engine.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    engine.dispose()
