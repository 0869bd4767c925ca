"""A statement the database refuses (here a session id longer than its column, on PostgreSQL) is a DatabaseError
that says nothing was written, with exactly one `failed` audit line: never a raw driver error with none."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from demo_databases import with_demos

from concierge.demo.bootstrap import open_pipeline
from concierge.errors import DatabaseError
from concierge.pipeline.access import Session
from concierge.storage import state as schema

pytestmark = pytest.mark.postgres


def test_a_value_the_database_refuses_is_a_clear_error_with_one_audit_line(pg_url):
    restaurant = open_pipeline(["restaurant"], with_demos(pg_url, "restaurant"))  # SQLite bounds no VARCHAR
    try:
        phone = restaurant.user("phone")
        with pytest.raises(DatabaseError, match="the database refused the call of add_item .*nothing was written"):
            restaurant.invoke("add_item", {"item": "唐揚げ弁当"}, phone, session=Session("S" * 150, "+8190"))
        with restaurant.state.read() as conn:
            lines = conn.execute(sa.select(schema.audit.c.decision).where(schema.audit.c.tool == "add_item")).all()
        assert [d for (d,) in lines] == ["failed"]
    finally:
        restaurant.close()
