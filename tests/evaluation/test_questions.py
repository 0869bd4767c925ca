"""The generator on schemas nobody here designed: every figure it expects equals plain SQL written here."""

from __future__ import annotations

import re
from datetime import date, timedelta
from decimal import Decimal
from functools import lru_cache

import draft_shop
import jaffle
import pytest
import sqlalchemy as sa

from concierge.evaluation.questions import KINDS, generate
from concierge.storage.database import Database

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
BACKENDS = ["sqlite_url", pytest.param("pg_url", marks=pytest.mark.postgres)]


@lru_cache(maxsize=1)
def jaffle_rows():
    return jaffle.generate(days=60)


# what the test knows of each schema: the orders' amount and date, the customers' key and name
SCHEMAS = {
    "shop": (draft_shop.create, "amount", "full_name"),
    "jaffle": (lambda url: jaffle.load(url, jaffle_rows()), "order_total", "name"),
}


def one(url: str, sql: str, **values) -> object:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text(sql), values).scalar()
    finally:
        engine.dispose()


def figure(text: str) -> Decimal:
    return Decimal(text.replace(",", ""))


def month_of(say: str) -> date:
    name, year = re.search(r"in (\w+) (\d{4})\?", say).groups()
    return date(int(year), MONTHS.index(name) + 1, 1)


def next_month(day: date) -> date:
    return date(day.year + day.month // 12, day.month % 12 + 1, 1)


def orders_total(url: str, amount: str, start: date, end: date) -> Decimal:
    sql = f"SELECT SUM({amount}) FROM orders WHERE ordered_at >= :start AND ordered_at < :end"
    return Decimal(str(one(url, sql, start=start, end=end)))


@pytest.mark.parametrize("schema", sorted(SCHEMAS))
@pytest.mark.parametrize("url_fixture", BACKENDS)
def test_every_generated_figure_is_what_plain_sql_says(request, url_fixture, schema):
    url = request.getfixturevalue(url_fixture)
    make, amount, name = SCHEMAS[schema]
    make(url)
    db = Database(url)
    try:
        cases = generate(db, schema, 200)
    finally:
        db.dispose()
    by_id = {c["id"]: c for c in cases}
    assert len(by_id) == len(cases)
    assert {c["kind"] for c in cases} >= set(KINDS) - {"year_total"}  # both span one year or less
    assert {c["id"].rsplit("-", 1)[1] for c in cases} == {"en", "ja"}
    last = one(url, "SELECT MAX(ordered_at) FROM orders")
    assert all(date.fromisoformat(c["today"]) > date.fromisoformat(str(last)[:10]) for c in cases)

    for table in ("customers", "orders"):
        [expected] = by_id[f"count-{table}-en"]["turns"][0]["answer_contains"]
        assert figure(expected) == one(url, f"SELECT COUNT(*) FROM {table}")

    turn = by_id["period_total-orders-en"]["turns"][0]
    start = month_of(turn["say"])
    assert figure(turn["answer_contains"][0]) == orders_total(url, amount, start, next_month(start))

    first, second = by_id["followup-orders-en"]["turns"]
    start = month_of(first["say"])
    before = date(start.year - (start.month == 1), (start.month - 2) % 12 + 1, 1)
    assert second["say"] == "And the month before?"
    assert figure(second["answer_contains"][0]) == orders_total(url, amount, before, start)

    top_name, top_total = by_id[f"top_entity-customers-by-{amount}-orders-en"]["turns"][0]["answer_contains"]
    ranked = sa.text(f"SELECT c.{name}, SUM(o.{amount}) FROM orders o JOIN customers c ON c.id = o.customer"
                     f"{'_id' if schema == 'shop' else ''} GROUP BY c.id, c.{name} ORDER BY 2 DESC LIMIT 2")
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        (best, most), (_, second_most) = conn.execute(ranked).all()
    engine.dispose()
    assert (top_name, figure(top_total)) == (best, most) and most > second_most

    turn = by_id["entity_count-orders-of-customers-by-name-en"]["turns"][0]
    who = re.fullmatch(r"How many orders does (.+) have\?", turn["say"]).group(1)
    fk = "customer_id" if schema == "shop" else "customer"
    assert one(url, f"SELECT COUNT(*) FROM customers WHERE {name} = :n", n=who) == 1
    assert figure(turn["answer_contains"][0]) == one(
        url, f"SELECT COUNT(*) FROM orders o JOIN customers c ON c.id = o.{fk} WHERE c.{name} = :n", n=who)

    turn = by_id["date_range-orders-en"]["turns"][0]
    day = re.search(r"from (\w+) 1, (\d{4}) to", turn["say"])
    start = date(int(day.group(2)), MONTHS.index(day.group(1)) + 1, 1)
    assert figure(turn["answer_contains"][0]) == one(
        url, "SELECT COUNT(*) FROM orders WHERE ordered_at >= :s AND ordered_at < :e",
        s=start, e=start + timedelta(days=15))


def test_a_name_two_rows_share_is_never_asked_by_name(sqlite_url):
    draft_shop.create(sqlite_url)
    engine = sa.create_engine(sqlite_url)
    with engine.begin() as conn:  # every customer gets a twin: no name is asked any more
        conn.execute(sa.text("INSERT INTO customers SELECT id || 'b', full_name, region_code, \"Group\", joined_on "
                             "FROM customers"))
    engine.dispose()
    db = Database(sqlite_url)
    try:
        cases = generate(db, "shop", 200)
    finally:
        db.dispose()
    assert not [c for c in cases if c["id"].startswith("entity_count-orders-of-customers")]
    assert [c for c in cases if c["id"].startswith("entity_count-customers-of-regions")]  # region names stay alone
