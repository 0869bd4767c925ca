"""Conditions, keys, sales words and labels a draft reads from the data, on schemas made here for each rule;
figures through the pipeline are compared with plain SQL, on SQLite and PostgreSQL.

- a boolean, a 0/1 integer named as a flag and a Y/N text named as one are yes/no filters, said in English
  and Japanese (販売中止, not discontinued); a date left empty until its event (shipped_date) is "shipped or not";
- text keys of one shape ordinary words lack (ALFKI: five capitals) get a pattern, and a key said that names
  no row is said to name none (a check), never answered as "no orders";
- the summary of the money a business sells is asked by sales / 売上, its lines' by units sold / 何個売れた;
- a romaji schema is described in English words (total amount), and `init` asks its example in Japanese
  by the noun (得意先), not by a second form.
"""

from __future__ import annotations

import random

import pytest
from drafted import BACKENDS, Drafted

from concierge.cli.init_cmd import example_question
from concierge.onboarding.columns import code_pattern, letters_only

CODES = ["ALFKI", "ANATR", "ANTON", "AROUT", "BERGS", "BLAUS", "BLONP", "BOLID"]


def _shop() -> list[str]:
    rnd = random.Random(3)
    out = [
        "CREATE TABLE customers (customer_id VARCHAR(5) PRIMARY KEY, company_name VARCHAR(40) NOT NULL)",
        "CREATE TABLE products (product_id INTEGER PRIMARY KEY, product_name VARCHAR(40) NOT NULL,"
        " discontinued BOOLEAN NOT NULL, is_active INTEGER NOT NULL, featured_yn VARCHAR(1) NOT NULL,"
        " unit_price NUMERIC(8, 2) NOT NULL)",
        "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id VARCHAR(5) REFERENCES customers"
        " (customer_id), order_date DATE NOT NULL, shipped_date DATE, freight NUMERIC(8, 2) NOT NULL)",
        "CREATE TABLE order_details (order_id INTEGER NOT NULL REFERENCES orders (order_id), product_id INTEGER"
        " NOT NULL REFERENCES products (product_id), unit_price NUMERIC(8, 2) NOT NULL, quantity INTEGER NOT NULL,"
        " PRIMARY KEY (order_id, product_id))",
    ]
    out += [f"INSERT INTO customers VALUES ('{c}', 'Company {c}')" for c in CODES]
    for i in range(1, 21):
        out.append(f"INSERT INTO products VALUES ({i}, 'Product {i}', {'TRUE' if i % 5 == 0 else 'FALSE'}, "
                   f"{int(i % 3 != 0)}, '{'Y' if i % 4 == 0 else 'N'}', {rnd.randint(2, 90)}.50)")
    for i in range(1, 41):
        day = f"2025-0{rnd.randint(1, 5)}-{rnd.randint(10, 28)}"
        shipped = "NULL" if i % 7 == 0 else f"'{day[:-2]}{int(day[-2:]) + 1}'"
        out.append(f"INSERT INTO orders VALUES ({i}, '{rnd.choice(CODES)}', '{day}', {shipped}, {rnd.randint(1, 50)})")
        for product in rnd.sample(range(1, 21), rnd.randint(1, 3)):
            out.append(f"INSERT INTO order_details VALUES ({i}, {product}, {rnd.randint(2, 90)}.00, "
                       f"{rnd.randint(1, 9)})")
    return out


@pytest.fixture(params=BACKENDS)
def shop(request, tmp_path):
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    made = Drafted(url, _shop(), tmp_path, "shop")
    yield made
    made.pipeline.close()


@pytest.mark.parametrize(("param", "column", "yes", "no"), [
    ("discontinued", "discontinued", "discontinued = TRUE", "discontinued = FALSE"),
    ("active", "is_active", "is_active = 1", "is_active = 0"),
    ("featured", "featured_yn", "featured_yn = 'Y'", "featured_yn = 'N'"),
])
def test_a_flag_is_a_yes_no_filter(shop, param, column, yes, no):
    spec = shop.params("products")[param]
    assert spec["enum"]["values"] == ["yes", "no"] and "featured_yn" not in shop.params("products")
    synonyms = spec["extract"]["synonyms"]
    assert synonyms[f"not {param}"] == "no" and synonyms[param] == "yes"
    for value, where in (("yes", yes), ("no", no)):
        got = shop.invoke("products", {param: value}).row_count
        assert got == shop.scalar(f"SELECT COUNT(*) FROM products WHERE {where}")
    assert shop.invoke("products", {}).row_count == 20


def test_flags_are_said_in_japanese_too(shop):
    synonyms = shop.params("products")["discontinued"]["extract"]["synonyms"]
    assert synonyms["販売中止"] == "yes" and synonyms["販売中"] == "no" and synonyms["not discontinued"] == "no"
    assert shop.params("products")["active"]["extract"]["synonyms"]["無効"] == "no"


def test_an_empty_date_says_the_event_has_not_happened(shop):
    shipped = shop.params("orders")["shipped"]
    synonyms = shipped["extract"]["synonyms"]
    assert synonyms["haven't shipped"] == synonyms["not shipped"] == synonyms["未出荷"] == "no"
    assert synonyms["shipped"] == synonyms["出荷済み"] == "yes"
    assert shop.invoke("orders", {"shipped": "no"}).row_count == shop.scalar(
        "SELECT COUNT(*) FROM orders WHERE shipped_date IS NULL") > 0
    assert "shipped" in shop.params("orders_summary")  # the summary takes it too
    assert "shipped" in shop.params("orders")["shipped_date_from"]["extract"]["words"]  # said with shipped only
    assert "order_date_from" in shop.params("orders") and "extract" in shop.params("orders")["order_date_from"]


def test_five_capital_letters_are_a_key_checked_against_the_data(shop):
    key = shop.params("orders")["customer_id"]
    assert key["pattern"] == "^[A-Z]{5}$" and key["extract"]["kind"] == "code"
    assert shop.invoke("orders", {"customer_id": "ALFKI"}).row_count == shop.scalar(
        "SELECT COUNT(*) FROM orders WHERE customer_id = 'ALFKI'")
    unknown = shop.call("orders", {"customer_id": "TOTAL"})  # a word in capitals: no customer has it
    assert unknown.status == "error" and unknown.code == "not_found"
    assert shop.call("order_details_summary", {"customer_id": "TOTAL"}).code == "not_found"


@pytest.mark.parametrize(("samples", "pattern"), [
    (("ALFKI", "ANATR", "ANTON", "AROUT"), "^[A-Z]{5}$"),
    (("AB-001", "CD-002", "EF-123"), r"^[A-Z]{2}\-\d{3}$"),
    (("T0001", "T0002", "T0003"), r"^T\d{4}$"),
    (("USA", "GBR", "FRA"), None),  # capitals shorter than 4: words people write so
    (("apple", "pears", "plums"), None),  # words
    (("Anna", "Bert", "Carl"), None),  # names
    (("ALFKI", "ANATR"), None),  # too few to tell a shape
])
def test_a_key_shape_is_drafted_only_where_words_have_none_like_it(samples, pattern):
    assert code_pattern(samples) == pattern
    assert letters_only("^[A-Z]{5}$") and not letters_only(r"^T\d{4}$")


def test_the_lines_of_orders_kept_with_freight_only_are_where_sales_are_asked(shop):
    lines, orders = shop.keywords("order_details_summary"), shop.keywords("orders_summary")
    assert {"sales", "revenue", "売上", "売上高", "売れた", "units sold", "何個売れた", "product sales",
            "商品の売上"} <= set(lines)
    assert not {"sales", "売上", "units sold"} & set(orders)  # freight is no sales
    top = shop.invoke("order_details_summary", {"group_by": "product", "top_n": 1})
    expected = shop.rows("SELECT p.product_name, SUM(d.quantity * d.unit_price) FROM order_details d JOIN products p"
                         " ON p.product_id = d.product_id GROUP BY p.product_id, p.product_name ORDER BY 2 DESC")[0]
    assert (top.rows[0]["group_value"], float(top.rows[0]["amount"])) == (expected[0], float(expected[1]))


def test_an_invoice_of_its_own_total_is_where_sales_are_asked_and_its_lines_count_units(sqlite_url, tmp_path):
    shop = Drafted(sqlite_url, [
        "CREATE TABLE tracks (track_id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL)",
        "CREATE TABLE invoices (invoice_id INTEGER PRIMARY KEY, invoice_date DATE NOT NULL, total NUMERIC(8, 2))",
        "CREATE TABLE invoice_lines (invoice_line_id INTEGER PRIMARY KEY, invoice_id INTEGER REFERENCES invoices"
        " (invoice_id), track_id INTEGER REFERENCES tracks (track_id), unit_price NUMERIC(4, 2), quantity INTEGER)",
        *(f"INSERT INTO tracks VALUES ({i}, 'Track {i}')" for i in range(1, 6)),
        *(f"INSERT INTO invoices VALUES ({i}, '2025-05-{i:02d}', 1.98)" for i in range(1, 11)),
        *(f"INSERT INTO invoice_lines VALUES ({i}, {i}, {i % 5 + 1}, 0.99, 2)" for i in range(1, 11)),
    ], tmp_path, "store")
    try:
        header, lines = set(shop.keywords("invoices_summary")), set(shop.keywords("invoice_lines_summary"))
        assert {"sales", "revenue", "売上", "売上高"} <= header and not {"sales", "売上"} & lines
        assert {"units sold", "何個売れた", "売上数量", "sales by track"} <= lines  # 売上数量 holds 売上: a move
    finally:
        shop.pipeline.close()


def test_a_romaji_schema_is_described_in_english_words(sqlite_url, tmp_path):
    shop = Drafted(sqlite_url, [
        "CREATE TABLE m_tokuisaki (tokuisaki_cd VARCHAR(5) PRIMARY KEY, tokuisaki_mei VARCHAR(40) NOT NULL,"
        " todofuken VARCHAR(10))",
        "CREATE TABLE t_juchu (juchu_no INTEGER PRIMARY KEY, tokuisaki_cd VARCHAR(5) REFERENCES m_tokuisaki"
        " (tokuisaki_cd), juchu_bi DATE NOT NULL, gokei_kingaku INTEGER NOT NULL)",
        *(f"INSERT INTO m_tokuisaki VALUES ('T{i:04d}', '株式会社{i}', '{['東京都', '大阪府'][i % 2]}')"
          for i in range(1, 41)),
        *(f"INSERT INTO t_juchu VALUES ({1000 + i}, 'T{i % 40 + 1:04d}', '2025-09-{i % 28 + 1:02d}', {i * 100})"
          for i in range(1, 31)),
    ], tmp_path, "oroshi")
    try:
        assert "totals of total amount" in shop.tool("t_juchu")["description"]["en"]
        summary = shop.tool("t_juchu_summary")["description"]["en"]
        assert "sum total amount" in summary and "period of order date" in summary and "gokei" not in summary
        assert example_question(shop.schema, "ja") == "得意先は何件ありますか？"
        per = shop.tool("m_tokuisaki_summary")["params"]["group_by"]  # 都道府県ごとの得意先数: no date needed
        assert "prefecture" in per["enum"]["values"] and per["extract"]["synonyms"]["都道府県ごと"] == "prefecture"
        got = shop.invoke("m_tokuisaki_summary", {"group_by": "prefecture"})
        assert {r["group_value"]: r["customers"] for r in got.rows} == dict(
            shop.rows("SELECT todofuken, COUNT(*) FROM m_tokuisaki GROUP BY todofuken"))
    finally:
        shop.pipeline.close()
