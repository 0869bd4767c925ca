"""Only additive measures are summed: money amounts and pieces, never unit prices, rates, durations, sizes,
ratings, ages, years, positions, keys or stock levels; decided by the table, the comment, the name (English
or romaji) and the data, on schemas made here for each rule."""

from __future__ import annotations

import random
from datetime import date, timedelta
from decimal import Decimal

import pytest
import sqlalchemy as sa
import yaml

from concierge.demo.bootstrap import open_pipeline
from concierge.onboarding.draft import draft_catalog
from concierge.onboarding.introspect import Column, ForeignKey, Index, Schema, Table, introspect
from concierge.onboarding.measures import additive_columns, currency_of, formats, line_amount, measure, scale
from concierge.pipeline.access import User
from concierge.storage import users
from concierge.storage.database import Database

ADMIN = User("admin", "admin")


def col(name: str, kind: str = "integer", type_name: str = "INTEGER", comment: str | None = None,
        **facts) -> Column:
    return Column(name, type_name, kind, True, comment, **facts)  # type: ignore[arg-type]


def table(*columns: Column, dated: bool = True, rows: int = 100, pk: tuple[str, ...] = (),
          fks: tuple[ForeignKey, ...] = (), indexes: tuple[Index, ...] = ()) -> Table:
    when = (col("sold_on", "date", "DATE"),) if dated else ()
    return Table("t", False, (*columns, *when), pk, fks, indexes, rows)


# --- by name and comment -------------------------------------------------------------------------
ADDITIVE = ["total", "amount", "order_total", "subtotal", "tax_paid", "line_total", "total_price", "discount_amount",
            "quantity", "qty", "units_sold", "total_items", "item_count", "revenue", "freight", "TotalAmount",
            "gokei_kingaku", "kingaku", "uriage", "suryo", "juchu_suryo", "zeikomi_kingaku", "sogaku", "nebiki_gaku"]
NOT_SUMMED = {
    "unit_price": "unit_price", "UnitPrice": "unit_price", "price": "unit_price", "list_price": "unit_price",
    "avg_amount": "unit_price", "tanka": "unit_price", "hanbai_tanka": "unit_price",
    "tax_rate": "rate", "discount": "rate", "ratio": "rate", "percent": "rate", "waribiki_ritsu": "rate",
    "milliseconds": "duration", "Milliseconds": "duration", "duration": "duration", "runtime_minutes": "duration",
    "bytes": "size", "size": "size", "width": "size", "weight": "size",
    "rating": "score", "score": "score", "rank": "score", "stars": "score",
    "age": "age", "nenrei": "age", "year": "year", "release_year": "year", "nendo": "year",
    "latitude": "geo", "lng": "geo",
    "units_in_stock": "level", "reorder_level": "level", "zaiko_suryo": "level", "balance": "level",
    "credit_limit": "level", "zandaka": "level",
    "order_no": "key", "phone": "key", "zip": "key", "sort_order": "key", "version": "key", "status": "key",
}


@pytest.mark.parametrize("name", ADDITIVE)
def test_money_and_pieces_are_summed(name):
    m = measure(table(col(name)), col(name))
    assert m.additive, m


@pytest.mark.parametrize(("name", "role"), NOT_SUMMED.items())
def test_what_a_sum_of_means_nothing_is_never_summed(name, role):
    m = measure(table(col(name)), col(name))
    assert (m.role, m.additive) == (role, False), m


@pytest.mark.parametrize(("comment", "role"), [
    ("売上金額", "money"), ("合計金額（税込）", "money"), ("受注数量", "quantity"), ("販売単価", "unit_price"),
    ("在庫数量", "level"), ("割引率", "rate"), ("再生時間（ミリ秒）", "duration"), ("評価", "score"),
    ("年齢", "age"), ("緯度", "geo"),
])
def test_a_japanese_comment_says_what_a_column_holds(comment, role):
    assert measure(table(col("c1", comment=comment)), col("c1", comment=comment)).role == role


def test_money_is_amounts_and_unit_prices():
    t = table(col("total"), col("unit_price"), col("quantity"), col("milliseconds"))
    assert [(c.name, measure(t, c).money) for c in t.columns if c.kind == "integer"] == [
        ("total", True), ("unit_price", True), ("quantity", False), ("milliseconds", False)]


def test_a_cost_of_a_thing_is_its_price_and_a_cost_of_an_event_an_amount():
    assert measure(table(col("cost"), dated=False), col("cost")).role == "unit_price"
    assert measure(table(col("cost")), col("cost")).role == "money"


# --- by what the table and the data say ------------------------------------------------------------
def test_keys_foreign_keys_and_unique_columns_are_keys_whatever_their_name():
    t = table(col("amount"), col("total"), col("quantity"), pk=("amount",),
              fks=(ForeignKey(("total",), "other", ("id",)),), indexes=(Index("u", ("quantity",), True),))
    assert [measure(t, c).role for c in t.columns[:3]] == ["key", "key", "key"]
    assert additive_columns(t) == []


@pytest.mark.parametrize(("facts", "role"), [
    ({"distinct": 100, "low": 1001, "high": 1100}, "key"),  # a nearly-unique run of integers: a serial number
    ({"distinct": 99, "low": 1, "high": 120}, "key"),
    ({"distinct": 5, "low": 2009, "high": 2013}, "year"),
    ({"distinct": 3, "low": 1, "high": 3}, "key"),  # a code
    ({"distinct": 97, "low": 120, "high": 98_000}, "figure"),  # spread figures of a table of events
])
def test_a_column_whose_name_says_nothing_is_read_from_its_data(facts, role):
    c = col("ref", **facts)
    assert measure(table(c), c).role == role


def test_an_unnamed_figure_of_a_table_that_records_no_events_is_not_summed():
    c = col("popularity", distinct=97, low=3, high=9_000)
    assert measure(table(c, dated=False), c).role == "level"
    assert measure(table(c), c).additive


def test_text_dates_and_booleans_are_no_measures():
    for c in (col("amount", "text", "TEXT"), col("total", "boolean", "BOOLEAN"), col("paid", "date", "DATE")):
        assert measure(table(c), c).role is None


def test_amounts_come_before_pieces_and_a_total_before_its_parts():
    t = table(col("quantity"), col("tax"), col("subtotal"), col("total"), col("unit_price"))
    assert [c.name for c in additive_columns(t)] == ["total", "subtotal", "tax", "quantity"]


def test_the_scale_of_a_decimal_column():
    assert scale(col("a", "number", "NUMERIC(10, 2)")) == 2 and scale(col("a", "number", "DECIMAL(12,4)")) == 4
    assert scale(col("a", "number", "NUMERIC")) is None and scale(col("a", "number", "REAL")) is None


# --- an order line's amount ----------------------------------------------------------------------
def test_an_order_line_without_an_amount_has_quantity_times_unit_price():
    q, p = col("quantity"), col("unit_price", "number", "NUMERIC(10,2)")
    d = col("discount", "number", "REAL", distinct=4, low=0.0, high=0.25)
    found = line_amount(table(q, p, d, dated=False))
    assert found is not None and (found.quantity, found.unit_price, found.discount) == (q, p, d)
    assert found.sql({"quantity": "t.q", "unit_price": "t.p", "discount": "t.d"}) == \
        "t.q * t.p * (1 - COALESCE(t.d, 0))"
    percent = col("discount_pct", "integer", "INTEGER", distinct=3, low=0, high=15)
    found = line_amount(table(q, p, percent))
    assert found is not None and found.discount_in_percent
    assert found.sql({"quantity": "q", "unit_price": "p", "discount_pct": "d"}) == \
        "q * p * (1 - COALESCE(d, 0) / 100.0)"
    assert line_amount(table(q, p, col("line_total"))) is None  # an amount of its own
    assert line_amount(table(q, col("milliseconds"))) is None
    romaji = line_amount(table(col("suryo"), col("tanka")))
    assert romaji is not None and (romaji.quantity.name, romaji.unit_price.name, romaji.discount) == \
        ("suryo", "tanka", None)


# --- schemas made here, introspected and drafted ---------------------------------------------------------
def _create(url: str) -> None:
    rnd = random.Random(22)
    meta = sa.MetaData()
    money = sa.Numeric(10, 2)
    tracks = sa.Table("tracks", meta, sa.Column("track_id", sa.Integer, primary_key=True, autoincrement=False),
                      sa.Column("name", sa.String(100), nullable=False),
                      sa.Column("milliseconds", sa.Integer), sa.Column("bytes", sa.Integer),
                      sa.Column("rating", sa.Integer), sa.Column("unit_price", money, nullable=False))
    invoices = sa.Table("invoices", meta, sa.Column("invoice_id", sa.Integer, primary_key=True, autoincrement=False),
                        sa.Column("invoice_date", sa.Date, nullable=False),
                        sa.Column("ref", sa.Integer, nullable=False),  # a nearly-unique run: a serial number
                        sa.Column("fiscal", sa.Integer, nullable=False),  # years, by their data
                        sa.Column("total", money, nullable=False))
    lines = sa.Table("order_lines", meta, sa.Column("line_id", sa.Integer, primary_key=True, autoincrement=False),
                     sa.Column("invoice_id", sa.Integer, sa.ForeignKey("invoices.invoice_id"), nullable=False),
                     sa.Column("track_id", sa.Integer, sa.ForeignKey("tracks.track_id"), nullable=False),
                     sa.Column("quantity", sa.Integer, nullable=False),
                     sa.Column("unit_price", money, nullable=False), sa.Column("discount", sa.Float))
    juchu = sa.Table("t_juchu_meisai", meta, sa.Column("juchu_no", sa.Integer, primary_key=True, autoincrement=False),
                     sa.Column("juchu_bi", sa.Date, nullable=False), sa.Column("suryo", sa.Integer, nullable=False),
                     sa.Column("tanka", sa.Integer, nullable=False), sa.Column("kingaku", sa.Integer, nullable=False),
                     sa.Column("zaiko_suryo", sa.Integer, nullable=False))
    start = date(2009, 1, 1)
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        meta.create_all(conn)
        conn.execute(tracks.insert(), [
            {"track_id": i, "name": f"Song {i}", "milliseconds": rnd.randrange(90_000, 400_000),
             "bytes": rnd.randrange(10**6, 10**7), "rating": rnd.randrange(1, 6),
             "unit_price": Decimal("1.99") if i % 4 == 0 else Decimal("0.99")} for i in range(1, 61)])
        line_rows = [{"line_id": i, "invoice_id": 1 + i % 40, "track_id": 1 + i % 60, "quantity": rnd.randrange(1, 4),
                      "unit_price": Decimal("1.99") if i % 4 == 0 else Decimal("0.99"),
                      "discount": rnd.choice([0.0, 0.1, 0.25])} for i in range(1, 201)]
        totals: dict[int, Decimal] = {}
        for r in line_rows:
            totals[r["invoice_id"]] = totals.get(r["invoice_id"], Decimal(0)) + r["unit_price"] * r["quantity"]
        conn.execute(invoices.insert(), [
            {"invoice_id": i, "invoice_date": start + timedelta(days=37 * i), "ref": 5000 + i,
             "fiscal": 2009 + (37 * i) // 365, "total": totals.get(i, Decimal(0))} for i in range(1, 41)])
        conn.execute(lines.insert(), line_rows)
        conn.execute(juchu.insert(), [
            {"juchu_no": i, "juchu_bi": start + timedelta(days=i), "suryo": (q := rnd.randrange(1, 9)),
             "tanka": (p := rnd.choice([120, 480, 1500])), "kingaku": q * p, "zaiko_suryo": rnd.randrange(0, 300)}
            for i in range(1, 41)])
    engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def made(request) -> tuple[str, Schema]:
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    _create(url)
    db = Database(url)
    try:
        return url, introspect(db)
    finally:
        db.dispose()


def _table(schema: Schema, name: str) -> Table:
    found = schema.table(name)
    assert found is not None
    return found


def test_only_additive_measures_of_each_made_table_are_summed(made):
    _, schema = made
    summed = {t.name: [c.name for c in additive_columns(t)] for t in schema.tables}
    assert summed == {"tracks": [], "invoices": ["total"], "order_lines": ["quantity"],
                      "t_juchu_meisai": ["kingaku", "suryo"]}
    invoices = _table(schema, "invoices")
    assert measure(invoices, invoices.column("ref")).role == "key"
    assert measure(invoices, invoices.column("fiscal")).role == "year"


def test_the_drafted_totals_name_only_additive_measures(made):
    _, schema = made
    tools = yaml.safe_load(draft_catalog(schema, "made").text)["tools"]
    totals = {name: set(tool["result"].get("totals", {})) for name, tool in tools.items()}
    assert totals["tracks"] == set() and totals["invoices"] == {"total"} and totals["order_lines"] == {"quantity"}
    assert totals["t_juchu_meisai"] == {"kingaku", "suryo"}
    never = {"milliseconds", "bytes", "rating", "unit_price", "discount", "ref", "fiscal", "tanka", "zaiko_suryo"}
    assert not any(never & names for names in totals.values())
    assert tools["invoices"]["result"]["money"] == ["total"] and tools["invoices"]["result"]["decimals"] == {"total": 2}


def test_formats_say_money_decimals_and_the_currency_of_a_japanese_schema(made):
    _, schema = made
    juchu, tracks = _table(schema, "t_juchu_meisai"), _table(schema, "tracks")
    assert formats(schema, {c.name: (juchu, c) for c in juchu.columns}) == {
        "money": ["tanka", "kingaku"], "decimals": {"tanka": 0, "kingaku": 0}, "currency": "JPY"}
    english = Schema(schema.dialect, "music", tuple(t for t in schema.tables if t.name != "t_juchu_meisai"))
    assert currency_of(english) is None
    assert formats(english, {c.name: (tracks, c) for c in tracks.columns}) == {
        "money": ["unit_price"], "decimals": {"unit_price": 2}}


def test_an_order_lines_amount_through_the_pipeline_is_plain_sqls(made, tmp_path):
    url, schema = made
    lines = _table(schema, "order_lines")
    amount = line_amount(lines)
    assert amount is not None and amount.discount is not None
    expr = amount.sql({c.name: f"l.{c.name}" for c in lines.columns})
    catalog = {
        "catalog": "made", "description": {"ja": "売上", "en": "sales"}, "roles": {"admin": {"all_rows": True}},
        "tools": {"line_amounts": {
            "description": {"ja": "明細の金額", "en": "line amounts"}, "roles": ["admin"],
            "sql": f"SELECT l.line_id, {expr} AS amount FROM order_lines l ORDER BY l.line_id",
            "result": {"max_rows": 10, "totals": {"amount": "sum"}, "money": ["amount"], "decimals": {"amount": 2}}}},
    }
    path = tmp_path / "made.yaml"
    path.write_text(yaml.safe_dump(catalog), encoding="utf-8")
    pipeline = open_pipeline([str(path)], url)
    users.add(pipeline.state, ADMIN.name, ADMIN.role)
    try:
        result = pipeline.invoke("line_amounts", {}, ADMIN)
    finally:
        pipeline.close()
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        expected = conn.execute(sa.text(
            "SELECT SUM(quantity * unit_price * (1 - COALESCE(discount, 0))) FROM order_lines")).scalar()
    engine.dispose()
    assert result.status == "ok", result.message
    assert Decimal(repr(result.totals["amount"])) == Decimal(str(expected)).quantize(Decimal("0.01"))
