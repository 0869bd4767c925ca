"""API tokens: created for a user, stored hashed, verified back to that user; listed, revoked, expired, and
refused at once with an audit line, bounded per client address (a flood of guessed tokens is its first lines
and one summary line that counts the rest)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import httpx2
import pytest
import sqlalchemy as sa
from cli_runner import run_cli
from web_fakes import live

from concierge.errors import ConfigError
from concierge.pipeline import audit
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


# --- lifetimes: list, revoke, expire; every refusal audited -------------------------------------------------

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "test", "version": "1"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


def call_mcp(base: str, token: str) -> int:
    with httpx2.Client(base_url=base, timeout=30) as http:
        return http.post("/mcp", json=INITIALIZE, headers={**MCP_HEADERS, "Authorization": f"Bearer {token}"}
                         ).status_code


def listed(url: str, *args: str) -> list[dict]:
    shown = run_cli("token", "list", "--json", "--database", url, *args)
    assert shown.exit_code == 0, shown.output
    return json.loads(shown.stdout)


def refusals(url: str) -> list[dict]:
    db = Database(url)
    try:
        return [r for r in audit.latest(db, 1000) if r["tool"] == "bearer-token"]
    finally:
        db.dispose()


def test_a_revoked_token_is_refused_by_the_very_next_request(db_url, provider):
    made = run_cli("token", "create", "--user", "tanaka", "--label", "laptop", "--database", db_url)
    assert made.exit_code == 0, made.output
    token = made.stdout.strip()
    other = run_cli("token", "create", "--user", "suzuki", "--database", db_url).stdout.strip()
    assert [t["last_used"] for t in listed(db_url)] == ["never", "never"]
    with live(db_url, provider) as base:
        assert call_mcp(base, token) == 200
        [shown] = listed(db_url, "--user", "tanaka")
        assert (shown["user"], shown["label"], shown["state"], shown["expires"]) == ("tanaka", "laptop", "active",
                                                                                     "never")
        assert shown["last_used"] != "never" and len(shown["id"]) == tokens.ID_LENGTH
        table = run_cli("token", "list", "--database", db_url)
        assert token not in table.output and token[3:15] not in table.output and shown["id"] in table.output

        revoked = run_cli("token", "revoke", shown["id"], "--database", db_url)
        assert revoked.exit_code == 0 and f"revoked token {shown['id']} of tanaka (laptop)" in revoked.output
        assert call_mcp(base, token) == 401
        assert call_mcp(base, other) == 200  # the other user's token still works
        assert call_mcp(base, "ct_" + "x" * 43) == 401
    assert listed(db_url, "--user", "tanaka")[0]["state"] == "revoked"
    rows = refusals(db_url)
    assert [(r["user_name"], r["decision"], r["source"]) for r in rows] == [
        ("?", "refused:token_unknown", "mcp-http 127.0.0.1"),
        ("tanaka", "refused:token_revoked", "mcp-http 127.0.0.1")]
    assert json.loads(rows[1]["args"]) == {"token_id": shown["id"]}
    assert all(token not in json.dumps(r, default=str) and "x" * 43 not in json.dumps(r, default=str) for r in rows)


def test_a_token_expires_after_its_lifetime(db_url, provider):
    made = run_cli("token", "create", "--user", "tanaka", "--expires-in", "2h", "--database", db_url)
    assert made.exit_code == 0, made.output
    token = made.stdout.strip()
    [shown] = listed(db_url)
    assert shown["state"] == "active" and shown["expires"] != "never"
    with live(db_url, provider) as base:
        assert call_mcp(base, token) == 200
        db = Database(db_url)
        try:  # two hours pass
            with db.write() as conn:
                conn.execute(schema.api_tokens.update().values(expires_at=datetime.now(UTC) - timedelta(seconds=1)))
        finally:
            db.dispose()
        assert call_mcp(base, token) == 401
    assert listed(db_url)[0]["state"] == "expired"
    assert [(r["user_name"], r["decision"]) for r in refusals(db_url)] == [("tanaka", "refused:token_expired")]


@pytest.mark.parametrize("lifetime", ["0d", "soon", "-1h", "3y"])
def test_a_lifetime_that_is_not_one_is_refused(sqlite_url, lifetime):
    made = run_cli("token", "create", "--user", "tanaka", "--expires-in", lifetime, "--database", sqlite_url)
    assert made.exit_code == 2 and "is not a lifetime" in made.output and "30d" in made.output
    assert listed(sqlite_url) == []


def test_revoke_names_what_is_wrong_with_an_id(sqlite_url):
    assert run_cli("token", "create", "--user", "tanaka", "--database", sqlite_url).exit_code == 0
    for given, says in [("zz", "is not a token ID"), ("abcdef012345", "no token with ID abcdef012345")]:
        refused = run_cli("token", "revoke", given, "--database", sqlite_url)
        assert refused.exit_code == 2 and says in refused.output, refused.output
    assert listed(sqlite_url)[0]["state"] == "active"


FLOOD = 600  # requests: thirty times the lines a window writes one by one


def test_a_flood_of_guessed_tokens_adds_a_bounded_number_of_audit_rows(db_url, provider):
    """The red team's flood: unauthenticated requests to /mcp, with guessed tokens and with none."""
    made = run_cli("token", "create", "--user", "tanaka", "--database", db_url)
    assert made.exit_code == 0, made.output
    with live(db_url, provider) as base, httpx2.Client(base_url=base, timeout=60) as http:
        def guess(i: int) -> int:
            headers = {**MCP_HEADERS, "Authorization": f"Bearer ct_guess-{i:05d}"} if i % 4 else MCP_HEADERS
            return http.post("/mcp", json=INITIALIZE, headers=headers).status_code

        with ThreadPoolExecutor(8) as pool:
            codes = list(pool.map(guess, range(FLOOD)))
        assert set(codes) == {401}
        assert call_mcp(base, made.stdout.strip()) == 200  # the owner of a real token is not held up
        db = Database(db_url)
        try:
            revoked = tokens.create(db, "suzuki")
            tokens.revoke(db, tokens.list_tokens(db, "suzuki")[0].id)
        finally:
            db.dispose()
        assert call_mcp(base, revoked) == 401  # another kind of refusal has lines of its own
    rows = refusals(db_url)
    lines = [r for r in rows if "more" not in json.loads(r["args"])]
    [summary] = [r for r in rows if "more" in json.loads(r["args"])]
    guessed = sum(1 for i in range(FLOOD) if i % 4)  # a request without a token is not audited at all
    assert len(rows) == audit.NOISE_LINES + 2
    assert (summary["user_name"], summary["decision"], summary["source"]) == (
        "?", "refused:token_unknown", "mcp-http 127.0.0.1")
    assert json.loads(summary["args"])["more"] == guessed - audit.NOISE_LINES
    assert summary["message"].startswith(f"and {guessed - audit.NOISE_LINES} more like this from mcp-http 127.0.0.1")
    assert [r["decision"] for r in lines].count("refused:token_unknown") == audit.NOISE_LINES
    assert ("suzuki", "refused:token_revoked") in [(r["user_name"], r["decision"]) for r in lines]

