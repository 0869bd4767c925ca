"""The state tables' revisions: a database of the previous layout upgraded with its data, refusals of a
state that is behind or ahead, the embedded default upgrading itself, downgrades."""

from __future__ import annotations

import legacy_state
import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from cli_runner import run_cli

from concierge.agent.providers.interface import Message
from concierge.agent.store import ConversationStore
from concierge.demo.bootstrap import open_pipeline
from concierge.errors import StateSchemaError
from concierge.pipeline import audit
from concierge.plugins import demo as demo_plugin
from concierge.storage import migrate, passwords, state, tokens, users
from concierge.storage.database import Database, embedded_url

HEAD = migrate.head()


def run(*args: str) -> tuple[int, str]:
    result = run_cli(*args)
    return result.exit_code, result.output


def make_legacy(url: str) -> legacy_state.Seeded:
    db = Database(url)
    try:
        with db.write() as conn:
            return legacy_state.make(conn)
    finally:
        db.dispose()


def rows_of(url: str) -> dict[str, list[tuple]]:
    db = Database(url)
    try:
        with db.read() as conn:
            return legacy_state.dump(conn)
    finally:
        db.dispose()


def test_a_state_database_of_the_previous_layout_is_upgraded_and_loses_nothing(state_url, tmp_path):
    seeded = make_legacy(state_url)
    before = rows_of(state_url)
    business = f"sqlite:///{tmp_path / 'farm.db'}"
    legacy_state.farm_without_state(business)

    with pytest.raises(StateSchemaError, match=r"made by a concierge before versioning.*"
                       r"run `concierge db upgrade --state-database "):
        open_pipeline(["farm"], business, state_database=state_url)
    code, out = run("user", "list", "--state-database", state_url)
    assert code == 2 and out.startswith("error: ") and "concierge db upgrade --state-database" in out, out
    assert rows_of(state_url) == before, "a refused command changed the state"

    code, out = run("db", "upgrade", "--state-database", state_url)
    assert code == 0, out
    assert f"unversioned (a release before versioning) -> {HEAD}" in out
    assert rows_of(state_url) == before  # every row of every table, in the columns it had

    db = Database(state_url)
    try:
        assert migrate.inspect(db).kind == "current"
        assert passwords.verify(db, "admin", seeded.passwords["admin"]) is not None
        assert passwords.verify(db, "tanaka", seeded.passwords["tanaka"]) is not None
        assert passwords.verify(db, "tanaka", seeded.passwords["admin"]) is None
        assert not users.get(db, "suzuki").can_sign_in
        assert tokens.verify(db, seeded.api_token) == "tanaka"
        assert ConversationStore(db).load(seeded.session_id, "admin") == [
            Message("user", text="How many customers?"), Message("assistant", text="There are 20 customers.")]
        assert len(audit.latest(db, 100)) == 5
        with db.read() as conn:  # what revision 0002 added: empty for the rows from before it
            assert set(conn.scalars(sa.select(state.users.c.created_at))) == {None}
            assert set(conn.scalars(sa.select(state.audit.c.source))) == {None}
        users.add(db, "sato", "staff")
        with db.read() as conn:
            assert conn.scalar(sa.select(state.users.c.created_at).where(state.users.c.name == "sato"))
    finally:
        db.dispose()

    pipeline = open_pipeline(["farm"], business, state_database=state_url)
    try:  # the confirmation issued before the upgrade still confirms its write, once
        admin = pipeline.user("admin")
        done = pipeline.invoke("add_sale", legacy_state.SALE, admin, confirmation=seeded.confirmation,
                               source="cli")
        assert done.status == "ok", done.message
        again = pipeline.invoke("add_sale", legacy_state.SALE, admin, confirmation=seeded.confirmation)
        assert (again.status, again.code) == ("refused", "confirmation_invalid")
        assert audit.latest(pipeline.state, 2)[1]["source"] == "cli"
    finally:
        pipeline.close()


def test_an_empty_state_database_is_created_at_head_and_matches_the_tables_of_the_code(state_url):
    db = Database(state_url)
    try:
        assert migrate.inspect(db).kind == "empty"
        migrate.ensure_state(db)
        assert (migrate.inspect(db).current, migrate.head()) == (HEAD, HEAD)
        with db.read() as conn:
            context = MigrationContext.configure(conn, opts={"version_table": state.VERSION_TABLE})
            assert compare_metadata(context, state.metadata) == []
    finally:
        db.dispose()


def test_a_state_database_behind_is_refused_with_the_command_to_run(state_url):
    db = Database(state_url)
    try:
        migrate.upgrade(db, "0001")
        assert migrate.inspect(db).kind == "behind"
    finally:
        db.dispose()
    with pytest.raises(StateSchemaError) as refused:
        open_pipeline(["farm"], state_url)
    assert f"are at revision 0001; this concierge needs revision {HEAD}" in str(refused.value)
    assert "run `concierge db upgrade --state-database " in str(refused.value)
    code, out = run("token", "create", "--user", "admin", "--database", state_url)
    assert code == 2 and "concierge db upgrade --state-database" in out, out
    code, out = run("db", "upgrade", "--database", state_url)
    assert code == 0 and f"0001 -> {HEAD}" in out, out


def test_a_state_database_ahead_is_refused_and_not_upgraded(state_url):
    db = Database(state_url)
    try:
        migrate.ensure_state(db)
        with db.write() as conn:
            conn.execute(sa.text(f"UPDATE {state.VERSION_TABLE} SET version_num = '0099'"))
    finally:
        db.dispose()
    with pytest.raises(StateSchemaError, match=r"revision 0099, which this concierge does not know .*"
                       rf"`concierge db downgrade {HEAD} --state-database "):
        open_pipeline(["farm"], state_url)
    for command in (["db", "upgrade"], ["audit"], ["db", "downgrade", "0001"]):
        code, out = run(*command, "--database", state_url)
        assert code == 2 and "0099" in out, (command, out)


def test_downgrade_is_supported_down_to_0001_and_up_again_keeps_the_data(state_url):
    seeded = make_legacy(state_url)
    before = rows_of(state_url)
    assert run("db", "upgrade", "--state-database", state_url)[0] == 0
    code, out = run("db", "downgrade", "0001", "--state-database", state_url)
    assert code == 0 and f"{HEAD} -> 0001" in out, out
    db = Database(state_url)
    try:
        with db.read() as conn:
            assert "source" not in {c["name"] for c in sa.inspect(conn).get_columns("concierge_audit")}
    finally:
        db.dispose()
    assert rows_of(state_url) == before
    code, out = run("db", "downgrade", "base", "--state-database", state_url)
    assert code == 2 and "no state revision 'base'" in out and "drop them by hand" in out, out
    assert run("db", "upgrade", "--state-database", state_url)[0] == 0
    assert rows_of(state_url) == before
    db = Database(state_url)
    try:
        assert tokens.verify(db, seeded.api_token) == "tanaka"
    finally:
        db.dispose()


def test_the_embedded_default_upgrades_itself(tmp_path, monkeypatch):
    """The SQLite file in the user data folder, made by an earlier release: farm data and state together."""
    monkeypatch.delenv("CONCIERGE_DATABASE")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    url = embedded_url()
    assert url.startswith(f"sqlite:///{tmp_path}")
    seeded = make_legacy(url)
    farm = demo_plugin("farm")
    db = Database(url)
    try:
        with db.write() as conn:
            farm.metadata.create_all(conn, tables=list(farm.tables))
            for table, rows in farm.generate().items():
                conn.execute(farm.metadata.tables[table].insert(), rows)
            sales = conn.scalar(sa.text("SELECT COUNT(*) FROM farm_sales"))
    finally:
        db.dispose()
    before = rows_of(url)

    pipeline = open_pipeline(["farm"])
    try:
        assert migrate.inspect(pipeline.state).kind == "current"
        assert pipeline.state is pipeline.db
        admin = pipeline.user("admin")
        assert admin.display_name == "管理者"
        done = pipeline.invoke("add_sale", legacy_state.SALE, admin, confirmation=seeded.confirmation)
        assert done.status == "ok", done.message
        with pipeline.db.read() as conn:
            assert conn.scalar(sa.text("SELECT COUNT(*) FROM farm_sales")) == sales + 1
    finally:
        pipeline.close()
    after = rows_of(url)
    assert after["concierge_users"] == before["concierge_users"]  # the farm's users were there already
    assert after["concierge_api_tokens"] == before["concierge_api_tokens"]
    assert after["concierge_messages"] == before["concierge_messages"]
    assert after["concierge_audit"][:5] == before["concierge_audit"]


def test_the_state_is_checked_once_per_database(sqlite_url):
    db = Database(sqlite_url)
    try:
        migrate.ensure_state(db)
        inspections = []
        sa.event.listen(db.engine, "before_cursor_execute", lambda *a: inspections.append(a[2]))
        for _ in range(3):
            migrate.ensure_state(db)
        assert inspections == []
    finally:
        db.dispose()
