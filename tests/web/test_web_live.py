"""The app over a real uvicorn server: events reach the browser while the turn still runs, two
confirmations of one card sent at once write one row, and /mcp serves token holders."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import httpx2
from agent_fakes import ScriptedProvider, answer, calls
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from web_fakes import PASSWORDS, farm_sales, live

from concierge.agent.providers.interface import ModelReply, ModelRequest, Provider, ToolCall
from concierge.demo.bootstrap import open_pipeline
from concierge.storage import tokens
from concierge.storage.database import Database

SALE = {"code_customer": "0016", "products": "かぼちゃ4個", "price": 600, "date_sales_str": "2025-05-06"}


def _sse(response) -> list[tuple[str, dict]]:
    """Yields (event, data) as each event arrives."""
    name = "message"
    for line in response.iter_lines():
        if line.startswith("event:"):
            name = line.split(":", 1)[1].strip()
        elif line.startswith("data:"):
            yield name, json.loads(line.split(":", 1)[1])
            name = "message"


class GatedProvider(Provider):
    """Asks for one tool call, then answers only once the test has seen that call end in the stream."""

    name, model = "gated", "gated-1"

    def __init__(self) -> None:
        self.gate = threading.Event()

    async def complete(self, request: ModelRequest) -> ModelReply:
        if not any(m.role == "tool" for m in request.messages):
            return ModelReply(tool_calls=[ToolCall("c1", "get_customers", {"code_customer": "0009"})])
        for _ in range(1000):
            if self.gate.is_set():
                return ModelReply(text="0009 は佐藤次郎さんです。")
            await asyncio.sleep(0.01)
        return ModelReply(text="the stream did not reach the client in time")


def test_events_reach_the_client_while_the_turn_is_still_running(web_url):
    provider = GatedProvider()
    with live(web_url, provider) as url, httpx2.Client(base_url=url, timeout=30) as http:
        assert http.post("/api/login", json={"name": "admin", "password": PASSWORDS["admin"]}).status_code == 200
        seen = []
        with http.stream("POST", "/api/chat", json={"text": "顧客コード0009は誰？"}) as res:
            for name, data in _sse(res):
                seen.append(name)
                if name == "tool_end":
                    provider.gate.set()  # only now may the model answer
                if name == "answer":
                    assert data["turn"]["answer"] == "0009 は佐藤次郎さんです。"
    assert seen == ["thinking", "tool_start", "tool_end", "thinking", "answer"]


def test_a_turn_whose_browser_went_away_finishes_and_is_kept(web_url):
    provider = GatedProvider()
    with live(web_url, provider) as url, httpx2.Client(base_url=url, timeout=30) as http:
        http.post("/api/login", json={"name": "admin", "password": PASSWORDS["admin"]})
        with http.stream("POST", "/api/chat", json={"text": "顧客コード0009は誰？"}) as res:
            for name, _data in _sse(res):
                if name == "tool_end":
                    break  # the connection closes before the answer
        provider.gate.set()
        for _ in range(200):
            listed = http.get("/api/sessions").json()
            if listed:
                break
            time.sleep(0.05)
        [exchange] = http.get(f"/api/sessions/{listed[0]['session_id']}").json()["exchanges"]
    assert exchange["answer"] == "0009 は佐藤次郎さんです。"


def test_two_confirmations_of_one_card_sent_at_once_write_one_row(any_web_url):
    provider = ScriptedProvider().enqueue(calls(("add_sale", SALE)), answer("登録しました。"), answer("登録済みです。"))

    async def scenario(url: str) -> list[int]:
        async with httpx2.AsyncClient(base_url=url, timeout=30) as http:
            await http.post("/api/login", json={"name": "admin", "password": PASSWORDS["admin"]})
            asked = await http.post("/api/chat", json={"text": "0016にかぼちゃ4個を600円で販売登録して"})
            session = [json.loads(line[5:]) for line in asked.text.splitlines() if line.startswith("data:")][-1]
            confirm = f"/api/sessions/{session['turn']['session_id']}/confirm"
            replies = await asyncio.gather(http.post(confirm), http.post(confirm))
            return [r.status_code for r in replies]

    with live(any_web_url, provider) as url:
        pipeline = open_pipeline(["farm"], any_web_url)
        try:
            before = farm_sales(pipeline, "0016")
            assert asyncio.run(scenario(url)) == [200, 200]
            after = farm_sales(pipeline, "0016")
        finally:
            pipeline.close()
    assert [(r["products"], r["price"]) for r in after if r not in before] == [("かぼちゃ4個", 600)]


def test_the_same_process_serves_mcp_to_token_holders_with_their_permissions(web_url):
    database = Database(web_url)
    try:
        token = tokens.create(database, "tanaka", label="web test")
    finally:
        database.dispose()

    async def scenario(url: str) -> tuple[set[str], bool, int]:
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http, \
                Client(streamable_http_client(f"{url}/mcp", http_client=http)) as mcp:
            names = {t.name for t in (await mcp.list_tools()).tools}
            refused = await mcp.call_tool("get_sales", {"code_customer": "0002"})
        async with httpx2.AsyncClient(base_url=url, timeout=30) as http:
            await http.post("/api/login", json={"name": "admin", "password": PASSWORDS["admin"]})
            cookie_only = await http.post("/mcp", json={}, headers={"Accept": "application/json, text/event-stream"})
        return names, refused.is_error, cookie_only.status_code

    with live(web_url, ScriptedProvider()) as url:
        names, refused, cookie_only = asyncio.run(scenario(url))
    assert names == {"get_customers", "get_sales", "add_sale"}
    assert refused  # customer 0002 is not tanaka's: as if it did not exist
    assert cookie_only == 401  # the page's session cookie is no MCP credential
