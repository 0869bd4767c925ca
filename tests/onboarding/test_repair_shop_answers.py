"""A bicycle repair shop's orders, a schema made here: parts (not "products"), repair orders with a status, and
their lines with a quantity and a unit price. Questions as its staff type them, the figures by plain SQL.

- 「部品別の売上トップ3は？」 and 「4月に一番売れた部品は？」: the draft calls the parts 部品 (the word staff use,
  from the drafting glossary), never パート, so a question naming them is answered.
- 「3月に受け付けた修理は何件ですか？」: 受け付けた is a verb (received), never the status 受付; counting the orders
  whose status is 受付 would state a figure the question did not ask for.
"""

from __future__ import annotations

from datetime import date

import pytest
from drafted import Drafted, ask, figures, schema_fixture

TODAY = date(2026, 6, 1)
PARTS = [(1, "サドル", 4500), (2, "タイヤ", 3800), (3, "チェーン", 2800), (4, "チェーンオイル", 900),
         (5, "ブレーキワイヤー", 700)]
STATUSES = ["完了", "作業中", "受付"]


def _statements() -> list[str]:
    out = [
        "CREATE TABLE parts (part_id INTEGER PRIMARY KEY, part_name VARCHAR(40) NOT NULL, unit_price INTEGER NOT NULL)",
        "CREATE TABLE repair_orders (order_id INTEGER PRIMARY KEY, received_on DATE NOT NULL,"
        " status VARCHAR(10) NOT NULL)",
        "CREATE TABLE order_lines (line_id INTEGER PRIMARY KEY,"
        " order_id INTEGER NOT NULL REFERENCES repair_orders(order_id),"
        " part_id INTEGER NOT NULL REFERENCES parts(part_id), quantity INTEGER NOT NULL, unit_price INTEGER NOT NULL)",
    ]
    out += [f"INSERT INTO parts VALUES ({i}, '{n}', {p})" for i, n, p in PARTS]
    line = 1
    for order in range(1, 41):
        month, day = 1 + order % 5, 1 + (order * 7) % 28
        out.append(f"INSERT INTO repair_orders VALUES ({order}, '2026-{month:02d}-{day:02d}',"
                   f" '{STATUSES[(order * 5) % 3 if order % 4 else 2]}')")
        for k in range(1 + order % 3):
            part_id, _, price = PARTS[(order + k * 2) % len(PARTS)]
            out.append(f"INSERT INTO order_lines VALUES ({line}, {order}, {part_id}, {1 + (order + k) % 3}, {price})")
            line += 1
    return out


shop = schema_fixture("repair_shop", _statements, TODAY)


def _by_part(shop: Drafted, where: str = "1 = 1") -> list[tuple[str, int]]:
    return [(n, int(v)) for n, v in shop.rows(
        "SELECT p.part_name, SUM(l.quantity * l.unit_price) FROM order_lines l JOIN parts p ON p.part_id = l.part_id"
        f" JOIN repair_orders o ON o.order_id = l.order_id WHERE {where} GROUP BY p.part_name ORDER BY 2 DESC")]


@pytest.mark.anyio
async def test_the_top_parts_are_answered_by_the_word_staff_use(shop):
    top = _by_part(shop)[:3]
    turn = await ask(shop.agent, shop.pipeline, "部品別の売上トップ3は？")
    named = [turn.answer.index(name) for name, _ in top]
    assert named == sorted(named), turn.answer  # in their order
    assert all(f"{amount:,}" in turn.answer for _, amount in top), turn.answer  # each with its amount


@pytest.mark.anyio
async def test_the_part_sold_most_in_a_month_is_that_months(shop):
    (best, amount), *_ = _by_part(shop, "o.received_on BETWEEN '2026-04-01' AND '2026-04-30'")
    turn = await ask(shop.agent, shop.pipeline, "4月に一番売れた部品は？")
    assert best in turn.answer, turn.answer


@pytest.mark.anyio
async def test_a_verb_of_receiving_is_never_read_as_the_status_received(shop):
    march = "received_on BETWEEN '2026-03-01' AND '2026-03-31'"
    waiting = int(shop.scalar(f"SELECT COUNT(*) FROM repair_orders WHERE {march} AND status = '受付'"))
    every = int(shop.scalar(f"SELECT COUNT(*) FROM repair_orders WHERE {march}"))
    assert waiting != every
    turn = await ask(shop.agent, shop.pipeline, "3月に受け付けた修理は何件ですか？")
    assert all("受付" not in map(str, c.args.values()) for c in turn.calls), turn.calls
    assert waiting not in figures(turn.answer) or every in figures(turn.answer), turn.answer
