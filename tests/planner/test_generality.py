"""A catalog that is neither demo: the planner uses it with no code of its own, from intents and extract only."""

from __future__ import annotations

from datetime import date

import pytest
import sqlalchemy as sa
from planner_helpers import converse, offline_agent

from concierge.demo.bootstrap import open_pipeline
from concierge.storage import users

pytestmark = pytest.mark.anyio

INVENTORY = """
catalog: inventory
description: {ja: 倉庫の入出庫の記録を調べます。, en: Look up a warehouse's stock movements.}
roles:
  admin: {all_rows: true}
tools:
  stock_moves:
    description: {ja: 期間内の品目別の入出庫。, en: Stock movements by item within a period.}
    roles: [admin]
    params:
      item:
        type: enum
        nullable: true
        enum: {query: "SELECT DISTINCT item FROM inv_moves ORDER BY 1", synonyms: {apples: りんご, apple: りんご}}
        description: {ja: 品目, en: item}
        extract: {kind: enum}
      start:
        type: date
        required: true
        description: {ja: 開始日, en: first day}
        extract: {kind: date, part: start}
      end:
        type: date
        required: true
        description: {ja: 終了日, en: last day}
        extract: {kind: date, part: end}
      shelf:
        type: string
        nullable: true
        pattern: '^[A-Z]-\\d{2}$'
        description: {ja: 棚番号(例 B-07), en: "shelf such as B-07"}
        extract: {kind: code, labels: [棚, shelf]}
    ordered: [[start, end]]
    sql: |
      SELECT move_date, item, shelf, quantity FROM inv_moves
      WHERE move_date BETWEEN :start AND :end
        AND (:item IS NULL OR item = :item) AND (:shelf IS NULL OR shelf = :shelf)
      ORDER BY move_date, item
    result:
      totals: {quantity: sum}
    intents:
      keywords: [入出庫, 入庫, 出庫, 在庫の動き, stock, inventory]
      topics: [在庫]
      examples: [先週のりんごの入出庫を見せて, Show the stock movements of apples last week]
"""
ROWS = [("2025-05-05", "りんご", "A-01", 30), ("2025-05-07", "りんご", "A-01", -12),
        ("2025-05-08", "みかん", "B-07", 50), ("2025-05-09", "りんご", "B-07", -5), ("2025-05-13", "りんご", "A-01", 8)]


@pytest.fixture
def inventory(tmp_path):
    url = f"sqlite:///{tmp_path / 'inventory.db'}"
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE inv_moves (move_date DATE, item TEXT, shelf TEXT, quantity INTEGER)"))
        conn.execute(sa.text("INSERT INTO inv_moves VALUES (:d, :i, :s, :q)"),
                     [{"d": d, "i": i, "s": s, "q": q} for d, i, s, q in ROWS])
    engine.dispose()
    catalog = tmp_path / "inventory.yaml"
    catalog.write_text(INVENTORY, encoding="utf-8")
    pipeline = open_pipeline([str(catalog)], url, today=date(2025, 5, 15))
    users.add(pipeline.db, "admin", "admin")
    yield pipeline
    pipeline.close()


async def test_the_planner_reads_a_catalog_it_has_never_seen(inventory):
    turns = await converse(offline_agent(inventory), inventory.user("admin"), [
        "先週のりんごの入出庫を見せて",
        "Show the stock movements of apples on shelf A-01 last week",
        "みかんは？",
        "在庫を全部削除して",
    ])
    last_week = {"start": "2025-05-05", "end": "2025-05-11"}
    assert [[(name, args) for name, args, _ in calls] for calls, _ in turns] == [
        [("stock_moves", {**last_week, "item": "りんご"})],
        [("stock_moves", {**last_week, "item": "りんご", "shelf": "A-01"})],
        [("stock_moves", {**last_week, "item": "みかん", "shelf": "A-01"})],
        [],
    ]
    ja, en, follow_up, refused = (turn for _, turn in turns)
    assert "3件" in ja.answer and "quantityの合計は13" in ja.answer and ja.ungrounded == []
    assert "There are 2 " in en.answer and "quantity adds up to 18" in en.answer and en.ungrounded == []
    assert "0件" in follow_up.answer
    assert "削除" in refused.answer and "倉庫の入出庫の記録を調べます" in refused.answer
