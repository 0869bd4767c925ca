"""A model behind the restaurant's phone (Chat Completions, streamed from a local server in OpenAI's wire
format): the first sentence is on its way while the model still writes, an interrupt stops it, and
every request carries the catalog's rules and the order so far in the newest user message."""

from __future__ import annotations

import asyncio
import json
import threading

import sqlalchemy as sa
from agent_fakes import streamed_calls, streamed_text
from phone_caller import dial, stored_conversation

from concierge.demo.restaurant import tables as restaurant
from concierge.storage.state import audit as audit_table
from concierge.web.phone import relay
from concierge.web.phone.identity import session_for

CALLER = "+819012345678"


def test_the_first_sentence_leaves_before_the_answer_is_complete(llm_phone, wire_server):
    held = threading.Event()  # the model's answer stops here until the caller has heard its first sentence
    wire_server.enqueue((200, streamed_text("お電話", "ありがとうございます。", held, "ご注文を", "どうぞ。")))

    async def call():
        async with dial(llm_phone) as c:
            await c.send({"type": "prompt", "voicePrompt": "もしもし", "lang": "ja-JP", "last": True})
            first = await c.listen(tokens=1)
            complete = held.is_set()
            held.set()
            return first, complete, await c.listen()

    first, complete_before_first, rest = asyncio.run(call())
    assert not complete_before_first
    assert first.tokens == ["お電話ありがとうございます。"]
    assert rest.tokens == ["ご注文をどうぞ。", ""]
    body = wire_server.requests[0]["body"]
    assert body["stream"] is True
    assert "phone call" in body["messages"][0]["content"]  # the model is told its answer is spoken


def test_an_interrupt_stops_the_answer_and_only_what_was_heard_is_kept(llm_phone, wire_server, sqlite_url,
                                                                       monkeypatch):
    held = threading.Event()
    interrupted = threading.Event()  # set once the server has read the interrupt and stopped the answer
    interrupt = relay.Speaker.interrupt

    def interrupt_then_signal(speaker: relay.Speaker, heard: str) -> None:
        interrupt(speaker, heard)
        interrupted.set()

    monkeypatch.setattr(relay.Speaker, "interrupt", interrupt_then_signal)
    wire_server.enqueue(
        (200, streamed_text("本日のお弁当は唐揚げ弁当、のり弁当、鮭弁当です。", held, "唐揚げ弁当は690円です。",
                            "のり弁当は450円です。", delay_s=0.05)),
        (200, streamed_text("かしこまりました。")),
    )

    async def call():
        async with dial(llm_phone, caller=CALLER, call_sid="CA" + "c" * 32) as c:
            await c.send({"type": "prompt", "voicePrompt": "お弁当は何がありますか", "lang": "ja-JP", "last": True})
            first = await c.listen(tokens=1)
            await c.send({"type": "interrupt", "utteranceUntilInterrupt": "本日のお弁当は唐揚げ弁当、",
                          "durationUntilInterruptMs": "900"})
            # the interrupt is read before the model's next words arrive
            assert await asyncio.to_thread(interrupted.wait, 10)
            held.set()
            return first, await c.say("唐揚げ弁当をください")

    first, after = asyncio.run(call())
    assert first.tokens == ["本日のお弁当は唐揚げ弁当、のり弁当、鮭弁当です。"]
    assert after.tokens == ["かしこまりました。", ""]  # nothing more of the interrupted answer
    stored = stored_conversation(sqlite_url, session_for(CALLER, "CA" + "c" * 32), "phone")
    answers = [m["text"] for m in stored if m["role"] == "assistant"]
    assert answers == ["本日のお弁当は唐揚げ弁当、…", "かしこまりました。"]
    second = wire_server.requests[1]["body"]["messages"]
    assert [m["content"] for m in second if m["role"] == "assistant"] == ["本日のお弁当は唐揚げ弁当、…"]


def _last_user(body: dict) -> str:
    return [m["content"] for m in body["messages"] if m["role"] == "user"][-1]


def test_an_order_through_the_model_with_rules_and_state_every_request(llm_phone, wire_server, sqlite_url):
    def thanks_with_number(body: dict):
        done = json.loads([m for m in body["messages"] if m["role"] == "tool"][-1]["content"])
        ticket = done["rows"][0]["ticket"]
        return 200, streamed_text(f"ご注文を承りました。受付番号は{ticket}番です。", "18時30分にお待ちしております。")

    wire_server.enqueue(
        (200, streamed_calls(("call_1", "add_item", {"item": "唐揚げ弁当", "quantity": 2, "option": None}))),
        (200, streamed_text("唐揚げ弁当を2つ、合計1,380円です。", "お受け取りは何時ですか？")),
        (200, streamed_calls(("call_2", "set_pickup_time", {"pickup_time": "18:30"}))),
        (200, streamed_calls(("call_3", "confirm_order", {}))),  # after the time is set: one reply's calls run at once
        thanks_with_number,
    )

    async def call():
        async with dial(llm_phone, caller=CALLER) as c:
            said = [await c.say("唐揚げ弁当を2つ"), await c.say("18時半に取りに行きます"), await c.say("はい")]
            return [*said, c.call_sid]

    added, read_back, done, call_sid = asyncio.run(call())
    assert added.tokens == ["唐揚げ弁当を2つ、合計1,380円です。", "お受け取りは何時ですか？", ""]
    assert "1,380円" in read_back.text and "18時30分" in read_back.text and read_back.text.endswith("？")
    assert done.tokens == ["ご注文を承りました。", "受付番号は1番です。", "18時30分にお待ちしております。", ""]
    first, after_add = (_last_user(r["body"]) for r in wire_server.requests[:2])
    assert "add_item" in first and "まだご注文はありません" in first  # the rules, and the state: nothing yet
    assert "唐揚げ弁当2つ" in after_add and "1,380円" in after_add  # the state after the call, in the next request
    engine = sa.create_engine(sqlite_url)
    with engine.connect() as conn:
        [order] = conn.execute(sa.select(restaurant.restaurant_orders)).mappings().all()
    assert (order["caller"], order["total"], order["pickup_time"]) == (CALLER, 1380, "18:30")
    with engine.connect() as conn:  # the state read for each model request is audited as the agent's own
        sources = conn.execute(sa.select(audit_table.c.source, audit_table.c.tool)).all()
    engine.dispose()
    context = {tool for source, tool in sources if source == f"context phone {call_sid}"}
    assert context == {"read_order"}
