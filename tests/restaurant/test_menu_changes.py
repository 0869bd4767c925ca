"""A menu the shop changes in its own database: a new item is ordered by its Japanese name, its reading and the
English name the menu gives it, with no catalog edit (enum values and synonyms are read from the data)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider
from concierge.catalog.loader import parse_catalog
from concierge.errors import CatalogError

pytestmark = pytest.mark.anyio

NEW_ITEM = {"code": "M901", "name": "ナポリタン", "name_en": "napolitan", "category": "洋食", "price": 720,
            "sold_out": False, "search": "ナポリタン なぽりたん napolitan"}


@pytest.fixture
def with_new_item(restaurant):
    with restaurant.db.write() as conn:
        conn.execute(sa.text("INSERT INTO restaurant_menu VALUES (:code, :name, :name_en, :category, :price, "
                             ":sold_out, :search)"), NEW_ITEM)
    restaurant.refresh()  # as after any write: the values are read again
    return restaurant


@pytest.mark.parametrize(("said", "lang"), [("ナポリタンを2つください", "ja"), ("なぽりたん2つ", "ja"),
                                            ("two napolitan, please", "en")])
async def test_a_new_item_is_ordered_by_any_of_its_names(with_new_item, phone, said, lang):
    turn = await Agent(with_new_item, OfflineProvider(with_new_item)).ask(said, phone)

    assert [(c.name, c.args.get("item"), c.args.get("quantity"), c.status) for c in turn.calls] == [
        ("add_item", "ナポリタン", 2, "ok")]
    assert ("1,440円" if lang == "ja" else "¥1,440") in turn.answer


def test_a_model_may_send_the_english_name_the_menu_gives(with_new_item, phone):
    result = with_new_item.invoke("add_item", {"item": "Napolitan", "quantity": 1}, phone)

    assert result.status == "ok", result.message
    assert with_new_item.invoke("read_order", {}, phone).rows[0]["item"] == "ナポリタン"


def test_synonyms_read_from_the_data_need_values_read_from_it():
    text = """
catalog: shop
description: {ja: 店, en: a shop}
roles: {admin: {all_rows: true}}
tools:
  price_of:
    description: {ja: 価格, en: the price of an item}
    roles: [admin]
    params:
      item:
        type: enum
        required: true
        enum: {values: [A, B], synonyms_query: "SELECT en, ja FROM menu"}
        description: {ja: 商品, en: item}
    sql: SELECT :item AS item
"""
    with pytest.raises(CatalogError, match="declare enum.query"):
        parse_catalog(text, "shop.yaml")
