"""`concierge mcp --transport http` as a real server on 127.0.0.1: tokens, users, DNS rebinding."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "raw", "version": "1"}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@asynccontextmanager
async def connect(server, user: str, mode: str = "auto") -> AsyncIterator[Client]:
    async with server.client(user) as http, Client(streamable_http_client(server.url, http_client=http),
                                                   mode=mode) as client:
        yield client


@pytest.mark.parametrize("authorization", [None, "Bearer ct_not-a-token", "Basic YWRtaW46YWRtaW4="])
async def test_a_request_without_a_valid_token_gets_401(http_server, authorization):
    headers = {**HEADERS, **({"Authorization": authorization} if authorization else {})}
    async with httpx2.AsyncClient() as http:
        response = await http.post(http_server.url, json=INITIALIZE, headers=headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_tokens_user_is_the_user_of_every_call(http_server, mode):
    async with connect(http_server, "tanaka", mode) as c:
        names = {t.name for t in (await c.list_tools()).tools}
        hidden = await c.call_tool("get_sales", {"code_customer": "0002"})
        search = await c.call_tool("get_customers", {"name_str_customer": "Smith"})
        own = await c.call_tool("get_customers", {"code_customer": "0015"})
    assert names == {"get_customers", "get_sales", "add_sale"}
    assert hidden.is_error and hidden.structured_content["code"] == "not_found"
    assert search.structured_content["row_count"] == 0
    assert own.structured_content["row_count"] == 1

    async with connect(http_server, "suzuki", mode) as c:
        names = {t.name for t in (await c.list_tools()).tools}
        seen = await c.call_tool("get_customers", {"name_str_customer": "Smith"})
        write = await c.call_tool("add_sale", {"code_customer": "0002", "products": "x", "price": 1})
    assert names == {"get_customers", "get_sales"}
    assert seen.structured_content["rows"][0]["code_customer"] == "0002"
    assert write.is_error and write.structured_content["code"] == "not_permitted"


async def test_a_write_over_http_needs_its_confirmation_token_and_runs_once(http_server):
    sale = {"code_customer": "0013", "products": "HTTPナス4個", "price": 320}
    async with connect(http_server, "tanaka", "legacy") as c:
        preview = await c.call_tool("add_sale", sale)
        token = preview.structured_content["confirmation_token"]
        first = await c.call_tool("add_sale", {**sale, "confirmation_token": token})
    async with connect(http_server, "tanaka") as c:  # another session, the other protocol era
        again = await c.call_tool("add_sale", {**sale, "confirmation_token": token})
        sales = await c.call_tool("get_sales", {"code_customer": "0013", "date_sales_begin_str": "2025-05-15"})
    assert preview.structured_content["status"] == "confirm"
    assert first.structured_content["status"] == "ok"
    assert again.is_error and again.structured_content["code"] == "confirmation_invalid"
    assert [r["products"] for r in sales.structured_content["rows"]].count(sale["products"]) == 1


async def test_another_users_token_is_refused_a_confirmation(http_server):
    sale = {"code_customer": "0014", "products": "他人のトークン", "price": 10}
    async with connect(http_server, "tanaka") as c:
        token = (await c.call_tool("add_sale", sale)).structured_content["confirmation_token"]
    async with connect(http_server, "admin") as c:
        stolen = await c.call_tool("add_sale", {**sale, "confirmation_token": token})
    assert stolen.is_error and stolen.structured_content["code"] == "confirmation_invalid"


@pytest.mark.parametrize(("header", "status"), [
    ({"Host": "evil.example"}, 421),
    ({"Host": "127.0.0.1"}, 421),  # no port: not what a client of 127.0.0.1:PORT sends
    ({"Origin": "http://evil.example"}, 403),
])
async def test_dns_rebinding_protection_is_on(http_server, header, status):
    async with http_server.client("admin") as http:
        refused = await http.post(http_server.url, json=INITIALIZE, headers={**HEADERS, **header})
        accepted = await http.post(http_server.url, json=INITIALIZE,
                                   headers={**HEADERS, "Origin": f"http://localhost:{http_server.port}"})
    assert refused.status_code == status
    assert accepted.status_code == 200
