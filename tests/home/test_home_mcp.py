"""The home tools over MCP through clients no one here wrote: the Inspector CLI (stdio) and the
TypeScript SDK client (streamable HTTP), against the SwitchBot SIMULATOR."""

from __future__ import annotations

import json
import os
import shlex
import subprocess

import pytest
from cli_runner import run_cli
from mcp_servers import INTEROP, free_port, node_bin, node_installed, wait_listening
from tests.home.conftest import open_home

from concierge.demo.bootstrap import open_pipeline
from concierge.demo.home.simulator import Simulator
from concierge.mcp.config import server_command
from concierge.storage import tokens

TOOLS = ["list_devices", "light_status", "light_power", "light_brightness", "light_color", "tv_power",
         "tv_channel", "tv_volume"]


@pytest.fixture
def database(tmp_path, monkeypatch, sim: Simulator) -> str:
    open_home(tmp_path, monkeypatch, sim.environment()).close()  # the servers started below inherit the variables
    return f"sqlite:///{tmp_path / 'home.db'}"


def test_the_inspector_lists_the_home_tools_and_switches_a_light_off(sim, database):
    printed = run_cli("mcp", "config", "--client", "inspector", "--catalog", "home", "--database", database,
                      "--user", "hanako")
    assert printed.exit_code == 0, printed.output
    words = shlex.split(printed.stdout)
    # An MCP client starts the server with only a few variables of its own: the catalog's are passed with -e,
    # as a client's configuration passes them ("env" in Claude Desktop's).
    passed = [arg for name, value in sim.environment().items() for arg in ("-e", f"{name}={value}")]
    inspector = [str(node_bin("inspector")), "--cli", "--format", "json", "-q", *passed]
    listed = subprocess.run([*inspector, "--method", "tools/list", *words[3:]], capture_output=True, text=True,
                            timeout=120, cwd=INTEROP)
    assert listed.returncode == 0, listed.stderr
    assert [t["name"] for t in json.loads(listed.stdout)["result"]["tools"]] == TOOLS
    called = subprocess.run([*inspector, "--method", "tools/call", "--tool-name", "light_power", "--tool-args-json",
                             json.dumps({"light": "リビングの電気", "power": "turnOff"}), *words[3:]],
                            capture_output=True, text=True, timeout=120, cwd=INTEROP)
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["result"]["isError"] is False
    assert sim.device("リビングの電気")["power"] == "off"


def test_the_typescript_client_over_http_reads_and_is_refused_what_a_guest_may_not_do(sim, database,
                                                                                     tmp_path):
    node_installed("@modelcontextprotocol/sdk/package.json")
    db = open_pipeline(["home"], database)
    try:
        guest = tokens.create(db.db, "guest", label="tests")
    finally:
        db.close()
    port = free_port()
    log = tmp_path / "server.log"
    with log.open("wb") as sink:
        server = subprocess.Popen([*server_command(), "mcp", "--catalog", "home", "--database", database,
                                   "--transport", "http", "--port", str(port)], stdout=sink, stderr=subprocess.STDOUT,
                                  env=dict(os.environ))
    try:
        wait_listening(port, server, log)
        calls = [{"name": "light_status", "arguments": {"light": "寝室の電気"}}]
        run = subprocess.run(["node", str(INTEROP / "ts_client.mjs"), f"http://127.0.0.1:{port}/mcp", guest,
                              json.dumps(calls)], capture_output=True, text=True, timeout=120, cwd=INTEROP)
        out = json.loads(run.stdout)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert "error" not in out, out
    assert out["tools"] == ["list_devices", "light_status"]  # a guest may only read
    [status] = out["results"]
    assert status["isError"] is False and status["structuredContent"]["rows"][0]["power"] == "off"

