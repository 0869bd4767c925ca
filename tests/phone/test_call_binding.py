"""A socket speaks for one call only: the call Twilio's signed POST /phone/twiml named.

The socket's X-Twilio-Signature covers only its URL (one value for every call, which replays), so each
attack here opens a socket signed exactly as Twilio's and tries to speak for a call that is not its own:
the victim's callSid and from without the call credential, with a credential already used, with another
call's credential, a second `setup` on a socket of its own, a hang-up after naming the victim's call.
Every one is closed (1008) or ignored, leaves an audit refusal, and the victim's order is untouched.
"""

from __future__ import annotations

import asyncio
import json
import time

import httpx2
import pytest
import sqlalchemy as sa
from phone_caller import (
    TOKEN,
    audit_lines,
    call_params,
    dial,
    incoming,
    post_signed,
    relay_socket,
    setup,
    signed,
    until_closed,
)
from websockets.exceptions import InvalidStatus

from concierge.demo.restaurant import tables as restaurant
from concierge.web.phone.credential import PARAMETER
from concierge.web.phone.identity import session_for

VICTIM, INTRUDER = "+819012345678", "+819087654321"
ORDER = ("唐揚げ弁当を2つください", "18時半に受け取りに行きます", "以上でお願いします")


def _refusals(url: str, code: str) -> list[dict]:
    return [line for line in audit_lines(url) if line["decision"] == f"refused:{code}"]


def _wait_for(url: str, found, what: str) -> list[dict]:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        lines = audit_lines(url)
        if found(lines):
            return lines
        time.sleep(0.05)
    raise AssertionError(f"never audited: {what}: {lines[-5:]}")


def _draft_items(url: str, session: str) -> list[dict]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            table = restaurant.restaurant_draft_items
            return [dict(r) for r in conn.execute(sa.select(table).where(table.c.session == session)).mappings()]
    finally:
        engine.dispose()


def _prompt(words: str) -> str:
    return json.dumps({"type": "prompt", "voicePrompt": words, "lang": "ja-JP", "last": True})


@pytest.mark.parametrize("claim", ["no credential", "the victim's used credential", "another call's credential",
                                   "own credential, the victim's number", "a lone surrogate in from"])
def test_a_socket_that_names_another_call_is_closed_and_the_call_is_untouched(restaurant_phone, sqlite_url, claim):
    async def attack() -> tuple[tuple[int | None, list], str]:
        async with dial(restaurant_phone, caller=VICTIM) as victim:
            await victim.say(ORDER[0])
            own = await incoming(restaurant_phone, params=call_params(caller=INTRUDER))  # a call of the intruder's
            first = {
                "no credential": setup(victim.call_sid, VICTIM),
                "the victim's used credential": setup(victim.call_sid, VICTIM, victim.answered.parameters),
                "another call's credential": setup(victim.call_sid, VICTIM, own.parameters),
                "own credential, the victim's number": setup(own.call_sid, VICTIM, own.parameters),
                "a lone surrogate in from": setup(own.call_sid, INTRUDER + "\ud800", own.parameters),
            }[claim]
            with pytest.raises(InvalidStatus) as replayed:  # the victim's relay URL opens no second socket
                async with relay_socket(victim.answered.relay_url):
                    pass
            assert replayed.value.response.status_code == 403
            async with relay_socket(own.relay_url) as intruder:  # a URL of its own, signed as Twilio's
                await intruder.send(json.dumps(first))
                for words in ("今の注文を確認してください", *ORDER[1:], "はい"):
                    await intruder.send(_prompt(words))
                refused = await until_closed(intruder, timeout_s=5)
            return refused, (await victim.say("今の注文を確認してください")).text

    (code, said_to_intruder), order = asyncio.run(attack())
    assert code == 1008 and said_to_intruder == []  # closed before a word of the order was read to it
    assert "唐揚げ弁当2つ" in order  # the victim's order as it was, not placed
    [refusal] = _refusals(sqlite_url, "bad_call_credential")
    assert refusal["tool"] == "WS /phone/relay" and refusal["user_name"] == "?"
    assert refusal["source"].startswith("phone 127.0.0.1")
    assert len(_refusals(sqlite_url, "replayed")) == 1
    assert not any(line["tool"] == "confirm_order" for line in audit_lines(sqlite_url))


def test_the_twiml_carries_a_short_lived_call_credential(restaurant_phone):
    answered = asyncio.run(incoming(restaurant_phone))
    expires, nonce, mac = answered.parameters[PARAMETER].split(".")
    assert 0 < int(expires) - time.time() <= 60 and nonce and mac


def test_a_second_setup_never_switches_the_socket_to_another_call(restaurant_phone, sqlite_url):
    async def call() -> tuple[str, str, str]:
        async with dial(restaurant_phone, caller=VICTIM) as victim:
            await victim.say(ORDER[0])
            async with dial(restaurant_phone, caller=INTRUDER) as other:
                await other.send(setup(victim.call_sid, VICTIM, victim.answered.parameters))
                order = (await other.say("今の注文を確認してください")).text
                other_sid = other.call_sid
            # the other call hung up: what it discards is its own draft
            await asyncio.to_thread(_wait_for, sqlite_url, lambda lines: any(
                line["tool"] == "discard_order" and line["source"] == f"phone {other_sid}" for line in lines),
                "the other call's discard")
            return order, (await victim.say("今の注文を確認してください")).text, other_sid

    order, victims, other_sid = asyncio.run(call())
    assert "まだご注文はありません" in order  # its own (empty) order, not the victim's
    assert "唐揚げ弁当2つ" in victims
    [refusal] = _refusals(sqlite_url, "second_setup")
    assert other_sid in refusal["message"] and json.loads(refusal["args"])["from"] == VICTIM


def test_a_socket_that_hangs_up_after_naming_another_call_discards_nothing(restaurant_phone, sqlite_url):
    async def call() -> tuple[list[dict], int, str]:
        async with dial(restaurant_phone, caller=VICTIM) as victim:
            await victim.say(ORDER[0])
            own = await incoming(restaurant_phone, params=call_params(caller=INTRUDER))
            async with relay_socket(own.relay_url) as intruder:
                await intruder.send(json.dumps(setup(victim.call_sid, VICTIM)))
            # the intruder hung up at once; the server has refused it (or, before, discarded the victim's draft)
            lines = await asyncio.to_thread(_wait_for, sqlite_url, lambda lines: any(
                line["decision"] == "refused:bad_call_credential" or line["tool"] == "discard_order"
                for line in lines), "the intruder's socket")
            drafts = len(_draft_items(sqlite_url, session_for(VICTIM, victim.call_sid)))
            return lines, drafts, (await victim.say("今の注文を確認してください")).text

    lines, drafts, order = asyncio.run(call())
    assert not any(line["tool"] == "discard_order" for line in lines)
    assert drafts == 1 and "唐揚げ弁当2つ" in order


def test_a_replayed_twiml_request_gets_403(restaurant_phone, sqlite_url):
    url, params = f"{restaurant_phone}/phone/twiml", call_params()
    first = post_signed(url, TOKEN, params)
    replayed = post_signed(url, TOKEN, params)  # the same signature and parameters again
    other = post_signed(url, TOKEN, call_params())  # another call is taken
    assert (first.status_code, replayed.status_code, other.status_code) == (200, 403, 200)
    assert "replay" in replayed.json()["detail"] and PARAMETER not in replayed.text
    [refusal] = _refusals(sqlite_url, "replayed")
    assert refusal["tool"] == "POST /phone/twiml"
    forged = httpx2.post(url, data=params, headers={"X-Twilio-Signature": "Zm9yZ2Vk"})
    assert forged.status_code == 403 and len(_refusals(sqlite_url, "replayed")) == 1  # a bad signature first


def test_a_replay_changed_where_the_signature_stays_the_same_gets_403(restaurant_phone):
    """Twilio signs the names and values run together: an empty field added, or a name's end moved into its
    value, keeps the signature. Such a copy of a call's webhook must not get a credential for that call."""
    url, params = f"{restaurant_phone}/phone/twiml", call_params()
    signature = signed(TOKEN, url, params)
    first = httpx2.post(url, data=params, headers={"X-Twilio-Signature": signature}, timeout=30)
    padded = httpx2.post(url, content=(str(httpx2.QueryParams(params)) + "&=").encode(),
                         headers={"X-Twilio-Signature": signature,
                                  "Content-Type": "application/x-www-form-urlencoded"}, timeout=30)
    assert (first.status_code, padded.status_code) == (200, 403), padded.text
    assert PARAMETER not in padded.text


def test_a_lone_surrogate_in_from_is_replaced_and_the_confirmation_is_audited(restaurant_phone, sqlite_url):
    """JSON escapes carry "\\ud800" in setup.from; the POST's From (valid UTF-8) says U+FFFD there."""
    async def call() -> tuple[str, str]:
        async with dial(restaurant_phone, caller=VICTIM + "\ufffd", setup_from=VICTIM + "\ud800") as c:
            for words in ORDER:
                await c.say(words)
            return c.call_sid, (await c.say("はい")).text

    call_sid, done = asyncio.run(call())
    assert "受付番号は1番" in done
    lines = [(line["decision"], line["source"]) for line in audit_lines(sqlite_url) if line["tool"] == "confirm_order"]
    assert lines == [("confirm", f"phone {call_sid}"), ("ok", f"phone {call_sid}")]  # previewed, then placed
    engine = sa.create_engine(sqlite_url)
    with engine.connect() as conn:
        [caller] = conn.execute(sa.select(restaurant.restaurant_orders.c.caller)).scalars().all()
    engine.dispose()
    assert caller == VICTIM + "\ufffd"
