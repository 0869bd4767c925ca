"""Clients that no one here wrote: the MCP Inspector CLI over stdio, the TypeScript SDK client over
HTTP, and the official conformance runner over HTTP. They come from tests/mcp/interop (npm ci)."""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_runner import run_cli
from mcp_servers import INTEROP, HttpServer, demo_database, node_bin, node_installed, start_http, stop

from concierge.mcp.config import INSPECTOR

# The scenarios of the conformance suite that apply to a catalog server with no
# prompts, logging or fixture tools of the suite's own, and the checks each makes.
CONFORMANCE = {
    "server-initialize": {"server-initialize"},
    "ping": {"ping"},
    "tools-list": {"tools-list"},
    "resources-list": {"resources-list"},
    "dns-rebinding-protection": {"localhost-host-rebinding-rejected", "localhost-host-valid-accepted"},
}


@pytest.fixture(scope="module")
def database(tmp_path_factory) -> str:
    return demo_database(tmp_path_factory.mktemp("mcp-interop"))


@pytest.fixture(scope="module")
def open_http_server(tmp_path_factory) -> Iterator[HttpServer]:
    """The HTTP server on loopback without tokens, as the conformance suite expects of a local server."""
    server = start_http(tmp_path_factory.mktemp("mcp-open"), "--no-auth")
    try:
        yield server
    finally:
        stop(server)


def inspector(database: str, user: str, *method: str) -> subprocess.CompletedProcess:
    """The Inspector CLI, run with the command line `concierge mcp config --client inspector` prints."""
    printed = run_cli(*["mcp", "config", "--client", "inspector", "--catalog", "farm",
                                        "--catalog", "pos", "--database", database, "--user", user])
    assert printed.exit_code == 0, printed.output
    words = shlex.split(printed.stdout)
    assert words[:3] == ["npx", "-y", INSPECTOR]
    command = [str(node_bin("inspector")), "--cli", "--format", "json", "-q", *method, *words[3:]]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=INTEROP)


def test_inspector_lists_the_users_tools_with_portable_schemas(database):
    run = inspector(database, "tanaka", "--strict", "--method", "tools/list")
    assert run.returncode == 0, run.stderr  # --strict exits 6 on an error-severity schema problem
    tools = json.loads(run.stdout)["result"]["tools"]
    assert [t["name"] for t in tools] == ["get_customers", "get_sales", "add_sale"]
    assert tools[2]["annotations"]["readOnlyHint"] is False
    assert tools[0]["annotations"]["readOnlyHint"] is True


def test_inspector_calls_a_tool(database):
    args = {"code_customer": "0002", "date_sales_begin_str": "2025-04-01", "date_sales_end_str": "2025-05-31"}
    run = inspector(database, "admin", "--method", "tools/call", "--tool-name", "get_sales",
                    "--tool-args-json", json.dumps(args))
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)["result"]
    assert result["structuredContent"]["totals"] == {"count": 4, "price": 2180}
    assert '"price":2180' in result["content"][0]["text"]


def test_inspector_sees_a_refusal_as_a_tool_error_with_the_guards_message(database):
    run = inspector(database, "admin", "--method", "tools/call", "--tool-name", "get_sales",
                    "--tool-args-json", '{"code_customer": "12"}')
    assert run.returncode == 5  # the Inspector's exit code for a result with isError
    result = json.loads(run.stdout)["result"]
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith("get_sales: code_customer '12' does not match the pattern")


def typescript_client(server: HttpServer, token: str, calls: list[dict]) -> dict:
    node_installed("@modelcontextprotocol/sdk/package.json")
    run = subprocess.run(["node", str(INTEROP / "ts_client.mjs"), server.url, token, json.dumps(calls)],
                         capture_output=True, text=True, timeout=120, cwd=INTEROP)
    assert run.stdout, run.stderr
    return json.loads(run.stdout)


def test_typescript_sdk_client_over_http_with_a_token(http_server):
    sale = {"code_customer": "0016", "products": "TSきゅうり5本", "price": 350}
    out = typescript_client(http_server, http_server.tokens["tanaka"], [
        {"name": "get_sales", "arguments": {"code_customer": "0002"}},
        {"name": "get_customers", "arguments": {"code_customer": "0016"}},
        {"name": "add_sale", "arguments": sale},
        {"name": "add_sale", "arguments": sale, "confirm": True},
        {"name": "add_sale", "arguments": sale, "confirm": True},
    ])
    assert "error" not in out, out
    assert out["tools"] == ["get_customers", "get_sales", "add_sale"]
    hidden, own, preview, written, replay = out["results"]
    assert hidden["isError"] is True and hidden["structuredContent"]["code"] == "not_found"
    assert own["structuredContent"]["rows"][0]["name_customer"] == "松本理恵"
    assert preview["structuredContent"]["status"] == "confirm"
    assert written["structuredContent"]["rows"][0]["products"] == sale["products"]
    assert replay["isError"] is True and replay["structuredContent"]["code"] == "confirmation_invalid"


def test_typescript_sdk_client_without_a_token_is_refused(http_server):
    out = typescript_client(http_server, "", [])
    assert "invalid_token" in out["error"]


def test_conformance_runner_passes_the_scenarios_that_apply(open_http_server, tmp_path):
    checks: dict[str, str] = {}
    for scenario in CONFORMANCE:
        out = tmp_path / scenario
        subprocess.run([str(node_bin("conformance")), "server", "--url", open_http_server.url,
                        "--scenario", scenario, "-o", str(out)],
                       capture_output=True, text=True, timeout=120, cwd=INTEROP)
        for file in Path(out).glob("*/checks.json"):
            checks.update({c["id"]: c["status"] for c in json.loads(file.read_text())})
    assert set(checks) == set().union(*CONFORMANCE.values())
    assert set(checks.values()) == {"SUCCESS"}, checks
