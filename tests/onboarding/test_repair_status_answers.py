"""A repair shop's jobs, each paid, invoiced or cancelled: a schema written for this test. Money asked of them
cannot be one status's alone (paid and invoiced both brought money in), and a cancelled job brought none: the
sales are shown by status, each figure the data's, with the reason said; never one total that holds the cancelled
job as the answer. A count of jobs counts every one."""

from __future__ import annotations

from datetime import date

import pytest
from drafted import ask, figures, schema_fixture

TODAY = date(2026, 12, 5)
JOBS = [(1, 1, "2026-11-03", "paid", 12000), (2, 2, "2026-11-05", "invoiced", 8000),
        (3, 3, "2026-11-10", "cancelled", 5000), (4, 1, "2026-11-20", "paid", 3000), (5, 2, "2026-10-02", "paid", 7000)]
NOVEMBER = "received_on BETWEEN '2026-11-01' AND '2026-11-30'"


def _statements() -> list[str]:
    return [
        "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT)",
        "CREATE TABLE repair_jobs (job_id INTEGER PRIMARY KEY,"
        " customer_id INTEGER NOT NULL REFERENCES customers(customer_id), received_on DATE NOT NULL,"
        " job_status TEXT NOT NULL, amount INTEGER NOT NULL)",
        "INSERT INTO customers VALUES (1, 'Aoki', 'Kyoto'), (2, 'Baba', 'Osaka'), (3, 'Chiba', 'Kyoto')",
        *(f"INSERT INTO repair_jobs VALUES ({i}, {c}, '{d}', '{s}', {a})" for i, c, d, s, a in JOBS),
    ]


shop = schema_fixture("repair_shop", _statements, TODAY)


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["What were sales last month?", "先月の売上"])
async def test_sales_are_shown_by_status_when_several_brought_money_in(shop, said):
    by_status = dict(shop.rows(f"SELECT job_status, SUM(amount) FROM repair_jobs WHERE {NOVEMBER} GROUP BY 1"))
    every = int(shop.scalar(f"SELECT SUM(amount) FROM repair_jobs WHERE {NOVEMBER}"))
    turn = await ask(shop.agent, shop.pipeline, said)
    table = [line for line in turn.answer.splitlines() if line.startswith("| ")]
    for status, amount in by_status.items():
        assert any(status in line and f"{amount:,}" in line for line in table), turn.answer
    assert every not in figures(turn.answer) and "cancelled" in turn.answer.split("|")[-1], turn.answer


@pytest.mark.anyio
async def test_a_count_of_jobs_counts_every_status(shop):
    every = int(shop.scalar(f"SELECT COUNT(*) FROM repair_jobs WHERE {NOVEMBER}"))
    turn = await ask(shop.agent, shop.pipeline, "How many repair jobs last month?")
    assert every in figures(turn.answer), turn.answer
