"""`concierge db ...`: set up a database with the demo data, import a POS export."""

from __future__ import annotations

from pathlib import Path

import click

from concierge import demo
from concierge.catalog.loader import load_catalog
from concierge.cli.options import catalog_option, current_settings, database_option, state_options
from concierge.demo.pos import csv_import as pos_import
from concierge.errors import ConfigError
from concierge.storage import passwords
from concierge.storage.database import Database
from concierge.storage.migrate import ensure_state


def register(main: click.Group) -> None:
    main.add_command(db)


@click.group()
def db() -> None:
    """Create and load databases."""


@db.command("init")
@catalog_option
@state_options
@click.option("--replace", is_flag=True, help="Drop the demo tables first and load them anew.")
def init(replace: bool) -> None:
    """Create the demo tables, their generated data and the demo users (SQLite or PostgreSQL)."""
    settings = current_settings()
    database_ = Database(settings.database)
    state_db = Database(settings.state_database) if settings.state_database else database_
    try:
        ensure_state(state_db)
        users: list[str] = []
        for ref in settings.catalogs:
            name = load_catalog(ref).spec.demo
            if name is None:
                raise ConfigError(f"catalog {ref} is not a demo catalog; its tables are your own")
            counts = demo.install(database_, name, replace=replace, state_db=state_db)
            loaded = ", ".join(f"{table}: {n} rows" for table, n in counts.items())
            click.echo(f"{name}: {loaded} in {database_}")
            users += [u.name for u in demo.demo(name).users]
        new = passwords.generate_passwords(state_db, list(dict.fromkeys(users)))
        if new:
            click.echo(passwords.describe(new))
    finally:
        database_.dispose()
        state_db.dispose()


@db.command("import-pos")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@database_option
def import_pos(file: Path) -> None:
    """Load a store's POS CSV export (UTF-8 with BOM; 日付,店舗,商品名,カテゴリ,単価,数量,売上金額)."""
    database_ = Database(current_settings().database)
    try:
        count = pos_import.load(database_, file)
        click.echo(f"loaded {count} rows from {file} into {database_}")
    finally:
        database_.dispose()


@db.command("upgrade")
@state_options
def upgrade() -> None:
    """Bring concierge's own tables (in the state database) to this version's revision; prints from -> to.

    An empty database gets the tables; one made by a release before versioning is taken over as it is.
    """
    from concierge.storage import migrate

    state_db = Database(current_settings().state_url)
    try:
        before, after = migrate.upgrade(state_db)
    finally:
        state_db.dispose()
    same = " (already current)" if before.current == after.current else ""
    click.echo(f"state tables in {migrate.display_url(state_db)}: {before.describe()} -> {after.describe()}{same}")


@db.command("downgrade")
@click.argument("revision")
@state_options
def downgrade(revision: str) -> None:
    """Take concierge's own tables back to REVISION (0001 at the lowest), to run an older concierge on them.

    What the later revisions added is dropped (see docs/deploy.md).
    """
    from concierge.storage import migrate

    state_db = Database(current_settings().state_url)
    try:
        before, after = migrate.downgrade(state_db, revision)
    finally:
        state_db.dispose()
    click.echo(f"state tables in {migrate.display_url(state_db)}: {before.describe()} -> {after.describe()}")
