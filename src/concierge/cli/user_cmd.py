"""`concierge user ...`: who may sign in to the web page."""

from __future__ import annotations

import sys

import click
import sqlalchemy as sa

from concierge.cli.options import database_option, prepare_state
from concierge.cli.render import table
from concierge.storage import passwords
from concierge.storage import state as schema
from concierge.storage.database import Database


def register(main: click.Group) -> None:
    main.add_command(user)


@click.group()
def user() -> None:
    """Users and their sign-in passwords."""


@user.command("set-password")
@click.argument("name")
@click.option("--password-stdin", is_flag=True, help="Read the password from the first line of stdin.")
@database_option
def set_password(name: str, password_stdin: bool, database: str | None) -> None:
    """Set the web sign-in password of user NAME (asked twice at a prompt unless --password-stdin)."""
    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = click.prompt("New password", hide_input=True, confirmation_prompt=True)
    db = Database(database)
    try:
        prepare_state(db)
        passwords.set_password(db, name, password)
    finally:
        db.dispose()
    click.echo(f"password set for {name}; their earlier sign-ins are signed out")


@user.command("list")
@database_option
def list_users(database: str | None) -> None:
    """List the users: name, role, display name, and whether they can sign in."""
    db = Database(database)
    try:
        prepare_state(db)
        with db.read() as conn:
            rows = conn.execute(sa.select(schema.users).order_by(schema.users.c.name)).mappings().all()
    finally:
        db.dispose()
    shown = [{"name": r["name"], "role": r["role"], "display_name": r["display_name"],
              "password": "set" if r["password_hash"] else "none"} for r in rows]
    click.echo(table(["name", "role", "display_name", "password"], shown))
