"""What a call leaves behind when it ends: a placed order stays; a call that drops or hangs up before
はい leaves no order and no draft row (the catalog's `phone.discard_tool`, through the pipeline and
audited); the agent's own reads of the order for the model's context are audited as such."""

from __future__ import annotations

import asyncio
import time

import sqlalchemy as sa
from phone_caller import audit_lines, dial

from concierge.demo.restaurant import tables as restaurant
from concierge.web.phone.identity import session_for

CALLER = "+819012345678"
ORDER = ("唐揚げ弁当を大盛りで2つと、ウーロン茶を3本ください", "18時半に受け取りに行きます", "以上でお願いします")


def _rows(url: str, table: sa.Table, session: str | None = None) -> list[dict]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            query = sa.select(table) if session is None else sa.select(table).where(table.c.session == session)
            return [dict(r) for r in conn.execute(query).mappings().all()]
    finally:
        engine.dispose()


def _after_the_call_ended(url: str, call_sid: str) -> list[dict]:
    """The audit once the server has closed the call: its discard line is the last thing a call writes."""
    source = f"phone {call_sid}"
    deadline = time.monotonic() + 30  # the server finishes the call after the socket closes; wait for it
    while time.monotonic() < deadline:
        lines = audit_lines(url)
        if any(line["tool"] == "discard_order" and line["source"] == source for line in lines):
            return lines
        time.sleep(0.05)
    raise AssertionError(f"the call {call_sid} never discarded its draft: {audit_lines(url)[-5:]}")


def test_a_dropped_call_leaves_no_draft_row(restaurant_phone, sqlite_url):
    async def dropped() -> tuple[str, list[str]]:
        async with dial(restaurant_phone, caller=CALLER) as c:
            said = [(await c.say("唐揚げ弁当2つとのり弁当1つ")).text, (await c.say("18時半に受け取りに行きます")).text]
            drafts = _rows(sqlite_url, restaurant.restaurant_draft_items, session_for(CALLER, c.call_sid))
            return c.call_sid, [*said, str(len(drafts))]  # the line drops here, mid-order

    call_sid, (added, pickup, drafted) = asyncio.run(dropped())
    assert "1,830円" in added and "18時30分" in pickup and drafted == "2"  # the draft was there during the call
    lines = _after_the_call_ended(sqlite_url, call_sid)
    session = session_for(CALLER, call_sid)
    assert _rows(sqlite_url, restaurant.restaurant_draft_items, session) == []
    assert _rows(sqlite_url, restaurant.restaurant_drafts, session) == []
    assert _rows(sqlite_url, restaurant.restaurant_orders) == []
    [discard] = [line for line in lines if line["tool"] == "discard_order"]
    assert (discard["user_name"], discard["decision"], discard["rows"]) == ("phone", "ok", 1)


def test_a_placed_order_stays_when_the_call_ends(restaurant_phone, sqlite_url):
    async def placed() -> tuple[str, str]:
        async with dial(restaurant_phone, caller=CALLER) as c:
            for words in ORDER:
                await c.say(words)
            return c.call_sid, (await c.say("はい")).text

    call_sid, done = asyncio.run(placed())
    assert "受付番号は1番" in done
    _after_the_call_ended(sqlite_url, call_sid)
    [order] = _rows(sqlite_url, restaurant.restaurant_orders)
    assert (order["caller"], order["total"], order["pickup_time"]) == (CALLER, 2030, "18:30")
    assert len(_rows(sqlite_url, restaurant.restaurant_order_items)) == 2
    assert _rows(sqlite_url, restaurant.restaurant_draft_items) == []


def test_a_call_with_the_planner_audits_what_the_call_did_and_its_state_reads_apart(restaurant_phone, sqlite_url):
    """The order state is read for a model's prompt every step (tests/phone/test_streaming.py); the offline
    planner reads the order's lines once a turn, once something was ordered. Those reads are audited as the agent's
    context, apart from the calls the call made."""
    async def call() -> str:
        async with dial(restaurant_phone, caller=CALLER) as c:
            await c.say("唐揚げ弁当を2つください")
            await c.say("今の注文を確認してください")
            return c.call_sid

    call_sid = asyncio.run(call())
    lines = [line for line in _after_the_call_ended(sqlite_url, call_sid) if call_sid in (line["source"] or "")]
    made = [line for line in lines if line["source"] == f"phone {call_sid}"]
    assert [line["tool"] for line in made] == ["add_item", "read_order", "discard_order"]  # in order
    context = [line for line in lines if line["source"] == f"context phone {call_sid}"]
    assert [line["tool"] for line in context] == ["read_order"]  # as the second turn began, after the first's add
