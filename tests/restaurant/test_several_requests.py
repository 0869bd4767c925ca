"""A caller saying several things in one breath, with no comma between them: every part is carried out, or nothing
is and the answer says which words it could not place; an item is never dropped from the order, and a time of
day is never read as a quantity (planner/plan.py `_parts`, planner/unplaced.py)."""

from __future__ import annotations

import pytest
from order_call import OrderCall

pytestmark = pytest.mark.anyio


@pytest.fixture
def call(restaurant, phone) -> OrderCall:
    return OrderCall(restaurant, phone)


@pytest.mark.parametrize(("said", "lines", "pickup"), [
    ("生姜焼き弁当ふたつ 6時半に取りに行きます", {("生姜焼き弁当", None): 2}, "18:30"),
    ("ハンバーグ弁当2つと枝豆で 7時半受け取り", {("ハンバーグ弁当", None): 2, ("枝豆", None): 1}, "19:30"),
    ("two beef bowls pick up at 7", {("牛丼", None): 2}, "19:00"),
    ("鮭弁当 ひとつ 7時で", {("鮭弁当", None): 1}, "19:00"),
    ("牛丼大盛り 7時に 受け取り", {("牛丼", "大盛り"): 1}, "19:00"),  # an option only an order takes: ordered so
])
async def test_items_and_a_pickup_time_said_in_one_breath_are_both_taken(call, said, lines, pickup):
    await call.say(said)
    assert (call.order(), call.pickup()) == (lines, pickup)


async def test_a_time_said_alone_to_an_order_is_its_pickup_time(call):
    await call.say("のり弁当ひとつ")
    turn = await call.say("7時で")
    assert (call.order(), call.pickup()) == ({("のり弁当", None): 1}, "19:00")
    assert "19:00" in turn.answer


@pytest.mark.parametrize(("said", "named"), [
    ("7時半受け取りで枝豆も", "枝豆"),
    ("受け取りは7時で 鮭弁当", "鮭弁当"),
    ("pick up at 7 with two beef bowls", "beef bowls"),
])
async def test_an_item_no_call_would_take_is_named_and_nothing_is_written(call, said, named):
    await call.say("コーラ1本")
    turn = await call.say(said)
    assert (call.order(), call.pickup()) == ({("コーラ", None): 1}, None)  # nothing dropped, no time read as a count
    assert not turn.calls
    assert named in turn.answer
