"""`concierge user ...`: who may use concierge, with which role, and their sign-in passwords.

A role must be declared by one of the catalogs in use (the settings' catalogs, or --catalog);
a role without `all_rows` sees only the rows the catalog's SQL scopes to the user's name (`:_user`).
"""

from __future__ import annotations

import json
import sys

import click

from concierge.catalog.loader import load_catalogs
from concierge.cli.options import catalog_option, current_settings, json_option, open_state, state_options
from concierge.cli.render import table
from concierge.errors import ConfigError
from concierge.settings import Settings
from concierge.storage import passwords, sessions, users


def register(main: click.Group) -> None:
    main.add_command(user)


@click.group()
def user() -> None:
    """Users, their roles and their sign-in passwords."""


def declared_roles(settings: Settings) -> dict[str, list[str]]:
    """Each role the catalogs in use declare, with the catalogs that declare it."""
    roles: dict[str, list[str]] = {}
    for catalog in load_catalogs(settings.catalogs):
        for role in catalog.spec.roles:
            roles.setdefault(role, []).append(catalog.name)
    return roles


def _check_role(settings: Settings, role: str) -> None:
    roles = declared_roles(settings)
    if role not in roles:
        catalogs = ", ".join(dict.fromkeys(c for names in roles.values() for c in names)) or "none"
        raise ConfigError(f"no role {role!r} in the catalogs in use ({catalogs}); declared roles: "
                          f"{', '.join(sorted(roles)) or 'none'}")


def _read_password(password_stdin: bool) -> str:
    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = click.prompt("New password", hide_input=True, confirmation_prompt=True)
    if len(password) < passwords.MIN_LENGTH:
        raise ConfigError(f"the password is too short: at least {passwords.MIN_LENGTH} characters")
    return password


@user.command("add")
@click.argument("name")
@click.option("--role", required=True, help="One of the roles the catalogs in use declare.")
@click.option("--display-name", default=None, help="The name shown on the chat page. Default: NAME.")
@click.option("--password-stdin", is_flag=True, help="Read the password from the first line of stdin.")
@click.option("--no-password", is_flag=True,
              help="Add the user without a password: they cannot sign in to the web page with one (MCP over "
              "stdio, `--user NAME`, a token, or the chat embedded in the business's web app: docs/embed.md); "
              "`user set-password` gives one later.")
@catalog_option
@state_options
def add(name: str, role: str, display_name: str | None, password_stdin: bool, no_password: bool) -> None:
    """Add user NAME with ROLE; asks for a sign-in password (twice) unless --password-stdin or --no-password."""
    if password_stdin and no_password:
        raise click.UsageError("--password-stdin and --no-password exclude each other")
    settings = current_settings()
    _check_role(settings, role)
    password = None if no_password else _read_password(password_stdin)
    with open_state(settings) as db:
        record = users.add(db, name, role, display_name)
        if password is not None:
            passwords.set_password(db, name, password)
    how = "can sign in" if password is not None else \
        "no password: cannot sign in to the web page (the embedded chat needs none: docs/embed.md)"
    click.echo(f"added {record.name} ({record.display_name}), role {record.role}; {how}")


@user.command("remove")
@click.argument("name")
@catalog_option
@state_options
def remove(name: str) -> None:
    """Remove user NAME, their API tokens and their web sessions."""
    settings = current_settings()
    with open_state(settings) as db:
        users.remove(db, name)
    click.echo(f"removed {name}, their API tokens and their web sessions")


@user.command("set-role")
@click.argument("name")
@click.argument("role")
@catalog_option
@state_options
def set_role(name: str, role: str) -> None:
    """Give user NAME the role ROLE (one the catalogs in use declare)."""
    settings = current_settings()
    _check_role(settings, role)
    with open_state(settings) as db:
        users.set_role(db, name, role)
    click.echo(f"{name} now has the role {role}")


@user.command("set-password")
@click.argument("name")
@click.option("--password-stdin", is_flag=True, help="Read the password from the first line of stdin.")
@catalog_option
@state_options
def set_password(name: str, password_stdin: bool) -> None:
    """Set the web sign-in password of user NAME (asked twice at a prompt unless --password-stdin)."""
    password = _read_password(password_stdin)
    with open_state(current_settings()) as db:
        passwords.set_password(db, name, password)
    click.echo(f"password set for {name}; their earlier sign-ins are signed out")


@user.command("sign-out")
@click.argument("name")
@catalog_option
@state_options
def sign_out(name: str) -> None:
    """End every web session and OAuth grant of user NAME now, in every process (API tokens: `token revoke`)."""
    with open_state(current_settings()) as db:
        users.get(db, name)  # an unknown name says which users there are
        ended = sessions.end_all(db, name)
    click.echo(f"signed {name} out: {ended} session{'s' if ended != 1 else ''} ended")


@user.command("list")
@catalog_option
@state_options
@json_option
def list_users(as_json: bool) -> None:
    """List the users: name, role, display name, and whether they can sign in."""
    settings = current_settings()
    with open_state(settings) as db:
        records = users.all_users(db)
    roles = declared_roles(settings)
    shown = [{"name": r.name, "role": r.role, "display_name": r.display_name,
              "password": "set" if r.can_sign_in else "none", "role_declared": r.role in roles} for r in records]
    if as_json:
        click.echo(json.dumps(shown, ensure_ascii=False, indent=2))
        return
    click.echo(table(["name", "role", "display_name", "password"], shown))
    stale = [r for r in shown if not r["role_declared"]]
    if stale:
        click.echo("note: no catalog in use declares the role of " + ", ".join(f"{r['name']} ({r['role']})"
                   for r in stale) + "; they can call no tool (`concierge user set-role NAME ROLE`)", err=True)
