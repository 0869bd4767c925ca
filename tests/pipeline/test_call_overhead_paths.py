"""The short paths of a read: a check its rows imply runs only when there are none, and every result
returned has its audit line, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from concierge.catalog.loader import parse_catalog
from concierge.errors import CatalogError
from concierge.pipeline import audit
from concierge.storage import state

CHECK = "SELECT 1 FROM farm_customers"
MAY = {"date_sales_begin_str": "2025-05-01", "date_sales_end_str": "2025-05-31"}


def _statements(pipeline) -> list[str]:
    seen: list[str] = []
    event.listen(pipeline.db.engine, "before_cursor_execute",
                 lambda _conn, _cursor, statement, *_args: seen.append(statement))
    return seen


def test_a_check_the_rows_imply_runs_only_when_there_are_none(pipeline, admin):
    seen = _statements(pipeline)
    found = pipeline.invoke("get_sales", {"code_customer": "0009", **MAY}, admin)
    assert (found.status, found.row_count) == ("ok", 1)
    assert not [s for s in seen if CHECK in s], "rows found: the customer exists, no check needed"

    none = pipeline.invoke("get_sales", {"code_customer": "0010", **MAY}, admin)
    assert (none.status, none.row_count, none.totals) == ("ok", 0, {"count": 0, "price": 0})
    missing = pipeline.invoke("get_sales", {"code_customer": "0099", **MAY}, admin)
    assert (missing.status, missing.code, missing.message) == ("error", "not_found", "customer not found")
    assert missing.message_ja and "見つかりません" in missing.message_ja
    assert len([s for s in seen if CHECK in s]) == 2


def test_a_customer_out_of_scope_is_still_not_found(pipeline):
    rep = pipeline.user("tanaka")  # customers 0011..0020 only
    outside = pipeline.invoke("get_sales", {"code_customer": "0009", **MAY}, rep)
    assert (outside.status, outside.code) == ("error", "not_found")
    assert outside.rows == []


def test_a_write_tool_cannot_declare_a_check_implied_by_rows():
    catalog = """
catalog: bad
description: {ja: 例, en: example}
roles: {admin: {all_rows: true}}
tools:
  add_note:
    description: {ja: メモ, en: note}
    mode: write
    roles: [admin]
    params:
      code: {type: string, required: true, description: {ja: コード, en: code}}
    checks:
      - sql: SELECT 1 FROM farm_customers WHERE code = :code
        message: {ja: ありません, en: not found}
        implied_by_rows: true
    sql: UPDATE farm_customers SET name = name WHERE code = :code
"""
    with pytest.raises(CatalogError, match=r"checks\.0\.implied_by_rows"):
        parse_catalog(catalog, "bad.yaml")


def test_every_returned_result_has_its_audit_line(pipeline, admin):
    results = [pipeline.invoke("get_sales", {"code_customer": f"{n:04d}", **MAY}, admin) for n in (9, 10, 99)]
    results.append(pipeline.invoke("compare_periods", {"cur_start": "2026-08-24", "cur_end": "2026-08-30",
                                                       "prev_start": "2026-08-17", "prev_end": "2026-08-23",
                                                       "category": None}, admin))
    results.append(pipeline.invoke("get_sales", {"code_customer": "12"}, admin))  # refused by the guard
    with pipeline.state.read() as conn:
        lines = {r.result_id: r for r in conn.execute(sa.select(state.audit))}
    assert [lines[r.result_id].decision for r in results] == ["ok", "ok", "error:not_found", "ok",
                                                              "refused:bad_argument"]
    assert [lines[r.result_id].rows for r in results] == [r.any_row_count() for r in results]
    assert audit.latest(pipeline.state, 1)[0]["result_id"] == results[-1].result_id
