"""`concierge db ...`: set up a database with the demo data, import a POS export."""

from __future__ import annotations

from pathlib import Path

import click

from concierge import demo
from concierge.catalog.loader import load_catalog
from concierge.cli.options import database_option
from concierge.demo.pos import csv_import as pos_import
from concierge.errors import ConfigError
from concierge.storage import passwords
from concierge.storage.database import Database
from concierge.storage.state import create_state


def register(main: click.Group) -> None:
    main.add_command(db)


@click.group()
def db() -> None:
    """Create and load databases."""


@db.command("init")
@click.option("--catalog", "catalogs", multiple=True, default=("farm", "pos"), show_default=True,
              help="Demo catalog(s) whose tables and data to create: farm, pos.")
@database_option
@click.option("--replace", is_flag=True, help="Drop the demo tables first and load them anew.")
def init(catalogs: tuple[str, ...], database: str | None, replace: bool) -> None:
    """Create the demo tables, their generated data and the demo users (SQLite or PostgreSQL)."""
    database_ = Database(database)
    try:
        create_state(database_)
        users: list[str] = []
        for ref in catalogs:
            name = load_catalog(ref).spec.demo
            if name is None:
                raise ConfigError(f"catalog {ref} is not a demo catalog; its tables are your own")
            counts = demo.install(database_, name, replace=replace)
            loaded = ", ".join(f"{table}: {n} rows" for table, n in counts.items())
            click.echo(f"{name}: {loaded} in {database_}")
            users += [u.name for u in demo.demo(name).users]
        new = passwords.generate_passwords(database_, list(dict.fromkeys(users)))
        if new:
            click.echo(passwords.describe(new))
    finally:
        database_.dispose()


@db.command("import-pos")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@database_option
def import_pos(file: Path, database: str | None) -> None:
    """Load a store's POS CSV export (UTF-8 with BOM; 日付,店舗,商品名,カテゴリ,単価,数量,売上金額)."""
    database_ = Database(database)
    try:
        create_state(database_)
        count = pos_import.load(database_, file)
        click.echo(f"loaded {count} rows from {file} into {database_}")
    finally:
        database_.dispose()
