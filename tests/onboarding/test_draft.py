"""The drafted catalog of a schema made here: it loads, every tool runs, and the figures are the database's."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import date
from decimal import Decimal

import draft_shop
import pytest
import sqlalchemy as sa
import yaml

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider
from concierge.catalog.loader import parse_catalog
from concierge.demo.bootstrap import open_pipeline
from concierge.onboarding.draft import draft_catalog
from concierge.onboarding.introspect import introspect
from concierge.storage import users
from concierge.storage.database import Database

TODAY = date(2025, 6, 10)  # "last month" is May 2025, inside the data


@pytest.fixture
def shop_url(any_db_url) -> str:
    draft_shop.create(any_db_url)
    return any_db_url


@pytest.fixture
def drafted(shop_url, tmp_path):
    db = Database(shop_url)
    try:
        schema = introspect(db)
    finally:
        db.dispose()
    draft = draft_catalog(schema, "shop")
    file = tmp_path / "shop.yaml"
    file.write_text(draft.text, encoding="utf-8")
    pipeline = open_pipeline([str(file)], shop_url, today=TODAY)
    users.add(pipeline.db, "boss", "admin")
    users.add(pipeline.db, "yamada", "staff")
    yield schema, draft, pipeline
    pipeline.close()


def _scalar(url: str, sql: str):
    ((value, *_),) = _rows(url, sql)[:1] or [(None,)]
    return value


def test_introspection_reads_the_schema_and_samples_the_data(shop_url):
    db = Database(shop_url)
    try:
        schema = introspect(db)
    finally:
        db.dispose()
    customers, orders = draft_shop.rows()
    names = {t.name: t for t in schema.tables}
    assert set(names) == {"regions", "customers", "orders", "big_orders"}
    assert names["big_orders"].is_view and not names["orders"].is_view
    assert names["orders"].row_count == len(orders) and names["customers"].row_count == len(customers)
    assert names["orders"].fk_of("customer_id").table == "customers"
    assert any(ix.columns == ("ordered_at",) for ix in names["orders"].indexes)
    status = names["orders"].column("status")
    assert status.values == tuple(sorted(draft_shop.STATUSES))
    assert names["customers"].column("Group").values == tuple(sorted(draft_shop.GROUPS))
    assert names["customers"].column("full_name").values is None  # as many names as rows: not an enum
    joined = names["customers"].column("joined_on")
    assert joined.kind == "date" and joined.stored_as_text
    assert (joined.first, joined.last) == (min(c[4] for c in customers), max(c[4] for c in customers))
    at = names["orders"].column("ordered_at")
    assert at.kind == "timestamp"
    days = sorted(o[3].date().isoformat() for o in orders)
    assert (at.first, at.last) == (days[0], days[-1])
    if schema.dialect != "sqlite":
        assert names["customers"].comment == "顧客" and names["customers"].column("full_name").comment == "氏名"


def test_the_draft_loads_has_no_write_and_lists_its_texts_for_review(drafted):
    _, draft, pipeline = drafted
    catalog = parse_catalog(draft.text, "shop.yaml")
    assert set(catalog.spec.roles) == {"admin", "staff"} and all(r.all_rows for r in catalog.spec.roles.values())
    assert all(t.mode == "read" and set(t.roles) == {"admin", "staff"} for t in catalog.tools.values())
    review = set(catalog.spec.review)
    for name, tool in catalog.tools.items():
        assert {f"tools.{name}.description", f"tools.{name}.intents"} <= review
        assert {f"tools.{name}.params.{p}.description" for p in tool.params} <= review
    # enum values are read from the data, never frozen into the file
    raw = yaml.safe_load(draft.text)
    status = raw["tools"]["orders"]["params"]["status"]["enum"]
    assert "query" in status and "values" not in status and "returned" not in draft.text
    assert pipeline.tools_for(pipeline.user("yamada"))  # staff sees the read tools


def _arguments(name: str) -> dict[str, str]:
    """What a drafted tool runs with: nothing, but the two periods a comparison tool requires."""
    if not name.endswith("_compare"):
        return {}
    return {"cur_start": "2025-06-01", "cur_end": "2025-06-30", "prev_start": "2025-05-01", "prev_end": "2025-05-31"}


def test_every_drafted_tool_runs_and_counts_every_row(drafted, shop_url):
    schema, _, pipeline = drafted
    boss = pipeline.user("boss")
    for name in pipeline.tools:
        result = pipeline.invoke(name, _arguments(name), boss)
        assert result.status == "ok", (name, result.message)
    for table in schema.tables:
        result = pipeline.invoke(table.name, {}, boss)
        assert result.row_count == _scalar(shop_url, f"SELECT COUNT(*) FROM {table.name}")
        assert len(result.rows) == min(result.row_count, 50) and result.truncated == (result.row_count > 50)
    orders = pipeline.invoke("orders", {}, boss)
    assert orders.totals["amount"] == _scalar(shop_url, "SELECT SUM(amount) FROM orders")
    assert "customer_full_name" in orders.columns  # the name next to the foreign key
    first = orders.rows[0]
    assert first["customer_full_name"] == _scalar(
        shop_url, f"SELECT full_name FROM customers WHERE id = '{first['customer_id']}'")


def test_filters_match_plain_sql(drafted, shop_url):
    _, _, pipeline = drafted
    boss = pipeline.user("boss")
    may = {"ordered_at_from": "2025-05-01", "ordered_at_to": "2025-05-31"}
    result = pipeline.invoke("orders", {"status": "returned", **may}, boss)
    assert result.status == "ok"
    assert result.row_count == _scalar(shop_url, "SELECT COUNT(*) FROM orders WHERE status = 'returned' "
                                                 "AND ordered_at >= '2025-05-01' AND ordered_at < '2025-06-01'")
    assert all(r["status"] == "returned" and r["ordered_at"][:7] == "2025-05" for r in result.rows)
    assert pipeline.invoke("orders", {"customer_id": "C-0003"}, boss).row_count == _scalar(
        shop_url, "SELECT COUNT(*) FROM orders WHERE customer_id = 'C-0003'")
    smith = pipeline.invoke("customers", {"full_name": "smith"}, boss)  # contains, any case
    assert [r["full_name"] for r in smith.rows] == [c[1] for c in draft_shop.rows()[0] if "Smith" in c[1]]
    gold = pipeline.invoke("customers", {"group": "gold"}, boss)  # the column is "Group", a reserved word
    assert gold.row_count == _scalar(shop_url, """SELECT COUNT(*) FROM customers WHERE "Group" = 'gold'""")
    north = pipeline.invoke("customers", {"region": "North"}, boss)  # a small table's names, through the key
    assert north.row_count == _scalar(shop_url, "SELECT COUNT(*) FROM customers WHERE region_code = 'R01'")
    feb = pipeline.invoke("customers", {"joined_on_from": "2024-02-01", "joined_on_to": "2024-02-29"}, boss)
    assert sorted(r["joined_on"] for r in feb.rows) == sorted(
        c[4] for c in draft_shop.rows()[0] if c[4].startswith("2024-02"))
    later = pipeline.invoke("orders", {"ordered_at_from": f"{date.today().year + 1}-01-01"}, boss)
    assert later.status == "ok" and later.row_count == 0  # after the data (new rows come): runs
    typo = pipeline.invoke("orders", {"ordered_at_from": "2015-05-01"}, boss)  # before the data's first year
    assert typo.status == "refused" and typo.valid["min"] == "2025-01-01"
    refused = pipeline.invoke("orders", {"status": "lost"}, boss)
    assert refused.status == "refused" and refused.valid == {"values": sorted(draft_shop.STATUSES)}


def test_the_summary_sums_by_a_column_and_by_month(drafted):
    _, _, pipeline = drafted
    boss = pipeline.user("boss")
    _, orders = draft_shop.rows()
    by_status: dict[str, list] = defaultdict(lambda: [0, 0])
    by_month: dict[str, list] = defaultdict(lambda: [0, 0])
    for _, _, status, at, amount, _ in orders:
        for key, acc in ((status, by_status), (at.strftime("%Y-%m"), by_month)):
            acc[key][0] += 1
            acc[key][1] += amount
    result = pipeline.invoke("orders_summary", {"group_by": "status"}, boss)
    assert {r["group_value"]: [r["orders"], _num(r["amount"])] for r in result.rows} == dict(by_status)
    assert [r["group_value"] for r in result.rows] == sorted(by_status, key=lambda s: -by_status[s][1])
    result = pipeline.invoke("orders_summary", {"group_by": "month"}, boss)
    assert [(r["group_value"], r["orders"], _num(r["amount"])) for r in result.rows] == [
        (m, *by_month[m]) for m in sorted(by_month)]
    may = pipeline.invoke("orders_summary", {"ordered_at_from": "2025-05-01", "ordered_at_to": "2025-05-31"}, boss)
    assert [(r["group_value"], r["orders"]) for r in may.rows] == [("2025-05", by_month["2025-05"][0])]
    assert _num(may.totals["amount"]) == by_month["2025-05"][1]
    daily = pipeline.invoke("orders_summary", {"group_by": "day", "ordered_at_from": "2025-04-01",
                                               "ordered_at_to": "2025-04-03"}, boss)
    days = sorted({o[3].date().isoformat() for o in orders if "2025-04-01" <= o[3].date().isoformat() <= "2025-04-03"})
    assert [r["group_value"] for r in daily.rows] == days


def _num(value):
    return int(value) if isinstance(value, Decimal | float) and value == int(value) else value


@pytest.mark.anyio
async def test_the_offline_planner_answers_with_the_drafted_tools(drafted, shop_url):
    _, _, pipeline = drafted
    agent = Agent(pipeline, OfflineProvider(pipeline))
    user = pipeline.user("yamada")
    count = _scalar(shop_url, "SELECT COUNT(*) FROM customers")
    turn = await agent.ask("How many customers do we have?", user)
    assert [(c.name, dict(c.args)) for c in turn.calls] == [("customers", {})]
    assert count in _numbers(turn.answer) and "|" not in turn.answer and turn.ungrounded == []  # no rows

    may = _scalar(shop_url, "SELECT COUNT(*) FROM orders "
                            "WHERE ordered_at >= '2025-05-01' AND ordered_at < '2025-06-01'")
    turn = await agent.ask("What were total orders last month?", user)
    assert [(c.name, dict(c.args)) for c in turn.calls] == [
        ("orders_summary", {"ordered_at_from": "2025-05-01", "ordered_at_to": "2025-05-31"})]
    assert may in _numbers(turn.answer)

    turn = await agent.ask("Show the returned orders of May 2025", user)
    assert [(c.name, dict(c.args)) for c in turn.calls] == [
        ("orders", {"status": "returned", "ordered_at_from": "2025-05-01", "ordered_at_to": "2025-05-31"})]

    turn = await agent.ask("Top customers by amount", user)
    assert [(c.name, c.args.get("group_by")) for c in turn.calls] == [("orders_summary", "customer")]

    turn = await agent.ask("Show orders of Chika Smith", user)  # a name: found through the customers' names
    chika = _scalar(shop_url, "SELECT COUNT(*) FROM orders o JOIN customers c ON c.id = o.customer_id "
                              "WHERE c.full_name = 'Chika Smith'")
    assert turn.calls[-1].name == "orders" and chika in _numbers(turn.answer)


@pytest.mark.anyio
async def test_a_ranking_names_the_top_group_by_the_figure_asked(drafted, shop_url):
    _, _, pipeline = drafted
    agent = Agent(pipeline, OfflineProvider(pipeline))
    user = pipeline.user("yamada")
    busiest, most = _days_with_most_orders(shop_url)
    turn = await agent.ask("Which day had the most orders?", user)
    assert [(c.name, c.args.get("group_by"), c.args.get("top_n")) for c in turn.calls] == [
        ("orders_summary", "day", 1)]
    assert _names_the_top(turn.answer, busiest, most)  # by the count of orders, not by the amount
    assert f"are {len(busiest)} days, tied at {most}." in turn.answer  # several days have the most: never one
    (amount_day,), = _rows(shop_url, "SELECT substr(CAST(ordered_at AS VARCHAR), 1, 10) AS d FROM orders "
                                     "GROUP BY d ORDER BY SUM(amount) DESC, d LIMIT 1")
    turn = await agent.ask("Which day had the highest amount?", user)
    assert _days(turn.answer)[:1] == [amount_day]
    turn = await agent.ask("Orders by day in April 2025", user)  # not ranked: days in order
    days = _days(turn.answer)
    assert days == sorted(days) and len(days) > 20


def _numbers(text: str) -> set[int]:
    """The whole numbers an answer states (1,234 and 1234 alike), whatever its sentence; not the digits
    inside dates, ids or decimals."""
    found = re.findall(r"(?<![0-9A-Za-z.,:_-])(\d{1,3}(?:,\d{3})+|\d+)(?![0-9A-Za-z_:-]|[.,]\d)", text)
    return {int(n.replace(",", "")) for n in found}


def _days(text: str) -> list[str]:
    """The days an answer names, in the order it names them."""
    return re.findall(r"\d{4}-\d{2}-\d{2}", text)


def _days_with_most_orders(url: str) -> tuple[list[str], int]:
    """The days that have the most orders (several share it in this data), and that number, by plain SQL."""
    counts = _rows(url, "SELECT substr(CAST(ordered_at AS VARCHAR), 1, 10) AS d, COUNT(*) FROM orders GROUP BY d")
    most = max(n for _, n in counts)
    return sorted(d for d, n in counts if n == most), most


def _names_the_top(text: str, days: list[str], figure: int) -> bool:
    """Whether the answer states `figure` and names every one of `days` and no other day."""
    prose = "\n".join(line for line in text.splitlines() if not line.startswith("|"))
    return figure in _numbers(prose) and sorted(_days(text)) == days


def _rows(url: str, sql: str) -> list[tuple]:
    """Plain SQL as the standard writes it ("Group" a name, also on MySQL, which casts to CHAR, not VARCHAR)."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            if engine.dialect.name in ("mysql", "mariadb"):
                conn.exec_driver_sql("SET SESSION sql_mode = CONCAT(@@sql_mode, ',ANSI_QUOTES')")
                sql = sql.replace(" AS VARCHAR)", " AS CHAR)")
            return [tuple(r) for r in conn.execute(sa.text(sql))]
    finally:
        engine.dispose()


# --- names with affixes, and Japanese questions on an English schema --------------------------------
def _affixed(url: str) -> None:
    """Tables named as real schemas name them: a business prefix shared by two tables, tbl_/m_/dim_
    prefixes and a _master suffix; no comments."""
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE farm_customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL)"))
        conn.execute(sa.text("CREATE TABLE farm_sales (id INTEGER PRIMARY KEY, customer_id INTEGER "
                             "REFERENCES farm_customers(id), sold_on DATE NOT NULL, amount INTEGER NOT NULL)"))
        conn.execute(sa.text("CREATE TABLE pos_sales (id INTEGER PRIMARY KEY, sold_on DATE NOT NULL, "
                             "total INTEGER NOT NULL)"))
        conn.execute(sa.text("CREATE TABLE dim_product (code VARCHAR(8) PRIMARY KEY, name TEXT NOT NULL)"))
        conn.execute(sa.text("CREATE TABLE supplier_master (id INTEGER PRIMARY KEY, name TEXT NOT NULL)"))
        conn.execute(sa.text("INSERT INTO farm_customers VALUES (:i, :n)"),
                     [{"i": i, "n": f"Farmer {chr(64 + i)}"} for i in range(1, 8)])
        conn.execute(sa.text("INSERT INTO farm_sales VALUES (:i, :c, :d, :a)"),
                     [{"i": i, "c": 1 + i % 7, "d": date(2025, 4 + i % 3, 1 + i % 28), "a": 100 * i}
                      for i in range(1, 61)])
        conn.execute(sa.text("INSERT INTO pos_sales VALUES (:i, :d, :t)"),
                     [{"i": i, "d": date(2025, 5, 1 + i % 30), "t": 10 * i} for i in range(1, 41)])
        conn.execute(sa.text("INSERT INTO dim_product VALUES (:c, :n)"),
                     [{"c": f"P{i:04d}", "n": f"Item {i}"} for i in range(1, 13)])
        conn.execute(sa.text("INSERT INTO supplier_master VALUES (:i, :n)"),
                     [{"i": i, "n": f"Supplier {i}"} for i in range(1, 4)])
    engine.dispose()


@pytest.fixture
def affixed(request, tmp_path):
    url = request.getfixturevalue("sqlite_url")
    _affixed(url)
    db = Database(url)
    try:
        draft = draft_catalog(introspect(db), "farmpos")
    finally:
        db.dispose()
    file = tmp_path / "farmpos.yaml"
    file.write_text(draft.text, encoding="utf-8")
    pipeline = open_pipeline([str(file)], url, today=TODAY)
    users.add(pipeline.db, "yamada", "staff")
    yield url, pipeline
    pipeline.close()


@pytest.mark.anyio
@pytest.mark.parametrize(("question", "table"), [
    ("How many customers do we have?", "farm_customers"),
    ("How many products do we have?", "dim_product"),
    ("How many suppliers are there?", "supplier_master"),
    ("顧客は何人？", "farm_customers"),
    ("お客様は何人いますか", "farm_customers"),
    ("商品はいくつありますか", "dim_product"),
    ("仕入先は何件？", "supplier_master"),
])
async def test_a_table_is_found_by_its_head_noun_in_english_and_japanese(affixed, question, table):
    url, pipeline = affixed
    agent = Agent(pipeline, OfflineProvider(pipeline))
    turn = await agent.ask(question, pipeline.user("yamada"))
    assert [(c.name, dict(c.args)) for c in turn.calls] == [(table, {})]
    count = _scalar(url, f"SELECT COUNT(*) FROM {table}")
    assert count in _numbers(turn.answer)


@pytest.mark.anyio
async def test_japanese_totals_and_rankings_on_an_english_schema(drafted, shop_url):
    _, _, pipeline = drafted
    agent = Agent(pipeline, OfflineProvider(pipeline))
    user = pipeline.user("yamada")
    may = "ordered_at >= '2025-05-01' AND ordered_at < '2025-06-01'"
    turn = await agent.ask("先月の注文の合計は？", user)
    assert [(c.name, dict(c.args)) for c in turn.calls] == [
        ("orders_summary", {"ordered_at_from": "2025-05-01", "ordered_at_to": "2025-05-31"})]
    total = _scalar(shop_url, f"SELECT SUM(amount) FROM orders WHERE {may}")
    assert f"{int(total):,}" in turn.answer and "合計" in turn.answer
    turn = await agent.ask("先月の注文は何件？", user)
    assert [c.name for c in turn.calls] == ["orders"]
    assert _scalar(shop_url, f"SELECT COUNT(*) FROM orders WHERE {may}") in _numbers(turn.answer)
    busiest, most = _days_with_most_orders(shop_url)
    turn = await agent.ask("注文が一番多い日は？", user)
    assert [(c.name, c.args.get("group_by"), c.args.get("top_n")) for c in turn.calls] == [
        ("orders_summary", "day", 1)]
    assert _names_the_top(turn.answer, busiest, most)
    assert f"{most}件で、同数が{len(busiest)}あります。" in turn.answer
    turn = await agent.ask("先月の顧客別の注文の合計", user)
    assert [(c.name, c.args.get("group_by")) for c in turn.calls] == [("orders_summary", "customer")]


def test_the_glossary_names_english_tables_in_japanese():
    from concierge.onboarding.naming import Noun

    assert Noun.of("tbl_customer", None).many == "customers"
    assert Noun.of("customer_master", None).ja_forms[:2] == ("顧客", "お客様")
    assert Noun.of("order_items", None).ja == "注文明細"
    farm = Noun.of("farm_customers", None)
    assert (farm.many, farm.heads, farm.ja, farm.partial) == ("farm customers", ("customer", "customers"), "顧客", True)
    assert Noun.of("customers", "お得意様。住所を含む").ja_forms == ("お得意様",)  # a Japanese comment wins


def test_every_drafted_column_has_a_label_in_words(drafted):
    """Answers name columns in words, never by their raw names: every column a drafted tool returns is
    labelled in Japanese and English, from the comment, the glossary or the name in words."""
    _, draft, pipeline = drafted
    raw = yaml.safe_load(draft.text)
    for name, tool in raw["tools"].items():
        result = pipeline.invoke(name, _arguments(name), pipeline.user("boss"))
        labels = tool["result"]["labels"]
        assert set(result.columns) <= set(labels), name
        assert f"tools.{name}.result.labels" in raw["review"]
    orders = raw["tools"]["orders"]["result"]["labels"]
    assert orders["customer_id"] == {"ja": "顧客ID", "en": "customer id"}
    assert orders["ordered_at"] == {"ja": "注文日時", "en": "ordered at"}
    assert orders["amount"] == {"ja": "金額", "en": "amount"}
    assert raw["tools"]["customers"]["result"]["labels"]["region_name"] == {"ja": "地域名", "en": "region name"}
    assert all("_" not in label["ja"] for t in raw["tools"].values() for label in t["result"]["labels"].values())
