"""Malformed and oversized JSON-RPC frames get error answers, and the server keeps serving.

Over stdio a frame is a line; over HTTP it is a request body.
"""

from __future__ import annotations

import json

import httpx2
import pytest
from mcp_servers import RawStdio, demo_database

from concierge.mcp.stdio import MAX_FRAME_BYTES

OVERSIZED = json.dumps({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
                        "params": {"name": "get_customers", "arguments": {"name_str_customer": "x" * MAX_FRAME_BYTES}}})
# frame, JSON-RPC error code, id of the answer
BAD_FRAMES = [
    (b"this is not json", -32700, None),
    (b'{"jsonrpc": "2.0", "id": 5, "method": "tools/call"', -32700, None),  # cut short
    (b"\xff\xfe\x00garbage", -32700, None),
    (b'{"id": 7, "hello": "world"}', -32600, 7),
    (b"[1, 2, 3]", -32600, None),
    (OVERSIZED.encode(), -32600, None),
]
VERSION = "2025-11-25"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
JSONRPC_REQUEST_ERRORS = (-32700, -32600, -32602)  # parse error, invalid request, invalid params
QUESTION = {"code_customer": "0009", "date_sales_begin_str": "2025-05-05", "date_sales_end_str": "2025-05-11"}


def test_stdio_answers_every_bad_frame_and_keeps_serving(tmp_path):
    server = RawStdio(demo_database(tmp_path), stderr=tmp_path / "stderr.log")
    server.initialize()
    try:
        for number, (frame, code, answer_id) in enumerate(BAD_FRAMES, start=1):
            server.send(frame)
            error = server.reply()
            assert (error["id"], error["error"]["code"]) == (answer_id, code), frame[:60]
            assert error["error"]["message"]
            answer = server.call(number, "get_sales", QUESTION)
            assert answer["id"] == number
            assert answer["result"]["structuredContent"]["totals"]["price"] == 1050
    finally:
        server.close()
    assert server.process.returncode == 0


def test_stdio_answers_a_request_with_bad_params_by_its_id(tmp_path):
    server = RawStdio(demo_database(tmp_path), stderr=tmp_path / "stderr.log")
    server.initialize()
    try:
        server.send({"jsonrpc": "2.0", "id": 41, "method": "tools/call", "params": {"name": 5}})
        assert server.reply()["error"]["code"] == -32602
        server.send({"jsonrpc": "2.0", "id": 42, "method": "no/such/method"})
        assert server.reply()["error"]["code"] == -32601
        assert server.call(43, "get_sales", QUESTION)["result"]["isError"] is False
    finally:
        server.close()


@pytest.mark.anyio
async def test_http_answers_every_bad_body_and_keeps_serving(http_server):
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with http_server.client("admin") as http:
        for frame, _code, _id in BAD_FRAMES:
            response = await http.post(http_server.url, content=frame, headers=headers)
            if len(frame) > MAX_FRAME_BYTES:
                assert response.status_code == 413
            else:
                assert response.status_code == 400, frame[:60]
                assert response.json()["error"]["code"] in JSONRPC_REQUEST_ERRORS, frame[:60]
            assert http_server.alive()
        good = await http.post(http_server.url, headers=headers, json=INITIALIZE)
        assert good.status_code == 200
        session = {**headers, "Mcp-Session-Id": good.headers["mcp-session-id"], "Mcp-Protocol-Version": VERSION}
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await http.post(http_server.url, headers=session, json=initialized)
        call = {"name": "get_sales", "arguments": QUESTION}
        answer = await http.post(http_server.url, headers=session,
                                 json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
    assert answer.json()["result"]["structuredContent"]["totals"]["price"] == 1050


def test_http_refuses_a_body_larger_than_the_limit_before_reading_it(http_server):
    with httpx2.Client(headers={"Authorization": f"Bearer {http_server.tokens['admin']}"}) as http:
        response = http.post(http_server.url, content=b"{" + b" " * (4 * MAX_FRAME_BYTES) + b"}",
                             headers={"Content-Type": "application/json", "Accept": "application/json"})
    assert response.status_code == 413
    assert http_server.alive()
