"""PostgreSQL going away under a running pipeline: a clear DatabaseError while it is down, and
recovery on its own once it is back, without restarting our process.

"Down" is made on the shared test server without stopping it: every session of the test's
database is terminated (pg_terminate_backend, what a server shutdown does to them) and new
connections are refused (ALLOW_CONNECTIONS false) until "restart". A restart in a moment ends
the sessions alone: the connections our pools hold are then dropped, and none of them is checked
before a call in steady use takes it.
"""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa
from db_faults import database_down, sessions_ended

from concierge.errors import DatabaseError
from concierge.storage import state as schema

pytestmark = pytest.mark.postgres
QUESTION = {"code_customer": "0002", "date_sales_begin_str": "2025-04-01", "date_sales_end_str": "2025-05-31"}
SALE = {"code_customer": "0003", "products": "ナス2個", "price": 180, "date_sales_str": "2025-05-14"}


def test_calls_fail_clearly_while_postgres_is_down_and_work_again_after(farm_pg, pg_server, pg_url):
    admin = farm_pg.user("admin")
    answer = farm_pg.invoke("get_sales", QUESTION, admin)
    assert answer.totals == {"count": 4, "price": 2180}

    with database_down(pg_server, pg_url):
        for tool, args in (("get_sales", QUESTION), ("add_sale", SALE)):
            started = time.monotonic()
            with pytest.raises(DatabaseError, match="unavailable|connection") as err:
                farm_pg.invoke(tool, args, admin)
            assert time.monotonic() - started < 10, "a call while the database is down must fail, not hang"
            assert "Traceback" not in str(err.value) and "\n" not in str(err.value)

    again = farm_pg.invoke("get_sales", QUESTION, admin)
    assert (again.status, again.totals) == ("ok", answer.totals)
    preview = farm_pg.invoke("add_sale", SALE, admin)
    written = farm_pg.invoke("add_sale", SALE, admin, confirmation=preview.confirmation_token)
    assert written.status == "ok", written.message


def test_a_call_just_after_a_restart_answers_and_is_audited_once(farm_pg, pg_server, pg_url):
    admin = farm_pg.user("admin")
    answer = farm_pg.invoke("get_sales", QUESTION, admin)

    sessions_ended(pg_server, pg_url)  # every pooled connection (rights, read, audit line) is now dropped
    again = farm_pg.invoke("get_sales", QUESTION, admin)

    assert (again.status, again.totals) == ("ok", answer.totals)
    with farm_pg.state.read() as conn:
        lines = conn.scalars(sa.select(schema.audit.c.decision).where(schema.audit.c.result_id == again.result_id))
        assert list(lines) == ["ok"]
