"""API tokens: created for a user, stored hashed, verified back to that user."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from cli_runner import run_cli

from concierge.errors import ConfigError
from concierge.storage import state as schema
from concierge.storage import tokens
from concierge.storage.database import Database


def stored(pipeline) -> list[dict]:
    with pipeline.db.read() as conn:
        return [dict(r) for r in conn.execute(sa.select(schema.api_tokens)).mappings()]


def test_a_token_verifies_to_its_user_and_only_its_hash_is_stored(pipeline):
    token = tokens.create(pipeline.db, "tanaka", label="laptop")
    other = tokens.create(pipeline.db, "tanaka")
    assert token != other
    assert tokens.verify(pipeline.db, token) == "tanaka"
    rows = stored(pipeline)
    assert len(rows) == 2 and {r["label"] for r in rows} == {"laptop", None}
    assert all(token not in str(value) and token[3:] not in str(value) for r in rows for value in r.values())


@pytest.mark.parametrize("guess", ["", "ct_", "ct_guessed-token", "Bearer x", "cf_confirmation"])
def test_anything_else_verifies_as_no_one(pipeline, guess):
    tokens.create(pipeline.db, "admin")
    assert tokens.verify(pipeline.db, guess) is None


def test_a_token_of_a_removed_user_verifies_as_no_one(pipeline):
    token = tokens.create(pipeline.db, "suzuki")
    with pipeline.db.write() as conn:
        conn.execute(schema.users.delete().where(schema.users.c.name == "suzuki"))
    assert tokens.verify(pipeline.db, token) is None


def test_a_token_for_an_unknown_user_is_refused(pipeline):
    with pytest.raises(ConfigError, match="unknown user 'sato'.*tanaka"):
        tokens.create(pipeline.db, "sato")
    assert stored(pipeline) == []


def test_token_create_prints_a_working_token(sqlite_url):
    made = run_cli(*["token", "create", "--user", "tanaka", "--database", sqlite_url])
    assert made.exit_code == 0, made.output
    db = Database(sqlite_url)
    try:
        assert tokens.verify(db, made.stdout.strip()) == "tanaka"
    finally:
        db.dispose()
    unknown = run_cli(*["token", "create", "--user", "nobody", "--database", sqlite_url])
    assert unknown.exit_code == 2 and "unknown user 'nobody'" in unknown.output
