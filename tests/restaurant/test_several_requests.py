"""A caller saying several things in one breath, with no comma between them: every part is carried out, or nothing
is and the answer says which words it could not place; an item is never dropped from the order, and a time of
day is never read as a quantity (planner/plan.py `_parts`, planner/unplaced.py)."""

from __future__ import annotations

import pytest

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider
from concierge.pipeline.access import Session

pytestmark = pytest.mark.anyio


class Call:
    def __init__(self, restaurant, phone):
        self.restaurant, self.phone = restaurant, phone
        self.agent = Agent(restaurant, OfflineProvider(restaurant))
        self.session_id: str | None = None

    async def say(self, text: str):
        turn = await self.agent.ask(text, self.phone, session_id=self.session_id, auto_confirm=True)
        self.session_id = turn.session_id
        return turn

    def order(self) -> tuple[dict[tuple[str, str | None], int], str | None]:
        rows = self.restaurant.invoke("read_order", {}, self.phone, session=Session(self.session_id or "")).rows
        return {(r["item"], r["option"]): r["quantity"] for r in rows if r["item"]}, next(
            (r["pickup_time"] for r in rows if r.get("pickup_time")), None)


@pytest.fixture
def call(restaurant, phone) -> Call:
    return Call(restaurant, phone)


@pytest.mark.parametrize(("said", "lines", "pickup"), [
    ("生姜焼き弁当ふたつ 6時半に取りに行きます", {("生姜焼き弁当", None): 2}, "18:30"),
    ("ハンバーグ弁当2つと枝豆で 7時半受け取り", {("ハンバーグ弁当", None): 2, ("枝豆", None): 1}, "19:30"),
    ("two beef bowls pick up at 7", {("牛丼", None): 2}, "19:00"),
    ("鮭弁当 ひとつ 7時で", {("鮭弁当", None): 1}, "19:00"),
])
async def test_items_and_a_pickup_time_said_in_one_breath_are_both_taken(call, said, lines, pickup):
    await call.say(said)
    assert call.order() == (lines, pickup)


async def test_a_time_said_alone_to_an_order_is_its_pickup_time(call):
    await call.say("のり弁当ひとつ")
    turn = await call.say("7時で")
    assert call.order() == ({("のり弁当", None): 1}, "19:00")
    assert "19:00" in turn.answer


@pytest.mark.parametrize(("said", "named"), [
    ("7時半受け取りで枝豆も", "枝豆"),
    ("受け取りは7時で 鮭弁当", "鮭弁当"),
    ("牛丼大盛り 7時に 受け取り", "牛丼"),
    ("pick up at 7 with two beef bowls", "beef bowls"),
])
async def test_an_item_no_call_would_take_is_named_and_nothing_is_written(call, said, named):
    await call.say("コーラ1本")
    turn = await call.say(said)
    assert call.order() == ({("コーラ", None): 1}, None)  # no item dropped, no time of day read as a quantity
    assert not turn.calls
    assert named in turn.answer
