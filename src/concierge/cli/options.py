"""Options shared by several commands, and opening the pipeline from them."""

from __future__ import annotations

from datetime import date

import click

from concierge import demo
from concierge.agent.providers import NAMES
from concierge.pipeline.pipeline import Pipeline
from concierge.plugins import demos
from concierge.storage.database import Database
from concierge.storage.state import create_state


def _parse_date(_ctx, _param, value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a date YYYY-MM-DD") from None


catalog_option = click.option(
    "--catalog", "catalogs", multiple=True, default=("farm",), show_default=True,
    help="farm, pos, or the path of a catalog YAML file (repeat for several).",
)
database_option = click.option(
    "--database", default=None, envvar="CONCIERGE_DATABASE",
    help="SQLAlchemy URL (sqlite:///file.db, postgresql://...). Default: the embedded SQLite file "
    "in your user data folder, created with the demo data on first use.",
)
today_option = click.option(
    "--today", default=None, callback=_parse_date, envvar="CONCIERGE_TODAY",
    help="The clock, YYYY-MM-DD. Default: a demo catalog's own clock (farm 2025-05-15, pos 2026-08-31), "
    "otherwise the real date.",
)
user_option = click.option("--user", "user_name", default="admin", show_default=True,
                           help="The demo user to act as (admin, tanaka, suzuki, pos_analyst).")
json_option = click.option("--json", "as_json", is_flag=True, help="Print the result object as JSON.")


def provider_options(fn):
    """--provider, --model and --base-url: who chooses the tools (ask, chat, serve, eval)."""
    for option in reversed([
        click.option("--provider", type=click.Choice(NAMES), default="offline", show_default=True,
                     envvar="CONCIERGE_PROVIDER",
                     help="Who chooses the tools: the offline planner (no network) or an LLM provider."),
        click.option("--model", default=None, envvar="CONCIERGE_MODEL", help="The provider's model name."),
        click.option("--base-url", default=None,
                     help="The provider's API address: a proxy, or a local OpenAI-compatible server such as "
                     "http://127.0.0.1:11434/v1 (with --provider openai-chat)."),
    ]):
        fn = option(fn)
    return fn


def open_pipeline(catalogs: tuple[str, ...], database: str | None, today: date | None) -> Pipeline:
    return Pipeline.open(list(catalogs), database, today=today)


def prepare_state(db: Database, catalogs: tuple[str, ...] | None = None) -> None:
    """concierge's own tables, and the users of the demo catalogs among `catalogs` (default: every demo)."""
    create_state(db)
    refs = catalogs if catalogs is not None else tuple(demos())
    for name in (ref for ref in refs if ref in demos()):
        demo.add_users(db, demos()[name])
