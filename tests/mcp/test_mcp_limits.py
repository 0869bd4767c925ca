"""The HTTP MCP server under one abusive client, and with its database down (issue 11).

A token looping over ``initialize`` keeps only a few sessions of its own, and everyone else
is served; the stateless protocol holds no session at all; a database that is down is a 503
with a JSON-RPC error, and the server works again once it is back, without a restart.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import httpx2
import pytest
from db_faults import database_down
from demo_databases import with_demos
from in_process_server import served_in_thread
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from concierge.demo.bootstrap import open_pipeline
from concierge.mcp.http import MAX_SESSIONS, SESSIONS_PER_USER, build_http
from concierge.storage import tokens

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "raw", "version": "1"}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def in_session(session_id: str) -> dict:
    return {**HEADERS, "Mcp-Session-Id": session_id, "MCP-Protocol-Version": "2025-11-25"}


@pytest.mark.anyio
async def test_a_viewer_looping_over_initialize_cannot_lock_anyone_out(http_server):
    opened: list[str] = []
    async with http_server.client("suzuki") as viewer:  # a viewer, as in the review
        for _ in range(MAX_SESSIONS + 100):  # more than the server holds for everyone together
            res = await viewer.post(http_server.url, json=INITIALIZE, headers=HEADERS)
            assert res.status_code == 200, res.text
            opened.append(res.headers["mcp-session-id"])
        live = [(await viewer.post(http_server.url, json=LIST_TOOLS, headers=in_session(sid))).status_code
                for sid in opened[-SESSIONS_PER_USER - 1:]]
        first = await viewer.post(http_server.url, json=LIST_TOOLS, headers=in_session(opened[0]))
    assert first.status_code == 404  # ended to make room for its own newer ones
    assert live == [404] + [200] * SESSIONS_PER_USER  # its latest sessions all work

    async with http_server.client("admin") as admin:
        res = await admin.post(http_server.url, json=INITIALIZE, headers=HEADERS)
        assert res.status_code == 200, res.text
        tools = await admin.post(http_server.url, json=LIST_TOOLS, headers=in_session(res.headers["mcp-session-id"]))
    assert tools.status_code == 200 and tools.json()["result"]["tools"]
    assert http_server.alive()


@pytest.mark.anyio
async def test_a_session_is_the_users_own_and_is_capped_per_user_not_per_token(http_server):
    async with http_server.client("tanaka") as one, http_server.client("admin") as other:
        mine = (await one.post(http_server.url, json=INITIALIZE, headers=HEADERS)).headers["mcp-session-id"]
        borrowed = await other.post(http_server.url, json=LIST_TOOLS, headers=in_session(mine))
        own = await one.post(http_server.url, json=LIST_TOOLS, headers=in_session(mine))
    assert borrowed.status_code == 404 and own.status_code == 200


@pytest.mark.anyio
async def test_the_stateless_protocol_holds_no_session(http_server):
    seen: list[httpx2.Response] = []

    async def record(response: httpx2.Response) -> None:
        seen.append(response)

    async with http_server.client("tanaka") as http:
        http.event_hooks["response"].append(record)
        async with Client(streamable_http_client(http_server.url, http_client=http), mode="auto") as client:
            result = await client.call_tool("get_customers", {"code_customer": "0015"})
    assert result.structured_content["row_count"] == 1
    assert seen and all("mcp-session-id" not in r.headers for r in seen)


@contextmanager
def served_mcp(url: str) -> Iterator[tuple[str, str]]:
    """`build_http` over the database at `url` on a real uvicorn of 127.0.0.1; yields its URL and admin's token."""
    pipeline = open_pipeline(["farm"], url)
    token = tokens.create(pipeline.state, "admin", label="tests")
    try:
        with served_in_thread(build_http(pipeline).app(), lifespan="on") as base_url:
            yield f"{base_url}/mcp", token
    finally:
        pipeline.close()


@pytest.mark.postgres
def test_the_database_down_is_a_503_json_rpc_error_and_then_it_works_again(pg_url, pg_server):
    with_demos(pg_url, "farm")
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "get_customers", "arguments": {"code_customer": "0015"}}}
    with served_mcp(pg_url) as (url, token), httpx2.Client(headers={"Authorization": f"Bearer {token}"}) as http:
        with database_down(pg_server, pg_url):
            down = http.post(url, json=INITIALIZE, headers=HEADERS, timeout=30)
        assert down.status_code == 503, down.text
        assert down.headers["content-type"] == "application/json"
        error = down.json()
        assert error["jsonrpc"] == "2.0" and error["error"]["code"] == -32603
        assert "unavailable" in error["error"]["message"] and "Traceback" not in down.text

        opened = http.post(url, json=INITIALIZE, headers=HEADERS, timeout=30)
        assert opened.status_code == 200
        answer = http.post(url, json=call, headers=in_session(opened.headers["mcp-session-id"]), timeout=30)
    assert answer.json()["result"]["structuredContent"]["row_count"] == 1
