"""Options shared by several commands, the settings they override, and opening the pipeline from them.

A flag that overrides a setting (`--database`, `--catalog`, `--port` ...) is declared with
`setting_option`: its value is not passed to the command but recorded for `current_settings()`,
which reads the settings file and the environment beneath it (`concierge.settings`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from concierge import demo
from concierge.agent.providers import NAMES
from concierge.demo import bootstrap
from concierge.pipeline.pipeline import Pipeline
from concierge.plugins import demos
from concierge.settings import Settings, load_settings
from concierge.storage import users
from concierge.storage.database import Database
from concierge.storage.migrate import ensure_state
from concierge.storage.replicas import ReplicaConfig

_FLAGS = "concierge.flags"
_CONFIG = "concierge.config"


def setting_option(*decls: str, key: str, **kwargs: Any):
    """A flag for the settings key `key` (dotted: `web.port`); not given, the settings decide."""
    multiple = kwargs.get("multiple", False)

    def record(ctx: click.Context, _param: click.Parameter, value: Any) -> None:
        if value is None or multiple and not value:
            return
        ctx.meta.setdefault(_FLAGS, {})[key] = list(value) if multiple else value

    return click.option(*decls, key.replace(".", "_"), callback=record, expose_value=False,
                        default=None, **kwargs)


def remember_config_file(ctx: click.Context, _param: click.Parameter, value: Path | None) -> None:
    if value is not None:
        ctx.meta[_CONFIG] = value


def current_settings() -> Settings:
    """The settings of the running command: the settings file, the environment, then its flags."""
    ctx = click.get_current_context()
    return load_settings(ctx.meta.get(_FLAGS, {}), config=ctx.meta.get(_CONFIG))


catalog_option = setting_option(
    "--catalog", key="catalogs", multiple=True,
    help="farm, pos, or the path of a catalog YAML file (repeat for several). Default: the settings' "
    "catalogs (without a settings file: every demo).",
)
database_option = setting_option(
    "--database", key="database",
    help="SQLAlchemy URL (sqlite:///file.db, postgresql://...). Default: the settings' database; without "
    "one, the embedded SQLite file in your user data folder, created with the demo data on first use.",
)
state_database_option = setting_option(
    "--state-database", key="state_database",
    help="SQLAlchemy URL of concierge's own tables (users, audit, tokens, conversations). "
    "Default: the settings' state_database, else --database.",
)
today_option = setting_option(
    "--today", key="today", metavar="YYYY-MM-DD",
    help="The clock. Default: the settings' today, else a demo catalog's own clock (farm 2025-05-15, "
    "pos 2026-08-31), otherwise the real date.",
)
DEFAULT_USER = "admin"
user_option = click.option("--user", "user_name", default=None,
                           help="The user to act as. Default: admin, or the only user when there is just one "
                           "(the demos' users: admin, tanaka, suzuki, pos_analyst).")
json_option = click.option("--json", "as_json", is_flag=True, help="Print the result object as JSON.")


def data_options(fn):
    """--catalog, --database, --state-database and --today: what a command works on."""
    for option in reversed([catalog_option, database_option, state_database_option, today_option]):
        fn = option(fn)
    return fn


def state_options(fn):
    """--database and --state-database: where concierge's own tables are."""
    for option in reversed([database_option, state_database_option]):
        fn = option(fn)
    return fn


def provider_options(fn):
    """--provider, --model and --base-url: who chooses the tools (ask, chat, serve, eval)."""
    for option in reversed([
        setting_option("--provider", key="provider.name", type=click.Choice(NAMES),
                       help="Who chooses the tools: the offline planner (no network) or an LLM provider. "
                       "Default: the settings' provider.name, else offline."),
        setting_option("--model", key="provider.model", help="The provider's model name."),
        setting_option("--base-url", key="provider.base_url",
                       help="The provider's API address: a proxy, or a local OpenAI-compatible server such as "
                       "http://127.0.0.1:11434/v1 (with --provider openai-chat)."),
    ]):
        fn = option(fn)
    return fn


def acting_user(state_db: Database, given: str | None) -> str:
    """The user a terminal command acts as: the one given, else admin, else the only user there is."""
    if given:
        return given
    names = [u.name for u in users.all_users(state_db)]
    if DEFAULT_USER in names or len(names) != 1:
        return DEFAULT_USER  # an unknown admin is reported with the users there are
    return names[0]


def open_pipeline(settings: Settings) -> Pipeline:
    """The catalogs of the settings on their database (and state database), with their clock."""
    return bootstrap.open_pipeline(list(settings.catalogs), settings.database,
                                   state_database=settings.state_database, today=settings.today,
                                   replicas=ReplicaConfig(settings.replica_database, settings.replica_max_lag_s))


@contextmanager
def open_state(settings: Settings) -> Iterator[Database]:
    """concierge's own tables (users, audit, tokens), ready, with the users of the settings' demo catalogs."""
    db = Database(settings.state_url)
    try:
        prepare_state(db, tuple(settings.catalogs))
        yield db
    finally:
        db.dispose()


def prepare_state(db: Database, catalogs: tuple[str, ...] | None = None) -> None:
    """concierge's own tables, and the users of the demo catalogs among `catalogs` (default: every demo)."""
    ensure_state(db)
    refs = catalogs if catalogs is not None else tuple(demos())
    demo.seed_users(db, [ref for ref in refs if ref in demos()])
