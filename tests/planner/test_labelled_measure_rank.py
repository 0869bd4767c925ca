"""A ranking by a figure the request names by its label ranks by that figure, whichever summary has it: the most
freight is the orders' freight added up by customer, not the customer with the most order lines."""

from __future__ import annotations

from datetime import date

import pytest
import sqlalchemy as sa
from drafted import BACKENDS, Drafted, ask, scalar

CUSTOMERS = [("ALFKI", "Alfreds Futterkiste"), ("ERNSH", "Ernst Handel"), ("BONAP", "Bon app")]


def _shop(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as c:
        c.execute(sa.text("CREATE TABLE customers (customer_code VARCHAR(5) PRIMARY KEY, "
                          "company_name VARCHAR(60) NOT NULL)"))
        c.execute(sa.text("CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_code VARCHAR(5) NOT NULL "
                          "REFERENCES customers(customer_code), order_date DATE NOT NULL, freight NUMERIC(8, 2))"))
        c.execute(sa.text("CREATE TABLE order_lines (line_id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL "
                          "REFERENCES orders(order_id), quantity INTEGER NOT NULL, "
                          "unit_price NUMERIC(10, 2) NOT NULL)"))
        c.execute(sa.text("INSERT INTO customers VALUES (:k, :n)"), [{"k": k, "n": n} for k, n in CUSTOMERS])
        orders, lines = [], []
        for i in range(1, 31):
            customer = CUSTOMERS[i % 3][0]
            # ALFKI has the most order lines; ERNSH pays the most freight
            freight = 90 + i if customer == "ERNSH" else 5 + i / 4
            orders.append({"i": i, "k": customer, "d": date(2025, 1 + i % 12, 1 + i % 27), "f": freight})
            for j in range(6 if customer == "ALFKI" else 1):
                lines.append({"i": len(lines) + 1, "o": i, "q": 1 + j, "u": 3.5})
        c.execute(sa.text("INSERT INTO orders VALUES (:i, :k, :d, :f)"), orders)
        c.execute(sa.text("INSERT INTO order_lines VALUES (:i, :o, :q, :u)"), lines)
    engine.dispose()


@pytest.fixture(params=BACKENDS)
def shop(request, tmp_path):
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    _shop(url)
    drafted = Drafted(url, [], tmp_path, "freight", today=date(2025, 12, 15))
    yield drafted.agent, drafted.pipeline, url
    drafted.pipeline.close()


@pytest.mark.anyio
@pytest.mark.parametrize("say", ["注文の運賃の合計が一番多い顧客は？", "Which customer has the highest total freight?"])
async def test_a_ranking_by_a_labelled_figure_ranks_by_that_figure(shop, say):
    agent, pipeline, url = shop
    top, freight = [scalar(url, f"SELECT {what} FROM orders o JOIN customers c ON c.customer_code = o.customer_code "
                              "GROUP BY c.company_name ORDER BY SUM(o.freight) DESC LIMIT 1")
                    for what in ("c.company_name", "SUM(o.freight)")]
    turn = await ask(agent, pipeline, say)
    assert [c.name for c in turn.calls] == ["orders_summary"], turn.calls
    assert top == "Ernst Handel" and top in turn.answer
    assert f"{float(freight):,.2f}" in turn.answer, turn.answer
