"""The drafted catalog of a schema made here: it loads, every tool runs, and the figures are the database's."""

from __future__ import annotations

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
from concierge.onboarding.draft import draft_catalog
from concierge.onboarding.introspect import introspect
from concierge.pipeline.pipeline import Pipeline
from concierge.storage import users
from concierge.storage.database import Database

TODAY = date(2025, 6, 10)  # "last month" is May 2025, inside the data


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def shop_url(request) -> str:
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    draft_shop.create(url)
    return url


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
    pipeline = Pipeline.open([str(file)], shop_url, today=TODAY)
    users.add(pipeline.db, "boss", "admin")
    users.add(pipeline.db, "yamada", "staff")
    yield schema, draft, pipeline
    pipeline.close()


def _scalar(url: str, sql: str):
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text(sql)).scalar()
    finally:
        engine.dispose()


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
    if schema.dialect == "postgresql":
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


def test_every_drafted_tool_runs_and_counts_every_row(drafted, shop_url):
    schema, _, pipeline = drafted
    boss = pipeline.user("boss")
    for name in pipeline.tools:
        result = pipeline.invoke(name, {}, boss)
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
    assert f"{count} row(s)" in turn.answer and turn.ungrounded == []

    may = _scalar(shop_url, "SELECT COUNT(*) FROM orders "
                            "WHERE ordered_at >= '2025-05-01' AND ordered_at < '2025-06-01'")
    turn = await agent.ask("What were total orders last month?", user)
    assert [(c.name, dict(c.args)) for c in turn.calls] == [
        ("orders_summary", {"ordered_at_from": "2025-05-01", "ordered_at_to": "2025-05-31"})]
    assert f"orders {may}" in turn.answer

    turn = await agent.ask("Show the returned orders of May 2025", user)
    assert [(c.name, dict(c.args)) for c in turn.calls] == [
        ("orders", {"status": "returned", "ordered_at_from": "2025-05-01", "ordered_at_to": "2025-05-31"})]

    turn = await agent.ask("Top customers by amount", user)
    assert [(c.name, c.args.get("group_by")) for c in turn.calls] == [("orders_summary", "customer")]

    turn = await agent.ask("Show orders of Chika Smith", user)  # a name: found through the customers' names
    chika = _scalar(shop_url, "SELECT COUNT(*) FROM orders o JOIN customers c ON c.id = o.customer_id "
                              "WHERE c.full_name = 'Chika Smith'")
    assert turn.calls[-1].name == "orders" and f"{chika} row(s)" in turn.answer
