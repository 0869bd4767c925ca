"""`concierge mcp` as a real stdio subprocess: the SDK's client, and raw lines as a host writes them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from mcp import Client
from mcp_servers import RawStdio, demo_database, stdio_params

pytestmark = pytest.mark.anyio

INITIALIZE_AND_CALL = b"\n".join(json.dumps(m).encode() for m in [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize",
     "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "noisy", "arguments": {}}},
]) + b"\n"


@pytest.fixture(scope="module")
def database(tmp_path_factory) -> str:
    return demo_database(tmp_path_factory.mktemp("mcp-stdio"))


async def test_the_user_is_set_by_user_and_scopes_every_call(database):
    sale = {"code_customer": "0012", "products": "stdioトマト2個", "price": 160}
    async with Client(stdio_params(database, "--user", "tanaka"), mode="legacy") as c:
        names = {t.name for t in (await c.list_tools()).tools}
        hidden = await c.call_tool("get_sales", {"code_customer": "0002"})
        preview = await c.call_tool("add_sale", sale)
        token = preview.structured_content["confirmation_token"]
        written = await c.call_tool("add_sale", {**sale, "confirmation_token": token})
        replay = await c.call_tool("add_sale", {**sale, "confirmation_token": token})
        mine = await c.call_tool("get_sales", {"code_customer": "0012", "date_sales_begin_str": "2025-05-15"})
    assert names == {"get_customers", "get_sales", "add_sale"}
    assert hidden.is_error and hidden.content[0].text.startswith("customer not found")
    assert preview.structured_content["status"] == "confirm"
    assert written.structured_content["status"] == "ok"
    assert replay.is_error and replay.structured_content["code"] == "confirmation_invalid"
    assert [r["products"] for r in mine.structured_content["rows"]].count(sale["products"]) == 1


async def test_the_default_user_is_the_demo_admin(database):
    async with Client(stdio_params(database)) as c:
        names = {t.name for t in (await c.list_tools()).tools}
        sales = await c.call_tool("get_sales", {"code_customer": "0002", "date_sales_begin_str": "2025-04-01",
                                                "date_sales_end_str": "2025-04-30"})
    assert len(names) == 6
    assert sales.structured_content["totals"]["price"] == 980


def test_stdout_carries_only_protocol_while_logs_go_to_stderr(database, tmp_path):
    server = RawStdio(database, "--verbose", stderr=tmp_path / "stderr.log")
    assert server.initialize()["result"]["serverInfo"]["name"] == "concierge"
    server.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert len(server.reply()["result"]["tools"]) == 6
    assert server.call(2, "get_sales", {"code_customer": "0009"})["result"]["isError"] is False
    assert server.call(3, "get_sales", {"code_customer": "9"})["result"]["isError"] is True
    rest = server.close()
    lines = [line for line in server.stdout_lines + rest.splitlines(keepends=True) if line.strip()]
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in lines)
    assert all(line.endswith(b"\n") for line in lines)
    log = (tmp_path / "stderr.log").read_text()
    assert "DEBUG" in log and "concierge" in log
    assert server.process.returncode == 0


NOISY_SERVER = """
import os, anyio, mcp_types as types
from mcp.server import Server
from concierge.mcp import stdio

async def list_tools(ctx, params):
    schema = {"type": "object", "properties": {}}
    return types.ListToolsResult(tools=[types.Tool(name="noisy", input_schema=schema)])

async def call_tool(ctx, params):
    print("a stray print")
    os.write(1, b"a stray write on fd 1\\n")
    return types.CallToolResult(content=[types.TextContent(type="text", text="done")])

anyio.run(stdio.serve, Server("noisy", on_list_tools=list_tools, on_call_tool=call_tool))
"""


def test_a_stray_print_in_a_handler_lands_on_stderr_not_in_the_protocol(tmp_path):
    with (tmp_path / "stderr.log").open("wb") as err:
        server = subprocess.Popen([sys.executable, "-c", NOISY_SERVER], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=err)
        server.stdin.write(INITIALIZE_AND_CALL)
        server.stdin.flush()
        answers = [json.loads(server.stdout.readline()) for _ in range(2)]
        rest, _ = server.communicate(timeout=30)
    assert [a["id"] for a in answers] == [0, 1]
    assert answers[1]["result"]["content"][0]["text"] == "done"
    assert rest == b""
    log = (tmp_path / "stderr.log").read_text()
    assert "a stray print" in log and "a stray write on fd 1" in log
