"""`concierge config show`: the effective settings and where each came from, secrets masked."""

from __future__ import annotations

import json
import os
from typing import Any

import click

from concierge.cli.options import current_settings, data_options, provider_options
from concierge.cli.render import table
from concierge.settings import API_KEY_VARIABLES, Settings, keys, mask_url, public_part


def register(main: click.Group) -> None:
    main.add_command(config)


@click.group()
def config() -> None:
    """The settings: concierge.toml, then CONCIERGE_* environment variables, then flags (docs/settings.md)."""


@config.command("show")
@data_options
@provider_options
@click.option("--json", "as_json", is_flag=True, help="Print the settings, their sources and the API keys as JSON.")
def show(as_json: bool) -> None:
    """Print every setting, its value and its source (file, env, flag or default); passwords and keys masked."""
    settings = current_settings()
    values = shown_values(settings)
    api_keys = {name: "set" if os.environ.get(name) else "unset" for name in API_KEY_VARIABLES}
    if as_json:
        click.echo(json.dumps({"file": str(settings.file) if settings.file else None, "settings": values,
                               "sources": {k: settings.sources[k] for k in keys()}, "api_keys": api_keys},
                              ensure_ascii=False, indent=2))
        return
    click.echo(f"settings file: {settings.sources['file']}")
    rows = [{"key": k, "value": _text(values[k]), "source": settings.sources[k]} for k in keys()]
    if settings.state_database is None:
        next(r for r in rows if r["key"] == "state_database")["value"] = "(the database)"
    rows += [{"key": name, "value": state, "source": "env (API keys are read only from the environment)"}
             for name, state in api_keys.items()]
    click.echo(table(["key", "value", "source"], rows))


def shown_values(settings: Settings) -> dict[str, Any]:
    """Every key's value, as JSON values, with the passwords of database URLs masked."""
    data = settings.model_dump(mode="json", exclude={"file", "sources"})
    out = {}
    for key in keys():
        head, _, tail = key.partition(".")
        value = data[head][tail] if tail else data[key]
        if key in ("database", "state_database"):
            value = mask_url(value)
        elif key == "replica_database":
            value = [mask_url(url) for url in value]
        elif key == "embed.jwks_url" and value:
            value = public_part(value)
        out[key] = value
    return out


def _text(value: Any) -> str:
    if value is None or value == "":
        return "(none)"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "(none)"
    return str(value)
