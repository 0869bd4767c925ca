"""`concierge audit`: the latest calls, allowed or refused."""

from __future__ import annotations

import json

import click

from concierge.cli.options import current_settings, json_option, open_state, state_options
from concierge.cli.render import table
from concierge.pipeline import audit as audit_log


def register(main: click.Group) -> None:
    main.add_command(audit)


@click.command()
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 10_000))
@state_options
@json_option
def audit(limit: int, as_json: bool) -> None:
    """Show the latest tool calls: time, user, tool, arguments, decision, result id, rows, ms."""
    with open_state(current_settings()) as db:
        entries = audit_log.latest(db, limit)
    if as_json:
        click.echo(json.dumps(entries, ensure_ascii=False, default=str, indent=2))
        return
    columns = ["at", "user_name", "tool", "decision", "result_id", "rows", "ms", "args"]
    for e in entries:
        e["at"] = str(e["at"])[:19]
    click.echo(table(columns, entries))
