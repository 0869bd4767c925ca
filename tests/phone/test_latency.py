"""Where each turn's time went, on every channel: one log line per turn, the figures in the turn."""

from __future__ import annotations

import asyncio
import logging

import pytest
from agent_fakes import answer, calls
from phone_caller import dial

from concierge.agent.loop import Agent
from concierge.agent.streaming import Speech
from concierge.demo.bootstrap import open_pipeline

pytestmark = pytest.mark.anyio


@pytest.fixture
def farm(sqlite_url):
    pipeline = open_pipeline(["farm"], sqlite_url)
    yield pipeline
    pipeline.close()


async def test_a_turn_logs_its_phases_and_carries_them(farm, provider, caplog):
    provider.enqueue(calls(("get_customers", {"code_customer": "0016"})), answer("松本理恵様です。"))
    caplog.set_level(logging.INFO, logger="concierge.latency")
    turn = await Agent(farm, provider).ask("0016は誰？", farm.user("admin"))
    t = turn.timings
    assert len(t.model_ms) == 2 and len(t.tool_ms) == 1
    assert t.first_text_ms is not None and t.first_text_ms <= t.total_ms
    [line] = [r.getMessage() for r in caplog.records if r.name == "concierge.latency"]
    assert line.startswith(f"turn {turn.session_id} (admin): decide ")
    assert " · get_customers " in line and " · first text " in line and " · total " in line


async def test_a_speaking_channel_gets_the_answer_and_its_first_text_time(farm, provider):
    heard: list[str] = []

    async def on_text(text: str) -> None:
        heard.append(text)

    provider.enqueue(calls(("get_customers", {"code_customer": "0016"})), answer("松本理恵様です。"))
    turn = await Agent(farm, provider).ask("0016は誰？", farm.user("admin"), speech=Speech(on_text))
    assert heard == ["松本理恵様です。"]  # a provider that does not stream: the answer in one piece
    assert turn.timings.first_text_ms is not None


def test_the_phone_logs_prompt_to_first_text_per_turn(farm_phone, caplog):
    caplog.set_level(logging.INFO, logger="concierge.latency")

    async def call() -> None:
        async with dial(farm_phone) as c:
            await c.say("こんにちは")

    asyncio.run(call())
    lines = [r.getMessage() for r in caplog.records if r.name == "concierge.latency"]
    assert any(line.startswith("turn ") for line in lines)
    assert any(line.startswith("phone turn ") and "prompt to first text" in line for line in lines)
