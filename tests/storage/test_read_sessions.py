"""PostgreSQL reads run on connections set up once for them: read-only, one snapshot for the whole
read, stopped by the statement timeout; writes and the audit's lines use connections of their own."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from concierge.errors import DatabaseError
from concierge.storage import state
from concierge.storage.database import Database
from concierge.storage.migrate import ensure_state

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg(pg_url):
    db = Database(pg_url, read_timeout_s=0.5)
    with db.write() as conn:
        conn.exec_driver_sql("CREATE TABLE notes (id integer PRIMARY KEY, body text)")
        conn.exec_driver_sql("INSERT INTO notes VALUES (1, 'first')")
    try:
        yield db
    finally:
        db.dispose()


def test_a_read_cannot_write_and_sees_one_snapshot(pg):
    with pytest.raises(sa.exc.DBAPIError, match="read-only transaction"), pg.read() as conn:
        conn.exec_driver_sql("INSERT INTO notes VALUES (2, 'second')")
    with pg.read() as conn:
        before = conn.exec_driver_sql("SELECT count(*) FROM notes").scalar()
        with pg.write() as writer:
            writer.exec_driver_sql("INSERT INTO notes VALUES (3, 'third')")
        assert conn.exec_driver_sql("SELECT count(*) FROM notes").scalar() == before == 1
    with pg.read() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM notes").scalar() == 2


def test_a_long_read_is_stopped_and_the_next_one_works(pg):
    with pytest.raises(DatabaseError, match="statement timeout"), pg.read() as conn:
        conn.exec_driver_sql("SELECT pg_sleep(5)")
    with pg.read() as conn:
        assert conn.exec_driver_sql("SELECT body FROM notes").scalar() == "first"


def test_writes_are_not_bound_by_the_read_settings(pg):
    with pg.write() as conn:
        conn.exec_driver_sql("SELECT pg_sleep(0.7)")
        conn.exec_driver_sql("UPDATE notes SET body = 'changed'")
    with pg.read() as conn:
        assert conn.exec_driver_sql("SELECT body FROM notes").scalar() == "changed"


def test_a_row_written_alone_is_committed_when_write_one_returns(pg):
    ensure_state(pg)
    row = {"at": datetime.now(UTC), "user_name": "admin", "tool": "get_sales", "args": "{}", "decision": "ok",
           "result_id": "r_committed", "rows": 1, "ms": 1.0, "message": None, "source": None}
    pg.write_one(state.audit.insert(), row)
    other = Database(pg.url)  # another process's view: only what was committed
    try:
        with other.read() as conn:
            found = conn.execute(sa.select(state.audit.c.decision).where(state.audit.c.result_id == "r_committed"))
            assert found.scalar() == "ok"
    finally:
        other.dispose()
