"""`concierge tools list` and `concierge invoke`: the pipeline with no model."""

from __future__ import annotations

import json
import sys

import click

from concierge.catalog.loader import load_catalogs
from concierge.cli.options import (
    acting_user,
    catalog_option,
    current_settings,
    data_options,
    json_option,
    open_pipeline,
    user_option,
)
from concierge.cli.render import print_result


def register(main: click.Group) -> None:
    main.add_command(tools)
    main.add_command(invoke)


@click.group()
def tools() -> None:
    """The declared tools."""


@tools.command("list")
@catalog_option
@json_option
def tools_list(as_json: bool) -> None:
    """List the tools of the catalogs with their parameters and roles (no database needed)."""
    loaded = load_catalogs(current_settings().catalogs)
    if as_json:
        out = [t.model_dump(include={"name", "catalog", "description", "mode", "roles", "params"})
               for c in loaded for t in c.tools.values()]
        click.echo(json.dumps(out, ensure_ascii=False, indent=2))
        return
    for cat in loaded:
        click.echo(f"# {cat.name}: {cat.spec.description.en}")
        for tool in cat.tools.values():
            params = ", ".join(
                f"{n}{'' if p.required else '?'}: {p.type}" for n, p in tool.params.items()
            )
            click.echo(f"{tool.name}({params})  [{tool.mode}; roles: {', '.join(tool.roles)}]")
            click.echo(f"    {tool.description.en}")


@click.command()
@click.argument("tool")
@click.argument("args", default="{}")
@data_options
@user_option
@click.option("--yes", is_flag=True, help="Confirm a write in the same command.")
@json_option
def invoke(tool: str, args: str, user_name: str | None, yes: bool, as_json: bool) -> None:
    """Run one tool call through the whole pipeline (access, guard, SQL, audit), with no model.

    ARGS is a JSON object, e.g. '{"code_customer": "0009"}'. Exit code: 0 ok, 1 refused or error.
    """
    try:
        parsed = json.loads(args)
    except json.JSONDecodeError as err:
        raise click.BadParameter(f"ARGS is not valid JSON: {err}", param_hint="ARGS") from None
    pipeline = open_pipeline(current_settings())
    try:
        user = pipeline.user(acting_user(pipeline.state, user_name))
        result = pipeline.invoke(tool, parsed, user)
        if result.status == "confirm":
            if not as_json:
                print_result(result)
            if yes or (sys.stdin.isatty() and click.confirm("Write this?", default=False)):
                result = pipeline.invoke(tool, parsed, user, confirmation=result.confirmation_token)
            elif not as_json:
                click.echo("Cancelled: nothing was written.")
                return
        if as_json:
            click.echo(result.model_dump_json(indent=2))
        else:
            print_result(result)
        if result.is_error:
            sys.exit(1)
    finally:
        pipeline.close()
