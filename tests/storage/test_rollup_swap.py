"""Rollups rebuilt and switched off while a long-lived pipeline reads them: every answer is the base table's.

- A `db refresh` (rollups.build) in a loop beside readers: no read sees an empty or half-built rollup, and
  every read keeps reading the rollup (a refresh from the same declaration sums it again in place).
- The declaration changing back and forth beside readers of one of them: they read the rollup only while it
  is theirs, and never a table built after their snapshot.
- The rollup's triggers disabled (PostgreSQL) or dropped (SQLite) under a pipeline that has already read it:
  the next answer of that pipeline reads the base table, and a refresh makes it read the rollup again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import pytest
import sqlalchemy as sa
from demo_databases import with_demos
from sqlalchemy import event

from concierge.catalog.loader import load_catalog
from concierge.catalog.model import Rollup
from concierge.demo.bootstrap import open_pipeline
from concierge.pipeline.pipeline import Pipeline
from concierge.storage import rollups
from concierge.storage.database import Database

ROLLUP = "pos_daily_product"
SECONDS = 3.0  # how long readers and the refresher race
MAX_BUILDS, MAX_READS = 300, 3000
PAUSE = 0.005  # between two builds, so that readers are not starved of SQLite's one writer (their audit lines)
READERS = 3
QUESTIONS = [
    ("compare_periods", {"cur_start": "2026-08-24", "cur_end": "2026-08-30", "prev_start": "2026-08-17",
                         "prev_end": "2026-08-23", "category": None}),
    ("daily_sales", {"start": "2026-08-01", "end": "2026-08-31", "product": None, "category": None}),
    ("sales_ranking", {"start": "2026-07-01", "end": "2026-08-31", "category": None, "top_n": 5, "order": "desc"}),
]
# the same table summed by other columns: the demo's rollup statements cannot run on it (no category)
OTHER = Rollup(table="pos_sales", group_by=["sale_date", "product"], sums=["amount"])
SALE = ("INSERT INTO pos_sales (store, sale_date, product, category, unit_price, quantity, amount) "
        "VALUES (:store, '2026-08-30', 'プリン', 'デザート', 200, 5, 1000)")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def pos_url(request) -> str:
    """A fresh database with the pos demo (its rollup built), once on SQLite and once on PostgreSQL."""
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    with_demos(url, "pos")
    return url


@pytest.fixture
def pos_pipeline(pos_url) -> Iterator[Pipeline]:
    """One long-lived pipeline on it, as a server keeps."""
    p = open_pipeline(["pos"], pos_url)
    try:
        yield p
    finally:
        p.close()


def _declared() -> Rollup:
    return load_catalog("pos").spec.rollups[ROLLUP]


def _answer(pipeline: Pipeline, tool: str, args: dict) -> tuple:
    result = pipeline.invoke(tool, args, pipeline.user("admin"))
    return result.status, result.message, result.rows, result.totals, result.summary


def _main_statements(pipeline: Pipeline) -> list[str]:
    """The tools' statements the pipeline sends from now on (each of QUESTIONS sums; the checks count)."""
    seen: list[str] = []

    def record(_conn, _cursor, statement: str, *_args) -> None:
        if "SUM(" in statement and rollups.RECORDS not in statement:
            seen.append(statement)

    event.listen(pipeline.db.engine, "before_cursor_execute", record)
    return seen


def _reads_rollup(statements: list[str]) -> bool:
    return f"FROM {ROLLUP}" in statements[-1]


def _race(url: str, pipeline: Pipeline, build: Callable[[sa.Connection, int], None]) -> tuple[int, int, list]:
    """Readers ask QUESTIONS through `pipeline` while a refresher runs `build(conn, n)` in a loop, each in a
    write of its own, for SECONDS (or MAX_BUILDS builds, MAX_READS reads). Returns (builds, reads, wrong ones)."""
    expected = {tool: _answer(pipeline, tool, args) for tool, args in QUESTIONS}
    stop, wrong, reads, builds = threading.Event(), [], [], []

    def refresher() -> None:
        db = Database(url)
        try:
            while not stop.is_set() and len(builds) < MAX_BUILDS:
                with db.write() as conn:
                    build(conn, len(builds))
                builds.append(1)
                time.sleep(PAUSE)
        finally:
            stop.set()
            db.dispose()

    def reader() -> None:
        while not stop.is_set() and len(reads) < MAX_READS:
            for tool, args in QUESTIONS:
                try:
                    got = _answer(pipeline, tool, args)
                except Exception as err:  # noqa: BLE001 - a failed read is a wrong answer too
                    got = ("raised", repr(err), [], None, None)
                reads.append(1)
                if got != expected[tool]:
                    wrong.append((tool, got[:2], len(got[2])))

    threads = [threading.Thread(target=refresher), *(threading.Thread(target=reader) for _ in range(READERS))]
    for thread in threads:
        thread.start()
    stop.wait(SECONDS)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    return len(builds), len(reads), wrong


def test_reads_during_refreshes_see_the_whole_rollup_old_or_new(pos_url, pos_pipeline):
    """Attack 1: 52 of 17,011 reads during `db refresh` on PostgreSQL answered 0 rows with status ok (the rollup
    was dropped and created in one transaction; an older snapshot found the new table, and none of its rows)."""
    declared = _declared()
    statements = _main_statements(pos_pipeline)
    builds, reads, wrong = _race(pos_url, pos_pipeline, lambda conn, _n: rollups.build(conn, ROLLUP, declared))
    assert builds >= 3 and reads >= 30, (builds, reads)
    assert wrong == [], f"{len(wrong)} of {reads} reads differed during {builds} refreshes: {wrong[:3]}"
    # and no read fell back to the base table: the rollup stayed readable throughout
    assert all(f"FROM {ROLLUP}" in s for s in statements), [s for s in statements if ROLLUP not in s][:1]


def test_reads_while_the_declaration_changes_read_the_rollup_only_while_it_is_theirs(pos_url, pos_pipeline):
    """Another declaration makes another table; a reader of the old one never reads it, even with a snapshot
    taken before it was made (on PostgreSQL the name already finds the new table, whose rows it cannot see)."""
    declared = _declared()
    statements = _main_statements(pos_pipeline)

    def back_and_forth(conn: sa.Connection, n: int) -> None:
        rollups.build(conn, ROLLUP, OTHER if n % 2 == 0 else declared)

    builds, reads, wrong = _race(pos_url, pos_pipeline, back_and_forth)
    assert builds >= 4 and reads >= 30, (builds, reads)
    assert wrong == [], f"{len(wrong)} of {reads} reads differed during {builds} rebuilds: {wrong[:3]}"
    assert any(f"FROM {ROLLUP}" in s for s in statements[len(QUESTIONS):])  # the rollup, while it was theirs
    assert any(ROLLUP not in s for s in statements)  # the base table, while it was not


COPY = ("CREATE TABLE pos_sales_copy (store VARCHAR(50) NOT NULL, sale_date DATE NOT NULL, product VARCHAR(100) "
        "NOT NULL, category VARCHAR(50) NOT NULL, unit_price INTEGER NOT NULL, quantity INTEGER NOT NULL, "
        "amount INTEGER NOT NULL, PRIMARY KEY (store, sale_date, product))")


# What switches a rollup's triggers off without concierge knowing, per engine (SQLite cannot disable one).
SWITCH_OFF = {
    "sqlite": [f"DROP TRIGGER {ROLLUP}_on_insert"],
    "postgresql": ["ALTER TABLE pos_sales DISABLE TRIGGER USER",
                   f"ALTER TABLE pos_sales DISABLE TRIGGER {ROLLUP}_on_insert",
                   f"ALTER TABLE pos_sales ENABLE REPLICA TRIGGER {ROLLUP}_on_insert",  # fires only for replicas
                   f"DROP TRIGGER {ROLLUP}_on_insert ON pos_sales"],
}


def test_a_long_lived_pipeline_reads_the_table_once_the_triggers_are_off_and_the_rollup_after_a_refresh(
        pos_url, pos_pipeline):
    """Attack 2: after ALTER TABLE ... DISABLE TRIGGER USER a long-lived pipeline that had read the rollup kept
    reading it, stale, while a fresh one read the table (it cached which rollups were current)."""
    args = {"start": "2026-08-30", "end": "2026-08-30", "product": "プリン", "category": None}
    statements = _main_statements(pos_pipeline)
    db = Database(pos_url)
    try:
        for n, switch_off in enumerate(SWITCH_OFF[db.engine.dialect.name]):
            before = _answer(pos_pipeline, "daily_sales", args)[3]["amount"]
            assert _reads_rollup(statements), switch_off
            with db.write() as conn:
                conn.execute(sa.text(switch_off))
                conn.execute(sa.text(SALE), {"store": f"新{n}号店"})  # the rollup does not see it
            assert _answer(pos_pipeline, "daily_sales", args)[3]["amount"] == before + 1000, switch_off
            assert not _reads_rollup(statements), switch_off
            with db.write() as conn:  # `concierge db refresh`
                rollups.build(conn, ROLLUP, _declared())
            with db.read() as conn:
                assert rollups.current(conn, {ROLLUP: _declared()}) == {ROLLUP}, switch_off
            assert _answer(pos_pipeline, "daily_sales", args)[3]["amount"] == before + 1000, switch_off
            assert _reads_rollup(statements), switch_off
    finally:
        db.dispose()


def test_a_refresh_from_the_same_declaration_keeps_the_table_and_one_from_another_replaces_it(pos_url):
    db = Database(pos_url)

    def table_identity() -> object:
        with db.read() as conn:
            if db.is_sqlite:
                return conn.scalar(sa.text("SELECT rootpage FROM sqlite_master WHERE name = :n"), {"n": ROLLUP})
            return conn.scalar(sa.text("SELECT to_regclass(:n)::oid"), {"n": ROLLUP})

    try:
        first = table_identity()
        with db.write() as conn:
            rollups.build(conn, ROLLUP, _declared())
        assert table_identity() == first
        with db.write() as conn:
            rollups.build(conn, ROLLUP, OTHER)
            rollups.build(conn, ROLLUP, _declared())
        with db.read() as conn:
            assert rollups.current(conn, {ROLLUP: _declared()}) == {ROLLUP}
            assert rollups.differences(conn, ROLLUP, _declared()) == 0
    finally:
        db.dispose()


def test_a_rollup_moved_to_another_table_leaves_no_trigger_on_the_first(pos_url):
    db = Database(pos_url)
    moved = _declared().model_copy(update={"table": "pos_sales_copy"})
    try:
        with db.write() as conn:
            conn.execute(sa.text(COPY))
            conn.execute(sa.text("INSERT INTO pos_sales_copy SELECT * FROM pos_sales"))
            rollups.build(conn, ROLLUP, moved)
            conn.execute(sa.text(SALE), {"store": "旧表店"})  # the first table: no trigger of the rollup left
            conn.execute(sa.text(SALE.replace("pos_sales", "pos_sales_copy")), {"store": "新表店"})
        with db.read() as conn:
            assert rollups.current(conn, {ROLLUP: moved}) == {ROLLUP}
            assert rollups.differences(conn, ROLLUP, moved) == 0
        with db.write() as conn:
            rollups.build(conn, ROLLUP, _declared())  # and back
            conn.execute(sa.text("DELETE FROM pos_sales_copy"))
        with db.read() as conn:
            assert rollups.current(conn, {ROLLUP: _declared()}) == {ROLLUP}
            assert rollups.differences(conn, ROLLUP, _declared()) == 0
    finally:
        db.dispose()


@pytest.mark.postgres
def test_a_snapshot_older_than_a_new_table_reads_the_base_table(pg_url):
    """The exact window: a read transaction that began before another declaration's build committed, and
    touches the rollup only after, on PostgreSQL. Its snapshot shows the record of its own declaration."""
    db = Database(with_demos(pg_url, "pos"))
    pipeline = open_pipeline(["pos"], pg_url)
    check = pipeline.sql.facts(pipeline.catalogs[0]).rollups[ROLLUP]
    try:
        with pipeline.db.read() as reader:
            reader.execute(sa.text("SELECT 1"))  # the snapshot is taken
            with db.write() as conn:
                rollups.build(conn, ROLLUP, OTHER)
                rollups.build(conn, ROLLUP, _declared())  # the record matches the reader's declaration again
            assert not check.holds(pipeline.db, reader)
        with pipeline.db.read() as reader:
            assert check.holds(pipeline.db, reader)
    finally:
        pipeline.close()
        db.dispose()
