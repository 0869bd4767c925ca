"""A bakery chain's branches and its orders, a schema written for this test (after a review's run on a dry cleaner
with two branches): staff call a branch 店舗 or 店 as often as 支店, and say a grouping glued to what is added up
(店舗別売上, which the analyser reads as 店舗|別売|上). 11月の店舗別売上 is the sales of each branch, never the total of
both; a grouping by a word no summary groups by (担当者別売上) is refused with what it can group by, never answered
with the total."""

from __future__ import annotations

from datetime import date

import pytest
from drafted import ask, figures, schema_fixture

TODAY = date(2026, 12, 5)
BRANCHES = [(1, "本店"), (2, "駅前店")]
ORDERS = [(1, 1, "2026-11-02", 1200), (2, 1, "2026-11-09", 800), (3, 2, "2026-11-10", 1500), (4, 2, "2026-11-21", 700),
          (5, 1, "2026-11-28", 2100), (6, 2, "2026-12-01", 900), (7, 1, "2026-10-30", 1000)]


def _statements() -> list[str]:
    return [
        "CREATE TABLE branches (branch_id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL)",
        "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, branch_id INTEGER NOT NULL REFERENCES branches(branch_id),"
        " ordered_on DATE NOT NULL, amount INTEGER NOT NULL)",
        "INSERT INTO branches VALUES " + ", ".join(f"({i}, '{n}')" for i, n in BRANCHES),
        "INSERT INTO orders VALUES " + ", ".join(f"({i}, {b}, '{d}', {a})" for i, b, d, a in ORDERS),
    ]


chain = schema_fixture("chain", _statements, TODAY)
NOVEMBER = "o.ordered_on BETWEEN '2026-11-01' AND '2026-11-30'"


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["11月の店舗別売上", "11月の売上を店舗ごとに", "店舗別の11月の売上は？",
                                  "11月の店別の売上は？", "店ごとの11月の売上"])
async def test_a_shop_is_a_branch_and_its_sales_are_each_branchs(chain, said):
    each = dict(chain.rows(f"SELECT b.name, SUM(o.amount) FROM orders o JOIN branches b ON b.branch_id = o.branch_id"
                           f" WHERE {NOVEMBER} GROUP BY b.name"))
    total = chain.scalar(f"SELECT SUM(amount) FROM orders o WHERE {NOVEMBER}")
    turn = await ask(chain.agent, chain.pipeline, said)
    assert [c.args.get("group_by") for c in turn.calls] == ["branch"], turn.answer
    rows = [line for line in turn.answer.splitlines() if line.startswith("| ")]
    assert all(any(name in r and f"{amount:,}" in r for r in rows) for name, amount in each.items()), turn.answer
    assert f"{total:,}" not in turn.answer, turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["11月の担当者別売上", "11月の担当者別の売上"])
async def test_a_grouping_glued_to_the_sales_that_no_summary_makes_is_refused(chain, said):
    total = chain.scalar(f"SELECT SUM(amount) FROM orders o WHERE {NOVEMBER}")
    turn = await ask(chain.agent, chain.pipeline, said)
    assert turn.calls == [] and total not in figures(turn.answer), turn.answer
    assert "担当者別" in turn.answer and "支店" in turn.answer, turn.answer
