"""Every refusal of a user's request leaves an audit line, at whatever layer it happens: the planner
declining a tool the user is not offered, a model asking for one, the MCP SDK rejecting params (over
a real stdio subprocess and a real HTTP server), the web API refusing another user's conversation."""

from __future__ import annotations

import json

import pytest
from agent_fakes import ScriptedProvider, answer, calls
from mcp_servers import RawStdio, demo_database, start_http, stop
from web_fakes import running, sign_in, with_passwords

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider
from concierge.demo.bootstrap import open_pipeline
from concierge.pipeline import audit
from concierge.pipeline.pipeline import Pipeline

VERSION = "2025-11-25"
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def refusals(pipeline: Pipeline) -> list[dict]:
    return [r for r in audit.latest(pipeline.state, 200) if r["decision"].startswith("refused:")]


@pytest.fixture
def farm(sqlite_url):
    p = open_pipeline(["farm"], sqlite_url)
    try:
        yield p
    finally:
        p.close()


@pytest.mark.anyio
async def test_the_planner_declining_a_write_for_a_viewer_is_audited(farm):
    before = refusals(farm)
    turn = await Agent(farm, OfflineProvider(farm)).ask("顧客コード0016にかぼちゃ4個を600円で販売登録して。",
                                                       farm.user("suzuki"))
    assert not turn.calls and turn.pending is None  # declined: nothing reached the pipeline
    [row] = [r for r in refusals(farm) if r not in before]
    assert (row["user_name"], row["tool"], row["decision"]) == ("suzuki", "add_sale", "refused:not_permitted")
    assert "not offered" in row["message"] and "販売登録" in json.loads(row["args"])["request"]


@pytest.mark.anyio
async def test_the_planner_declining_sql_is_audited(farm):
    await Agent(farm, OfflineProvider(farm)).ask("DROP TABLE farm_sales を実行して", farm.user("tanaka"))
    [row] = refusals(farm)
    assert (row["user_name"], row["tool"], row["decision"]) == ("tanaka", "[sql]", "refused:unknown_tool")


@pytest.mark.anyio
async def test_a_model_asking_for_a_tool_the_user_may_not_see_is_audited(farm):
    provider = ScriptedProvider().enqueue(
        calls(("add_sale", {"code_customer": "0016", "products": "かぼちゃ4個", "price": 600})), answer("done"))
    await Agent(farm, provider).ask("register a sale", farm.user("suzuki"))
    [row] = refusals(farm)
    assert (row["user_name"], row["tool"], row["decision"]) == ("suzuki", "add_sale", "refused:not_permitted")


def test_mcp_requests_the_sdk_refuses_over_stdio_are_audited(tmp_path):
    database = demo_database(tmp_path)
    server = RawStdio(database, stderr=tmp_path / "stderr.log")  # acts as mcp.user, admin by default
    server.initialize()
    try:
        server.send({"jsonrpc": "2.0", "id": 41, "method": "tools/call",
                     "params": {"name": "get_sales", "arguments": "0009\u202e"}})
        assert server.reply()["error"]["code"] == -32602
        server.send({"jsonrpc": "2.0", "id": 42, "method": "tools/call", "params": {"name": 5}})
        assert server.reply()["error"]["code"] == -32602
        server.send({"jsonrpc": "2.0", "id": 43, "method": "no/such/method"})
        assert server.reply()["error"]["code"] == -32601
        server.send({"jsonrpc": "2.0", "method": "notifications/nothing"})  # a notification: no answer, no line
        assert server.call(44, "get_customers", {})["result"]["isError"] is False
    finally:
        server.close()
    pipeline = open_pipeline(["farm"], database)
    try:
        rows = {r["tool"]: r for r in refusals(pipeline)}
    finally:
        pipeline.close()
    assert set(rows) == {"get_sales", "tools/call", "no/such/method"}
    assert {r["user_name"] for r in rows.values()} == {"admin"}
    assert rows["get_sales"]["decision"] == "refused:invalid_params"
    assert "\u202e" not in rows["get_sales"]["args"] and "\\u202e" in rows["get_sales"]["args"]
    assert rows["no/such/method"]["decision"] == "refused:method_not_found"
    assert {r["source"] for r in rows.values()} == {"mcp"}


@pytest.fixture(scope="module")
def http_server(tmp_path_factory):
    server = start_http(tmp_path_factory.mktemp("refusal_http"))
    yield server
    stop(server)


@pytest.mark.anyio
async def test_mcp_requests_refused_over_http_are_audited_with_the_tokens_user(http_server):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    async with http_server.client("suzuki") as client:
        opened = await client.post(http_server.url, json=init, headers=HEADERS)
        session = {**HEADERS, "Mcp-Session-Id": opened.headers["mcp-session-id"], "MCP-Protocol-Version": VERSION}
        await client.post(http_server.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                          headers=session)
        bad = await client.post(http_server.url, headers=session, json={
            "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add_sale", "arguments": [1]}})
        assert bad.json()["error"]["code"] == -32602
        garbage = await client.post(http_server.url, headers=session, content=b"{not json")
        assert garbage.status_code == 400
    pipeline = open_pipeline(["farm"], http_server.database)
    try:
        rows = [r for r in refusals(pipeline) if r["user_name"] == "suzuki"]
    finally:
        pipeline.close()
    by_tool = {r["tool"]: r for r in rows}
    assert by_tool["add_sale"]["decision"] == "refused:invalid_params"
    assert by_tool["POST /mcp"]["decision"] == "refused:parse_error"
    assert all(r["source"].startswith("mcp-http 127.0.0.1") for r in rows)
    assert len(rows) == 2  # one line each, never two


def test_the_web_api_refusing_another_users_conversation_is_audited(sqlite_url, provider):
    with running(with_passwords(sqlite_url), provider) as (pipeline, client):
        response = sign_in(client(), "suzuki").get("/api/sessions/someone-elses")
        assert response.status_code == 404
        [row] = refusals(pipeline)
    assert (row["user_name"], row["decision"]) == ("suzuki", "refused:not_found")
    assert row["tool"] == "GET /api/sessions/someone-elses" and row["source"].startswith("web")
