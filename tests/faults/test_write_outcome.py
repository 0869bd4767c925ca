"""PostgreSQL stopping around a write's commit: a committed write always has its audit line, a person is never
told that a write that was done failed, and an outcome nobody can know is said as such, with how to check.

"Stopping" is done on the shared test server as `db_faults` does it (every session of the database terminated,
new connections refused), at a chosen moment of the write: just after its transaction committed (the write's
connection going back to its pool) or as it commits (the COMMIT sent on a terminated session)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import anyio
import psycopg
import pytest
import sqlalchemy as sa
from agent_fakes import ScriptedProvider, answer, calls
from cli_runner import run_cli
from demo_databases import with_demos
from pg_databases import fresh_database
from sqlalchemy import event
from sqlalchemy.engine import make_url

from concierge.agent.loop import Agent
from concierge.demo.bootstrap import open_pipeline
from concierge.errors import DatabaseError, TurnFailedAfterWrite, WriteOutcomeUnknown
from concierge.pipeline import audit
from concierge.pipeline.pipeline import Pipeline
from concierge.storage import state as schema
from concierge.storage.database import Database

pytestmark = pytest.mark.postgres
SALE = {"code_customer": "0003", "products": "ナス2個(停止テスト)", "price": 180, "date_sales_str": "2025-05-14"}


class Outage:
    """Stops one database of the test server when a write of `marker` reaches the chosen moment."""

    def __init__(self, pg_server: dict, url: str):
        self.name = make_url(url).database
        self.admin = psycopg.connect(host=pg_server["host"], port=pg_server["port"], user=pg_server["user"],
                                     password=pg_server["password"], dbname="postgres", autocommit=True)
        self.armed = False
        self.fired = False  # it stops once: a later write runs on a database that is up
        self.down = False

    def stop(self, keep_refusing: bool = True) -> None:
        self.fired = True
        if keep_refusing:
            self.admin.execute(f'ALTER DATABASE "{self.name}" ALLOW_CONNECTIONS false')
            self.down = True
        self.admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (self.name,))

    def start(self) -> None:
        self.admin.execute(f'ALTER DATABASE "{self.name}" ALLOW_CONNECTIONS true')
        self.down = False

    def close(self) -> None:
        self.start()
        self.admin.close()


@contextmanager
def outage(pg_server: dict, url: str) -> Iterator[Outage]:
    found = Outage(pg_server, url)
    try:
        yield found
    finally:
        found.close()


def arm_on_write(engine: sa.Engine, stopping: Outage, marker: str = "INSERT INTO farm_sales") -> None:
    @event.listens_for(engine, "before_cursor_execute")
    def _seen(_conn, _cursor, statement: str, *_: Any) -> None:
        if statement.lstrip().startswith(marker) and not stopping.fired:
            stopping.armed = True


def stop_after_commit(pipeline_db: Database, stopping: Outage, *, other: Outage | None = None) -> None:
    """When the write's connection goes back to its pool (its transaction committed), the database stops."""
    arm_on_write(pipeline_db.engine, stopping)

    @event.listens_for(pipeline_db.engine.pool, "checkin")
    def _back(*_: Any) -> None:
        if stopping.armed:
            stopping.armed = False
            (other or stopping).stop()


def stop_as_it_commits(pipeline_db: Database, stopping: Outage, *, keep_refusing: bool) -> None:
    """The write's session is terminated just before its COMMIT reaches the server: it does not commit."""
    arm_on_write(pipeline_db.engine, stopping)

    @event.listens_for(pipeline_db.engine, "commit")
    def _committing(_conn: sa.Connection) -> None:
        if stopping.armed:
            stopping.armed = False
            stopping.stop(keep_refusing)


@pytest.fixture
def farm_url(pg_url) -> str:
    with_demos(pg_url, "farm")
    return pg_url


def sales(url: str) -> int:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.scalar(sa.text("SELECT COUNT(*) FROM farm_sales WHERE products = :p"), {"p": SALE["products"]})
    finally:
        engine.dispose()


def lines_of(url: str, result_id: str) -> list[str]:
    db = Database(url)
    try:
        with db.read() as conn:
            return list(conn.scalars(sa.select(schema.audit.c.decision).where(schema.audit.c.result_id == result_id)))
    finally:
        db.dispose()


@pytest.fixture
def previewed(farm_url) -> Iterator[tuple[Pipeline, Any, str]]:
    """A pipeline on the farm data, its admin, and the token of a sale's preview."""
    pipeline = open_pipeline(["farm"], farm_url)
    try:
        admin = pipeline.user("admin")
        yield pipeline, admin, pipeline.invoke("add_sale", SALE, admin).confirmation_token or ""
    finally:
        pipeline.close()


def test_a_write_committed_just_before_the_database_stops_has_its_audit_line(previewed, farm_url, pg_server):
    pipeline, admin, token = previewed
    with outage(pg_server, farm_url) as stopping:
        stop_after_commit(pipeline.db, stopping)
        done = pipeline.invoke("add_sale", SALE, admin, confirmation=token)
        assert stopping.down, "the database did not stop after the commit"
        assert done.status == "ok"
    assert sales(farm_url) == 1
    assert lines_of(farm_url, done.result_id) == ["ok"]  # written with the sale, in its transaction


def test_a_conversation_that_fails_after_its_write_says_the_write_was_done(farm_url, pg_server):
    provider = ScriptedProvider().enqueue(calls(("add_sale", SALE)), answer("登録しました。"))
    pipeline = open_pipeline(["farm"], farm_url)
    try:
        agent = Agent(pipeline, provider)
        admin = pipeline.user("admin")
        asked = anyio.run(lambda: agent.ask("販売登録して。0003にナス2個180円", admin))
        assert asked.pending is not None
        with outage(pg_server, farm_url) as stopping:
            stop_after_commit(pipeline.db, stopping)
            with pytest.raises(TurnFailedAfterWrite) as failed:
                anyio.run(lambda: agent.confirm(asked.session_id, admin))
        said = str(failed.value)
        assert "add_sale" in said and "was written" in said and "Do not enter it again" in said
        assert "書き込み済み" in failed.value.message_ja
        assert sales(farm_url) == 1
    finally:
        pipeline.close()


def test_a_commit_that_failed_is_said_to_have_written_nothing_and_the_token_still_works(previewed, farm_url,
                                                                                        pg_server):
    pipeline, admin, token = previewed
    with outage(pg_server, farm_url) as stopping:
        stop_as_it_commits(pipeline.db, stopping, keep_refusing=False)  # the server is back at once
        with pytest.raises(DatabaseError, match="nothing was written: it can be tried again") as failed:
            pipeline.invoke("add_sale", SALE, admin, confirmation=token)
        assert not isinstance(failed.value, WriteOutcomeUnknown)
    assert sales(farm_url) == 0
    again = pipeline.invoke("add_sale", SALE, admin, confirmation=token)
    assert again.status == "ok" and sales(farm_url) == 1


def test_a_commit_whose_outcome_cannot_be_known_says_so_and_how_to_check(previewed, farm_url, pg_server):
    pipeline, admin, token = previewed
    with outage(pg_server, farm_url) as stopping:
        stop_as_it_commits(pipeline.db, stopping, keep_refusing=True)
        with pytest.raises(WriteOutcomeUnknown) as unsure:
            pipeline.invoke("add_sale", SALE, admin, confirmation=token)
    said = str(unsure.value)
    assert "may have been done" in said and "Check before repeating it" in said
    assert unsure.value.result_id in said and "concierge audit" in said
    assert "済んでいる可能性" in unsure.value.message_ja


def test_a_write_whose_state_database_stops_after_it_is_reconciled_as_unknown(farm_url, pg_server):
    with fresh_database(pg_server) as state_url:
        pipeline = open_pipeline(["farm"], farm_url, state_database=state_url)
        try:
            admin = pipeline.user("admin")
            preview = pipeline.invoke("add_sale", SALE, admin)
            with outage(pg_server, state_url) as stopping:  # the state's database stops, the data's does not
                stop_after_commit(pipeline.db, stopping)
                done = pipeline.invoke("add_sale", SALE, admin, confirmation=preview.confirmation_token)
                assert stopping.down
            assert done.status == "ok" and sales(farm_url) == 1
            assert lines_of(state_url, done.result_id) == ["pending"]  # the write-ahead line, before the write
        finally:
            pipeline.close()
        result = run_cli("audit", "reconcile", "--state-database", state_url)
        assert result.exit_code == 0 and "no write is waiting" in result.output  # too recent: its process may live
        db = Database(state_url)
        try:
            with db.write() as conn:  # as if the process had stopped ten minutes ago
                conn.execute(schema.audit.update().where(schema.audit.c.result_id == done.result_id)
                             .values(at=sa.func.now() - sa.text("interval '10 minutes'")))
        finally:
            db.dispose()
        result = run_cli("audit", "reconcile", "--state-database", state_url)
        assert result.exit_code == 0, result.output
        assert "1 write(s) may or may not have been done" in result.output and done.result_id in result.output
        assert lines_of(state_url, done.result_id) == ["unknown"]


def test_an_outcome_known_late_wins_over_unknown(farm_url):
    """A write slower than reconcile's wait (or a reconcile on a host whose clock runs ahead) was marked
    unknown while it ran; its outcome, once known, is what the audit keeps."""
    pipeline = open_pipeline(["farm"], farm_url)
    try:
        audit.intend(pipeline.state, user="admin", tool="add_sale", args=SALE, result_id="r_slow000001")
        assert [e["result_id"] for e in audit.reconcile(pipeline.state, older_than=timedelta(0))] == ["r_slow000001"]
        assert lines_of(farm_url, "r_slow000001") == ["unknown"]
        assert audit.settle(pipeline.state, "r_slow000001", decision="ok", rows=1, ms=1.0, message=None)
        assert lines_of(farm_url, "r_slow000001") == ["ok"]
    finally:
        pipeline.close()
