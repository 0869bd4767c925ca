"""A bakery's wholesale orders, a schema written for this test: the shops order, an order is 配達済, 準備中 or
キャンセル, and its lines hold what was ordered. Asked as the owner types:

- 「先月の売上 店別に」: the money of the orders that bring it in, by shop: one table per status of money, never
  a table that adds the cancelled orders' lines in;
- 「ケーキって何種類置いてる？」: the kinds kept are the products of that category, never the lines they were
  ordered on;
- 「10月に配達した分の売上」: the period is that of the delivery date (配達 is a word of the delivered_on date),
  never the order date;
"""

from __future__ import annotations

from datetime import date

import pytest
from drafted import ask, figures, schema_fixture

TODAY = date(2026, 12, 5)
SHOPS = {1: ("カフェ ひだまり", "北区"), 2: ("スーパー まるよし", "南区"), 3: ("喫茶 こもれび", "北区")}
# order id: (shop, ordered_on, delivered_on, status)
ORDERS = {1: (1, "2026-10-28", "2026-11-02", "配達済"), 2: (1, "2026-11-05", "2026-11-06", "配達済"),
          3: (2, "2026-11-10", None, "キャンセル"), 4: (2, "2026-11-12", "2026-11-13", "配達済"),
          5: (3, "2026-11-20", None, "準備中"), 6: (1, "2026-11-25", None, "キャンセル"),
          7: (3, "2026-10-30", "2026-10-31", "配達済"), 8: (2, "2026-09-29", "2026-10-01", "配達済")}
LINES = [(1, 1, 10, 2000), (2, 2, 5, 1500), (2, 1, 3, 600), (3, 1, 20, 4000), (4, 2, 8, 2400), (5, 1, 4, 800),
         (6, 2, 10, 3000), (7, 1, 6, 1200), (8, 2, 7, 2100)]


def _statements() -> list[str]:
    orders = [f"({i}, {s}, '{o}', {repr(d) if d else 'NULL'}, '{st}')" for i, (s, o, d, st) in ORDERS.items()]
    lines = [f"({n}, {o}, {p}, {q}, {t})" for n, (o, p, q, t) in enumerate(LINES, 1)]
    return [
        "CREATE TABLE shops (id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL, area VARCHAR(20))",
        "CREATE TABLE products (id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL, category VARCHAR(20),"
        " unit_price INTEGER)",
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, shop_id INTEGER NOT NULL REFERENCES shops(id),"
        " ordered_on DATE NOT NULL, delivered_on DATE, status VARCHAR(20) NOT NULL)",
        "CREATE TABLE order_lines (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id),"
        " product_id INTEGER NOT NULL REFERENCES products(id), qty INTEGER NOT NULL, line_total INTEGER NOT NULL)",
        "INSERT INTO shops VALUES " + ", ".join(f"({i}, '{n}', '{a}')" for i, (n, a) in SHOPS.items()),
        "INSERT INTO products VALUES (1, '食パン', 'パン', 200), (2, 'チーズケーキ', 'ケーキ', 300),"
        " (3, 'ショートケーキ', 'ケーキ', 350)",
        "INSERT INTO orders VALUES " + ", ".join(orders),
        "INSERT INTO order_lines VALUES " + ", ".join(lines),
    ]


bakery = schema_fixture("wholesale", _statements, TODAY)
LINES_OF = "order_lines l JOIN orders o ON o.id = l.order_id JOIN shops s ON s.id = o.shop_id"
ORDERED_IN_NOVEMBER = "o.ordered_on BETWEEN '2026-11-01' AND '2026-11-30'"


@pytest.mark.anyio
async def test_sales_by_shop_leave_the_cancelled_orders_out(bakery):
    kept = bakery.rows(f"SELECT s.name, SUM(l.line_total) FROM {LINES_OF} WHERE {ORDERED_IN_NOVEMBER}"
                       " AND o.status <> 'キャンセル' GROUP BY o.status, s.name")
    every = bakery.rows(f"SELECT s.name, SUM(l.line_total) FROM {LINES_OF} WHERE {ORDERED_IN_NOVEMBER}"
                        " GROUP BY s.name HAVING SUM(CASE WHEN o.status = 'キャンセル' THEN 1 ELSE 0 END) > 0")
    turn = await ask(bakery.agent, bakery.pipeline, "先月の売上 店別に")
    table = "\n".join(line for line in turn.answer.splitlines() if line.startswith("|"))
    for shop, money in kept:
        assert f"| {shop} |" in table and f"{money:,}" in table, turn.answer
    assert every and not any(f"{money:,}" in table for _, money in every), turn.answer  # no cancelled lines in
    assert "キャンセル" in turn.answer, turn.answer  # says what it left out


@pytest.mark.anyio
async def test_money_of_a_month_delivered_is_read_by_the_delivery_date(bakery):
    delivered = bakery.scalar(f"SELECT SUM(l.line_total) FROM {LINES_OF}"
                              " WHERE o.delivered_on BETWEEN '2026-10-01' AND '2026-10-31'")
    ordered = bakery.scalar(f"SELECT SUM(l.line_total) FROM {LINES_OF}"
                            " WHERE o.ordered_on BETWEEN '2026-10-01' AND '2026-10-31' AND o.status = '配達済'")
    assert delivered != ordered
    turn = await ask(bakery.agent, bakery.pipeline, "10月に配達した分の売上っていくら")
    assert delivered in figures(turn.answer) or f"{delivered:,}" in turn.answer, turn.answer
    assert ordered not in figures(turn.answer) and f"{ordered:,}" not in turn.answer, turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["ケーキって何種類置いてる？", "ケーキは何種類ある"])
async def test_the_kinds_kept_are_counted_on_the_products(bakery, said):
    kinds = bakery.scalar("SELECT COUNT(*) FROM products WHERE category = 'ケーキ'")
    lines = bakery.scalar("SELECT COUNT(*) FROM order_lines l JOIN products p ON p.id = l.product_id"
                          " WHERE p.category = 'ケーキ'")
    assert kinds != lines
    turn = await ask(bakery.agent, bakery.pipeline, said)
    assert kinds in figures(turn.answer) and lines not in figures(turn.answer), turn.answer
