"""Rollups: the pos demo's questions answered from its summary table equal the base table's answers on both
engines, stay equal through every kind of write, and a rollup that may be stale is never read."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from demo_databases import with_demos

from concierge.catalog.loader import load_catalog, load_catalogs, parse_catalog
from concierge.catalog.model import Rollup
from concierge.demo.bootstrap import open_pipeline
from concierge.errors import CatalogError, ConfigError
from concierge.pipeline.pipeline import Pipeline
from concierge.storage import rollups
from concierge.storage.database import Database

ROLLUP = "pos_daily_product"
QUESTIONS = [
    ("compare_periods", {"cur_start": "2026-08-24", "cur_end": "2026-08-30", "prev_start": "2026-08-17",
                         "prev_end": "2026-08-23", "category": None}),
    ("compare_periods", {"cur_start": "2026-08-01", "cur_end": "2026-08-31", "prev_start": "2026-07-01",
                         "prev_end": "2026-07-31", "category": "弁当"}),
    ("compare_periods", {"cur_start": "2026-08-10", "cur_end": "2026-08-20", "prev_start": "2026-08-15",
                         "prev_end": "2026-08-25", "category": None}),  # overlapping periods count twice
    ("sales_ranking", {"start": "2026-07-01", "end": "2026-08-31", "category": None, "top_n": 5, "order": "desc"}),
    ("sales_ranking", {"start": "2026-08-01", "end": "2026-08-31", "category": "デザート", "top_n": 3,
                       "order": "asc"}),
    ("daily_sales", {"start": "2026-08-01", "end": "2026-08-31", "product": "プリン", "category": None}),
    ("daily_sales", {"start": "2026-07-20", "end": "2026-08-10", "product": None, "category": "飲料"}),
]


def _answers(pipeline: Pipeline) -> list[tuple]:
    admin = pipeline.user("admin")
    out = []
    for tool, args in QUESTIONS:
        result = pipeline.invoke(tool, args, admin)
        assert result.status == "ok", result.message
        out.append((tool, result.rows, result.totals, result.summary))
    return out


def _pair(url: str) -> tuple[Pipeline, Pipeline]:
    return open_pipeline(["pos"], url), open_pipeline(["pos"], url, use_rollups=False)


def _pair_as_found(url: str) -> tuple[Pipeline, Pipeline]:
    """Pipelines on the database as it is (`Pipeline.open` would rebuild an embedded demo's rollups)."""
    catalogs = load_catalogs(["pos"])
    return Pipeline(catalogs, Database(url)), Pipeline(catalogs, Database(url), use_rollups=False)


def _reads_rollup(pipeline: Pipeline, tool: str = "compare_periods", values: dict | None = None) -> bool:
    pipeline.refresh()
    return ROLLUP in pipeline.sql.statement(pipeline.tools[tool], values or {"category": None})


def _declared() -> Rollup:
    return load_catalog("pos").spec.rollups[ROLLUP]


def test_a_fresh_demo_reads_its_rollup_and_answers_as_the_base_table(db_url):
    with_rollup, base = _pair(db_url)
    try:
        assert _reads_rollup(with_rollup) and not _reads_rollup(base)
        assert _answers(with_rollup) == _answers(base)
    finally:
        with_rollup.close()
        base.close()


@pytest.mark.parametrize("write", [
    "INSERT INTO pos_sales (store, sale_date, product, category, unit_price, quantity, amount) "
    "VALUES ('E店', '2026-08-25', 'プリン', 'デザート', 200, 7, 1400), "
    "('E店', '2026-08-25', '新商品', 'デザート', 300, 2, 600)",
    "UPDATE pos_sales SET quantity = quantity + 1, amount = amount + unit_price "
    "WHERE sale_date BETWEEN '2026-08-20' AND '2026-08-26'",
    "UPDATE pos_sales SET category = 'おにぎり' WHERE product = 'プリン' AND sale_date = '2026-08-27'",
    "DELETE FROM pos_sales WHERE sale_date = '2026-08-24'",
    "DELETE FROM pos_sales WHERE product = 'プリン' AND sale_date >= '2026-08-15'",
])
def test_every_write_to_the_table_keeps_the_rollup_exact(db_url, write):
    db = Database(db_url)
    try:
        with db.write() as conn:
            conn.execute(sa.text(write))
        with db.read() as conn:
            assert rollups.differences(conn, ROLLUP, _declared()) == 0
    finally:
        db.dispose()
    with_rollup, base = _pair(db_url)
    try:
        assert _reads_rollup(with_rollup)
        assert _answers(with_rollup) == _answers(base)
    finally:
        with_rollup.close()
        base.close()


WRITE_CATALOG = """
catalog: pos_register
description: {ja: 売上登録, en: register sales}
roles: {admin: {all_rows: true}}
tools:
  register_pos_sale:
    description: {ja: 1商品1日の売上を登録, en: register one product's sales of a day}
    mode: write
    roles: [admin]
    params:
      day: {type: date, required: true, description: {ja: 日, en: day}}
      quantity: {type: integer, required: true, min: 1, description: {ja: 数量, en: quantity}}
    sql: |
      INSERT INTO pos_sales (store, sale_date, product, category, unit_price, quantity, amount)
      VALUES ('F店', :day, 'プリン', 'デザート', 250, :quantity, 250 * :quantity)
"""


def test_a_declared_write_shows_in_the_next_answer_from_the_rollup(db_url, tmp_path):
    path = tmp_path / "register.yaml"
    path.write_text(WRITE_CATALOG, encoding="utf-8")
    pipeline = open_pipeline(["pos", str(path)], db_url)
    try:
        admin = pipeline.user("admin")
        args = {"start": "2026-08-30", "end": "2026-08-30", "product": "プリン", "category": None}
        before = pipeline.invoke("daily_sales", args, admin).totals["amount"]
        written = pipeline.invoke("register_pos_sale", {"day": "2026-08-30", "quantity": 4}, admin)
        assert written.status == "ok", written.message
        assert _reads_rollup(pipeline, "daily_sales", {"product": "プリン", "category": None})
        assert pipeline.invoke("daily_sales", args, admin).totals["amount"] == before + 1000
    finally:
        pipeline.close()


def test_a_rollup_missing_a_trigger_is_not_read_and_answers_stay_right(db_url):
    db = Database(db_url)
    trigger = f"{ROLLUP}_on_insert"
    try:
        with db.write() as conn:
            conn.execute(sa.text(f"DROP TRIGGER {trigger}" if db.is_sqlite else f"DROP TRIGGER {trigger} ON pos_sales"))
            conn.execute(sa.text("INSERT INTO pos_sales VALUES ('E店', '2026-08-25', 'プリン', 'デザート', 200, 50, "
                                 "10000)"))
        with db.read() as conn:
            assert rollups.current(conn, {ROLLUP: _declared()}) == frozenset()
            assert rollups.differences(conn, ROLLUP, _declared()) > 0  # the rollup is stale ...
    finally:
        db.dispose()
    with_rollup, base = _pair_as_found(db_url)
    try:
        assert not _reads_rollup(with_rollup)  # ... so it is not read
        assert _answers(with_rollup) == _answers(base)
    finally:
        with_rollup.close()
        base.close()
    if db_url.startswith("sqlite"):  # the embedded demo rebuilds what is not current when it opens
        healed = open_pipeline(["pos"], db_url)
        try:
            assert _reads_rollup(healed)
            with healed.db.read() as conn:
                assert rollups.differences(conn, ROLLUP, _declared()) == 0
        finally:
            healed.close()


def test_a_rollup_built_from_another_declaration_is_not_read(db_url):
    db = Database(db_url)
    try:
        other = Rollup(table="pos_sales", group_by=["sale_date", "product", "category"], sums=["amount"])
        with db.write() as conn:
            rollups.build(conn, ROLLUP, other)  # the catalog's declaration also sums quantity
        with db.read() as conn:
            assert rollups.current(conn, {ROLLUP: _declared()}) == frozenset()
    finally:
        db.dispose()
    with_rollup, base = _pair_as_found(db_url)
    try:
        assert not _reads_rollup(with_rollup)
        assert _answers(with_rollup) == _answers(base)
    finally:
        with_rollup.close()
        base.close()


def test_a_bulk_load_pauses_the_triggers_and_rebuilds_the_days_it_touched(db_url):
    db = Database(db_url)
    rows = [{"store": f"S{n:03d}", "day": "2026-08-2" + str(d), "product": p, "category": c, "q": n % 5 + 1}
            for n in range(40) for d in range(4, 8) for p, c in (("プリン", "デザート"), ("麦茶", "飲料"))]
    try:
        with db.write() as conn, rollups.paused(conn, "pos_sales") as touched:
            assert rollups.current(conn, {ROLLUP: _declared()}) == frozenset()  # no triggers while loading
            conn.execute(sa.text("INSERT INTO pos_sales VALUES (:store, :day, :product, :category, 100, :q, 100 * :q)"),
                         rows)
            touched.add("sale_date", {r["day"] for r in rows})
        with db.read() as conn:
            assert rollups.current(conn, {ROLLUP: _declared()}) == {ROLLUP}
            assert rollups.differences(conn, ROLLUP, _declared()) == 0
    finally:
        db.dispose()


def test_a_bulk_load_that_fails_leaves_the_table_the_rollup_and_the_triggers(db_url):
    db = Database(db_url)
    try:
        with db.read() as conn:
            count = conn.scalar(sa.text("SELECT COUNT(*) FROM pos_sales"))
        with pytest.raises(RuntimeError), db.write() as conn, rollups.paused(conn, "pos_sales"):
            conn.execute(sa.text("DELETE FROM pos_sales WHERE sale_date = '2026-08-24'"))
            raise RuntimeError("a bad line")
        with db.read() as conn:
            assert conn.scalar(sa.text("SELECT COUNT(*) FROM pos_sales")) == count
            assert rollups.current(conn, {ROLLUP: _declared()}) == {ROLLUP}
            assert rollups.differences(conn, ROLLUP, _declared()) == 0
    finally:
        db.dispose()


@pytest.mark.postgres
def test_truncate_on_postgresql_empties_the_rollup(pg_url):
    db = Database(with_demos(pg_url, "pos"))
    try:
        with db.write() as conn:
            conn.execute(sa.text("TRUNCATE pos_sales"))
        with db.read() as conn:
            assert conn.scalar(sa.text(f"SELECT COUNT(*) FROM {ROLLUP}")) == 0
            assert rollups.differences(conn, ROLLUP, _declared()) == 0
    finally:
        db.dispose()


BY_STORE = """
catalog: by_store
description: {ja: 店舗別, en: by store}
roles: {admin: {all_rows: true}}
rollups:
  pos_daily_product:
    table: pos_sales
    group_by: [sale_date, product, category]
    sums: [amount, quantity]
tools:
  store_total:
    description: {ja: 期間の売上合計(店舗は任意), en: "total sales of a period, one store or all"}
    roles: [admin]
    params:
      start: {type: date, required: true, description: {ja: 開始日, en: first day}}
      end: {type: date, required: true, description: {ja: 終了日, en: last day}}
      store:
        type: enum
        nullable: true
        enum: {query: "SELECT DISTINCT store FROM pos_sales ORDER BY 1"}
        description: {ja: 店舗, en: store}
    sql: |
      SELECT SUM(amount) AS amount FROM pos_sales
      WHERE sale_date BETWEEN :start AND :end AND (:store IS NULL OR store = :store)
    rollup:
      table: pos_daily_product
      sql: SELECT SUM(amount) AS amount FROM pos_daily_product WHERE sale_date BETWEEN :start AND :end
"""


def test_a_question_below_the_rollups_grain_reads_the_base_table(db_url, tmp_path):
    path = tmp_path / "by_store.yaml"
    path.write_text(BY_STORE, encoding="utf-8")
    db = Database(db_url)
    try:
        with db.write() as conn:
            conn.execute(sa.text("INSERT INTO pos_sales VALUES ('E店', '2026-08-25', 'プリン', 'デザート', 200, 5, "
                                 "1000)"))
    finally:
        db.dispose()
    pipeline = open_pipeline([str(path)], db_url)
    try:
        admin, tool = pipeline.user("admin"), pipeline.tools["store_total"]
        span = {"start": "2026-08-25", "end": "2026-08-25"}
        pipeline.guard_context("store_total")
        assert ROLLUP in pipeline.sql.statement(tool, {**span, "store": None})
        assert ROLLUP not in pipeline.sql.statement(tool, {**span, "store": "E店"})
        everyone = pipeline.invoke("store_total", {**span, "store": None}, admin).rows[0]["amount"]
        one = pipeline.invoke("store_total", {**span, "store": "E店"}, admin).rows[0]["amount"]
        assert one == 1000 and everyone > one
    finally:
        pipeline.close()


def test_a_rollup_refuses_a_column_that_may_be_null(sqlite_url):
    db = Database(sqlite_url)
    try:
        with db.write() as conn:
            conn.execute(sa.text("CREATE TABLE visits (day DATE NOT NULL, shop TEXT, spent INTEGER NOT NULL)"))
        with pytest.raises(ConfigError, match="visits.shop may be NULL"), db.write() as conn:
            rollups.build(conn, "visits_daily", Rollup(table="visits", group_by=["day", "shop"], sums=["spent"]))
    finally:
        db.dispose()


@pytest.mark.parametrize(("rollup", "message"), [
    ("table: pos_weekly\n      sql: SELECT 1 FROM pos_weekly", "'pos_weekly' is not declared under rollups"),
    ("table: pos_daily_product\n      sql: DELETE FROM pos_daily_product", "one SELECT"),
    ("table: pos_daily_product\n      sql: SELECT SUM(amount) FROM pos_sales", "reads no pos_daily_product"),
    ("table: pos_daily_product\n      sql: SELECT SUM(amount) FROM pos_daily_product WHERE store = :shop",
     ":shop is not a declared parameter"),
])
def test_the_loader_names_what_is_wrong_with_a_tools_rollup(rollup, message):
    text = BY_STORE.replace("table: pos_daily_product\n      sql: SELECT SUM(amount) AS amount FROM pos_daily_product "
                            "WHERE sale_date BETWEEN :start AND :end", rollup)
    assert text != BY_STORE
    with pytest.raises(CatalogError, match=message):
        parse_catalog(text, "by_store.yaml")


def test_db_refresh_builds_and_check_reports_a_stale_rollup(sqlite_url):
    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "concierge", "db", *args, "--catalog", "pos",
                               "--database", sqlite_url], capture_output=True, text=True, timeout=120)

    init = cli("init")
    assert init.returncode == 0, init.stderr
    assert cli("refresh", "--check").returncode == 0
    path = Path(sqlite_url.removeprefix("sqlite:///"))
    import sqlite3

    with sqlite3.connect(path) as raw:
        raw.execute(f"DROP TRIGGER {ROLLUP}_on_delete")
    stale = cli("refresh", "--check")
    assert stale.returncode == 1 and "not current" in stale.stdout and "concierge db refresh" in stale.stdout
    rebuilt = cli("refresh")
    assert rebuilt.returncode == 0 and f"{ROLLUP}: " in rebuilt.stdout
    assert cli("refresh", "--check").returncode == 0
