"""`concierge token ...`: bearer tokens for the HTTP MCP server (create, list, revoke), and the OAuth grants of hosts.

A token is printed once, when it is made; only its hash is stored. `token list` shows each token's ID
(the first digits of that hash), whose it is, its label, when it was made, when it expires, when it was
last used (to the minute) and whether it still works; `token revoke ID` refuses it from the next request on,
in every server process. The grants people gave MCP hosts on the OAuth consent page (`concierge.storage.oauth`)
are listed and revoked the same way: their label is the host's name, and revoking one ends its access and refresh
tokens.
"""

from __future__ import annotations

import json
from datetime import datetime

import click

from concierge.cli.options import current_settings, json_option, open_state, state_options
from concierge.cli.render import table


def register(main: click.Group) -> None:
    main.add_command(token)


@click.group()
def token() -> None:
    """Bearer tokens for the HTTP MCP server (`concierge mcp --transport http`, /mcp of `concierge serve`)."""


@token.command("create")
@click.option("--user", "user_name", required=True, help="The user the token stands for.")
@click.option("--label", default=None, help="A note on what the token is for.")
@click.option("--expires-in", default=None, metavar="LIFETIME",
              help="Refuse the token after this long: 90m, 12h, 30d, 2w. Default: it does not expire.")
@state_options
def token_create(user_name: str, label: str | None, expires_in: str | None) -> None:
    """Create a token for --user and print it. Only its hash is stored: it cannot be shown again."""
    from concierge.storage import tokens

    lifetime = tokens.parse_duration(expires_in) if expires_in is not None else None
    with open_state(current_settings()) as db:
        click.echo(tokens.create(db, user_name, label=label, expires_in=lifetime))


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") + " UTC" if value is not None else ""


@token.command("list")
@click.option("--user", "user_name", default=None, help="Only the tokens of this user.")
@state_options
@json_option
def token_list(user_name: str | None, as_json: bool) -> None:
    """List the tokens: ID, user, label, created, expires, last used, state (never the tokens themselves)."""
    from concierge.storage import oauth, tokens

    with open_state(current_settings()) as db:
        found, grants = tokens.list_tokens(db, user_name), oauth.list_grants(db, user_name)
    shown = [{"id": t.id, "kind": "bearer", "user": t.user_name, "label": t.label or "",
              "created": _when(t.created_at), "expires": _when(t.expires_at) or "never",
              "last_used": _when(t.last_used_at) or "never", "state": t.state} for t in found]
    shown += [{"id": g.id, "kind": "oauth", "user": g.consent.user_name, "label": g.consent.client_name,
               "created": _when(g.created_at), "expires": "unused 30 days", "last_used": _when(g.last_used_at) or
               "never", "state": g.state} for g in grants]
    if as_json:
        click.echo(json.dumps(shown, ensure_ascii=False, indent=2))
        return
    if not shown:
        who = f" of {user_name}" if user_name else ""
        click.echo(f"no tokens{who}; `concierge token create --user NAME` makes one")
        return
    click.echo(table(["id", "kind", "user", "label", "created", "expires", "last_used", "state"], shown))


@token.command("revoke")
@click.argument("token_id", metavar="ID")
@state_options
def token_revoke(token_id: str) -> None:
    """Revoke the token or OAuth grant with this ID (`concierge token list` shows them): the next request gets 401."""
    from concierge.storage import oauth, tokens

    with open_state(current_settings()) as db:
        grants = oauth.find_grants(db, token_id.strip().lower()) if len(token_id.strip()) >= 6 else []
        if len(grants) == 1:
            ended = oauth.revoke_grant(db, grants[0].id)
            click.echo(f"revoked OAuth grant {ended.id} of {ended.consent.user_name} ({ended.consent.client_name})")
            return
        revoked = tokens.revoke(db, token_id)
    click.echo(f"revoked token {revoked.id} of {revoked.user_name}" + (f" ({revoked.label})" if revoked.label else ""))
