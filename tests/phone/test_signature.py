"""Only Twilio gets in: every phone request and the socket's handshake carry a valid X-Twilio-Signature."""

from __future__ import annotations

import asyncio

import httpx2
import pytest
import sqlalchemy as sa
from phone_caller import TOKEN, dial, post_signed, signed
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from concierge.storage import state

CALL = {"CallSid": "CA" + "1" * 32, "From": "+819012345678", "To": "+81312345678"}


def refusals(sqlite_url: str) -> list[tuple[str, str]]:
    engine = sa.create_engine(sqlite_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.select(state.audit.c.tool, state.audit.c.decision)
                                .where(state.audit.c.decision == "refused:bad_signature")).all()
    finally:
        engine.dispose()
    return [tuple(r) for r in rows]


def test_a_signed_call_gets_the_relay_twiml(farm_phone):
    response = post_signed(f"{farm_phone}/phone/twiml", TOKEN, CALL)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/xml")
    text = response.text
    assert f'<Connect action="{farm_phone}/phone/action">' in text
    assert f'url="{farm_phone.replace("http://", "ws://")}/phone/relay?ticket=' in text  # this call's own URL
    assert 'language="ja-JP"' in text and 'interruptible="any"' in text
    assert 'welcomeGreeting="お電話ありがとうございます。ご注文をどうぞ。"' in text


@pytest.mark.parametrize("signature", [None, "Zm9yZ2Vk", "other-token"], ids=["missing", "forged", "other-token"])
def test_an_unsigned_or_forged_request_gets_403(farm_phone, sqlite_url, signature):
    url = f"{farm_phone}/phone/twiml"
    if signature == "other-token":  # signed right, with someone else's auth token
        signature = signed("another-account-token", url, CALL)
    headers = {"X-Twilio-Signature": signature} if signature else {}
    response = httpx2.post(url, data=CALL, headers=headers)
    assert response.status_code == 403
    assert "X-Twilio-Signature" in response.json()["detail"]
    assert ("POST /phone/twiml", "refused:bad_signature") in refusals(sqlite_url)


def test_a_signature_for_another_url_or_other_parameters_gets_403(farm_phone):
    url = f"{farm_phone}/phone/twiml"
    elsewhere = httpx2.post(url, data=CALL, headers={"X-Twilio-Signature": signed(TOKEN, url + "x", CALL)})
    changed = httpx2.post(url, data={**CALL, "From": "+819099999999"},
                          headers={"X-Twilio-Signature": signed(TOKEN, url, CALL)})
    assert (elsewhere.status_code, changed.status_code) == (403, 403)


def test_a_forged_handshake_gets_403_and_no_socket(farm_phone, sqlite_url):
    url = farm_phone.replace("http://", "ws://") + "/phone/relay"

    async def attempt(headers: dict[str, str]) -> int:
        with pytest.raises(InvalidStatus) as refused:
            async with connect(url, additional_headers=headers):
                pass
        return refused.value.response.status_code

    async def both() -> list[int]:
        return [await attempt({}), await attempt({"X-Twilio-Signature": signed(TOKEN, url + "/other")})]

    assert asyncio.run(both()) == [403, 403]
    assert ("WS /phone/relay", "refused:bad_signature") in refusals(sqlite_url)


def test_behind_a_proxy_the_public_url_is_what_is_signed(serve):
    public = "https://concierge.example.com"
    with serve(public_url=public) as url:
        local = post_signed(f"{url}/phone/twiml", TOKEN, CALL)
        response = httpx2.post(f"{url}/phone/twiml", data=CALL,
                               headers={"X-Twilio-Signature": signed(TOKEN, f"{public}/phone/twiml", CALL)})
    assert local.status_code == 403
    assert response.status_code == 200
    assert 'url="wss://concierge.example.com/phone/relay?ticket=' in response.text
    assert f'action="{public}/phone/action"' in response.text


def test_without_an_auth_token_every_request_is_refused(serve, monkeypatch):
    monkeypatch.delenv("TWILIO_AUTH_TOKEN")
    with serve() as url:
        response = post_signed(f"{url}/phone/twiml", TOKEN, CALL)
    assert response.status_code == 403
    assert "TWILIO_AUTH_TOKEN is not set" in response.json()["detail"]


def test_the_end_of_a_session_dials_staff_for_a_handover_else_hangs_up(serve):
    with serve(staff_number="+81355550100") as url:
        action = f"{url}/phone/action"
        handover = post_signed(action, TOKEN, {**CALL, "SessionStatus": "ended",
                                               "HandoffData": '{"reason": "handover"}'})
        ended = post_signed(action, TOKEN, {**CALL, "SessionStatus": "ended", "HandoffData": '{"reason": "end"}'})
        hung_up = post_signed(action, TOKEN, {**CALL, "SessionStatus": "completed"})
        junk = post_signed(action, TOKEN, {**CALL, "SessionStatus": "ended", "HandoffData": "not json"})
        forged = httpx2.post(action, data={**CALL, "HandoffData": '{"reason": "handover"}'})
    assert "<Dial>+81355550100</Dial>" in handover.text
    for response in (ended, hung_up, junk):
        assert response.status_code == 200 and "<Hangup />" in response.text
    assert forged.status_code == 403


def test_a_scripted_call_connects_with_the_signed_twiml_url(farm_phone):
    async def call() -> str:
        async with dial(farm_phone) as c:
            return (await c.say("こんにちは")).text

    assert asyncio.run(call())
