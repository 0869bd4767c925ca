"""`concierge serve` as a user runs it answers the phone: settings from the environment, a whole call."""

from __future__ import annotations

import asyncio

from phone_caller import TOKEN, dial, post_signed
from web_fakes import concierge_serve


def test_concierge_serve_takes_a_call_for_the_restaurant(sqlite_url, monkeypatch):
    monkeypatch.setenv("TWILIO_AUTH_TOKEN", TOKEN)
    monkeypatch.setenv("CONCIERGE_PHONE_CATALOG", "restaurant")
    monkeypatch.setenv("CONCIERGE_PHONE_GREETING", "はい、まんぷく食堂です。")

    async def call(url: str) -> tuple[str, str]:
        async with dial(url) as c:
            return (await c.say("唐揚げ弁当を2つください")).text, (await c.say("今の注文を確認してください")).text

    with concierge_serve(sqlite_url, "--catalog", "restaurant") as served:
        twiml = post_signed(f"{served.url}/phone/twiml", TOKEN, {"CallSid": "CA1", "From": "+819012345678"}).text
        added, order = asyncio.run(call(served.url))
    assert 'welcomeGreeting="はい、まんぷく食堂です。"' in twiml
    assert "唐揚げ弁当" in added and "1,380円" in added
    assert "合計1,380円" in order
