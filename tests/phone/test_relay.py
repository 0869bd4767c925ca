"""A call through ConversationRelay's messages, with the offline planner behind it (farm demo).

The order flow of a phone order: a request, the write read back as a question, はい, written once.
"""

from __future__ import annotations

import asyncio
import json

import pytest
import sqlalchemy as sa
from phone_caller import dial, stored_conversation

from concierge.demo.farm import tables as farm
from concierge.web.phone.identity import session_for

SALE = "販売登録して。0016のお客様に先週火曜日かぼちゃ4個を600円で売った"
CALLER = "+819012345678"


def sales(url: str) -> int:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.scalar(sa.select(sa.func.count()).select_from(farm.farm_sales))
    finally:
        engine.dispose()


def test_a_write_is_read_back_and_written_once_after_hai(farm_phone, sqlite_url):
    before = sales(sqlite_url)

    async def call() -> list:
        async with dial(farm_phone, caller=CALLER, call_sid="CA" + "a" * 32) as c:
            return [await c.say(SALE), await c.say("はい"), await c.say("はい")]

    read_back, done, again = asyncio.run(call())
    # the catalog's confirmation sentence, asked
    assert read_back.text == ("松本理恵様（0016）に、5月6日火曜日の販売「かぼちゃ4個」600円を登録します"
                              "（まだ登録していません）。よろしいですか？")
    assert read_back.messages[-1] == {"type": "text", "token": "", "last": True}
    assert all(m["type"] == "text" and m.get("interruptible") is True for m in read_back.messages[:-1])
    assert "登録しました" in done.text and "5月6日" in done.text  # the date as it is said, not 2025-05-06
    assert "登録しました" not in again.text  # a second はい has nothing to confirm
    assert sales(sqlite_url) == before + 1
    stored = stored_conversation(sqlite_url, session_for(CALLER, "CA" + "a" * 32), "admin")
    assert [m["role"] for m in stored][:2] == ["user", "assistant"] and stored[0]["text"] == SALE


def test_no_cancels_the_write(farm_phone, sqlite_url):
    before = sales(sqlite_url)

    async def call() -> str:
        async with dial(farm_phone) as c:
            await c.say(SALE)
            return (await c.say("いいえ")).text

    assert "取り消しました" in asyncio.run(call())
    assert sales(sqlite_url) == before


def test_a_dropped_call_writes_nothing_and_the_next_call_starts_fresh(farm_phone, sqlite_url):
    before = sales(sqlite_url)

    async def first_call() -> None:
        async with dial(farm_phone, caller=CALLER) as c:
            await c.say(SALE)  # read back; the line drops before the caller says はい

    async def second_call() -> str:
        async with dial(farm_phone, caller=CALLER) as c:
            return (await c.say("はい")).text

    asyncio.run(first_call())
    assert "登録しました" not in asyncio.run(second_call())
    assert sales(sqlite_url) == before


def test_unknown_and_broken_messages_are_ignored(farm_phone):
    async def call() -> str:
        async with dial(farm_phone) as c:
            await c.socket.send("not json")
            await c.socket.send("[1, 2]")
            await c.send({"type": "something-new", "value": 1})
            await c.send({"type": "error", "description": "a Twilio error"})
            await c.send({"type": "dtmf", "digit": "5"})  # not the handover digit
            await c.send({"type": "interrupt", "utteranceUntilInterrupt": "", "durationUntilInterruptMs": "12"})
            return (await c.say("こんにちは")).text

    assert "こんにちは" in asyncio.run(call())


@pytest.mark.parametrize("digit", ["0", "#"])
def test_the_handover_digit_ends_the_session_for_a_person(serve, digit):
    async def call() -> dict:
        async with dial(url, call_sid="CA" + "b" * 32) as c:
            await c.send({"type": "dtmf", "digit": digit})
            return (await c.listen()).__dict__ | {"more": (await c.listen()).end}

    with serve(handover_digit=digit, staff_number="+81355550100") as url:
        reply = asyncio.run(call())
    assert reply["tokens"] == ["担当者におつなぎします。"]
    assert reply["more"] == {"reason": "handover", "callSid": "CA" + "b" * 32,
                             "sessionId": session_for("+819012345678", "CA" + "b" * 32)}


def test_an_english_caller_is_answered_in_english(farm_phone):
    async def call():
        async with dial(farm_phone) as c:
            return await c.say("Hello", lang="en-US")

    reply = asyncio.run(call())
    assert reply.messages[0] == {"type": "language", "ttsLanguage": "en-US", "transcriptionLanguage": "en-US"}
    assert reply.text.startswith("Hello")


def test_the_handoff_data_is_a_json_encoded_string(serve):
    async def call() -> dict:
        async with dial(url) as c:
            await c.send({"type": "dtmf", "digit": "0"})
            while True:
                message = json.loads(await c.socket.recv())
                if message["type"] == "end":
                    return message

    with serve() as url:
        end = asyncio.run(call())
    assert isinstance(end["handoffData"], str) and json.loads(end["handoffData"])["reason"] == "handover"
