"""`concierge catalog check`: the catalogs checked against the live database (concierge.onboarding.check)."""

from __future__ import annotations

import sys

import click

from concierge.cli.options import current_settings, database_option, today_option
from concierge.onboarding.check import REVIEW_HINT, check_catalogs
from concierge.storage.database import Database


def register(main: click.Group) -> None:
    main.add_command(catalog)


@click.group()
def catalog() -> None:
    """Catalog files: check them against the database."""


@catalog.command("check")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
@database_option
@today_option
def check(files: tuple[str, ...]) -> None:
    """Check catalogs against the live database; nothing is written to it.

    FILES are catalog files or demo names; none: the catalogs of the settings. Every statement must
    prepare, every enum and bounds query return values, parameter types fit the columns they are
    compared with, and each write tool run (rolled back) with sample values. Prints one line per
    problem (FILE: KEY: message), then the drafted texts still to review, then a summary; exits 1 when
    there is a problem (drafted texts to review and notes do not fail the check).
    """
    settings = current_settings()
    refs = list(files) or list(settings.catalogs)
    db = Database(settings.database)
    try:
        report = check_catalogs(refs, db, today=settings.today)
    finally:
        db.dispose()
    for finding in report.problems:
        click.echo(str(finding))
    for finding in report.notes:
        click.echo(f"{finding.file}: {finding.key}: note: {finding.message}")
    for finding in report.reviews:
        click.echo(f"{finding.file}: {finding.key}: {finding.message}")
    if report.reviews:
        click.echo(REVIEW_HINT)
    click.echo(report.summary())
    sys.exit(0 if report.ok else 1)
