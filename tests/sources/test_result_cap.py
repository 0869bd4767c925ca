"""A tool over a big table: the database counts and totals every matching row, and only the rows shown
(plus one, to know there are more) travel to us. Rows fetched are counted at the driver's cursor."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from concierge.demo.bootstrap import open_pipeline
from concierge.pipeline.access import User
from concierge.storage import users

ROWS = 50_000
CATALOG = """
catalog: big
description: {ja: 大きな表, en: a big table}
roles:
  admin: {all_rows: true}
tools:
  list_events:
    description: {ja: 出来事, en: events}
    roles: [admin]
    params:
      kind:
        type: string
        nullable: true
        description: {ja: 種類, en: kind}
    sql: |
      SELECT id, kind, amount, day FROM big_events
      WHERE (:kind IS NULL OR kind = :kind)
      ORDER BY id  -- a trailing comment must not swallow the totals query
    result:
      max_rows: 100
      totals: {amount: sum, day: max, missing: sum}
"""
ADMIN = User("admin", "admin")


def _fill(url: str) -> None:
    engine = sa.create_engine(url)
    meta = sa.MetaData()
    events = sa.Table("big_events", meta, sa.Column("id", sa.Integer, primary_key=True),
                      sa.Column("kind", sa.String(10), nullable=False), sa.Column("amount", sa.Integer),
                      sa.Column("day", sa.Date, nullable=False))
    start = date(2024, 1, 1)
    with engine.begin() as conn:
        meta.create_all(conn)
        conn.execute(events.insert(), [
            {"id": i, "kind": ("a", "b", "c")[i % 3], "amount": None if i % 7 == 0 else i % 1000,
             "day": start + timedelta(days=i % 600)}
            for i in range(ROWS)
        ])
    engine.dispose()


def _expected(url: str, kind: str | None) -> tuple[int, int, str]:
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        n, total, last = conn.execute(sa.text(
            "SELECT COUNT(*), SUM(amount), MAX(day) FROM big_events WHERE (:k IS NULL OR kind = :k)"
        ).bindparams(sa.bindparam("k", type_=sa.String)), {"k": kind}).one()
    engine.dispose()
    return n, int(total), str(last)[:10]


def _count_fetched_rows(engine: sa.Engine) -> list[str]:
    """The statement of every row the driver hands to Python, recorded by a row factory on each cursor."""
    fetched: list[str] = []

    @event.listens_for(engine, "before_cursor_execute")
    def _count(_conn, cursor, statement, *_args):
        if engine.dialect.name == "sqlite":
            cursor.row_factory = lambda _cur, row: (fetched.append(statement), row)[1]
        else:
            cursor.row_factory = lambda _cur: lambda values: (fetched.append(statement), tuple(values))[1]

    return fetched


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def big(request, tmp_path):
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    _fill(url)
    path = tmp_path / "big.yaml"
    path.write_text(CATALOG, encoding="utf-8")
    pipeline = open_pipeline([str(path)], url)
    users.add(pipeline.state, ADMIN.name, ADMIN.role)
    try:
        yield url, pipeline
    finally:
        pipeline.close()


@pytest.mark.parametrize("kind", [None, "b"])
def test_counts_and_totals_are_exact_while_only_the_shown_rows_are_fetched(big, kind):
    url, pipeline = big
    fetched = _count_fetched_rows(pipeline.db.engine)
    result = pipeline.invoke("list_events", {"kind": kind}, ADMIN)

    n, total, last = _expected(url, kind)
    assert result.status == "ok", result.message
    assert (result.row_count, result.truncated, len(result.rows)) == (n, True, 100)
    assert result.totals == {"count": n, "amount": total, "day": last, "missing": 0}
    assert [r["id"] for r in result.rows[:3]] == ([0, 1, 2] if kind is None else [1, 4, 7])
    # the 101 rows of the tool's statement and the one row of the totals, not the 50,000 (or 16,667)
    assert len([s for s in fetched if "big_events" in s]) == 102


def test_a_result_under_the_cap_is_shaped_from_its_rows(big):
    url, pipeline = big
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE big_events SET kind = 'rare' WHERE id IN (3, 10, 17)"))
    engine.dispose()
    result = pipeline.invoke("list_events", {"kind": "rare"}, ADMIN)
    assert (result.row_count, result.truncated, [r["id"] for r in result.rows]) == (3, False, [3, 10, 17])
    assert result.totals["count"] == 3 and result.totals["amount"] == 3 + 10 + 17
