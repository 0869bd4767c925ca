"""A florist's customers and orders, a schema made here, drafted as `concierge init` drafts it. Questions as staff
type them; the figures by plain SQL.

- 「世田谷区のお客様は何人？」, "How many customers in 目黒区?": the customers of that area, counted. Five customers in
  three areas is too few rows for the area to look like a list of values by their ratio, yet an area is what
  customers share: it is a filter read from the data, never a search of their names for 世田谷区 (which finds none
  and answers 0).
- "Which customers are in 目黒区?", 「目黒区のお客様は誰？」: who they are, by name; a count alone is not the answer.
- 「胡蝶蘭の単価は？」, "unit price of the 胡蝶蘭": the price of one, from the orders' rows; what the orders add up to
  (66,000) is another figure, never stated as the answer.
- 「胡蝶蘭の売上合計は？」: still the sum.
"""

from __future__ import annotations

from datetime import date

import pytest
from drafted import Drafted, ask, figures, schema_fixture

TODAY = date(2026, 12, 5)
CUSTOMERS = [(1, "佐藤 美咲", "世田谷区"), (2, "佐藤 健", "目黒区"), (3, "高橋 直子", "世田谷区"),
             (4, "田中 一郎", "渋谷区"), (5, "渡辺 誠", "目黒区")]
ORDERS = [(1, 1, "バラの花束", 1, 5500, "2026-10-20", "配達済"), (2, 2, "胡蝶蘭", 1, 22000, "2026-11-03", "配達済"),
          (3, 3, "観葉植物", 2, 4800, "2026-11-08", "配達済"), (4, 1, "胡蝶蘭", 1, 22000, "2026-11-15", "配達済"),
          (5, 4, "バラの花束", 3, 5500, "2026-11-20", "配達済"), (6, 5, "観葉植物", 1, 4800, "2026-11-28", "未配達"),
          (7, 5, "バラの花束", 2, 5500, "2026-12-01", "未配達"), (8, 3, "胡蝶蘭", 1, 22000, "2026-12-03", "配達済")]


def _statements() -> list[str]:
    out = [
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, area TEXT NOT NULL, phone TEXT)",
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),"
        " item TEXT NOT NULL, qty INTEGER NOT NULL, unit_price INTEGER NOT NULL, amount INTEGER NOT NULL,"
        " ordered_on DATE NOT NULL, delivery TEXT NOT NULL)",
    ]
    out += [f"INSERT INTO customers VALUES ({i}, '{n}', '{a}', '03-1111-{i:04d}')" for i, n, a in CUSTOMERS]
    out += [f"INSERT INTO orders VALUES ({i}, {c}, '{item}', {q}, {p}, {q * p}, '{d}', '{s}')"
            for i, c, item, q, p, d, s in ORDERS]
    return out


shop = schema_fixture("florist", _statements, TODAY)


def _names_in(shop: Drafted, area: str) -> list[str]:
    return [r[0] for r in shop.rows(f"SELECT name FROM customers WHERE area = '{area}' ORDER BY id")]


@pytest.mark.anyio
@pytest.mark.parametrize(("said", "area"), [("世田谷区のお客様は何人？", "世田谷区"),
                                            ("How many customers in 目黒区?", "目黒区")])
async def test_customers_of_an_area_are_counted_by_their_area(shop, said, area):
    count = int(shop.scalar(f"SELECT COUNT(*) FROM customers WHERE area = '{area}'"))
    turn = await ask(shop.agent, shop.pipeline, said)
    assert figures(turn.answer) == {count}, turn.answer
    assert area in turn.answer, turn.answer  # said how it was read


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["Which customers are in 目黒区?", "目黒区のお客様は誰？"])
async def test_which_customers_of_an_area_names_them(shop, said):
    turn = await ask(shop.agent, shop.pipeline, said)
    assert all(name in turn.answer for name in _names_in(shop, "目黒区")), turn.answer
    assert not any(name in turn.answer for name in _names_in(shop, "世田谷区")), turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["胡蝶蘭の単価は？", "unit price of the 胡蝶蘭"])
async def test_a_unit_price_is_the_price_of_one_never_what_the_orders_add_up_to(shop, said):
    price = int(shop.scalar("SELECT DISTINCT unit_price FROM orders WHERE item = '胡蝶蘭'"))
    summed = int(shop.scalar("SELECT SUM(amount) FROM orders WHERE item = '胡蝶蘭'"))
    turn = await ask(shop.agent, shop.pipeline, said)
    assert price in figures(turn.answer), turn.answer
    assert summed not in figures(turn.answer), turn.answer


@pytest.mark.anyio
async def test_the_sales_of_an_item_are_still_their_sum(shop):
    summed = int(shop.scalar("SELECT SUM(amount) FROM orders WHERE item = '胡蝶蘭'"))
    turn = await ask(shop.agent, shop.pipeline, "胡蝶蘭の売上合計は？")
    assert summed in figures(turn.answer), turn.answer


@pytest.mark.anyio
async def test_an_area_said_in_romaji_is_the_area_the_data_writes_in_kanji(shop):
    count = int(shop.scalar("SELECT COUNT(*) FROM customers WHERE area = '世田谷区'"))
    turn = await ask(shop.agent, shop.pipeline, "how many customers in setagaya")
    assert figures(turn.answer) == {count}, turn.answer
    assert "世田谷区" in turn.answer, turn.answer  # said how it was read


@pytest.mark.anyio
async def test_a_name_said_in_romaji_is_the_one_person_it_sounds_like_or_asked(shop):
    spent = int(shop.scalar("SELECT SUM(o.amount) FROM orders o JOIN customers c ON c.id = o.customer_id"
                            " WHERE c.name = '佐藤 美咲'"))
    turn = await ask(shop.agent, shop.pipeline, "how much did Misaki Sato spend")  # given name first, as in English
    assert spent in figures(turn.answer) and "佐藤 美咲" in turn.answer, turn.answer
    turn = await ask(shop.agent, shop.pipeline, "how much did Sato spend")  # two 佐藤: which, never both summed
    assert "佐藤 美咲" in turn.answer and "佐藤 健" in turn.answer, turn.answer
    assert not figures(turn.answer), turn.answer
