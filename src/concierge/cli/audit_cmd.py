"""`concierge audit`: the latest calls, allowed or refused; `concierge audit reconcile`: the writes whose
outcome a stopped process never recorded."""

from __future__ import annotations

import json

import click

from concierge.cli.options import current_settings, json_option, open_state, state_options
from concierge.cli.render import table
from concierge.pipeline import audit as audit_log


def register(main: click.Group) -> None:
    main.add_command(audit)


@click.group(invoke_without_command=True)
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 10_000))
@state_options
@json_option
@click.pass_context
def audit(ctx: click.Context, limit: int, as_json: bool) -> None:
    """Show the latest tool calls: time, user, tool, arguments, decision, result id, rows, ms."""
    if ctx.invoked_subcommand is not None:
        return
    with open_state(current_settings()) as db:
        entries = audit_log.latest(db, limit)
    if as_json:
        click.echo(json.dumps(entries, ensure_ascii=False, default=str, indent=2))
        return
    columns = ["at", "user_name", "tool", "decision", "result_id", "rows", "ms", "args"]
    for e in entries:
        e["at"] = str(e["at"])[:19]
    click.echo(table(columns, entries))


@audit.command()
@state_options
def reconcile() -> None:
    """Mark the writes whose process stopped before their outcome was recorded as `unknown`, and list them.

    Where concierge's state has a database of its own, a write's audit line is written before the write and
    settled after it; a line still pending minutes later belongs to a process that stopped in between. Such a
    write may or may not have been done: check the data before repeating it. `concierge serve` runs this at
    start."""
    with open_state(current_settings()) as db:
        found = audit_log.reconcile(db)
    click.echo(describe_unknown(found))


def describe_unknown(found: list[dict]) -> str:
    if not found:
        return "audit: no write is waiting for its outcome"
    lines = [f"audit: {len(found)} write(s) may or may not have been done (their process stopped before "
             "the outcome was recorded); check each in the data before repeating it:"]
    lines += [f"  {str(e['at'])[:19]}  {e['user_name']}  {e['tool']}  {e['args']}  (result {e['result_id']})"
              for e in found]
    return "\n".join(lines)
