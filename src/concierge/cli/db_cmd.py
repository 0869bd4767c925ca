"""`concierge db ...`: set up a database with the demo data, import a CSV file into a table, reload files."""

from __future__ import annotations

from pathlib import Path

import click

from concierge import demo
from concierge.catalog.loader import load_catalog
from concierge.cli.options import catalog_option, current_settings, database_option, state_options
from concierge.errors import ConfigError
from concierge.plugins import demos
from concierge.storage import file_import, passwords, rollups, table_import
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


@db.command("import")
@click.argument("table")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--replace", is_flag=True, help="Delete the table's rows first (in the same transaction).")
@database_option
def import_table(table: str, file: Path, replace: bool) -> None:
    """Load a CSV FILE into TABLE, all or nothing: its header names the columns; a bad cell is reported with its
    line and column. A demo's own export format is read by the demo (pos_sales: the POS export, re-importable)."""
    database_ = Database(current_settings().database)
    try:
        own = next((d.importers[table] for d in demos().values() if table in d.importers), None)
        count = (own(database_, file) if own is not None
                 else table_import.load(database_, table, file, replace=replace))
        click.echo(f"loaded {count} rows from {file} into {table} in {database_}")
    finally:
        database_.dispose()


@db.command("reload")
@database_option
def reload() -> None:
    """Read again the CSV, Excel and Parquet files `concierge init --file` loaded, all or nothing: a file with a
    bad line is reported with its line and column, and the data already loaded keeps answering."""
    import sqlalchemy as sa

    url = sa.make_url(current_settings().database)
    path = Path(url.database or "") if url.get_backend_name() == "sqlite" else None
    files = file_import.loaded_files(path) if path else []
    if path is None or not files:
        raise ConfigError(f"the database {url.render_as_string()} was not made from files by `concierge init "
                          "--file`; there is nothing to reload")
    for table in file_import.load(path, files):
        click.echo(f"reloaded {len(table.rows):,} rows from {table.file} into {table.name}")


@db.command("refresh")
@catalog_option
@database_option
@click.option("--check", is_flag=True, help="Compare each rollup with its table summed anew; rebuild nothing. "
              "Exit status 1 when one differs or is not current.")
def refresh(check: bool) -> None:
    """Build the summary tables (rollups) the catalogs declare, with the triggers that keep them current.

    Run it after adding or changing a rollup in a catalog, and after writes that bypass triggers
    (PostgreSQL's session_replication_role = replica, pg_restore --disable-triggers)."""
    settings = current_settings()
    declared = {(ref, name): r for ref in settings.catalogs for name, r in load_catalog(ref).spec.rollups.items()}
    if not declared:
        click.echo("the catalogs declare no rollups (docs/catalog.md, \"Rollups\"): nothing to build")
        return
    database_ = Database(settings.database)
    try:
        if check:
            raise SystemExit(_check_rollups(database_, declared))
        with database_.write() as conn:
            built = [rollups.build(conn, name, r) for (_ref, name), r in declared.items()]
        for b in built:
            click.echo(f"{b.name}: {b.groups:,} rows summing {b.source_rows:,} rows of {b.table} "
                       f"in {b.seconds:.2f} s ({database_})")
    finally:
        database_.dispose()


def _check_rollups(database_: Database, declared: dict) -> int:
    status = 0
    with database_.read() as conn:
        readable = rollups.current(conn, {name: r for (_ref, name), r in declared.items()})
        for (ref, name), rollup in declared.items():
            if name not in readable:
                click.echo(f"{name} ({ref}): not current (missing, built from another declaration, or a trigger is "
                           f"missing); tools read {rollup.table} instead. Run: concierge db refresh")
                status = 1
                continue
            wrong = rollups.differences(conn, name, rollup)
            click.echo(f"{name} ({ref}): " + ("matches " + rollup.table if not wrong else
                       f"{wrong} group(s) differ from {rollup.table}. Run: concierge db refresh"))
            status = status or (1 if wrong else 0)
    return status


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
