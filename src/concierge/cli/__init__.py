"""The `concierge` command. Each group of subcommands lives in its own module."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import click

from concierge import collector
from concierge.cli.options import remember_config_file
from concierge.errors import ConciergeError
from concierge.settings import FILE_NAME


class _Group(click.Group):
    """Turns system errors into one clear line and exit code 2, never a traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except ConciergeError as err:
            click.echo(f"error: {err}", err=True)
            sys.exit(2)


@click.group(cls=_Group)
@click.version_option(package_name="concierge", prog_name="concierge", message="%(prog)s %(version)s")
@click.option("-v", "--verbose", is_flag=True, help="Log debug details to stderr.")
@click.option("--config", type=click.Path(dir_okay=False, path_type=Path), default=None, expose_value=False,
              callback=remember_config_file,
              help=f"The settings file. Default: $CONCIERGE_CONFIG, else {FILE_NAME} in the current folder "
              "or the nearest parent (docs/settings.md).")
def main(verbose: bool) -> None:
    """concierge: ask a business database in plain Japanese or English, through declared tools."""
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    collector.tune()


def _register() -> None:
    from concierge.cli import (
        ask_cmd,
        audit_cmd,
        catalog_cmd,
        config_cmd,
        db_cmd,
        devices,
        eval_cmd,
        init_cmd,
        mcp_cmd,
        serve_cmd,
        services_cmd,
        token_cmd,
        tools_cmd,
        user_cmd,
    )

    for module in (tools_cmd, db_cmd, audit_cmd, serve_cmd, user_cmd, ask_cmd, mcp_cmd, token_cmd, eval_cmd, config_cmd,
                   init_cmd, catalog_cmd, devices, services_cmd):
        module.register(main)


_register()
