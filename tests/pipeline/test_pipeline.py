"""The pipeline end to end on SQLite and PostgreSQL: injection, confirmation, interrupted writes, audit."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from concierge.catalog.loader import parse_catalog
from concierge.demo.bootstrap import open_pipeline
from concierge.errors import DatabaseError
from concierge.pipeline import audit

INJECTIONS = [
    "0001' OR '1'='1",
    "'; DROP TABLE farm_sales; --",
    "0001; DELETE FROM farm_customers",
    "%",
    "_",
    "\\",
    "' UNION SELECT name, address, phone, code FROM farm_customers --",
    "佐藤%' OR name LIKE '%",
]
SALE = {"code_customer": "0016", "products": "かぼちゃ4個", "price": 600, "date_sales_str": "2025-05-06"}


def table_counts(pipeline) -> dict[str, int]:
    with pipeline.db.read() as conn:
        tables = ("farm_customers", "farm_sales", "pos_sales")
        return {t: conn.scalar(sa.text(f"SELECT COUNT(*) FROM {t}")) for t in tables}


def farm_rows(pipeline, code="0016") -> list[tuple]:
    with pipeline.db.read() as conn:
        return conn.execute(sa.text("SELECT products, price FROM farm_sales WHERE customer_code = :c"),
                            {"c": code}).all()


@pytest.mark.parametrize("text", INJECTIONS)
def test_injection_strings_in_every_string_parameter_change_nothing(pipeline, admin, text):
    before = table_counts(pipeline)
    for tool, args in (
        ("get_customers", {"code_customer": text}),
        ("get_customers", {"name_str_customer": text}),
        ("get_sales", {"code_customer": text}),
        ("get_sales", {"code_customer": "0001", "code_sales": text}),
    ):
        result = pipeline.invoke(tool, args, admin)
        assert result.status in ("ok", "refused"), (tool, args, result.message)
        assert result.any_row_count() == 0, (tool, args, result.any_rows())
    sale = pipeline.invoke("add_sale", {**SALE, "products": text}, admin)
    if sale.status == "confirm":
        done = pipeline.invoke("add_sale", {**SALE, "products": text}, admin, confirmation=sale.confirmation_token)
        assert done.rows[0]["products"] == text.strip()
        assert table_counts(pipeline) == {**before, "farm_sales": before["farm_sales"] + 1}
    else:
        assert sale.status == "refused"
        assert table_counts(pipeline) == before


def test_a_confirmed_write_happens_once_and_replays_are_refused(pipeline, admin):
    before = farm_rows(pipeline)
    preview = pipeline.invoke("add_sale", SALE, admin)
    assert preview.status == "confirm"
    assert preview.preview == {"code_customer": "0016", "name_customer": "松本理恵", "date_sales": "2025-05-06",
                               "products": "かぼちゃ4個", "price": 600}
    assert farm_rows(pipeline) == before, "a preview writes nothing"
    token = preview.confirmation_token

    altered = pipeline.invoke("add_sale", {**SALE, "price": 6000}, admin, confirmation=token)
    assert altered.status == "refused" and altered.code == "confirmation_invalid"
    stranger = pipeline.invoke("add_sale", SALE, pipeline.user("tanaka"), confirmation=token)
    assert stranger.status == "refused" and stranger.code == "confirmation_invalid"

    done = pipeline.invoke("add_sale", SALE, admin, confirmation=token)
    assert done.status == "ok"
    row = done.rows[0]
    assert (row["code_customer"], row["date_sales"], row["products"], row["price"]) == (
        "0016", "2025-05-06", "かぼちゃ4個", 600)
    assert row["code_sales"].startswith("S2025")
    replay = pipeline.invoke("add_sale", SALE, admin, confirmation=token)
    assert replay.status == "refused" and "already used" in replay.message
    assert len(farm_rows(pipeline)) == len(before) + 1
    found = pipeline.invoke("get_sales", {"code_customer": "0016", "code_sales": row["code_sales"]}, admin)
    assert found.row_count == 1


def test_a_made_up_token_writes_nothing(pipeline, admin):
    before = farm_rows(pipeline)
    forged = pipeline.invoke("add_sale", SALE, admin, confirmation="cf_made_up")
    assert forged.code == "confirmation_invalid"
    assert farm_rows(pipeline) == before


def test_two_sales_in_the_same_second_get_distinct_numbers(pipeline, admin):
    numbers = set()
    for _ in range(5):
        token = pipeline.invoke("add_sale", SALE, admin).confirmation_token
        numbers.add(pipeline.invoke("add_sale", SALE, admin, confirmation=token).rows[0]["code_sales"])
    assert len(numbers) == 5


def test_a_write_interrupted_mid_transaction_leaves_no_row_and_the_token_still_works(pipeline, admin):
    before = farm_rows(pipeline)
    token = pipeline.invoke("add_sale", SALE, admin).confirmation_token

    def crash_after_insert(conn, cursor, statement, *_):
        if statement.lstrip().upper().startswith("INSERT INTO FARM_SALES"):
            raise RuntimeError("power cut")

    event.listen(pipeline.db.engine, "after_cursor_execute", crash_after_insert)
    try:
        with pytest.raises(RuntimeError, match="power cut"):
            pipeline.invoke("add_sale", SALE, admin, confirmation=token)
    finally:
        event.remove(pipeline.db.engine, "after_cursor_execute", crash_after_insert)
    assert farm_rows(pipeline) == before
    retry = pipeline.invoke("add_sale", SALE, admin, confirmation=token)
    assert retry.status == "ok"
    assert len(farm_rows(pipeline)) == len(before) + 1


def test_unknown_customer_is_an_error_and_no_rows_is_success(pipeline, admin):
    missing = pipeline.invoke("get_sales", {"code_customer": "0099"}, admin)
    assert (missing.status, missing.code, missing.message) == ("error", "not_found", "customer not found")
    empty = pipeline.invoke("get_sales", {"code_customer": "0010", "date_sales_begin_str": "2025-05-05",
                                          "date_sales_end_str": "2025-05-11"}, admin)
    assert (empty.status, empty.row_count, empty.totals) == ("ok", 0, {"count": 0, "price": 0})
    assert empty.ai_instruction and "0" in empty.ai_instruction


def test_every_call_is_audited(pipeline, admin):
    ok = pipeline.invoke("get_sales", {"code_customer": "0009"}, admin)
    refused = pipeline.invoke("run_sql", {"sql": "SELECT 1"}, admin)
    denied = pipeline.invoke("add_sale", SALE, pipeline.user("suzuki"))
    entries = {e["result_id"]: e for e in audit.latest(pipeline.db, 10)}
    assert entries[ok.result_id]["decision"] == "ok" and entries[ok.result_id]["rows"] == ok.row_count
    assert entries[refused.result_id]["decision"] == "refused:unknown_tool"
    assert entries[refused.result_id]["tool"] == "run_sql"
    assert entries[denied.result_id]["decision"] == "refused:not_permitted"
    assert entries[denied.result_id]["user_name"] == "suzuki"
    assert all(e["ms"] >= 0 for e in entries.values())


CAPPED = """
catalog: capped
description: {ja: 上限, en: capped}
roles: {admin: {all_rows: true}}
tools:
  pos_rows:
    description: {ja: 行, en: rows}
    roles: [admin]
    sql: SELECT product, amount FROM pos_sales ORDER BY sale_date, product
    result: {max_rows: 5, totals: {amount: sum}}
"""


def test_rows_are_capped_with_a_flag_and_totals_cover_all_rows(db_url, tmp_path):
    path = tmp_path / "capped.yaml"
    path.write_text(CAPPED, encoding="utf-8")
    assert parse_catalog(CAPPED, "capped.yaml")
    p = open_pipeline([str(path)], db_url)
    try:
        result = p.invoke("pos_rows", {}, p.user("admin"))
        with p.db.read() as conn:
            total = conn.scalar(sa.text("SELECT SUM(amount) FROM pos_sales"))
    finally:
        p.close()
    assert (len(result.rows), result.row_count, result.truncated) == (5, 1240, True)
    assert result.totals == {"count": 1240, "amount": total}


def test_reads_cannot_write(pipeline):
    with pytest.raises((DatabaseError, sa.exc.DBAPIError)), pipeline.db.read() as conn:
        conn.execute(sa.text("DELETE FROM farm_sales"))
    assert table_counts(pipeline)["farm_sales"] > 0
