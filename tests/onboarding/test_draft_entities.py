"""Drafts that filter and group through foreign keys by the referenced row's name, on schemas made here
for each rule: figures through the pipeline are compared with plain SQL.

- two customers called Frank: "by customer" is grouped by the key and shown by the full name;
- the albums of an artist (300 artists: more than an enum of a small table) by the artist's name;
- an integer key read after its noun (customer 5, 受注番号1024) and found from a name (a lookup);
- a sales table of 40 products ranked by product, cut to the top N; an order line of quantity × unit
  price × (1 − discount) grouped by a product table of 1,200 rows;
- labels in words on a romaji schema (得意先名, 合計金額, 受注の件数), never a raw identifier.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from decimal import Decimal

import pytest
import sqlalchemy as sa
import yaml

from concierge.catalog.loader import parse_catalog
from concierge.demo.bootstrap import open_pipeline
from concierge.onboarding.columns import display_column, group_columns, name_columns
from concierge.onboarding.draft import REF_ENUM_ROWS, draft_catalog
from concierge.onboarding.introspect import introspect
from concierge.storage import users
from concierge.storage.database import Database

TODAY = date(2025, 6, 10)
BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
def url(request) -> str:
    return request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")


class Drafted:
    """A schema made by `create`, its draft (loaded by the catalog loader) and a pipeline over it."""

    def __init__(self, url: str, create, tmp_path, name: str):
        create(url)
        db = Database(url)
        try:
            self.schema = introspect(db)
        finally:
            db.dispose()
        self.draft = draft_catalog(self.schema, name)
        parse_catalog(self.draft.text, f"{name}.yaml")  # loads with no problem
        self.raw = yaml.safe_load(self.draft.text)
        file = tmp_path / f"{name}.yaml"
        file.write_text(self.draft.text, encoding="utf-8")
        self.url = url
        self.pipeline = open_pipeline([str(file)], url, today=TODAY)
        users.add(self.pipeline.db, "boss", "admin")

    def invoke(self, tool: str, args: dict):
        result = self.pipeline.invoke(tool, args, self.pipeline.user("boss"))
        assert result.status == "ok", (tool, args, result.message)
        return result

    def rows(self, sql: str) -> list[tuple]:
        engine = sa.create_engine(self.url)
        try:
            with engine.connect() as conn:
                return [tuple(r) for r in conn.execute(sa.text(sql))]
        finally:
            engine.dispose()

    def params(self, tool: str) -> dict:
        return self.raw["tools"][tool]["params"]


@pytest.fixture
def drafted(url, tmp_path):
    made: list[Drafted] = []

    def make(create, name: str) -> Drafted:
        made.append(Drafted(url, create, tmp_path, name))
        return made[-1]

    yield make
    for d in made:
        d.pipeline.close()


def _money(value) -> Decimal:
    """A sum of money to the cent, whatever the driver returns (SQLite sums NUMERIC as floats)."""
    return Decimal(str(value)).quantize(Decimal("0.01"))


def _near(got, expected) -> bool:
    """A sum of money within a cent of plain SQL's (a discount gives half cents: 4695.625 may be shown either way)."""
    return abs(Decimal(str(got)) - Decimal(str(expected))) <= Decimal("0.01")


# --- two customers called Frank -----------------------------------------------------------------------
FIRST = ["Luis", "Leonie", "Francois", "Bjorn", "Frantisek", "Helena", "Astrid", "Daan", "Kara", "Eduardo",
         "Alexandre", "Roberto", "Fernanda", "Mark", "Jennifer", "Frank", "Jack", "Michelle", "Tim", "Dan",
         "Kathy", "John", "Victor", "Richard", "Patrick", "Julia", "Robert", "Camille", "Dominique", "Marc",
         "Wyatt", "Isabelle", "Stanislaw", "Enrique", "Joakim", "Emma", "Phil", "Steve", "Madalena", "Hannah"]
LAST = ["Goncalves", "Kohler", "Tremblay", "Hansen", "Wichterlova", "Holy", "Mair", "Peeters", "Nielsen",
        "Martins", "Rocha", "Almeida", "Ramos", "Philips", "Peterson", "Harris", "Smith", "Mitchell", "Goyer",
        "Miller", "Chase", "Gordon", "Stevens", "Cunningham", "Brooks", "Murray", "Dubois", "Lefebvre",
        "Mercier", "Dubois", "Girard", "Schneider", "Zimmermann", "Munoz", "Johansson", "Jones", "Hughes",
        "Murray", "Sampaio", "Schroder"]


def _people(url: str) -> None:
    """customers(first_name, last_name) where two are called Frank (the 16th and the 35th, so that the
    values read when the schema is introspected show no repeat), and their invoices."""
    first = list(FIRST)
    first[34] = "Frank"
    rnd = random.Random(5)
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, first_name VARCHAR(40) NOT NULL,"
                             " last_name VARCHAR(40) NOT NULL, email VARCHAR(80))"))
        conn.execute(sa.text("CREATE TABLE invoices (invoice_id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL "
                             "REFERENCES customers(customer_id), invoice_date DATE NOT NULL, "
                             "total NUMERIC(10, 2) NOT NULL)"))
        conn.execute(sa.text("INSERT INTO customers VALUES (:i, :f, :l, :e)"),
                     [{"i": i + 1, "f": f, "l": ln, "e": f"{f.lower()}@example.com"}
                      for i, (f, ln) in enumerate(zip(first, LAST, strict=True))])
        conn.execute(sa.text("INSERT INTO invoices VALUES (:i, :c, :d, :t)"),
                     [{"i": i, "c": 1 + rnd.randrange(40), "d": date(2025, 1, 1) + timedelta(days=i % 150),
                       "t": rnd.choice(["0.99", "1.98", "3.96", "5.94", "8.91", "13.86"])}
                      for i in range(1, 401)])
    engine.dispose()


def test_a_person_is_shown_by_first_and_last_name_and_never_by_a_first_name_alone(drafted):
    shop = drafted(_people, "people")
    customers = shop.schema.table("customers")
    assert customers is not None
    shown = display_column(customers)
    assert shown is not None and [c.name for c in shown.columns] == ["first_name", "last_name"]
    assert "email" not in {c.name for c in name_columns(customers)} | {c.name for c in group_columns(customers)}
    invoices = shop.invoke("invoices", {"invoice_id": 1})
    (row,) = invoices.rows
    (expected,), = shop.rows("SELECT c.first_name || ' ' || c.last_name FROM invoices i "
                             "JOIN customers c ON c.customer_id = i.customer_id WHERE i.invoice_id = 1")
    assert row["customer_name"] == expected


def test_by_customer_groups_by_the_key_so_two_franks_stay_two(drafted):
    shop = drafted(_people, "people")
    result = shop.invoke("invoices_summary", {"group_by": "customer"})
    expected = shop.rows("SELECT c.first_name || ' ' || c.last_name, COUNT(*), SUM(i.total) FROM invoices i "
                         "JOIN customers c ON c.customer_id = i.customer_id GROUP BY c.customer_id, c.first_name, "
                         "c.last_name ORDER BY SUM(i.total) DESC, 1")
    got = [(r["group_value"], r["invoices"], _money(r["total"])) for r in result.rows]
    assert sorted(got) == sorted((n, c, _money(t)) for n, c, t in expected)
    assert [t for _, _, t in got] == sorted((t for _, _, t in got), reverse=True)  # the biggest first
    franks = [name for name, _, _ in got if name.startswith("Frank ")]
    assert sorted(franks) == ["Frank Harris", "Frank Johansson"]  # two rows, not one of both added together
    top = shop.invoke("invoices_summary", {"group_by": "customer", "top_n": 1})  # two customers share the top
    assert [(r["group_value"], _money(r["total"])) for r in top.rows] == [
        (n, _money(t)) for n, _, t in expected if _money(t) == _money(expected[0][2])]
    assert len(top.rows) == 2


def test_invoices_of_a_customer_by_name_and_by_integer_key(drafted):
    shop = drafted(_people, "people")
    by_name = shop.invoke("invoices", {"customer": "Frank Harris"})
    (count,), = shop.rows("SELECT COUNT(*) FROM invoices i JOIN customers c ON c.customer_id = i.customer_id "
                          "WHERE c.first_name = 'Frank' AND c.last_name = 'Harris'")
    assert by_name.row_count == count > 0
    for tool in ("invoices", "invoices_summary"):  # the summary takes the same filters
        by_key = shop.invoke(tool, {"customer_id": 5})
        (count5, total5), = shop.rows("SELECT COUNT(*), SUM(total) FROM invoices WHERE customer_id = 5")
        figure = by_key.row_count if tool == "invoices" else sum(r["invoices"] for r in by_key.rows)
        assert figure == count5
        if tool == "invoices_summary":
            assert _money(by_key.totals["total"]) == _money(total5)
    key = shop.params("invoices")["customer_id"]
    assert key["type"] == "integer" and key["extract"]["kind"] == "code"
    assert {"customer", "customer id", "顧客番号", "顧客ID"} <= set(key["extract"]["labels"])
    lookup = key["extract"]["lookup"]
    assert lookup == {"tool": "customers", "arg": "name", "column": "customer_id"}
    franks = shop.invoke(lookup["tool"], {lookup["arg"]: "frank"})  # a name said: one call per customer found
    assert sorted(r[lookup["column"]] for r in franks.rows) == [16, 35]
    own = shop.params("invoices")["invoice_id"]["extract"]
    assert own["kind"] == "code" and {"invoice", "請求書番号"} <= set(own["labels"]) and "lookup" not in own


# --- the albums of an artist ---------------------------------------------------------------------------
def _artists(url: str) -> None:
    """300 artists (AC/DC among them) and their albums."""
    rnd = random.Random(11)
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text('CREATE TABLE "Artist" ("ArtistId" INTEGER PRIMARY KEY, "Name" VARCHAR(120))'))
        conn.execute(sa.text('CREATE TABLE "Album" ("AlbumId" INTEGER PRIMARY KEY, "Title" VARCHAR(160) NOT NULL, '
                             '"ArtistId" INTEGER NOT NULL REFERENCES "Artist"("ArtistId"))'))
        names = ["AC/DC", "Accept", "Aerosmith", *(f"Band {i:03d}" for i in range(4, 301))]
        conn.execute(sa.text('INSERT INTO "Artist" VALUES (:i, :n)'),
                     [{"i": i, "n": n} for i, n in enumerate(names, start=1)])
        albums = [(1, "For Those About To Rock"), (1, "Let There Be Rock"), (2, "Balls to the Wall"),
                  (1, "Back In Black"), *((2 + rnd.randrange(299), f"Album {i}") for i in range(5, 501))]
        conn.execute(sa.text('INSERT INTO "Album" VALUES (:i, :t, :a)'),
                     [{"i": i, "t": t, "a": a} for i, (a, t) in enumerate(albums, start=1)])
    engine.dispose()


def test_the_albums_of_an_artist_by_the_artists_name(drafted):
    music = drafted(_artists, "music")
    artist = music.params("album")["artist"]
    assert artist["type"] == "enum" and artist["extract"] == {"kind": "enum"} and "query" in artist["enum"]
    assert music.schema.table("Artist").row_count == 300 <= REF_ENUM_ROWS  # far more than a small table
    result = music.invoke("album", {"artist": "AC/DC"})
    (count,), = music.rows('SELECT COUNT(*) FROM "Album" a JOIN "Artist" r ON r."ArtistId" = a."ArtistId" '
                           "WHERE r.\"Name\" = 'AC/DC'")
    assert result.row_count == count == 3
    assert {r["artist_name"] for r in result.rows} == {"AC/DC"}
    assert music.invoke("album", {"artist_id": 1}).row_count == count  # the same artist by its key
    unknown = music.pipeline.invoke("album", {"artist": "Nobody"}, music.pipeline.user("boss"))
    assert unknown.status == "refused"  # a name not in the data is refused, never read as "all albums"
    assert music.params("album")["artist_id"]["extract"]["lookup"] == {
        "tool": "artist", "arg": "name", "column": "ArtistId"}


# --- a sales table of 40 products; order lines of a product table of 1,200 rows -------------------------
def _sales(url: str) -> None:
    """sales of 40 products kept as text (no product table), quantity and unit price, no amount."""
    rnd = random.Random(3)
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE sales (id INTEGER PRIMARY KEY, sold_on DATE NOT NULL, "
                             "product VARCHAR(40) NOT NULL, quantity INTEGER NOT NULL, "
                             "unit_price NUMERIC(10, 2) NOT NULL)"))
        conn.execute(sa.text("INSERT INTO sales VALUES (:i, :d, :p, :q, :u)"),
                     [{"i": i, "d": date(2025, 3, 1) + timedelta(days=i % 90),
                       "p": f"Product {1 + rnd.randrange(40):02d}", "q": 1 + rnd.randrange(9),
                       "u": f"{1 + rnd.randrange(30)}.{rnd.randrange(100):02d}"}
                      for i in range(1, 801)])
    engine.dispose()


def test_a_sales_table_of_40_products_is_ranked_by_product_and_cut_to_the_top(drafted):
    shop = drafted(_sales, "store")
    group_by = shop.params("sales_summary")["group_by"]
    assert "product" in group_by["enum"]["values"] and group_by["extract"]["synonyms"]["by product"] == "product"
    top = shop.invoke("sales_summary", {"group_by": "product", "top_n": 5})
    expected = shop.rows("SELECT product, COUNT(*), SUM(quantity * unit_price) FROM sales GROUP BY product "
                         "ORDER BY SUM(quantity * unit_price) DESC, product LIMIT 5")
    assert [(r["group_value"], r["sales"], _money(r["amount"])) for r in top.rows] == [
        (p, n, _money(a)) for p, n, a in expected]
    every = shop.invoke("sales_summary", {"group_by": "product"})
    assert len(every.rows) == 40
    (units,), = shop.rows("SELECT SUM(quantity) FROM sales")
    assert every.totals["quantity"] == units and "unit_price" not in every.totals  # a unit price is never summed


def _lines(url: str) -> None:
    """orders, a product table of 1,200 rows, and order lines of quantity, unit price and a discount."""
    rnd = random.Random(8)
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE products (product_id INTEGER PRIMARY KEY, product_name VARCHAR(60) "
                             "NOT NULL UNIQUE)"))
        conn.execute(sa.text("CREATE TABLE orders (order_id INTEGER PRIMARY KEY, ordered_on DATE NOT NULL)"))
        conn.execute(sa.text("CREATE TABLE order_lines (line_id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL "
                             "REFERENCES orders(order_id), product_id INTEGER NOT NULL REFERENCES "
                             "products(product_id), quantity INTEGER NOT NULL, unit_price NUMERIC(10, 2) NOT NULL, "
                             "discount NUMERIC(4, 2) NOT NULL)"))
        conn.execute(sa.text("INSERT INTO products VALUES (:i, :n)"),
                     [{"i": i, "n": f"Widget {i:04d}"} for i in range(1, 1201)])
        conn.execute(sa.text("INSERT INTO orders VALUES (:i, :d)"),
                     [{"i": i, "d": date(2025, 1, 1) + timedelta(days=i % 120)} for i in range(1, 301)])
        conn.execute(sa.text("INSERT INTO order_lines VALUES (:i, :o, :p, :q, :u, :d)"),
                     [{"i": i, "o": 1 + rnd.randrange(300), "p": 1 + rnd.randrange(60) * 20,
                       "q": 1 + rnd.randrange(12), "u": f"{2 + rnd.randrange(40)}.50",
                       "d": rnd.choice(["0", "0.05", "0.1", "0.25"])} for i in range(1, 1501)])
    engine.dispose()


def test_order_lines_sum_quantity_times_price_less_discount_by_a_large_product_table(drafted):
    shop = drafted(_lines, "wholesale")
    params = shop.params("order_lines_summary")
    assert "product" not in params  # 1,200 products: no enum of every name, the key is found from a name
    assert params["product_id"]["extract"]["lookup"] == {"tool": "products", "arg": "product_name",
                                                         "column": "product_id"}
    top = shop.invoke("order_lines_summary", {"group_by": "product", "top_n": 10})
    expected = shop.rows("SELECT p.product_name, SUM(l.quantity * l.unit_price * (1 - l.discount)) FROM order_lines l "
                         "JOIN products p ON p.product_id = l.product_id GROUP BY p.product_id, p.product_name "
                         "ORDER BY 2 DESC, 1 LIMIT 10")
    assert [r["group_value"] for r in top.rows] == [n for n, _ in expected]
    assert all(_near(r["amount"], a) for r, (_, a) in zip(top.rows, expected, strict=True))
    (widget,) = shop.invoke("products", {"product_name": "Widget 0021"}).rows  # the lookup a name said makes
    found = widget["product_id"]
    assert found == 21
    one = shop.invoke("order_lines_summary", {"product_id": found, "group_by": "month"})
    (amount,), = shop.rows("SELECT SUM(quantity * unit_price * (1 - discount)) FROM order_lines WHERE product_id = 21")
    assert _near(one.totals["amount"], amount)


# --- labels in words on a romaji schema ---------------------------------------------------------------
def _romaji(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE m_tokuisaki (tokuisaki_cd VARCHAR(5) PRIMARY KEY, "
                             "tokuisaki_mei VARCHAR(60) NOT NULL)"))
        conn.execute(sa.text("CREATE TABLE t_juchu (juchu_no INTEGER PRIMARY KEY, tokuisaki_cd VARCHAR(5) NOT NULL "
                             "REFERENCES m_tokuisaki(tokuisaki_cd), juchu_bi DATE NOT NULL, "
                             "gokei_kingaku INTEGER NOT NULL)"))
        conn.execute(sa.text("INSERT INTO m_tokuisaki VALUES (:c, :n)"),
                     [{"c": f"T{i:04d}", "n": f"株式会社テスト{i}"} for i in range(1, 41)])
        conn.execute(sa.text("INSERT INTO t_juchu VALUES (:n, :c, :d, :k)"),
                     [{"n": 1000 + i, "c": f"T{1 + i % 40:04d}", "d": date(2025, 1, 1) + timedelta(days=i % 100),
                       "k": 1000 * (1 + i % 17)} for i in range(1, 301)])
    engine.dispose()


def test_a_romaji_schema_is_labelled_in_words(drafted):
    shop = drafted(_romaji, "oroshi")
    tools = shop.raw["tools"]
    summary = tools["t_juchu_summary"]["result"]["labels"]
    assert summary["gokei_kingaku"] == {"ja": "合計金額", "en": "total amount"}
    assert summary["orders"] == {"ja": "受注の件数", "en": "number of orders"}
    read = tools["t_juchu"]["result"]["labels"]
    assert read["tokuisaki_mei"]["ja"] == "得意先名"  # the customer's name joined in, not 得意先得意先名
    for tool in tools.values():
        for label in tool["result"]["labels"].values():
            assert "_" not in label["ja"] + label["en"] and "kingaku" not in label["en"], label
    key = tools["t_juchu"]["params"]["juchu_no"]["extract"]
    assert key["kind"] == "code" and "受注番号" in key["labels"]
    by_customer = shop.invoke("t_juchu_summary", {"group_by": "customer", "top_n": 3})
    every = shop.rows("SELECT m.tokuisaki_mei, SUM(t.gokei_kingaku) FROM t_juchu t JOIN m_tokuisaki m "
                      "ON m.tokuisaki_cd = t.tokuisaki_cd GROUP BY m.tokuisaki_cd, m.tokuisaki_mei ORDER BY 2 DESC, 1")
    third = sorted((int(a) for _, a in every), reverse=True)[2]  # the top 3 places, and every customer tied at the 3rd
    assert [(r["group_value"], int(r["gokei_kingaku"])) for r in by_customer.rows] == [
        (n, int(a)) for n, a in every if int(a) >= third]
    order = shop.invoke("t_juchu", {"juchu_no": 1024})
    assert order.row_count == 1 and order.rows[0]["gokei_kingaku"] == shop.rows(
        "SELECT gokei_kingaku FROM t_juchu WHERE juchu_no = 1024")[0][0]
