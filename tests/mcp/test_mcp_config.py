"""`concierge mcp config`: what a host needs to start this installation's server, and that it works."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from cli_runner import run_cli
from mcp import Client, StdioServerParameters

from concierge.catalog.loader import resolve_path
from concierge.demo.bootstrap import open_pipeline
from concierge.mcp.config import TOKEN_VARIABLE


def config(*args: str):
    return run_cli(*["mcp", "config", *args])


@pytest.mark.anyio
async def test_claude_desktop_block_starts_the_server_from_anywhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(resolve_path("farm"), tmp_path / "mine.yaml")
    open_pipeline(["farm"], "sqlite:///relative.db").close()
    printed = config("--client", "claude-desktop", "--catalog", "mine.yaml", "--database", "sqlite:///relative.db",
                     "--user", "suzuki")
    assert printed.exit_code == 0, printed.output
    entry = json.loads(printed.stdout)["mcpServers"]["concierge"]
    assert Path(entry["command"]).is_absolute() and Path(entry["command"]).exists()
    assert str(tmp_path / "mine.yaml") in entry["args"]
    assert entry["env"] == {"CONCIERGE_DATABASE": f"sqlite:///{tmp_path / 'relative.db'}"}

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    host = StdioServerParameters(command=entry["command"], args=entry["args"], cwd=elsewhere,
                                 env={"PATH": os.environ["PATH"], **entry["env"]})
    async with Client(host) as c:
        names = {t.name for t in (await c.list_tools()).tools}
    assert names == {"get_customers", "get_sales"}  # suzuki, a viewer: no writes


def test_inspector_line_for_http_reads_the_token_from_the_environment():
    printed = config("--client", "inspector", "--transport", "http", "--port", "9911")
    assert printed.exit_code == 0
    assert "--server-url http://127.0.0.1:9911/mcp" in printed.stdout
    assert f'"Authorization: Bearer ${TOKEN_VARIABLE}"' in printed.stdout
    assert "concierge token create" in printed.stderr


def test_claude_desktop_speaks_stdio_only():
    printed = config("--client", "claude-desktop", "--transport", "http")
    assert printed.exit_code == 2
    assert "stdio" in printed.output


def test_no_auth_is_refused_off_loopback():
    ran = run_cli(*["mcp", "--transport", "http", "--host", "0.0.0.0", "--no-auth"])
    assert ran.exit_code == 2
    assert "loopback" in ran.output
