"""`concierge mcp`: the catalogs served to MCP hosts; `concierge mcp config` (tokens: `cli.token_cmd`).

The MCP SDK is imported only when a server runs, so that every other command
starts fast and works without the `mcp` extra.
"""

from __future__ import annotations

import json

import click

from concierge.cli.options import (
    acting_user,
    current_settings,
    data_options,
    open_pipeline,
    open_state,
    setting_option,
)
from concierge.errors import ConfigError
from concierge.settings import Settings

mcp_user_option = setting_option(
    "--user", key="mcp.user",
    help="The user of every call over stdio (and over HTTP with --no-auth). "
    "Default: the settings' mcp.user, else admin (the demo administrator, who may call every tool), "
    "or the only user when there is just one.",
)
transport_option = setting_option("--transport", key="mcp.transport", type=click.Choice(["stdio", "http"]),
                                  help="Default: the settings' mcp.transport, else stdio.")
host_option = setting_option("--host", key="mcp.host",
                             help="HTTP: the address to listen on. Default: the settings' mcp.host, else 127.0.0.1.")
port_option = setting_option("--port", key="mcp.port", type=click.IntRange(1, 65535),
                             help="HTTP: the port to listen on. Default: the settings' mcp.port, else 8765.")


def register(main: click.Group) -> None:
    main.add_command(mcp)


@click.group(invoke_without_command=True)
@data_options
@transport_option
@host_option
@port_option
@setting_option("--allowed-host", key="mcp.allowed_hosts", multiple=True,
                help="HTTP: a host name clients use to reach this server besides the listening address "
                "(repeat for several); DNS-rebinding protection refuses any other Host header.")
@mcp_user_option
@click.option("--no-auth", is_flag=True,
              help="HTTP on a loopback address only: take no tokens, every call acts as --user.")
@click.pass_context
def mcp(ctx: click.Context, no_auth: bool) -> None:
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
    settings = current_settings()
    transport, host, port = settings.mcp.transport, settings.mcp.host, settings.mcp.port
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
    pipeline = open_pipeline(settings)
    try:
        user = pipeline.user(_mcp_user(settings, pipeline.state))
        if transport == "stdio":
            anyio.run(mcp_stdio.serve, build_server(pipeline, user=user))
            return
        app = mcp_http.build_http(pipeline, host=host, allowed_hosts=settings.mcp.allowed_hosts,
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
@data_options
@mcp_user_option
@transport_option
@host_option
@port_option
def config(client: str) -> None:
    """Print what an MCP host needs to start this installation's server (absolute paths, settings file)."""
    from concierge.mcp import config as host_config

    settings = current_settings()
    transport, host, port = settings.mcp.transport, settings.mcp.host, settings.mcp.port
    if client == "claude-desktop":
        if transport != "stdio" and settings.sources["mcp.transport"] == "flag":
            raise click.UsageError("Claude Desktop starts its servers over stdio; drop --transport http")
        click.echo(json.dumps(host_config.claude_desktop(settings, _host_user(settings)), ensure_ascii=False,
                              indent=2))
    elif transport == "stdio":
        click.echo(host_config.inspector_stdio(settings, _host_user(settings)))
    else:
        click.echo(host_config.inspector_http(f"http://{_url_host(host)}:{port}/mcp"))
        click.echo(f"# needs the server running (concierge mcp --transport http --port {port}) and a token in "
                   f"${host_config.TOKEN_VARIABLE} (concierge token create --user NAME)", err=True)


def _mcp_user(settings: Settings, state_db) -> str:
    """mcp.user; when no source named one: admin, or the only user there is."""
    return acting_user(state_db, None if settings.sources["mcp.user"] == "default" else settings.mcp.user)


def _host_user(settings: Settings) -> str:
    """The user the server a host starts acts as; a warning now when that user does not exist."""
    from concierge.errors import ConciergeError, UnknownUser
    from concierge.storage import users

    name = settings.mcp.user
    try:
        with open_state(settings) as db:
            name = _mcp_user(settings, db)
            users.get(db, name)
    except UnknownUser as err:
        click.echo(f"warning: the server acts as {name!r}, who does not exist yet: add them "
                   f"(concierge user add {name} --role ROLE --no-password) or pass --user NAME; "
                   f"{'users: ' + ', '.join(err.known) if err.known else 'there are no users yet'}", err=True)
    except ConciergeError:
        pass  # the server says what is wrong with the database when it starts
    return name

