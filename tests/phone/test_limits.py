"""What one caller (or one socket) may ask of the phone channel, repeated against the real server:
a prompt's length (whole or in partial prompts), a message's size, calls at once from one number and in
all, sockets that never say who they are, and a call's length."""

from __future__ import annotations

import asyncio
import json
import random
from contextlib import AsyncExitStack

import pytest
from phone_caller import audit_lines, dial, incoming, relay_socket, setup, until_closed
from websockets.exceptions import InvalidStatus

from concierge.pipeline import audit
from concierge.web.phone import gate, relay
from concierge.web.phone.credential import PARAMETER

CALLER, OTHER, THIRD = "+819012345678", "+819087654321", "+819011112222"


def _gibberish(n: int) -> str:
    """Kana and kanji of the menu at random: the offline planner's slowest kind of text (seconds at 4,000)."""
    pick = random.Random(1).choice
    return "".join(pick("あいうえおかきくけこ唐揚げ弁当のり鮭") for _ in range(n))


def test_a_prompt_over_the_limit_is_not_run_and_does_not_delay_another_caller(restaurant_phone):
    async def long_caller():
        async with dial(restaurant_phone, caller=CALLER) as c:
            return await c.say(_gibberish(4000))

    async def other_caller():
        async with dial(restaurant_phone, caller=OTHER) as c:
            await asyncio.sleep(0.3)  # the long prompt is in first
            return await c.say("こんにちは")

    async def both():
        return await asyncio.gather(long_caller(), other_caller())

    too_long, hello = asyncio.run(both())
    assert "こんにちは" in hello.text and hello.total_s < 2  # not kept waiting behind the long prompt
    assert too_long.tokens == [relay.TOO_LONG_WORDS["ja"]] and too_long.total_s < 2  # "please say it shorter"


def test_partial_prompts_are_buffered_up_to_the_limit_only(serve):
    async def call():
        async with dial(url) as c:
            for _ in range(20):  # 10,000 characters in pieces, the prompt not yet over
                await c.send({"type": "prompt", "voicePrompt": "あ" * 500, "lang": "ja-JP", "last": False})
            over = await c.say("ください")  # its last piece
            return over, await c.say("こんにちは")  # the next prompt starts from nothing

    with serve(max_prompt_chars=1000) as url:
        over, after = asyncio.run(call())
    assert over.tokens == [relay.TOO_LONG_WORDS["ja"]]
    assert "こんにちは" in after.text


def test_a_prompt_within_the_limit_in_pieces_is_one_turn(serve):
    async def call():
        async with dial(url) as c:
            await c.send({"type": "prompt", "voicePrompt": "こんに", "lang": "ja-JP", "last": False})
            return await c.say("ちは")

    with serve(max_prompt_chars=5) as url:
        assert "こんにちは" in asyncio.run(call()).text


def test_a_message_over_64_kib_closes_the_socket(farm_phone):
    async def call():
        async with dial(farm_phone) as c:
            await c.send({"type": "something-new", "padding": "x" * 60_000})  # big, within the limit: ignored
            hello = await c.say("こんにちは")
            await c.socket.send("x" * (gate.MAX_MESSAGE_BYTES + 1))
            return hello, await until_closed(c.socket, timeout_s=5)

    hello, (code, said) = asyncio.run(call())
    assert "こんにちは" in hello.text
    assert code == 1009 and said == []


def test_a_third_call_from_one_number_hears_the_line_is_busy(serve):
    async def calls():
        async with AsyncExitStack() as stack:
            first = await stack.enter_async_context(dial(url, caller=CALLER))
            await stack.enter_async_context(dial(url, caller=CALLER))
            async with dial(url, caller=CALLER) as third:
                busy = await third.listen()
                end = await third.listen()
                closed = await until_closed(third.socket, timeout_s=5)
            async with dial(url, caller=OTHER) as other:
                hello = await other.say("こんにちは")
            return busy, end, closed, hello, await first.say("こんにちは")

    with serve(max_calls_per_caller=2) as url:
        busy, end, (code, _), hello, still = asyncio.run(calls())
    assert busy.tokens == [relay.BUSY_WORDS["ja"]]
    assert end.end is not None and end.end["reason"] == "busy" and code == 1000
    assert "こんにちは" in hello.text and "こんにちは" in still.text  # other numbers, and the calls under way


def test_a_call_over_the_limit_of_calls_in_all_hears_the_line_is_busy(serve):
    async def calls():
        async with dial(url, caller=CALLER), dial(url, caller=OTHER), dial(url, caller=THIRD) as third:
            return await third.listen()

    with serve(max_calls=2) as url:
        busy = asyncio.run(calls())
    assert busy.tokens == [relay.BUSY_WORDS["ja"]]


def test_sockets_that_never_send_setup_are_closed_and_limited(serve, monkeypatch):
    monkeypatch.setattr(gate, "SETUP_TIMEOUT_S", 1.0)

    async def idle() -> tuple[int, list, int]:
        first, second, third = [await incoming(url) for _ in range(3)]
        async with relay_socket(first.relay_url) as one, relay_socket(second.relay_url):
            with pytest.raises(InvalidStatus) as refused:  # as many wait as there may be calls
                async with relay_socket(third.relay_url):
                    pass
            code, said = await until_closed(one, timeout_s=5)  # no setup in time
        return refused.value.response.status_code, said, code

    with serve(max_calls=2) as url:
        status, said, code = asyncio.run(idle())
        after = asyncio.run(_hello(url))
    assert status == 403 and (code, said) == (1008, [])
    assert "こんにちは" in after


async def _hello(url: str) -> str:
    async with dial(url) as c:
        return (await c.say("こんにちは")).text


def test_a_call_that_lasts_too_long_is_ended_politely(serve):
    async def call():
        async with dial(url, caller=CALLER) as c:
            order = await c.say("唐揚げ弁当を2つください")
            goodbye = await c.listen()
            end = await c.listen()
            return order, goodbye, end, await until_closed(c.socket, timeout_s=5)

    with serve(catalogs=("restaurant",), user="phone", catalog="restaurant", max_call_s=1.5) as url:
        order, goodbye, end, (code, _) = asyncio.run(call())
    assert "唐揚げ弁当" in order.text
    assert goodbye.tokens == [relay.TIME_UP_WORDS["ja"]]
    assert end.end is not None and end.end["reason"] == "time_limit" and code == 1000


def test_the_limits_are_settings_that_must_be_positive(tmp_path):
    from pydantic import ValidationError

    from concierge.settings import PhoneSettings, load_settings

    for bad in ({"max_prompt_chars": 0}, {"max_calls": 0}, {"max_calls_per_caller": 0}, {"max_call_s": 0}):
        with pytest.raises(ValidationError):
            PhoneSettings(**bad)
    defaults = PhoneSettings()
    assert (defaults.max_prompt_chars, defaults.max_calls, defaults.max_calls_per_caller, defaults.max_call_s) == (
        1000, 20, 2, 900)
    environ = {"CONCIERGE_PHONE_MAX_CALL_S": "1.5", "CONCIERGE_PHONE_MAX_CALLS_PER_CALLER": "1"}
    phone = load_settings(environ=environ, cwd=tmp_path).phone
    assert (phone.max_call_s, phone.max_calls_per_caller) == (1.5, 1)


def test_a_flood_of_refused_sockets_adds_a_bounded_number_of_audit_rows(serve, sqlite_url):
    """Sockets whose setup carries no valid credential are strangers: their refusals are audited as every
    unauthenticated refusal is, 20 lines a minute per source and kind, then one summary line."""
    flood = 60

    async def knock() -> None:
        for i in range(flood):
            answered = await incoming(url)  # each socket on a relay URL of its own, its setup's credential forged
            async with relay_socket(answered.relay_url) as socket:
                await socket.send(json.dumps(setup(f"CA{i:032d}", CALLER, {PARAMETER: "0.forged.mac"})))
                await until_closed(socket, timeout_s=5)

    with serve() as url:
        asyncio.run(knock())
    refused = [line for line in audit_lines(sqlite_url) if line["decision"] == "refused:bad_call_credential"]
    assert len(refused) == audit.NOISE_LINES + 1, len(refused)
    [summary] = [line for line in refused if "more" in json.loads(line["args"])]
    assert json.loads(summary["args"])["more"] == flood - audit.NOISE_LINES


def test_a_captured_relay_handshake_holds_one_waiting_socket_at_most_and_calls_get_through(serve, monkeypatch):
    """The red team's starvation: one captured handshake (URL and signature) reconnected over and over. Each
    TwiML's relay URL is its own (a ticket), so it opens one socket at most and the lines stay free."""
    monkeypatch.setattr(gate, "SETUP_TIMEOUT_S", 2.0)

    async def starve() -> tuple[list[int], str]:
        captured = await incoming(url)
        statuses = []
        async with relay_socket(captured.relay_url):
            for _ in range(5):
                try:
                    async with relay_socket(captured.relay_url):
                        statuses.append(101)
                except InvalidStatus as refused:
                    statuses.append(refused.response.status_code)
            return statuses, await _hello(url)

    with serve(max_calls=2) as url:
        statuses, hello = asyncio.run(starve())
    assert statuses == [403] * 5
    assert "こんにちは" in hello
