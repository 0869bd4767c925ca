"""Two `concierge serve` processes on one PostgreSQL behind nginx: whatever one process starts, the other
continues, since all state is in the database (conftest.py has the set-up)."""

from __future__ import annotations

import asyncio
from collections import Counter

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from web_fakes import PASSWORDS, events, farm_sales

from concierge.demo.bootstrap import open_pipeline
from concierge.storage import tokens
from concierge.storage.database import Database
from concierge.web.auth import COOKIE

SALE_TEXT = "0016のお客様に、一昨日、ｷｬﾍﾞﾂ2玉を1,500円で販売登録して"  # the farm clock: 2025-05-15
FOLLOW_UP = "そのお客様の今月の販売データは？"  # "that customer": known only from the conversation
MAX_TRIES = 100  # wrong passwords sent before the throttle must have answered 429


def on(name: str) -> dict[str, str]:
    """Headers that pin a request to one process (the test's nginx map)."""
    return {"X-Replica": name}


def sign_in(http: httpx2.Client, name: str, replica: str | None = None) -> httpx2.Response:
    res = http.post("/api/login", json={"name": name, "password": PASSWORDS[name]},
                    headers=on(replica) if replica else None)
    assert res.status_code == 200, res.text
    return res


def farm_rows(url: str, customer: str) -> list[dict]:
    pipeline = open_pipeline(["farm"], url)
    try:
        return farm_sales(pipeline, customer)
    finally:
        pipeline.close()


def test_a_conversation_started_on_one_process_is_confirmed_and_continued_on_the_other(replicas):
    before = farm_rows(replicas.database, "0016")
    with httpx2.Client(base_url=replicas.url, timeout=60) as http:
        assert replicas.which(sign_in(http, "admin", "a")) == "a"
        asked = http.post("/api/chat", json={"text": SALE_TEXT}, headers=on("a"))
        assert replicas.which(asked) == "a"
        turn = events(asked)[-1][1]["turn"]
        assert turn["pending"]["tool"] == "add_sale", turn
        session = turn["session_id"]
        assert farm_rows(replicas.database, "0016") == before  # nothing written before the yes

        # the other process knows the conversation, its card and the signed-in user
        shown = http.get(f"/api/sessions/{session}", headers=on("b"))
        assert replicas.which(shown) == "b" and shown.status_code == 200, shown.text
        assert shown.json()["pending"]["preview"]["products"] == "キャベツ2玉"
        confirmed = http.post(f"/api/sessions/{session}/confirm", headers=on("b"))
        assert replicas.which(confirmed) == "b"
        got = events(confirmed)
        assert [data["status"] for name, data in got if name == "tool_end"] == ["ok"], got
        [new] = [r for r in farm_rows(replicas.database, "0016") if r not in before]
        assert (str(new["sale_date"]), new["products"], new["price"]) == ("2025-05-13", "キャベツ2玉", 1500)

        # the first process sees the card used: a second yes there writes nothing
        replay = http.post(f"/api/sessions/{session}/confirm", headers=on("a"))
        assert replicas.which(replay) == "a"
        assert events(replay)[-1][1]["turn"]["calls"] == []
        assert len(farm_rows(replicas.database, "0016")) == len(before) + 1

        # continued on the other process: "that customer" is the one of the first process's turn
        follow = http.post("/api/chat", json={"text": FOLLOW_UP, "session_id": session}, headers=on("b"))
        assert replicas.which(follow) == "b"
        answer = events(follow)[-1][1]["turn"]
        [call] = answer["calls"]
        assert (call["name"], call["args"]["code_customer"]) == ("get_sales", "0016"), call
        assert "キャベツ2玉" in answer["answer"]
        listed = {s["session_id"]: s for s in http.get("/api/sessions", headers=on("a")).json()}
        assert listed[session]["pending"] is False


def test_one_signed_in_browser_is_served_by_both_processes_in_turn(replicas):
    with httpx2.Client(base_url=replicas.url, timeout=60) as http:
        sign_in(http, "admin")
        answered = []
        for _ in range(6):
            res = http.get("/api/me")
            assert res.status_code == 200 and res.json()["name"] == "admin", res.text
            answered.append(replicas.which(res))
        assert Counter(answered) == {"a": 3, "b": 3}
        # a conversation whose turns alternate between the processes: each turn sees the last
        session = None
        for text in ("佐藤さんの顧客コードを教えて。", "0009のお客様の先週の販売データは？"):
            res = http.post("/api/chat", json={"text": text, "session_id": session})
            assert res.headers["content-type"].startswith("text/event-stream")
            answered.append(replicas.which(res))
            turn = events(res)[-1][1]["turn"]
            session = turn["session_id"]
        assert set(answered[-2:]) == {"a", "b"}
        exchanges = http.get(f"/api/sessions/{session}").json()["exchanges"]
        assert len(exchanges) == 2 and "1,050円" in exchanges[1]["answer"], exchanges


def test_mcp_calls_spread_over_both_processes_work_with_one_token(replicas):
    database = Database(replicas.database)
    try:
        token = tokens.create(database, "tanaka", label="deploy test")
    finally:
        database.dispose()
    answered: list[str] = []

    async def record(response: httpx2.Response) -> None:
        answered.append(replicas.which(response))

    async def scenario() -> tuple[set[str], list[int], bool]:
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=60, event_hooks={"response": [record]}) as http, \
                Client(streamable_http_client(f"{replicas.url}/mcp", http_client=http)) as mcp:
            names = {t.name for t in (await mcp.list_tools()).tools}
            found = []
            for _ in range(6):
                result = await mcp.call_tool("get_customers", {"code_customer": "0016"})  # one of tanaka's
                assert not result.is_error, result.content
                found.append(result.structured_content["row_count"])
            refused = await mcp.call_tool("get_sales", {"code_customer": "0002"})  # not tanaka's customer
        return names, found, refused.is_error

    names, found, refused = asyncio.run(scenario())
    assert names == {"get_customers", "get_sales", "add_sale"}
    assert found == [1] * 6
    assert refused  # row scope holds on whichever process answered
    assert set(answered) == {"a", "b"}, answered


def test_a_sign_in_throttle_counted_on_one_process_applies_on_the_other(replicas):
    with httpx2.Client(base_url=replicas.url, timeout=60) as http:
        wrong = {"name": "suzuki", "password": "not-suzukis-password"}
        for _ in range(MAX_TRIES):
            res = http.post("/api/login", json=wrong, headers=on("a"))
            assert replicas.which(res) == "a"
            if res.status_code == 429:
                break
            assert res.status_code == 401, res.text
        assert res.status_code == 429, f"{MAX_TRIES} wrong passwords in a row and no throttle"
        # process b was sent no wrong password; the right one is refused there all the same
        right = http.post("/api/login", json={"name": "suzuki", "password": PASSWORDS["suzuki"]}, headers=on("b"))
        assert replicas.which(right) == "b"
        assert right.status_code == 429, right.text
        assert int(right.headers["retry-after"]) > 0
        assert PASSWORDS["suzuki"] not in right.text and COOKIE not in right.headers.get("set-cookie", "")


def test_a_logout_on_one_process_ends_the_session_on_both(replicas):
    with httpx2.Client(base_url=replicas.url, timeout=60) as http:
        sign_in(http, "tanaka", "a")
        copied = http.cookies[COOKIE]
        for name in ("a", "b"):  # the session works on both, and each process has just checked it
            assert http.get("/api/me", headers=on(name)).status_code == 200
        out = http.post("/api/logout", headers=on("a"))
        assert replicas.which(out) == "a" and out.status_code == 200
    with httpx2.Client(base_url=replicas.url, timeout=60, cookies={COOKIE: copied}) as thief:
        for name in ("b", "a"):
            res = thief.get("/api/me", headers=on(name))
            assert replicas.which(res) == name
            assert res.status_code == 401, f"the copied cookie still works on process {name} after the logout"
