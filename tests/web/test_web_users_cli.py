"""Sign-in passwords from the command line: printed once by `db init`, set by `user set-password`."""

from __future__ import annotations

import re

import pytest
from cli_runner import run_cli
from web_fakes import printed_passwords

from concierge.storage import passwords
from concierge.storage.database import Database


def run(*args: str, stdin: str | None = None) -> tuple[int, str]:
    result = run_cli(*args, stdin=stdin)
    return result.exit_code, result.output


@pytest.mark.parametrize("url_fixture", ["sqlite_url", pytest.param("pg_url", marks=pytest.mark.postgres)])
def test_db_init_prints_each_demo_password_once_and_they_verify(request, url_fixture):
    url = request.getfixturevalue(url_fixture)
    code, out = run("db", "init", "--catalog", "farm", "--database", url)
    assert code == 0, out
    printed = printed_passwords(out)
    assert sorted(printed) == ["admin", "suzuki", "tanaka"]  # the farm demo's users only
    assert len(set(printed.values())) == 3 and all(len(p) >= 12 for p in printed.values())
    code, again = run("db", "init", "--catalog", "pos", "--database", url)
    assert code == 0 and list(printed_passwords(again)) == ["pos_analyst"]  # admin has one already
    db = Database(url)
    try:
        assert passwords.verify(db, "tanaka", printed["tanaka"]) is not None
        assert passwords.verify(db, "tanaka", printed["admin"]) is None
    finally:
        db.dispose()


def test_set_password_from_stdin_replaces_the_old_one(sqlite_url):
    run("db", "init", "--catalog", "farm", "--database", sqlite_url)
    code, out = run("user", "set-password", "suzuki", "--password-stdin", "--database", sqlite_url,
                    stdin="correct horse battery\n")
    assert code == 0, out
    db = Database(sqlite_url)
    try:
        assert passwords.verify(db, "suzuki", "correct horse battery") is not None
    finally:
        db.dispose()
    code, out = run("user", "list", "--database", sqlite_url)
    assert code == 0 and re.search(r"^suzuki +viewer +\S+ +set$", out, flags=re.M), out


def test_set_password_at_the_prompt_asks_twice(sqlite_url):
    code, out = run("user", "set-password", "admin", "--database", sqlite_url,
                    stdin="first-password\nsecond-password\nfirst-password\nfirst-password\n")
    assert code == 0, out
    assert "match" in out.lower()  # the two entries differed once, and it asked again
    db = Database(sqlite_url)
    try:
        assert passwords.verify(db, "admin", "first-password") is not None
    finally:
        db.dispose()


@pytest.mark.parametrize("name, password, error", [
    ("admin", "short", "too short"),
    ("nobody", "long-enough-password", "unknown user 'nobody'"),
])
def test_set_password_refuses_bad_input_with_one_clear_line(sqlite_url, name, password, error):
    code, out = run("user", "set-password", name, "--password-stdin", "--database", sqlite_url, stdin=password + "\n")
    assert code == 2
    assert error in out and "Traceback" not in out
