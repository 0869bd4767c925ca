"""PostgreSQL stopping just after a phone order committed: the caller hears that the order was placed and is put
through to staff, never 「ただいまお受けできません」 (a caller told that would order again)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from db_faults import database_down
from demo_databases import with_demos
from phone_caller import TOKEN, dial
from sqlalchemy import event
from web_fakes import live

from concierge.settings import PhoneSettings

pytestmark = pytest.mark.postgres


class StopAfterOrder:
    """Every engine of this process: once an order's INSERT has run, the database stops as its connection goes
    back to the pool (the order committed)."""

    def __init__(self, pg_server: dict, url: str):
        self.pg_server, self.url = pg_server, url
        self.armed = False
        self.outage: Any = None

    def seen(self, _conn, _cursor, statement: str, *_: Any) -> None:
        if statement.lstrip().startswith("INSERT INTO restaurant_orders") and self.outage is None:
            self.armed = True

    def back(self, *_: Any) -> None:
        if self.armed:
            self.armed = False
            self.outage = database_down(self.pg_server, self.url)
            self.outage.__enter__()


@pytest.fixture
def stopping(pg_server, pg_url) -> Iterator[StopAfterOrder]:
    watch = StopAfterOrder(pg_server, pg_url)
    event.listen(sa.engine.Engine, "before_cursor_execute", watch.seen)
    event.listen(sa.pool.Pool, "checkin", watch.back)
    try:
        yield watch
    finally:
        event.remove(sa.pool.Pool, "checkin", watch.back)
        event.remove(sa.engine.Engine, "before_cursor_execute", watch.seen)
        if watch.outage is not None:
            watch.outage.__exit__(None, None, None)


def test_a_caller_whose_order_was_placed_before_the_database_stopped_hears_it_was_placed(pg_url, stopping,
                                                                                          monkeypatch):
    monkeypatch.setenv("TWILIO_AUTH_TOKEN", TOKEN)
    with_demos(pg_url, "restaurant")
    phone = PhoneSettings(user="phone", catalog="restaurant", staff_number="+81355550100")

    async def call(base: str):
        async with dial(base) as c:
            await c.say("唐揚げ弁当を2つください")
            await c.say("18時半に受け取りに行きます")
            assert "よろしいですか" in (await c.say("以上でお願いします")).text
            return await c.say("はい"), await c.listen()

    with live(pg_url, None, catalogs=("restaurant",), phone=phone) as base:
        heard, then = asyncio.run(call(base))
    assert stopping.outage is not None, "the database did not stop after the order"
    assert "ご注文は承りました" in heard.text and "お受けできません" not in heard.text
    assert then.end is not None and then.end["reason"] == "handover"  # put through to staff
    stopping.outage.__exit__(None, None, None)
    stopping.outage = None
    engine = sa.create_engine(pg_url)
    try:
        with engine.connect() as conn:
            assert conn.scalar(sa.text("SELECT COUNT(*) FROM restaurant_orders")) == 1
    finally:
        engine.dispose()
