"""`concierge eval FILE` and `concierge eval --generate N`: replay conversation cases and score them
(docs/eval-format.md).

A case's domain is a demo, or a catalog of the settings folder (its data: the settings' database).
`--generate N` writes up to N cases from that database (`evaluation.questions`), then runs them;
`--out FILE` keeps them. One line per case (with what differed when it fails), the pass count per
kind, the totals, how many failures stated a wrong figure, the count of ungrounded numbers, per-turn
time p50/p95, and last `N passed, M failed`. The exit code is 1 when any case fails.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import anyio
import click

from concierge import evaluation as evaluation
from concierge.cli.options import current_settings, json_option, provider_options
from concierge.errors import ConfigError
from concierge.evaluation.questions import generate
from concierge.plugins import demos
from concierge.settings import Settings
from concierge.storage.database import Database


def register(main: click.Group) -> None:
    main.add_command(eval_command)


@click.command("eval")
@click.argument("file", type=click.Path(exists=True, dir_okay=False), required=False)
@click.option("--generate", "count", type=click.IntRange(min=1), default=None,
              help="Write up to N cases from the settings' database, then run them.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="With --generate: keep the cases in this file (JSON lines).")
@provider_options
@json_option
def eval_command(file: str | None, count: int | None, out: Path | None, as_json: bool) -> None:
    """Run every case of FILE (JSON lines), or of cases generated from your data, and score each turn."""
    if (file is None) == (count is None):
        raise click.UsageError("give a case FILE, or --generate N (not both)")
    if out is not None and count is None:
        raise click.UsageError("--out goes with --generate")
    settings = current_settings()
    with tempfile.TemporaryDirectory(prefix="concierge-cases-") as folder:
        path = Path(file) if file else _generated(settings, count or 0, out or Path(folder) / "cases.jsonl")
        provider = settings.provider
        report = anyio.run(lambda: evaluation.run(path, provider.name, provider.model, provider.base_url,
                                                  settings=settings))
    if as_json:
        click.echo(json.dumps(report.as_json(), ensure_ascii=False, indent=2))
    else:
        for line in report.lines():
            click.echo(line)
    sys.exit(1 if report.failed else 0)


def _generated(settings: Settings, count: int, path: Path) -> Path:
    """Up to `count` cases from the settings' database, written to `path`, for its first own catalog."""
    own = [ref for ref in settings.catalogs if ref not in demos()]
    if not own:
        raise ConfigError("--generate needs a settings folder with a catalog of your own database: run "
                          "`concierge init --database URL --dir DIR`, then `cd DIR`")
    from concierge.catalog.loader import load_catalog

    domain = load_catalog(own[0]).name
    db = Database(settings.database)
    try:
        cases = generate(db, domain, count)
    finally:
        db.dispose()
    path.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), encoding="utf-8")
    click.echo(f"Wrote {len(cases)} case(s) from {settings.database} to {path}.", err=True)
    return path
