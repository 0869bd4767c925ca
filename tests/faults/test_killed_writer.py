"""A process killed (SIGKILL) between its INSERT and its COMMIT leaves no row; the retry writes once."""

from __future__ import annotations

import json
import select
import signal
import subprocess
import sys
from pathlib import Path

import sqlalchemy as sa

WRITER = Path(__file__).with_name("paused_writer.py")
SALE = {"code_customer": "0003", "products": "キュウリ3本(停電テスト)", "price": 210, "date_sales_str": "2025-05-14"}


def sales_numbers(pipeline) -> list[str]:
    with pipeline.db.read() as conn:
        query = sa.text("SELECT sales_number FROM farm_sales WHERE products = :p")
        return list(conn.scalars(query, {"p": SALE["products"]}))


def sales_count(pipeline) -> int:
    with pipeline.db.read() as conn:
        return conn.scalar(sa.text("SELECT COUNT(*) FROM farm_sales"))


def open_inserts(pipeline) -> int:
    """PostgreSQL sessions of this database idle inside a transaction whose last statement was our INSERT."""
    with pipeline.db.read() as conn:
        return conn.scalar(sa.text(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND state = 'idle in transaction' AND query LIKE 'INSERT INTO farm_sales%'"
        ))


def run_until_inserted(db_url: str, token: str) -> subprocess.Popen:
    writer = subprocess.Popen(
        [sys.executable, str(WRITER), db_url, "admin", json.dumps(SALE), token],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    ready, _, _ = select.select([writer.stdout], [], [], 60)
    line = writer.stdout.readline() if ready else ""
    if line != "inserted\n":
        writer.kill()
        _, err = writer.communicate()
        raise AssertionError(f"the writer did not reach its INSERT: {line!r} {err}")
    return writer


def test_a_writer_killed_between_insert_and_commit_leaves_no_row_and_the_retry_writes_once(
    pipeline, admin, db_url
):
    token = pipeline.invoke("add_sale", SALE, admin).confirmation_token
    before = sales_count(pipeline)

    writer = run_until_inserted(db_url, token)
    try:
        assert sales_numbers(pipeline) == [], "an uncommitted row is visible"
        if not pipeline.db.is_sqlite:
            assert open_inserts(pipeline) == 1, "the writer's transaction is not open after its INSERT"
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
    finally:
        if writer.poll() is None:
            writer.kill()
        writer.communicate()
    assert writer.returncode == -signal.SIGKILL

    assert sales_numbers(pipeline) == []
    assert sales_count(pipeline) == before
    retry = pipeline.invoke("add_sale", SALE, admin, confirmation=token)
    assert retry.status == "ok", retry.message
    replay = pipeline.invoke("add_sale", SALE, admin, confirmation=token)
    assert (replay.status, replay.code) == ("refused", "confirmation_invalid")
    assert sales_numbers(pipeline) == [retry.rows[0]["code_sales"]]
    assert sales_count(pipeline) == before + 1
