"""A read with more rows than its result shows returns the first rows in the order its statement gives: the newest
sales when it orders by date, newest first. On MariaDB a statement wrapped in a query that limits it loses its
ORDER BY (a subquery with no LIMIT has no order there), and the oldest rows stored came back as "the latest"; a
statement with no LIMIT of its own is now stopped by one at its end (sources/sql/capped.py). On SQLite,
PostgreSQL and MariaDB."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from concierge.demo.bootstrap import open_pipeline
from concierge.pipeline.access import User
from concierge.storage import users

ADMIN = User("admin", "admin")
SALES = [(i, f"2026-11-{d:02d}", 100 * i) for i, d in enumerate([3, 1, 20, 7, 15, 28, 9, 11, 2, 25], start=1)]

CATALOG = """catalog: shop
description: {ja: 店, en: a shop}
roles:
  admin: {all_rows: true}
tools:
  latest_sales:
    description: {ja: 最近の売上, en: the latest sales}
    roles: [admin]
    sql: SELECT sale_id, sold_on, amount FROM sales ORDER BY sold_on DESC
    result: {max_rows: 3, totals: {amount: sum}}
  biggest_sales:
    description: {ja: 大きい売上, en: the biggest sales}
    roles: [admin]
    sql: SELECT sale_id, sold_on, amount FROM sales ORDER BY amount DESC LIMIT 5
    result: {max_rows: 3}
"""


@pytest.fixture
def shop(any_db_url, tmp_path):
    engine = sa.create_engine(any_db_url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE sales (sale_id INTEGER PRIMARY KEY, sold_on DATE NOT NULL, amount INTEGER)"))
        for row in SALES:
            conn.execute(sa.text("INSERT INTO sales VALUES (:i, :d, :a)"), dict(zip("ida", row, strict=True)))
    engine.dispose()
    (tmp_path / "shop.yaml").write_text(CATALOG, encoding="utf-8")
    pipeline = open_pipeline([str(tmp_path / "shop.yaml")], any_db_url)
    users.add(pipeline.state, ADMIN.name, ADMIN.role)
    yield pipeline
    pipeline.close()


def test_the_rows_shown_are_the_first_in_the_statements_order(shop):
    result = shop.invoke("latest_sales", {}, ADMIN)
    newest = sorted(SALES, key=lambda s: s[1], reverse=True)[:3]
    assert [r["sale_id"] for r in result.rows] == [i for i, _, _ in newest]
    assert result.row_count == len(SALES) and result.truncated  # and it says there are more, counted by the database
    assert result.totals["amount"] == sum(a for _, _, a in SALES)


def test_a_statement_with_its_own_limit_keeps_it_and_its_order(shop):
    result = shop.invoke("biggest_sales", {}, ADMIN)
    biggest = sorted(SALES, key=lambda s: s[2], reverse=True)
    assert [r["sale_id"] for r in result.rows] == [i for i, _, _ in biggest[:3]]
    assert result.row_count == 5 and result.truncated
