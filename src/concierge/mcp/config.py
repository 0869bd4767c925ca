"""How a host starts this installation's MCP server.

Hosts start servers from another working directory and with another
environment, so everything is written out absolute: the `concierge` command
of this installation, catalog files, and the database URL.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from concierge.catalog.loader import resolve_path
from concierge.plugins import demos
from concierge.storage.database import ENV_DATABASE, default_url, normalise_url

INSPECTOR = "@modelcontextprotocol/inspector"
TOKEN_VARIABLE = "CONCIERGE_TOKEN"


def server_command() -> list[str]:
    """This installation's `concierge` command (the console script beside this Python)."""
    script = Path(sys.executable).with_name("concierge.exe" if os.name == "nt" else "concierge")
    if script.exists():
        return [str(script.absolute())]
    return [sys.executable, "-c", "from concierge.cli import main; main()"]


def server_args(catalogs: Sequence[str], user: str, today: date | None = None) -> list[str]:
    args = ["mcp"]
    for ref in catalogs:
        args += ["--catalog", ref if ref in demos() else str(resolve_path(ref).absolute())]
    args += ["--user", user]
    if today:
        args += ["--today", today.isoformat()]
    return args


def absolute_database(url: str | None) -> str:
    url = normalise_url(url or default_url())
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        return parsed.set(database=str(Path(parsed.database).absolute())).render_as_string(hide_password=False)
    return url


def claude_desktop(catalogs: Sequence[str], database: str | None, user: str, today: date | None = None) -> dict:
    """The `mcpServers` block of claude_desktop_config.json (Claude Desktop starts servers over stdio)."""
    command = server_command()
    entry: dict[str, Any] = {
        "command": command[0],
        "args": command[1:] + server_args(catalogs, user, today),
        "env": {ENV_DATABASE: absolute_database(database)},
    }
    return {"mcpServers": {"concierge": entry}}


def inspector_stdio(catalogs: Sequence[str], database: str | None, user: str, today: date | None = None) -> str:
    command = server_command() + server_args(catalogs, user, today)
    env = f"{ENV_DATABASE}={absolute_database(database)}"
    return shlex.join(["npx", "-y", INSPECTOR, "-e", env, "--", *command])


def inspector_http(url: str) -> str:
    """The Inspector against a running HTTP server; the token is read from $CONCIERGE_TOKEN."""
    line = shlex.join(["npx", "-y", INSPECTOR, "--transport", "http", "--server-url", url])
    return f'{line} --header "Authorization: Bearer ${TOKEN_VARIABLE}"'
