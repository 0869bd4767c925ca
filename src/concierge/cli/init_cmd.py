"""`concierge init`: point concierge at a company's own database.

Introspects the database (`onboarding.introspect`), drafts a catalog of read tools from what it
says (`onboarding.draft`), and writes DIR/concierge.toml and DIR/catalogs/NAME.yaml. A file a
person has edited since init wrote it is never overwritten: the new draft goes beside it.

`--file` instead of `--database`: CSV, Excel and Parquet files loaded into DIR/concierge-files.db (SQLite,
storage/file_import.py), then drafted the same way; `concierge db reload` re-reads them.
"""

from __future__ import annotations

import time
from pathlib import Path

import click
import sqlalchemy as sa

from concierge.errors import ConfigError
from concierge.onboarding.draft import Draft, draft_catalog, write_draft
from concierge.onboarding.introspect import Schema, introspect
from concierge.onboarding.naming import Noun, slug
from concierge.onboarding.rights import SUMMARY_MIN_ROWS
from concierge.storage import file_import
from concierge.storage.database import Database, normalise_url

INTROSPECT_TIMEOUT_S = 600.0  # reading a schema counts every table's rows: minutes on tables of 10^8 rows


def register(main: click.Group) -> None:
    main.add_command(init)


@click.command()
@click.option("--database", "url", default=None,
              help="The business database: sqlite:///path/shop.db, postgresql://user@host/shop, "
              "mysql://user@host/shop or duckdb:///path/shop.duckdb (read-only).")
@click.option("--file", "files", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Instead of --database: a CSV, Excel or Parquet file, loaded into DIR/concierge-files.db "
              "(repeat for more; re-read them with `concierge db reload`).")
@click.option("--dir", "folder", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="Where to write concierge.toml and catalogs/.")
@click.option("--name", default=None, help="The business's name (letters, digits, _). Default: the database's name.")
@click.option("--lang", type=click.Choice(["ja", "en"]), default="en", show_default=True,
              help="The language of answers by default (drafted texts are in both).")
def init(url: str | None, files: tuple[Path, ...], folder: Path, name: str | None, lang: str) -> None:
    """Draft a catalog of read tools from an existing database (or files), and the settings to use it."""
    started = time.perf_counter()
    if bool(url) == bool(files):
        raise ConfigError("init needs --database URL or --file PATH (one or more files), not both")
    if files:
        url, name = _load_files(folder, files), name or files[0].stem
    assert url is not None
    database_url = settings_url(url)
    db = Database(url, read_timeout_s=INTROSPECT_TIMEOUT_S)
    try:
        schema = introspect(db)
    finally:
        db.dispose()
    if not schema.tables:
        raise ConfigError(f"no tables or views found in {db}; check the database name in the URL "
                          "(PostgreSQL: the tables must be in the default schema, public)")
    name = slug(name or schema.database, "business")
    draft = draft_catalog(schema, name)
    catalog = write_draft(folder / "catalogs" / f"{name}.yaml", draft.text)
    settings = write_draft(folder / "concierge.toml", settings_text(name, lang, database_url, name))
    seconds = time.perf_counter() - started

    tables = [t for t in schema.tables if not t.is_view]
    views = len(schema.tables) - len(tables)
    summaries = sum(t.endswith("_summary") for t in draft.tools)
    click.echo(f"Found {len(tables)} table(s) and {views} view(s), {schema.row_count:,} rows "
               f"in the {schema.dialect} database {schema.database!r} ({seconds:.1f} s).")
    click.echo(f"Drafted {len(draft.tools)} read tools ({len(draft.tools) - summaries} lists, {summaries} summaries), "
               f"no write tool; {len(draft.review)} drafted texts to review.")
    for written in (settings, catalog):
        if written.action == "beside":
            click.echo(f"Kept {written.kept} as you edited it; the new draft is {written.path} (compare the two).")
        else:
            click.echo(f"Wrote {written.path} ({written.action}).")
    _say_rollups(schema, draft)
    if sa.make_url(normalise_url(url)).password:
        click.echo("The password is not written to concierge.toml: set PGPASSWORD (or CONCIERGE_DATABASE to the "
                   "full URL) where concierge runs.")
    click.echo("\nNext:")
    click.echo(f"  cd {folder}")
    if draft.rollups:
        click.echo("  concierge db refresh                     # build the summary tables of the large tables")
    click.echo("  concierge catalog check                  # every drafted tool against the live database")
    click.echo("  concierge user add NAME --role staff     # roles: admin, staff")
    click.echo(f'  concierge ask "{example_question(schema, lang)}"')
    click.echo("  concierge serve                          # web chat and /mcp")


def _say_rollups(schema: Schema, draft: Draft) -> None:
    """The summary tables drafted for the large tables, and the large tables that get none because this user may
    not make them."""
    for kept in draft.rollups:
        rows = schema.table(kept.table).row_count  # type: ignore[union-attr]
        click.echo(f"Drafted a summary table for {kept.table} ({rows:,} rows): {kept.name}, by "
                   f"{', '.join(kept.columns)}, at most {kept.rows:,} rows. Its summary and comparison tools read "
                   f"it once `concierge db refresh` has built it (triggers on {kept.table} keep it current); until "
                   f"then they read {kept.table} itself.")
    drafted = {k.table for k in draft.rollups}
    for table in schema.tables:
        if (schema.dialect in ("sqlite", "postgresql") and not table.is_view and table.row_count >= SUMMARY_MIN_ROWS
                and table.name not in schema.summarisable and table.name not in drafted):
            click.echo(f"{table.name} has {table.row_count:,} rows, and this database user may not create a "
                       f"table and triggers beside it, so its summaries read the whole table on every call. "
                       f"Run `concierge init` as the owner of {table.name} to draft a summary table kept current "
                       f"by triggers (docs/catalog.md, \"Rollups\").")


def _load_files(folder: Path, files: tuple[Path, ...]) -> str:
    """Each file into a table of DIR/concierge-files.db (SQLite, served like any database); the URL of it."""
    database = (folder / file_import.DATABASE_FILE).resolve()
    for table in file_import.load(database, files):
        click.echo(f"Loaded {len(table.rows):,} rows from {table.file.name} into the table {table.name} "
                   f"({', '.join(f'{c} {k.lower()}' for c, k in table.columns)}).")
    return f"sqlite:///{database}"


def settings_url(url: str) -> str:
    """The URL as concierge.toml keeps it: a SQLite path made absolute, a password left out."""
    parsed = sa.make_url(normalise_url(url))
    backend = parsed.get_backend_name()
    if backend in ("sqlite", "duckdb"):
        path = parsed.database
        kind, ext = ("SQLite", "db") if backend == "sqlite" else ("DuckDB", "duckdb")
        if not path or path == ":memory:":
            raise ConfigError(f"init needs a database file: {backend}:///path/shop.{ext}")
        file = Path(path).expanduser().resolve()
        if not file.is_file():
            raise ConfigError(f"no {kind} database at {file}; check the path ({backend}:///relative.{ext}, "
                              f"{backend}:////absolute/path.{ext})")
        return f"{backend}:///{file}"
    return parsed._replace(password=None).render_as_string(hide_password=False)


def settings_text(name: str, lang: str, database: str, catalog: str) -> str:
    return (
        "# concierge settings, drafted by `concierge init` (docs/onboarding.md).\n"
        f'name = "{name}"\n'
        f'lang = "{lang}"\n'
        f"database = {_toml_string(database)}\n"
        'state_database = "sqlite:///state.db"   # concierge\'s own tables, apart from the business data\n'
        f'catalogs = ["catalogs/{catalog}.yaml"]\n'
        '# today = "2025-05-15"                   # a fixed clock, for tests and demos\n'
        "\n[provider]\n"
        'name = "offline"\n'
    )


def _toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def example_question(schema: Schema, lang: str = "en") -> str:
    """A question the draft answers, about the table of the most rows, named by its noun (受注, not 受注マスタ)."""
    tables = [t for t in schema.tables if not t.is_view] or list(schema.tables)
    biggest = max(tables, key=lambda t: t.row_count)
    noun = Noun.of(biggest.name, biggest.comment)
    if lang == "ja" and noun.has_japanese:
        return f"{noun.ja}は何件ありますか？"
    return f"How many {noun.many} do we have?"
