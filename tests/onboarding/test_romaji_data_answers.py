"""A bicycle repair shop whose data is written in Latin letters (customers' names and cities in romaji, kinds of
repair in English), a schema made here, asked in Japanese as staff here type. The figures by plain SQL.

- 「大阪のお客様は何人？」: 大阪 is the city the data writes Osaka, and the answer says it read it so; never a
  search of the customers' names, never "no such city".
- 「京都のお客さんの修理の合計は？」: the repairs of the customers of that city, summed; the customers themselves
  are only whose repairs they are (お客さん の 修理), never the answer.
- "Which customers live in Osaka?": who they are, by name, even with only five customers in three cities.
- 「林さんの修理代の合計はいくら？」: 林 is the Hayashi of Tomoko Hayashi, read so and said; her repairs summed.
"""

from __future__ import annotations

from datetime import date

import pytest
from drafted import Drafted, ask, figures, schema_fixture

TODAY = date(2026, 12, 5)
CUSTOMERS = [(1, "Tomoko Hayashi", "Kyoto"), (2, "Kenji Mori", "Osaka"), (3, "Tomoko Ishida", "Kyoto"),
             (4, "Daniel Brown", "Kobe"), (5, "Yui Sato", "Osaka")]
REPAIRS = [(1, 1, "flat tire", 1500, "2026-10-05"), (2, 1, "brake adjustment", 2400, "2026-11-02"),
           (3, 1, "chain replacement", 6000, "2026-11-20"), (4, 2, "flat tire", 1500, "2026-11-03"),
           (5, 3, "flat tire", 1500, "2026-11-10"), (6, 4, "wheel truing", 3300, "2026-11-15"),
           (7, 5, "brake adjustment", 2400, "2026-11-25"), (8, 2, "chain replacement", 6000, "2026-12-01")]


def _statements() -> list[str]:
    out = [
        "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, full_name TEXT NOT NULL, city TEXT NOT NULL)",
        "CREATE TABLE repairs (repair_id INTEGER PRIMARY KEY,"
        " customer_id INTEGER NOT NULL REFERENCES customers(customer_id), kind TEXT NOT NULL, fee INTEGER NOT NULL,"
        " repaired_on DATE NOT NULL)",
    ]
    out += [f"INSERT INTO customers VALUES ({i}, '{n}', '{c}')" for i, n, c in CUSTOMERS]
    out += [f"INSERT INTO repairs VALUES ({i}, {c}, '{k}', {f}, '{d}')" for i, c, k, f, d in REPAIRS]
    return out


shop = schema_fixture("bike_repairs", _statements, TODAY)


def _names_in(shop: Drafted, city: str) -> list[str]:
    return [r[0] for r in shop.rows(f"SELECT full_name FROM customers WHERE city = '{city}' ORDER BY 1")]


@pytest.mark.anyio
async def test_a_city_said_in_kanji_is_the_city_the_data_writes_in_romaji(shop):
    count = int(shop.scalar("SELECT COUNT(*) FROM customers WHERE city = 'Osaka'"))
    turn = await ask(shop.agent, shop.pipeline, "大阪のお客様は何人？")
    assert figures(turn.answer) == {count}, turn.answer
    assert "Osaka" in turn.answer, turn.answer


@pytest.mark.anyio
async def test_the_repairs_of_the_customers_of_a_city_are_summed_not_the_customers_counted(shop):
    summed = int(shop.scalar("SELECT SUM(r.fee) FROM repairs r JOIN customers c ON c.customer_id = r.customer_id"
                             " WHERE c.city = 'Kyoto'"))
    turn = await ask(shop.agent, shop.pipeline, "京都のお客さんの修理の合計は？")
    assert summed in figures(turn.answer), turn.answer
    assert len(_names_in(shop, "Kyoto")) not in figures(turn.answer), turn.answer


@pytest.mark.anyio
async def test_which_customers_live_in_a_city_names_them(shop):
    turn = await ask(shop.agent, shop.pipeline, "Which customers live in Osaka?")
    assert all(name in turn.answer for name in _names_in(shop, "Osaka")), turn.answer
    assert not any(name in turn.answer for name in _names_in(shop, "Kyoto")), turn.answer


@pytest.mark.anyio
async def test_a_family_name_said_in_kanji_is_the_customer_the_data_writes_in_romaji(shop):
    paid = int(shop.scalar("SELECT SUM(r.fee) FROM repairs r JOIN customers c ON c.customer_id = r.customer_id"
                           " WHERE c.full_name = 'Tomoko Hayashi'"))
    turn = await ask(shop.agent, shop.pipeline, "林さんの修理代の合計はいくら？")
    assert paid in figures(turn.answer) and "Tomoko Hayashi" in turn.answer, turn.answer
