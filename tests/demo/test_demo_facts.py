"""Every fact of docs/demo-data.md, read back through the pipeline on SQLite and PostgreSQL."""

from __future__ import annotations

import sqlalchemy as sa

from concierge.demo.farm import data as farm
from concierge.demo.pos import data as pos

WEEK = {"cur_start": "2026-08-24", "cur_end": "2026-08-30", "prev_start": "2026-08-17", "prev_end": "2026-08-23"}


def sales(pipeline, admin, code, begin=None, end=None):
    args = {"code_customer": code, "date_sales_begin_str": begin, "date_sales_end_str": end}
    result = pipeline.invoke("get_sales", args, admin)
    assert result.status == "ok", result.message
    return result


def test_the_named_customers_exist_exactly_so(pipeline, admin):
    rows = pipeline.invoke("get_customers", {}, admin).rows
    by_code = {r["code_customer"]: r for r in rows}
    assert sorted(by_code) == [f"{i:04d}" for i in range(1, 21)]
    assert by_code["0001"] | {} == {"code_customer": "0001", "name_customer": "佐藤太郎",
                                   "address": "東京都新宿区西新宿3丁目ヒカリビル12階", "phone": "03-1234-5678"}
    assert by_code["0003"]["address"] == "北海道札幌市中央区大通西4丁目ファンタジアA101"
    assert by_code["0003"]["phone"] == "011-987-6543"
    assert by_code["0009"]["address"] == "京都府京都市下京区烏丸通河原町スモータル館302"
    assert by_code["0009"]["phone"] == "075-666-7777"
    names = {c: by_code[c]["name_customer"] for c in ("0001", "0002", "0003", "0009", "0014", "0016")}
    assert names == {"0001": "佐藤太郎", "0002": "John Smith", "0003": "山田花子", "0009": "佐藤次郎",
                     "0014": "斉藤明", "0016": "松本理恵"}


def test_name_search_finds_exactly_two_sato_and_one_yamada(pipeline, admin):
    sato = pipeline.invoke("get_customers", {"name_str_customer": "佐藤"}, admin)
    assert [r["code_customer"] for r in sato.rows] == ["0001", "0009"]
    yamada = pipeline.invoke("get_customers", {"name_str_customer": "山田"}, admin)
    assert [r["code_customer"] for r in yamada.rows] == ["0003"]
    smith = pipeline.invoke("get_customers", {"name_str_customer": "smith"}, admin)
    assert [r["code_customer"] for r in smith.rows] == ["0002"]


def test_0009_last_week_is_one_cucumber_sale_and_0010_has_none(pipeline, admin):
    week = sales(pipeline, admin, "0009", "2025-05-05", "2025-05-11")
    assert [(r["date_sales"], r["products"], r["price"]) for r in week.rows] == [("2025-05-10", "キュウリ15本", 1050)]
    assert sales(pipeline, admin, "0010", "2025-05-05", "2025-05-11").row_count == 0


def test_0002_april_and_may(pipeline, admin):
    two_months = sales(pipeline, admin, "0002", "2025-04-01", "2025-05-31")
    assert two_months.totals == {"count": 4, "price": 2180}
    assert [(r["date_sales"], r["price"]) for r in two_months.rows] == [
        ("2025-04-19", 340), ("2025-04-22", 640), ("2025-05-02", 240), ("2025-05-07", 960)]
    assert [r["products"] for r in two_months.rows] == [
        "トマト2個とかぼちゃ1個", "トマト8個", "かぼちゃ2個", "トマト12個"]
    assert [r["code_sales"] for r in two_months.rows[:2]] == ["S20250419112931", "S20250422101931"]
    assert sales(pipeline, admin, "0002", "2025-04-01", "2025-04-30").totals["price"] == 980


def test_0014_has_no_sale_in_may(pipeline, admin):
    assert sales(pipeline, admin, "0014", "2025-05-01", "2025-05-31").row_count == 0


def test_every_other_customer_has_three_sales_this_year(pipeline, admin):
    for code in (f"{i:04d}" for i in range(1, 21)):
        count = sales(pipeline, admin, code, "2025-01-01", "2025-05-14").row_count
        assert count >= 3 or code in ("0010", "0014"), code


def test_no_sale_after_2025_05_14_and_numbers_are_unique(pipeline):
    with pipeline.db.read() as conn:
        last = conn.scalar(sa.text("SELECT MAX(sale_date) FROM farm_sales"))
        count, distinct = conn.execute(
            sa.text("SELECT COUNT(*), COUNT(DISTINCT sales_number) FROM farm_sales")).one()
    assert str(last)[:10] == "2025-05-14"
    assert count == distinct


def test_pos_has_20_products_by_62_days_and_four_categories(pipeline):
    with pipeline.db.read() as conn:
        count, days, products = conn.execute(
            sa.text("SELECT COUNT(*), COUNT(DISTINCT sale_date), COUNT(DISTINCT product) FROM pos_sales")).one()
        first, last = conn.execute(sa.text("SELECT MIN(sale_date), MAX(sale_date) FROM pos_sales")).one()
        categories = list(conn.scalars(sa.text("SELECT DISTINCT category FROM pos_sales ORDER BY 1")))
        prices = dict(conn.execute(sa.text("SELECT DISTINCT product, unit_price FROM pos_sales")).all())
        bad_amounts = conn.scalar(sa.text("SELECT COUNT(*) FROM pos_sales WHERE amount <> unit_price * quantity"))
    assert (count, days, products) == (1240, 62, 20)
    assert (str(first)[:10], str(last)[:10]) == ("2026-07-01", "2026-08-31")
    assert sorted(categories) == sorted(["おにぎり", "デザート", "弁当", "飲料"])
    assert prices == {p: price for p, (_, price, _) in pos.PRODUCTS.items()}
    assert prices["ハンバーグ弁当"] == 580 and prices["ミネラルウォーター"] == 110
    assert bad_amounts == 0


def test_the_compared_weeks(pipeline, admin):
    result = pipeline.invoke("compare_periods", {**WEEK, "category": None}, admin)
    s = result.summary
    assert (s["current_total"], s["previous_total"], s["change"], s["change_pct"]) == (635010, 647940, -12930, -2.0)
    assert [(d["product"], d["change"]) for d in s["top_decreases"]] == [
        ("ハンバーグ弁当", -31900), ("明太子おにぎり", -30600), ("麦茶", -8540)]
    assert [(d["product"], d["change"]) for d in s["top_increases"]] == [
        ("幕の内弁当", 19140), ("鮭おにぎり", 12960), ("アイスバー", 12360)]
    named = {d["product"] for d in s["top_decreases"] + s["top_increases"]}
    for row in result.rows:
        if row["product"] not in named:
            assert -8540 < row["change"] < 12360, row


def test_generation_is_deterministic():
    assert farm.sales() == farm.sales()
    assert pos.rows() == pos.rows()
