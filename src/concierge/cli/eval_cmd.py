"""`concierge eval FILE`: replay conversation cases and score them (docs/eval-format.md).

One line per case (with what differed when it fails), then the totals, the count of
ungrounded numbers, per-turn time p50/p95, and last `N passed, M failed`. The exit code
is 1 when any case fails.
"""

from __future__ import annotations

import json
import sys

import anyio
import click

from concierge import evaluation as evaluation
from concierge.cli.options import current_settings, json_option, provider_options


def register(main: click.Group) -> None:
    main.add_command(eval_command)


@click.command("eval")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@provider_options
@json_option
def eval_command(file: str, as_json: bool) -> None:
    """Run every case of FILE (JSON lines) on a fresh demo database and score each turn."""
    provider = current_settings().provider
    report = anyio.run(evaluation.run, file, provider.name, provider.model, provider.base_url)
    if as_json:
        click.echo(json.dumps(report.as_json(), ensure_ascii=False, indent=2))
    else:
        for line in report.lines():
            click.echo(line)
    sys.exit(1 if report.failed else 0)
