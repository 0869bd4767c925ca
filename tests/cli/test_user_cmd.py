"""`concierge user add/remove/set-role/list`: roles come from the catalogs in use; row scope follows the name."""

from __future__ import annotations

import json

import sqlalchemy as sa
from cli_project import concierge

from concierge.storage import passwords, tokens
from concierge.storage.database import Database


def users(*args: str) -> dict[str, dict]:
    listed = concierge("user", "list", "--json", *args)
    assert listed.exit_code == 0, listed.output
    return {u["name"]: u for u in json.loads(listed.stdout)}


def test_add_with_a_password_from_stdin_then_sign_in(project):
    added = concierge("user", "add", "yamada", "--role", "staff", "--display-name", "山田", "--password-stdin",
                      stdin="a long passphrase\n")
    assert added.exit_code == 0, added.output
    assert users()["yamada"] == {"name": "yamada", "role": "staff", "display_name": "山田", "password": "set",
                                 "role_declared": True}
    db = Database(f"sqlite:///{project / 'shop.db'}")
    try:
        assert passwords.verify(db, "yamada", "a long passphrase") is not None
        assert passwords.verify(db, "yamada", "a wrong passphrase") is None
    finally:
        db.dispose()


def test_add_asks_for_the_password_twice_at_the_prompt(project):
    added = concierge("user", "add", "sato", "--role", "owner", stdin="passphrase-1\npassphrase-1\n")
    assert added.exit_code == 0, added.output
    assert "Repeat for confirmation" in added.output and users()["sato"]["password"] == "set"


def test_a_role_no_catalog_declares_is_refused_with_the_declared_roles(project):
    refused = concierge("user", "add", "yamada", "--role", "admin", "--no-password")
    assert refused.exit_code == 2
    assert "no role 'admin' in the catalogs in use (shop); declared roles: owner, staff" in refused.output
    assert users() == {}
    demo = concierge("user", "add", "yamada", "--role", "manager", "--no-password", "--catalog", "farm")
    assert demo.exit_code == 2 and "declared roles: admin, sales_rep, viewer" in demo.output


def test_a_short_password_or_a_taken_name_adds_nothing(project):
    short = concierge("user", "add", "yamada", "--role", "staff", "--password-stdin", stdin="short\n")
    assert short.exit_code == 2 and "at least 8 characters" in short.output
    assert "yamada" not in users()
    assert concierge("user", "add", "yamada", "--role", "staff", "--no-password").exit_code == 0
    again = concierge("user", "add", "yamada", "--role", "owner", "--no-password")
    assert again.exit_code == 2 and "exists already" in again.output and users()["yamada"]["role"] == "staff"
    bad = concierge("user", "add", "山田 太郎", "--role", "staff", "--no-password")
    assert bad.exit_code == 2 and "is not a user name" in bad.output


def test_set_role_and_remove(project):
    concierge("user", "add", "yamada", "--role", "staff", "--no-password")
    assert concierge("user", "set-role", "yamada", "owner").exit_code == 0
    assert users()["yamada"]["role"] == "owner"
    undeclared = concierge("user", "set-role", "yamada", "root")
    assert undeclared.exit_code == 2 and "declared roles: owner, staff" in undeclared.output
    unknown = concierge("user", "set-role", "nobody", "staff")
    assert unknown.exit_code == 2 and "unknown user 'nobody'" in unknown.output

    db = Database(f"sqlite:///{project / 'shop.db'}")
    try:
        token = tokens.create(db, "yamada")
        assert tokens.verify(db, token) == "yamada"
        removed = concierge("user", "remove", "yamada")
        assert removed.exit_code == 0, removed.output
        assert "yamada" not in users() and tokens.verify(db, token) is None
    finally:
        db.dispose()
    again = concierge("user", "remove", "yamada")
    assert again.exit_code == 2 and "unknown user 'yamada'" in again.output


def test_demo_users_exist_only_where_a_demo_catalog_is_loaded(project):
    assert users() == {}
    assert set(users("--catalog", "farm")) == {"admin", "tanaka", "suzuki"}


def test_a_user_whose_role_sees_only_their_rows(tmp_path, monkeypatch):
    """farm's sales_rep has no all_rows: the catalog's SQL keeps the customers assigned to the user's name."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "concierge.toml").write_text('database = "sqlite:///farm.db"\ncatalogs = ["farm"]\n',
                                             encoding="utf-8")
    assert concierge("user", "add", "ito", "--role", "sales_rep", "--no-password").exit_code == 0

    def customers(user: str) -> list[str]:
        ran = concierge("invoke", "get_customers", "{}", "--user", user, "--json")
        assert ran.exit_code == 0, ran.output
        return [r["code_customer"] for r in json.loads(ran.stdout)["rows"]]

    assert customers("ito") == []  # the demo data is loaded on first use; nothing is assigned to ito yet
    db = Database(f"sqlite:///{tmp_path / 'farm.db'}")
    try:
        with db.write() as conn:
            conn.exec_driver_sql("UPDATE farm_customers SET assigned_to = 'ito' WHERE code IN ('0003', '0005')")
    finally:
        db.dispose()
    assert customers("ito") == ["0003", "0005"]
    assert len(customers("admin")) == 20
    assert concierge("user", "set-role", "ito", "viewer").exit_code == 0
    assert len(customers("ito")) == 20


def test_users_live_in_the_state_database_when_the_settings_name_one(project):
    (project / "concierge.toml").write_text(
        'database = "sqlite:///shop.db"\nstate_database = "sqlite:///state.db"\ncatalogs = ["catalogs/shop.yaml"]\n',
        encoding="utf-8")
    assert concierge("user", "add", "yamada", "--role", "staff", "--no-password").exit_code == 0
    ran = concierge("invoke", "count_one", "--user", "yamada", "--json")
    assert ran.exit_code == 0, ran.output
    for name, has_users in (("state.db", True), ("shop.db", False)):
        db = Database(f"sqlite:///{project / name}")
        try:
            assert sa.inspect(db.engine).has_table("concierge_users") is has_users, name
        finally:
            db.dispose()
    assert concierge("user", "list", "--state-database", "sqlite:///other.db", "--json").stdout.strip() == "[]"


def test_a_removed_demo_user_stays_removed_when_the_demo_loads_again(project):
    assert concierge("invoke", "get_customers", "{}", "--catalog", "farm").exit_code == 0  # installs the demo
    assert "tanaka" in users("--catalog", "farm")
    removed = concierge("user", "remove", "tanaka", "--catalog", "farm")
    assert removed.exit_code == 0, removed.output
    listed = concierge("invoke", "get_customers", "{}", "--catalog", "farm")
    assert listed.exit_code == 0, listed.output
    assert "tanaka" not in users("--catalog", "farm") and "admin" in users("--catalog", "farm")


def test_a_demo_loaded_beside_others_later_gets_its_own_users_once(project, monkeypatch):
    monkeypatch.setenv("SWITCHBOT_TOKEN", "token")  # the home catalog's credentials, as docs/home.md sets them
    monkeypatch.setenv("SWITCHBOT_SECRET", "secret")
    assert concierge("invoke", "get_customers", "{}", "--catalog", "farm").exit_code == 0
    assert set(users("--catalog", "farm")) == {"admin", "tanaka", "suzuki"}
    initialised = concierge("db", "init", "--catalog", "home")  # a demo of no tables: its users only
    assert initialised.exit_code == 0, initialised.output
    assert {"hanako", "guest"} <= set(users("--catalog", "home")), initialised.output
    assert concierge("user", "remove", "guest", "--catalog", "home").exit_code == 0
    assert concierge("db", "init", "--catalog", "home").exit_code == 0
    assert "guest" not in users("--catalog", "home") and "hanako" in users("--catalog", "home")
