"""A confirmation binds what was read back: a second client of the same caller that adds to the order between
the read-back and the yes gets nothing placed; the first token answers with the order as it now is, and only
a yes to that places it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from demo_databases import with_demos
from sqlalchemy import event

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider
from concierge.demo.bootstrap import open_pipeline
from concierge.pipeline.access import Session
from concierge.pipeline.pipeline import Pipeline

CALL = Session("CA-bind-1", "+81312345678")


@pytest.fixture(params=["same database", "state apart"])
def placing(request, restaurant, tmp_path) -> Iterator[Pipeline]:
    """The restaurant with its state beside the data (the tokens redeemed inside the write), or apart."""
    if request.param == "same database":
        yield restaurant
        return
    url = restaurant.db.engine.url.render_as_string(hide_password=False)
    apart = open_pipeline(["restaurant"], url, state_database=f"sqlite:///{tmp_path / 'state.db'}")
    try:
        yield apart
    finally:
        apart.close()


def orders(pipeline: Pipeline) -> list[tuple]:
    with pipeline.db.read() as conn:
        return [tuple(r) for r in conn.execute(sa.text("SELECT total, status FROM restaurant_orders"))]


def price(pipeline: Pipeline, name: str) -> int:
    with pipeline.db.read() as conn:
        return conn.scalar(sa.text("SELECT price FROM restaurant_menu WHERE name = :name"), {"name": name})


def test_a_yes_to_a_read_back_that_no_longer_holds_places_nothing_and_reads_the_order_again(placing):
    phone = placing.user("phone")
    box, bowl = price(placing, "唐揚げ弁当"), price(placing, "牛丼")
    assert placing.invoke("add_item", {"item": "唐揚げ弁当"}, phone, session=CALL).ok
    assert placing.invoke("set_pickup_time", {"pickup_time": "18:30"}, phone, session=CALL).ok
    shown = placing.invoke("confirm_order", {}, phone, session=CALL)
    assert shown.status == "confirm" and (shown.preview["pieces"], shown.preview["total"]) == (1, box)

    # a second client of the same caller, on the same call, adds twenty bowls
    assert placing.invoke("add_item", {"item": "牛丼", "quantity": 20}, phone, session=CALL).ok

    late = placing.invoke("confirm_order", {}, phone, session=CALL, confirmation=shown.confirmation_token)
    assert (late.status, late.code) == ("confirm", "preview_changed")
    assert orders(placing) == []  # nothing placed on the yes to the old read-back
    assert (late.preview["pieces"], late.preview["total"]) == (21, box + 20 * bowl)
    assert late.confirmation_token and late.confirmation_token != shown.confirmation_token

    replay = placing.invoke("confirm_order", {}, phone, session=CALL, confirmation=shown.confirmation_token)
    assert (replay.status, replay.code) == ("refused", "confirmation_invalid")
    placed = placing.invoke("confirm_order", {}, phone, session=CALL, confirmation=late.confirmation_token)
    assert placed.ok and placed.rows[0]["pieces"] == 21
    assert orders(placing) == [(box + 20 * bowl, "confirmed")]


def test_a_read_back_that_still_holds_places_the_order_as_shown(placing):
    phone = placing.user("phone")
    assert placing.invoke("add_item", {"item": "唐揚げ弁当", "quantity": 2}, phone, session=CALL).ok
    assert placing.invoke("set_pickup_time", {"pickup_time": "18:30"}, phone, session=CALL).ok
    shown = placing.invoke("confirm_order", {}, phone, session=CALL)
    placed = placing.invoke("confirm_order", {}, phone, session=CALL, confirmation=shown.confirmation_token)
    assert placed.ok and placed.rows[0]["total"] == shown.preview["total"]
    assert orders(placing) == [(shown.preview["total"], "confirmed")]


@pytest.mark.anyio
async def test_a_caller_who_says_yes_after_the_order_grew_hears_the_new_order_and_is_asked_again(restaurant):
    """The offline planner, as on the phone: the yes to a read-back that no longer holds places nothing; the
    answer reads the order as it now is and waits for a new yes."""
    phone = restaurant.user("phone")
    agent = Agent(restaurant, OfflineProvider(restaurant))
    first = await agent.ask("唐揚げ弁当を1つください", phone)
    await agent.ask("18時半に受け取りに行きます", phone, session_id=first.session_id)
    read_back = await agent.ask("以上でお願いします", phone, session_id=first.session_id)
    assert read_back.pending is not None and read_back.pending.tool == "confirm_order"
    # another client writing the same draft (the conversation's own next message would drop the card instead)
    assert restaurant.invoke("add_item", {"item": "牛丼", "quantity": 20}, phone, session=Session(first.session_id)).ok
    confirmed = await agent.confirm(read_back.session_id, phone)
    assert orders(restaurant) == []
    assert confirmed.pending is not None and confirmed.pending.preview["pieces"] == 21
    assert "内容が変わった" in confirmed.answer and "21" in confirmed.answer
    placed = await agent.confirm(read_back.session_id, phone)
    assert placed.pending is None and len(orders(restaurant)) == 1


@pytest.mark.postgres
def test_an_item_added_while_the_confirmed_write_runs_is_never_placed(pg_url):
    """The red team's race on PostgreSQL: the preview re-read matches, then, before the order's INSERT, another
    client commits twenty bowls to the same draft. What is placed is what was shown, or nothing and a new
    read-back; never the bowls."""
    with_demos(pg_url, "restaurant")
    placing, other = open_pipeline(["restaurant"], pg_url), open_pipeline(["restaurant"], pg_url)
    try:
        phone = placing.user("phone")
        box = price(placing, "唐揚げ弁当")
        assert placing.invoke("add_item", {"item": "唐揚げ弁当"}, phone, session=CALL).ok
        assert placing.invoke("set_pickup_time", {"pickup_time": "18:30"}, phone, session=CALL).ok
        shown = placing.invoke("confirm_order", {}, phone, session=CALL)
        raced: list[bool] = []

        @event.listens_for(placing.db.engine, "before_cursor_execute")
        def _between(_conn, _cursor, statement: str, *_: object) -> None:
            if statement.lstrip().startswith("INSERT INTO restaurant_orders") and not raced:
                raced.append(other.invoke("add_item", {"item": "牛丼", "quantity": 20}, phone, session=CALL).ok)

        done = placing.invoke("confirm_order", {}, phone, session=CALL, confirmation=shown.confirmation_token)
        assert raced == [True]
        if done.status == "confirm":
            assert done.code == "preview_changed" and orders(placing) == []
        else:
            assert done.ok and orders(placing) == [(box, "confirmed")]
    finally:
        placing.close()
        other.close()
