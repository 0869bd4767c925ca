"""A slow request never holds up another user's: over `concierge serve` in a process of its own (the offline
planner), while one user (a viewer) sends a 4,000-character adversarial message, another user's /api/me and
short chat turn answer at once. The red team's attack held /api/me, GET / and /mcp for 11-91 s: the planner ran
on the event loop. The planner is now fast on every known attack, so one more message spends the planner's
whole budget (tests/support/budget_spender): the costliest request the budget lets through.

Also: a user's third turn at once is refused with 429 and a message in both languages, never queued; and a
message past MESSAGE_CHARS is refused on every channel (the web chat, `Agent.ask` itself, `concierge ask`).
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx2
import pytest
from agent_fakes import ScriptedProvider, answer
from budget_spender import SPEND
from cli_runner import run_cli
from web_fakes import PASSWORDS, concierge_serve, events, live, sign_in, with_passwords

from concierge.agent.loop import Agent
from concierge.agent.providers.interface import ModelReply, ModelRequest, Provider
from concierge.agent.turn import MESSAGE_CHARS, MessageTooLong
from concierge.planner import budget
from concierge.web import chat

OTHER_BOUND_S = 1.0  # the other user's requests: a few milliseconds when nothing blocks the event loop
ATTACKS = ["売上ランキング", "ランキング ", "a ", "1万", "7時 ", SPEND]
SUPPORT = Path(__file__).parents[1] / "support"


async def _sse(response: httpx2.Response) -> AsyncIterator[tuple[str, dict]]:
    name = "message"
    async for line in response.aiter_lines():
        if line.startswith("event:"):
            name = line.split(":", 1)[1].strip()
        elif line.startswith("data:"):
            yield name, json.loads(line.split(":", 1)[1])
            name = "message"


@asynccontextmanager
async def _signed_in(url: str, name: str) -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient(base_url=url, timeout=120) as http:
        assert (await http.post("/api/login", json={"name": name, "password": PASSWORDS[name]})).status_code == 200
        yield http


async def _turn(http: httpx2.AsyncClient, text: str) -> tuple[str, dict]:
    """The last event of a chat turn: ("answer", data) or ("error", data)."""
    last: tuple[str, dict] = ("none", {})
    async with http.stream("POST", "/api/chat", json={"text": text}) as res:
        assert res.status_code == 200, await res.aread()
        async for name, data in _sse(res):
            last = (name, data)
    return last


async def _timed(request) -> float:
    started = time.perf_counter()
    response = await request
    assert response.status_code == 200
    return time.perf_counter() - started


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[str]:
    """`concierge serve` in a process of its own, as a user runs it (the offline planner): the other user's
    requests are timed from outside the server's process, as another user's browser would see them."""
    path = tmp_path_factory.mktemp("slow") / "web.db"
    with_passwords(f"sqlite:///{path}")
    paths = (str(SUPPORT / "budget_spender"), str(SUPPORT), os.environ.get("PYTHONPATH"))
    python_path = os.pathsep.join(p for p in paths if p)
    with concierge_serve(f"sqlite:///{path}", env={"PYTHONPATH": python_path}) as server:
        yield server.url


@pytest.mark.parametrize("unit", ATTACKS)
def test_a_long_adversarial_message_delays_no_other_users_request(served, unit):
    text = (unit * (MESSAGE_CHARS // len(unit) + 1))[:MESSAGE_CHARS]
    started = time.perf_counter()

    async def scenario(url: str) -> tuple[list[float], float, tuple[str, dict]]:
        async with _signed_in(url, "suzuki") as slow, _signed_in(url, "admin") as other:
            long_turn = asyncio.create_task(_turn(slow, text))
            await asyncio.sleep(0.05)  # the long message is on its way
            waits = [await _timed(other.get("/api/me"))]
            chat_s = await _timed(other.post("/api/chat", json={"text": "先週の売上ランキング"}))
            while not long_turn.done():  # /api/me, again and again, for as long as the long message is planned
                waits.append(await _timed(other.get("/api/me")))
                await asyncio.sleep(0.02)
            return waits, chat_s, await long_turn

    waits, chat_s, (event, data) = asyncio.run(scenario(served))
    assert max(waits) < OTHER_BOUND_S, waits
    assert chat_s < OTHER_BOUND_S
    assert event == "answer", data  # an answer, or the planner saying the request is too long to work out
    said = data["turn"]["answer"]
    assert said and (said == budget.too_long_text("ja") or "長すぎ" not in said)
    if unit == SPEND:  # the other user's requests were timed while the planner spent its whole budget
        assert said == budget.too_long_text("en")  # an English message is answered in English
        assert time.perf_counter() - started >= budget.CPU_S and len(waits) >= 2 * budget.CPU_S / OTHER_BOUND_S


class HeldProvider(Provider):
    """Every turn waits in the model until the test lets them all answer."""

    name, model = "held", "held-1"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.waiting = 0

    async def complete(self, request: ModelRequest) -> ModelReply:
        self.waiting += 1
        while not self.release.is_set():
            await asyncio.sleep(0.01)
        self.waiting -= 1
        return ModelReply(text="お待たせしました。")


def test_a_third_turn_of_one_user_at_once_is_refused_at_once_with_429(web_url):
    provider = HeldProvider()

    async def scenario(url: str) -> tuple[int, str, float, int, list[tuple[str, dict]]]:
        async with _signed_in(url, "suzuki") as user, _signed_in(url, "admin") as other:
            held = [asyncio.create_task(_turn(user, f"質問{i}")) for i in range(chat.TURNS_PER_USER)]
            while provider.waiting < chat.TURNS_PER_USER:
                await asyncio.sleep(0.01)
            started = time.perf_counter()
            refused = await user.post("/api/chat", json={"text": "もう一つ"})
            refused_s = time.perf_counter() - started
            others = asyncio.create_task(_turn(other, "別のユーザー"))  # another user's turn is no one else's
            while provider.waiting < chat.TURNS_PER_USER + 1:
                await asyncio.sleep(0.01)
            provider.release.set()
            done = [await t for t in [*held, others]]
            again = await _turn(user, "もう一度")  # the turns ended: their places are given back
            return refused.status_code, refused.json()["detail"], refused_s, len(done), [*done, again]

    with live(web_url, provider) as url:
        status, detail, refused_s, done, ends = asyncio.run(scenario(url))
    assert (status, detail) == (429, chat.BUSY)
    assert "回答" in detail and "wait for it" in detail  # both languages
    assert refused_s < OTHER_BOUND_S and done == chat.TURNS_PER_USER + 1
    assert [(event, data["turn"]["answer"]) for event, data in ends] == [("answer", "お待たせしました。")] * 4


def test_a_message_past_the_limit_is_refused_on_every_channel(web, provider):
    pipeline, client = web
    c = sign_in(client(), "admin")
    assert c.post("/api/chat", json={"text": "あ" * (MESSAGE_CHARS + 1)}).status_code == 422
    provider.enqueue(answer("はい。"))
    assert events(c.post("/api/chat", json={"text": "あ" * MESSAGE_CHARS}))[-1][0] == "answer"

    with pytest.raises(MessageTooLong) as refused:
        asyncio.run(Agent(pipeline, ScriptedProvider()).ask("a" * (MESSAGE_CHARS + 1), pipeline.user("admin")))
    assert str(refused.value) == refused.value.message_en and f"{MESSAGE_CHARS:,}" in str(refused.value)

    result = run_cli("ask", "売上" * (MESSAGE_CHARS // 2 + 1))
    assert result.exit_code == 2 and f"上限は{MESSAGE_CHARS:,}文字" in result.output

