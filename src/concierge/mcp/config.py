"""How a host starts this installation's MCP server.

Hosts start servers from another working directory and with another
environment, so everything is written out absolute: the `concierge` command
of this installation, its settings file, catalog files, and the database URLs.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from concierge.catalog.loader import resolve_path
from concierge.plugins import demos
from concierge.settings import Settings, env_variable
from concierge.storage.database import ENV_DATABASE, default_url, normalise_url

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"  # 2.x: Node.js >= 22.19; on an older Node, npx would pick 0.15
TOKEN_VARIABLE = "CONCIERGE_TOKEN"


def server_command() -> list[str]:
    """This installation's `concierge` command (the console script beside this Python)."""
    script = Path(sys.executable).with_name("concierge.exe" if os.name == "nt" else "concierge")
    if script.exists():
        return [str(script.absolute())]
    return [sys.executable, "-c", "from concierge.cli import main; main()"]


def server_args(settings: Settings, user: str) -> list[str]:
    args = ["--config", str(settings.file), "mcp"] if settings.file else ["mcp"]
    if settings.mcp.transport != "stdio":  # a host starts its server over stdio, whatever the settings serve
        args += ["--transport", "stdio"]
    for ref in settings.catalogs:
        args += ["--catalog", ref if ref in demos() else str(resolve_path(ref).absolute())]
    args += ["--user", user]
    if settings.today:
        args += ["--today", settings.today.isoformat()]
    return args


def server_env(settings: Settings) -> dict[str, str]:
    env = {ENV_DATABASE: absolute_database(settings.database)}
    if settings.state_database:
        env[env_variable("state_database")] = absolute_database(settings.state_database)
    return env


def absolute_database(url: str | None) -> str:
    url = normalise_url(url or default_url())
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        return parsed.set(database=str(Path(parsed.database).absolute())).render_as_string(hide_password=False)
    return url


def claude_desktop(settings: Settings, user: str) -> dict:
    """The `mcpServers` block of claude_desktop_config.json (Claude Desktop starts servers over stdio)."""
    command = server_command()
    entry: dict[str, Any] = {
        "command": command[0],
        "args": command[1:] + server_args(settings, user),
        "env": server_env(settings),
    }
    return {"mcpServers": {"concierge": entry}}


def inspector_stdio(settings: Settings, user: str) -> str:
    command = server_command() + server_args(settings, user)
    env = [arg for name, value in server_env(settings).items() for arg in ("-e", f"{name}={value}")]
    return shlex.join(["npx", "-y", INSPECTOR, *env, "--", *command])


def inspector_http(url: str) -> str:
    """The Inspector against a running HTTP server; the token is read from $CONCIERGE_TOKEN."""
    line = shlex.join(["npx", "-y", INSPECTOR, "--transport", "http", "--server-url", url])
    return f'{line} --header "Authorization: Bearer ${TOKEN_VARIABLE}"'
