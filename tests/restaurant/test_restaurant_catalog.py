"""The restaurant's tools through the one pipeline: drafts per conversation, sold-out items refused with
alternatives, pickup times bounded by the hours and the preparation time, and an order written once, only
on confirmation, in one transaction."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from concierge.agent.context import context
from concierge.catalog.loader import load_catalog, parse_catalog
from concierge.errors import CatalogError
from concierge.pipeline.access import Session

CALL = Session("CA-test-1", "+81312345678")


def count(pipeline, table: str) -> int:
    with pipeline.db.read() as conn:
        return conn.scalar(sa.text(f"SELECT COUNT(*) FROM {table}"))  # noqa: S608 - a fixed table name


def order_two_items(pipeline, user, session=CALL):
    for args in ({"item": "唐揚げ弁当", "quantity": 2, "option": "大盛り"}, {"item": "味噌汁"}):
        assert pipeline.invoke("add_item", args, user, session=session).ok
    assert pipeline.invoke("set_pickup_time", {"pickup_time": "18:30"}, user, session=session).ok


def test_a_sold_out_item_is_refused_with_items_of_its_category(restaurant, phone):
    result = restaurant.invoke("add_item", {"item": "エビフライ弁当"}, phone, session=CALL)
    assert result.status == "error" and result.message_ja == "本日売り切れです"
    offered = [r["name"] for r in result.rows]
    assert offered and "エビフライ弁当" not in offered
    assert all(name.endswith("弁当") for name in offered)  # the same category, available
    assert count(restaurant, "restaurant_draft_items") == 0


def test_read_order_totals_the_lines_with_their_options(restaurant, phone):
    order_two_items(restaurant, phone)
    result = restaurant.invoke("read_order", {}, phone, session=CALL)
    lines = [(r["item"], r["quantity"], r["amount"]) for r in result.rows]
    assert lines == [("唐揚げ弁当", 2, 1580), ("味噌汁", 1, 150)]
    assert {r["total"] for r in result.rows} == {1730} and result.rows[0]["pickup_time"] == "18:30"


@pytest.mark.parametrize("pickup", ["10:30", "21:30", "17:10"])  # before opening, after closing, too soon
def test_a_pickup_time_outside_the_window_is_refused_with_the_window(restaurant, phone, pickup):
    result = restaurant.invoke("set_pickup_time", {"pickup_time": pickup}, phone, session=CALL)
    assert result.status == "error"
    assert result.rows == [{"opens": "11:00", "closes": "21:00", "prep_minutes": 20}]
    assert count(restaurant, "restaurant_drafts") == 0


def test_a_pickup_time_that_is_not_a_time_is_refused_by_the_guard(restaurant, phone):
    result = restaurant.invoke("set_pickup_time", {"pickup_time": "25:00"}, phone, session=CALL)
    assert result.status == "refused" and result.param == "pickup_time"


def test_confirmation_writes_the_order_and_its_items_once(restaurant, phone):
    order_two_items(restaurant, phone)
    preview = restaurant.invoke("confirm_order", {}, phone, session=CALL)
    assert preview.status == "confirm" and preview.preview["total"] == 1730
    assert count(restaurant, "restaurant_orders") == 0
    token = preview.confirmation_token
    placed = restaurant.invoke("confirm_order", {}, phone, session=CALL, confirmation=token)
    assert placed.ok and placed.rows[0]["ticket"] == 1 and placed.rows[0]["total"] == 1730
    again = restaurant.invoke("confirm_order", {}, phone, session=CALL, confirmation=token)
    assert again.status == "refused"
    assert count(restaurant, "restaurant_orders") == 1 and count(restaurant, "restaurant_order_items") == 2
    with restaurant.db.read() as conn:
        caller, pickup = conn.execute(sa.text("SELECT caller, pickup_time FROM restaurant_orders")).one()
    assert (caller, pickup) == ("+81312345678", "18:30")
    assert restaurant.invoke("read_order", {}, phone, session=CALL).rows == []  # the draft is gone


def test_a_call_that_drops_before_confirming_leaves_no_order(restaurant, phone):
    order_two_items(restaurant, phone)
    assert restaurant.invoke("confirm_order", {}, phone, session=CALL).status == "confirm"  # read back, no はい
    assert count(restaurant, "restaurant_orders") == 0 and count(restaurant, "restaurant_order_items") == 0
    second = Session("CA-test-2", CALL.caller)  # the same number calls again: a fresh order
    assert restaurant.invoke("read_order", {}, phone, session=second).rows == []


def test_two_calls_keep_their_own_drafts(restaurant, phone):
    order_two_items(restaurant, phone)
    other = Session("CA-other")
    restaurant.invoke("add_item", {"item": "牛丼"}, phone, session=other)
    assert [r["item"] for r in restaurant.invoke("read_order", {}, phone, session=other).rows] == ["牛丼"]
    assert len(restaurant.invoke("read_order", {}, phone, session=CALL).rows) == 2


def test_quantity_zero_takes_the_item_out(restaurant, phone):
    order_two_items(restaurant, phone)
    result = restaurant.invoke("change_item", {"item": "味噌汁", "quantity": 0}, phone, session=CALL)
    assert result.ok and result.rows[0]["total"] == 1580 and result.rows[0]["lines"] == 1


def test_the_rules_and_the_state_are_said_for_the_newest_message(restaurant, phone):
    restaurant.invoke("add_item", {"item": "唐揚げ弁当", "quantity": 2}, phone, session=CALL)
    text = context(restaurant, phone, CALL, "ja")
    assert "add_item" in text and "唐揚げ弁当2つ、合計1,380円" in text and "未定: お受け取り時間" in text
    assert "pickup time" in context(restaurant, phone, CALL, "en")


def _catalog_text() -> str:
    return Path(load_catalog("restaurant").file).read_text(encoding="utf-8")


def test_rules_name_a_read_tool_of_the_catalog():
    broken = _catalog_text().replace("state: read_order", "state: confirm_order")
    with pytest.raises(CatalogError, match="rules.state"):
        parse_catalog(broken, "restaurant.yaml")


@pytest.mark.parametrize(("lines", "says"), [
    ("{add: add_item, change: change_items}", "'change_items' is not a write tool"),
    ("{add: search_menu}", "'search_menu' is not a write tool"),
    ("{add: confirm_order}", "one required parameter"),  # it names no line
])
def test_the_tools_that_edit_the_lines_are_writes_named_by_a_column_of_the_state(lines, says):
    broken = _catalog_text().replace(
        "lines: {add: add_item, change: change_item, remove: remove_item, place: confirm_order}", f"lines: {lines}")
    with pytest.raises(CatalogError, match=says):
        parse_catalog(broken, "restaurant.yaml")


def test_further_statements_belong_to_writes():
    broken = _catalog_text().replace("    roles: [admin, phone]\n    sql: SELECT 'end' AS action",
                          "    roles: [admin, phone]\n    then: [SELECT 1]\n    sql: SELECT 'end' AS action")
    with pytest.raises(CatalogError, match="then"):
        parse_catalog(broken, "restaurant.yaml")


def test_discarding_removes_only_this_conversations_draft_and_no_order(restaurant, phone):
    other = Session("CA-test-2", "+81398765432")
    order_two_items(restaurant, phone)
    order_two_items(restaurant, phone, session=other)
    result = restaurant.invoke("discard_order", {}, phone, session=CALL)
    assert result.ok and result.rows[0]["total"] == 0
    assert restaurant.invoke("read_order", {}, phone, session=CALL).rows == []
    assert restaurant.invoke("read_order", {}, phone, session=other).rows[0]["total"] == 1730
    assert (count(restaurant, "restaurant_drafts"), count(restaurant, "restaurant_draft_items")) == (1, 2)
    assert restaurant.invoke("discard_order", {}, restaurant.user("counter"), session=other).status == "refused"
