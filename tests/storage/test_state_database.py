"""State kept apart from the business data: the business database reached through a read-only role."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from legacy_state import farm_without_state
from sqlalchemy.engine import make_url

from concierge.demo.bootstrap import open_pipeline
from concierge.errors import DatabaseError, StateSchemaError
from concierge.pipeline import audit
from concierge.pipeline.pipeline import Pipeline
from concierge.storage import state

SALE = {"code_customer": "0016", "products": "かぼちゃ4個(読み取り専用)", "price": 600, "date_sales_str": "2025-05-06"}


def sql(url: str, *statements: str) -> list:
    """Run statements as the server's superuser; returns the rows of the last one."""
    engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            for statement in statements:
                result = conn.execute(sa.text(statement))
            return list(result) if result.returns_rows else []
    finally:
        engine.dispose()


@pytest.fixture
def read_only_url(pg_url) -> Iterator[str]:
    """The farm demo in `pg_url`, and the URL of a login role that may only read it (docs/deploy.md)."""
    farm_without_state(pg_url)
    role, password = f"concierge_ro_{uuid.uuid4().hex[:8]}", uuid.uuid4().hex  # a password: CI's server asks
    url = make_url(pg_url)
    sql(pg_url, f"CREATE ROLE {role} LOGIN PASSWORD '{password}'",
        f"GRANT CONNECT ON DATABASE {url.database} TO {role}", f"GRANT USAGE ON SCHEMA public TO {role}",
        f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}")
    try:
        yield url.set(username=role, password=password).render_as_string(hide_password=False)
    finally:
        sql(pg_url, f"DROP OWNED BY {role}", f"DROP ROLE {role}")


def farm_sales(pg_url: str) -> list[str]:
    return [r[0] for r in sql(pg_url, f"SELECT sales_number FROM farm_sales WHERE products = '{SALE['products']}'")]


def token_used(pipeline: Pipeline) -> bool:
    with pipeline.state.read() as conn:
        return conn.scalar(sa.select(sa.func.count()).select_from(state.confirmations)
                           .where(state.confirmations.c.used_at.is_not(None))) > 0


@pytest.mark.postgres
def test_reads_go_through_the_read_only_role_and_a_declared_write_fails_cleanly(pg_url, read_only_url,
                                                                               state_pg_url):
    pipeline = open_pipeline(["farm"], read_only_url, state_database=state_pg_url)
    try:
        assert pipeline.state is not pipeline.db
        with pipeline.db.read() as conn:
            assert conn.scalar(sa.text("SELECT current_user")) == make_url(read_only_url).username
        with pipeline.state.read() as conn:  # the users and every state table are in the state database
            assert "concierge_users" in sa.inspect(conn).get_table_names()
        assert "concierge_users" not in [r[0] for r in sql(pg_url, "SELECT tablename FROM pg_tables")]

        admin = pipeline.user("admin")
        sales = pipeline.invoke("get_sales", {"code_customer": "0016"}, admin)
        assert sales.status == "ok" and sales.row_count > 0

        preview = pipeline.invoke("add_sale", SALE, admin)
        assert preview.status == "confirm", preview.message
        token = preview.confirmation_token
        with pytest.raises(DatabaseError) as refused:
            pipeline.invoke("add_sale", SALE, admin, confirmation=token)
        message = str(refused.value)
        assert "refused the write of add_sale (permission denied for table farm_sales)" in message
        assert "nothing was written" in message and "docs/deploy.md" in message
        assert "the confirmation token still works" in message
        assert farm_sales(pg_url) == []
        assert not token_used(pipeline)
        failed = audit.latest(pipeline.state, 1)[0]
        assert (failed["tool"], failed["decision"]) == ("add_sale", "failed")
        assert "permission denied" in failed["message"]

        # the role is given the declared write: the same token now confirms it, once
        sql(pg_url, f"GRANT INSERT ON farm_sales TO {make_url(read_only_url).username}")
        done = pipeline.invoke("add_sale", SALE, admin, confirmation=token)
        assert done.status == "ok", done.message
        assert farm_sales(pg_url) == [done.rows[0]["code_sales"]]
        replay = pipeline.invoke("add_sale", SALE, admin, confirmation=token)
        assert (replay.status, replay.code) == ("refused", "confirmation_invalid")
        assert farm_sales(pg_url) == [done.rows[0]["code_sales"]]
    finally:
        pipeline.close()


@pytest.mark.postgres
def test_a_write_interrupted_with_the_state_apart_writes_nothing_and_gives_the_token_back(pg_url, state_pg_url):
    farm_without_state(pg_url)
    pipeline = open_pipeline(["farm"], pg_url, state_database=state_pg_url)
    try:
        admin = pipeline.user("admin")
        token = pipeline.invoke("add_sale", SALE, admin).confirmation_token

        def crash_after_insert(conn, cursor, statement, *_):
            if statement.lstrip().upper().startswith("INSERT INTO FARM_SALES"):
                raise RuntimeError("power cut")

        sa.event.listen(pipeline.db.engine, "after_cursor_execute", crash_after_insert)
        try:
            with pytest.raises(RuntimeError, match="power cut"):
                pipeline.invoke("add_sale", SALE, admin, confirmation=token)
        finally:
            sa.event.remove(pipeline.db.engine, "after_cursor_execute", crash_after_insert)
        assert farm_sales(pg_url) == []
        assert not token_used(pipeline)
        retry = pipeline.invoke("add_sale", SALE, admin, confirmation=token)
        assert retry.status == "ok", retry.message
        assert farm_sales(pg_url) == [retry.rows[0]["code_sales"]]
    finally:
        pipeline.close()


def test_the_web_chat_signs_in_keeps_conversations_and_confirms_with_the_state_apart(tmp_path):
    """Sign-in, conversations and the confirmation card all use the state database; the sale lands in the data."""
    from agent_fakes import ScriptedProvider, answer, calls
    from starlette.testclient import TestClient

    from concierge.storage import passwords
    from concierge.web import create_app

    business, state_url = f"sqlite:///{tmp_path / 'farm.db'}", f"sqlite:///{tmp_path / 'state.db'}"
    farm_without_state(business)
    pipeline = open_pipeline(["farm"], business, state_database=state_url)
    provider = ScriptedProvider()
    try:
        passwords.set_password(pipeline.state, "admin", "admin-pass-1")
        with TestClient(create_app(pipeline, provider=provider, secret=b"state-apart")) as client:
            assert client.post("/api/login", json={"name": "admin", "password": "admin-pass-1"}).status_code == 200
            provider.enqueue(calls(("add_sale", SALE)))
            assert client.post("/api/chat", json={"text": "販売登録して"}).status_code == 200
            [session] = client.get("/api/sessions").json()
            assert session["pending"] is True
            provider.enqueue(answer("登録しました。"))
            assert client.post(f"/api/sessions/{session['session_id']}/confirm").status_code == 200
            assert client.get("/api/sessions").json()[0]["pending"] is False
        with pipeline.db.read() as conn:
            names = set(sa.inspect(conn).get_table_names())
            written = conn.scalar(sa.text("SELECT COUNT(*) FROM farm_sales WHERE products = :p"),
                                  {"p": SALE["products"]})
        assert written == 1
        assert not {n for n in names if n.startswith("concierge_")}, names
        with pipeline.state.read() as conn:
            assert conn.scalar(sa.select(sa.func.count()).select_from(state.conversations)) == 1
    finally:
        pipeline.close()


@pytest.mark.postgres
def test_a_read_only_role_without_a_state_database_is_told_to_set_one(pg_url, read_only_url):
    with pytest.raises(StateSchemaError) as refused:
        open_pipeline(["farm"], read_only_url)
    message = str(refused.value)
    assert "permission denied for schema public" in message and "state_database" in message, message
    assert "concierge_users" not in [r[0] for r in sql(pg_url, "SELECT tablename FROM pg_tables")]
