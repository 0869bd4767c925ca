"""Money is exact and printed as money: a NUMERIC(10, 2) summed on SQLite (floats) and PostgreSQL (decimals)
gives the figure plain SQL gives, rounded to its cents, in rows, totals, JSON and the answer's text."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
import sqlalchemy as sa

from concierge.catalog.loader import parse_catalog
from concierge.catalog.model import ResultShape
from concierge.demo.bootstrap import open_pipeline
from concierge.errors import CatalogError
from concierge.pipeline.access import User
from concierge.pipeline.pipeline import Pipeline
from concierge.planner.answer.results import render
from concierge.planner.answer.values import number, written
from concierge.sources.result import Money, Rows, from_json, shape
from concierge.storage import users

ADMIN = User("admin", "admin")
TODAY = date(2025, 6, 10)


def catalog(currency: str | None = None) -> str:
    head = f"currency: {currency}\n" if currency else ""
    return head + """catalog: music
description: {ja: 売上, en: sales}
roles:
  admin: {all_rows: true}
tools:
  lines:
    description: {ja: 明細, en: invoice lines}
    roles: [admin]
    sql: SELECT id, customer, quantity, unit_price FROM lines ORDER BY id
    result:
      max_rows: 1000
      totals: {unit_price: sum, quantity: sum}
      money: [unit_price]
      decimals: {unit_price: 2}
      labels: {unit_price: {ja: 単価, en: unit price}}
  lines_capped:
    description: {ja: 明細, en: invoice lines}
    roles: [admin]
    sql: SELECT id, customer, unit_price FROM lines ORDER BY id
    result:
      max_rows: 5
      totals: {unit_price: sum}
      money: [unit_price]
      decimals: {unit_price: 2}
  spent:
    description: {ja: 顧客別の支払額, en: spent by customer}
    roles: [admin]
    sql: |
      SELECT customer, SUM(unit_price) AS spent FROM lines GROUP BY customer ORDER BY customer
    result:
      totals: {spent: sum}
      money: [spent]
      decimals: {spent: 2}
      labels: {spent: {ja: 支払額, en: spent}}
"""


ROWS = [(i, i % 7, 1 + i % 3, Decimal("1.99") if i % 3 == 0 else Decimal("0.99")) for i in range(1, 301)]


def _fill(url: str) -> None:
    engine = sa.create_engine(url)
    meta = sa.MetaData()
    lines = sa.Table("lines", meta, sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
                     sa.Column("customer", sa.Integer, nullable=False), sa.Column("quantity", sa.Integer),
                     sa.Column("unit_price", sa.Numeric(10, 2), nullable=False))
    with engine.begin() as conn:
        meta.create_all(conn)
        conn.execute(lines.insert(), [dict(zip(("id", "customer", "quantity", "unit_price"), r, strict=True))
                                      for r in ROWS])
    engine.dispose()


def _sql(url: str, sql: str) -> list[tuple]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(sql))]
    finally:
        engine.dispose()


def _cents(value) -> Decimal:
    """A figure of plain SQL (a noisy float on SQLite, a Decimal on PostgreSQL) rounded to cents."""
    return Decimal(repr(value) if isinstance(value, float) else value).quantize(Decimal("0.01"))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request) -> str:
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    _fill(url)
    return url


def _pipeline(url: str, tmp_path, currency: str | None = None) -> Pipeline:
    path = tmp_path / "music.yaml"
    path.write_text(catalog(currency), encoding="utf-8")
    pipeline = open_pipeline([str(path)], url, today=TODAY)
    users.add(pipeline.state, ADMIN.name, ADMIN.role)
    return pipeline


@pytest.fixture
def pipeline(url, tmp_path):
    pipeline = _pipeline(url, tmp_path)
    yield pipeline
    pipeline.close()


def test_the_data_sums_with_float_noise_in_plain_sqlite():
    assert sum(float(r[3]) for r in ROWS) != float(sum(r[3] for r in ROWS))  # the case this file is about


@pytest.mark.parametrize("tool", ["lines", "lines_capped"])  # summed here / summed by the database
def test_a_total_of_money_is_plain_sqls_rounded_to_its_cents(pipeline, url, tool):
    result = pipeline.invoke(tool, {}, ADMIN)
    assert result.status == "ok", result.message
    [(expected,)] = _sql(url, "SELECT SUM(unit_price) FROM lines")
    assert Decimal(repr(result.totals["unit_price"])) == _cents(expected) == sum(r[3] for r in ROWS)
    assert repr(result.totals["unit_price"]) == "397" or "0000" not in repr(result.totals["unit_price"])


def test_sums_the_database_made_are_rounded_row_by_row(pipeline, url):
    result = pipeline.invoke("spent", {}, ADMIN)
    expected = {c: _cents(s) for c, s in _sql(url, "SELECT customer, SUM(unit_price) FROM lines GROUP BY customer")}
    assert {r["customer"]: Decimal(repr(r["spent"])) for r in result.rows} == expected
    assert all(len(repr(r["spent"]).partition(".")[2]) <= 2 for r in result.rows)
    assert Decimal(repr(result.totals["spent"])) == sum(expected.values())


def test_json_carries_numbers_and_says_which_are_money(pipeline):
    result = pipeline.invoke("spent", {}, ADMIN)
    dumped = result.to_json()
    assert dumped["money"] == {"spent": 2} and dumped["currency"] is None
    assert all(isinstance(r["spent"], int | float) for r in dumped["rows"])
    again = from_json(dumped)  # a stored result reads back with its money
    assert isinstance(again, Rows) and isinstance(result, Rows)
    assert again.shown_rows() == result.shown_rows()


def test_the_answer_shows_cents_not_float_noise(pipeline):
    result = pipeline.invoke("spent", {}, ADMIN)
    tool = pipeline.tools["spent"]
    text = render(result, "en", tool, today=TODAY)
    first = next(r for r in result.rows if r["customer"] == 0)
    assert f"{Decimal(repr(first['spent'])):,.2f}" in text  # 55.58
    assert "397.00" in text  # the total
    assert "0000" not in text and "9999" not in text


@pytest.mark.parametrize(("currency", "shown"), [("USD", "$397.00"), ("JPY", "397円"), ("EUR", "€397.00")])
def test_the_catalogs_currency_writes_its_sign_and_digits(url, tmp_path, currency, shown):
    pipeline = _pipeline(url, tmp_path, currency)
    try:
        result = pipeline.invoke("spent", {}, ADMIN)
        assert result.currency == currency
        for lang in ("en", "ja"):
            assert shown in render(result, lang, pipeline.tools["spent"], today=TODAY)
    finally:
        pipeline.close()


# --- without a database ------------------------------------------------------------------------------
@pytest.mark.parametrize(("money", "text"), [
    (Money(Decimal("81.24"), None, 2), "81.24"),
    (Money(Decimal("81.2"), None, 2), "81.20"),
    (Money(Decimal("81.24"), "USD", 2), "$81.24"),
    (Money(Decimal("-5"), "USD", 2), "-$5.00"),
    (Money(Decimal("1234.5"), "JPY", 0), "1,235円"),
    (Money(Decimal("1234567"), "JPY", 0), "1,234,567円"),
    (Money(Decimal("12.5"), "CHF", 2), "12.50 CHF"),
])
def test_money_writes_itself(money, text):
    assert str(money) == text == number(money)


def test_formats_of_answer_templates_keep_the_money():
    assert written(Money(Decimal("3"), "USD", 2), "signed", "en", TODAY) == "+$3.00"
    assert written(Money(Decimal("-3"), "USD", 2), "abs", "en", TODAY) == "$3.00"


def test_a_float_is_printed_without_the_noise_of_float_sums():
    assert number(81.23999999999998) == "81.24"
    assert number(0.1 + 0.2) == "0.3"
    assert number(1234567.5) == "1,234,567.5" and number(-2.0) == "-2.0" and number(7) == "7"


def test_shaping_sums_decimals_exactly_and_rounds_declared_columns():
    rows = [{"a": 0.99, "b": 0.1, "m": 1.005}, {"a": 1.99, "b": 0.2, "m": 2.0}]
    spec = ResultShape(totals={"a": "sum", "b": "sum", "m": "sum"}, money=["m"], currency="JPY")
    out = shape(rows, spec)
    assert out["totals"] == {"count": 2, "a": 2.98, "b": 0.3, "m": 3}
    assert [r["m"] for r in out["rows"]] == [1, 2] and out["money"] == {"m": 0} and out["currency"] == "JPY"
    dollars = shape(rows, ResultShape(totals={"m": "sum"}, money=["m"], decimals={"m": 3}, currency="USD"))
    assert dollars["totals"]["m"] == 3.005 and dollars["money"] == {"m": 2}  # kept to 3 places, shown to 2


def test_a_catalog_says_what_is_money_only_of_its_columns():
    bad = catalog().replace("money: [spent]", "money: [spend]").replace("currency: X", "")
    with pytest.raises(CatalogError) as err:
        parse_catalog(bad, "music.yaml")
    assert "tools.spent.result.money" in str(err.value) and "spend" in str(err.value)
    with pytest.raises(CatalogError) as err:
        parse_catalog(catalog("yen"), "music.yaml")
    assert "currency" in str(err.value)


def test_the_catalogs_currency_is_each_tools_unless_a_tool_says():
    text = catalog("USD").replace("      decimals: {spent: 2}\n", "      decimals: {spent: 2}\n      currency: EUR\n")
    tools = parse_catalog(text, "music.yaml").tools
    assert tools["lines"].result.currency == "USD" and tools["spent"].result.currency == "EUR"
