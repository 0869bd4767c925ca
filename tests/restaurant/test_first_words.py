"""The first thing a caller hears back: a caller who only says they want to order is asked what they would like
(the catalog's `answer.ask`), never told that an item's name is missing; the start-up line says in sentences
what keeps calls from being taken."""

from __future__ import annotations

import pytest

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider
from concierge.cli.serve_cmd import _phone_line
from concierge.settings import PhoneSettings

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(("said", "heard"), [
    ("もしもし、注文をお願いしたいのですが", "はい、ご注文を承ります。何になさいますか？"),
    ("注文したいです", "はい、ご注文を承ります。何になさいますか？"),
    ("Hi, I'd like to place an order", "Sure, I can take your order. What would you like?"),
])
async def test_wanting_to_order_is_answered_with_a_question(restaurant, phone, said, heard):
    turn = await Agent(restaurant, OfflineProvider(restaurant)).ask(said, phone)
    assert turn.answer == heard and turn.calls == []


async def test_an_item_named_is_still_asked_about_as_before(restaurant, phone):
    turn = await Agent(restaurant, OfflineProvider(restaurant)).ask("大盛りで", phone)
    assert "何になさいますか" not in turn.answer


def test_the_start_up_line_says_what_keeps_calls_out_in_sentences(restaurant, monkeypatch):
    monkeypatch.delenv("TWILIO_AUTH_TOKEN", raising=False)
    line = _phone_line(restaurant, PhoneSettings(user="nobody"), "https://example.test")
    assert line.startswith("phone: Twilio webhook POST https://example.test/phone/twiml (docs/phone.md).")
    assert "Calls are refused for now:" in line
    assert "No user named 'nobody' (the setting phone.user) answers the calls." in line
    assert "`concierge user add nobody --role ROLE`" in line
    assert "TWILIO_AUTH_TOKEN is not set, so every phone request is refused." in line
    assert "refused until:" not in line
