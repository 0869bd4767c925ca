"""`concierge mcp`: the catalogs served to MCP hosts; `concierge mcp config`; `concierge token create`.

The MCP SDK is imported only when a server runs, so that every other command
starts fast and works without the `mcp` extra.
"""

from __future__ import annotations

import json
from datetime import date

import click

from concierge.cli.options import catalog_option, database_option, open_pipeline, today_option
from concierge.errors import ConfigError

DEFAULT_USER = "admin"
mcp_user_option = click.option(
    "--user", "user_name", default=DEFAULT_USER,
    help="The user of every call over stdio (and over HTTP with --no-auth). "
    "Default: admin, the demo administrator, who may call every tool.",
)
transport_option = click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio",
                                show_default=True)
host_option = click.option("--host", default="127.0.0.1", show_default=True, help="HTTP: the address to listen on.")
port_option = click.option("--port", default=8765, show_default=True, type=click.IntRange(1, 65535),
                           help="HTTP: the port to listen on.")


def register(main: click.Group) -> None:
    main.add_command(mcp)
    main.add_command(token)


@click.group(invoke_without_command=True)
@catalog_option
@database_option
@transport_option
@host_option
@port_option
@click.option("--allowed-host", "allowed_hosts", multiple=True,
              help="HTTP: a host name clients use to reach this server besides the listening address "
              "(repeat for several); DNS-rebinding protection refuses any other Host header.")
@mcp_user_option
@click.option("--no-auth", is_flag=True,
              help="HTTP on a loopback address only: take no tokens, every call acts as --user.")
@today_option
@click.pass_context
def mcp(ctx: click.Context, catalogs: tuple[str, ...], database: str | None, transport: str, host: str, port: int,
        allowed_hosts: tuple[str, ...], user_name: str, no_auth: bool, today: date | None) -> None:
    """Serve the catalogs' tools to MCP hosts (Claude Desktop, the MCP Inspector, any MCP client).

    \b
    stdio (default): one host starts this command; every call acts as --user.
    http: streamable HTTP at http://HOST:PORT/mcp for many users; each request
          needs 'Authorization: Bearer TOKEN' (concierge token create --user NAME)
          and the token's user is the user of every call.

    Every call goes through the same pipeline as `concierge invoke`: guard,
    permissions, SQL, audit. Over stdio only protocol is written to stdout;
    logs go to stderr.
    """
    if ctx.invoked_subcommand is not None:
        return
    if no_auth and transport != "http":
        raise click.UsageError("--no-auth applies to --transport http")
    import anyio

    try:
        from concierge.mcp import http as mcp_http
        from concierge.mcp import stdio as mcp_stdio
        from concierge.mcp.server import build_server
    except ImportError as err:
        raise ConfigError(f"the MCP server needs the mcp extra ({err.name} is missing): "
                          "pip install 'concierge[mcp]'") from None
    pipeline = open_pipeline(catalogs, database, today)
    try:
        user = pipeline.user(user_name)
        if transport == "stdio":
            anyio.run(mcp_stdio.serve, build_server(pipeline, user=user))
            return
        app = mcp_http.build_http(pipeline, host=host, allowed_hosts=allowed_hosts,
                                      anonymous_user=user if no_auth else None)
        who = f"every call as {user.name}, no tokens" if no_auth else "bearer tokens required"
        click.echo(f"concierge MCP server on http://{_url_host(host)}:{port}/mcp ({who})", err=True)
        anyio.run(mcp_http.serve, app, host, port)
    except KeyboardInterrupt:
        pass
    finally:
        pipeline.close()


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


@mcp.command("config")
@click.option("--client", type=click.Choice(["claude-desktop", "inspector"]), required=True,
              help="claude-desktop: the mcpServers JSON block; inspector: the MCP Inspector command line.")
@catalog_option
@database_option
@mcp_user_option
@today_option
@transport_option
@host_option
@port_option
def config(client: str, catalogs: tuple[str, ...], database: str | None, user_name: str, today: date | None,
           transport: str, host: str, port: int) -> None:
    """Print what an MCP host needs to start this installation's server (absolute paths, database)."""
    from concierge.mcp import config as host_config

    if client == "claude-desktop":
        if transport != "stdio":
            raise click.UsageError("Claude Desktop starts its servers over stdio; drop --transport http")
        click.echo(json.dumps(host_config.claude_desktop(catalogs, database, user_name, today),
                              ensure_ascii=False, indent=2))
    elif transport == "stdio":
        click.echo(host_config.inspector_stdio(catalogs, database, user_name, today))
    else:
        click.echo(host_config.inspector_http(f"http://{_url_host(host)}:{port}/mcp"))
        click.echo(f"# needs the server running (concierge mcp --transport http --port {port}) and a token in "
                   f"${host_config.TOKEN_VARIABLE} (concierge token create --user NAME)", err=True)


@click.group()
def token() -> None:
    """Bearer tokens for the HTTP MCP server."""


@token.command("create")
@click.option("--user", "user_name", required=True, help="The user the token stands for.")
@click.option("--label", default=None, help="A note on what the token is for.")
@database_option
def token_create(user_name: str, label: str | None, database: str | None) -> None:
    """Create a token for --user and print it. Only its hash is stored: it cannot be shown again."""
    from concierge.cli.options import prepare_state
    from concierge.storage import tokens
    from concierge.storage.database import Database

    db = Database(database)
    try:
        prepare_state(db)
        click.echo(tokens.create(db, user_name, label=label))
    finally:
        db.dispose()
