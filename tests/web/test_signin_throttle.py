"""Guessing passwords: the failing address is throttled first (for the account it tries, and over all accounts),
the account itself only when many addresses fail it, so a stranger at one address cannot lock a known user
out. Counted in the state database (every server process counts together); failed and refused sign-ins, and
each address or account that starts to wait, audited without the password, in bounded lines."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta

import httpx2
import pytest
import sqlalchemy as sa
from web_fakes import PASSWORDS, live

from concierge.pipeline import audit
from concierge.storage import state as schema
from concierge.storage import throttle
from concierge.storage.database import Database

WRONG = "not-the-password-42"


@pytest.fixture
def http() -> Iterator[httpx2.Client]:
    with httpx2.Client(timeout=30) as client:
        yield client


def login(http: httpx2.Client, base: str, name: str, password: str, **headers: str) -> httpx2.Response:
    return http.post(f"{base}/api/login", json={"name": name, "password": password}, headers=headers)


def time_passes(url: str) -> None:
    """Every wait of the throttle is over (what waiting `Retry-After` seconds would do)."""
    db = Database(url)
    try:
        with db.write() as conn:
            conn.execute(schema.signin_throttle.update().values(blocked_until=datetime.now(UTC) - timedelta(seconds=1)))
    finally:
        db.dispose()


def waits_of(url: str) -> dict[str, timedelta | None]:
    """The wait each key's last failure set."""
    db = Database(url)
    try:
        with db.read() as conn:
            rows = conn.execute(sa.select(schema.signin_throttle)).all()
    finally:
        db.dispose()
    return {r.key: r.blocked_until - r.last_at if r.blocked_until else None for r in rows}


def audit_rows(url: str) -> list[dict]:
    db = Database(url)
    try:
        return audit.latest(db, 10_000)
    finally:
        db.dispose()


def more_of(row: dict) -> int | None:
    """How many lines a summary line of the audit counts (None: the row is a line of its own)."""
    args = json.loads(row["args"])
    return args["more"] if row["user_name"] == "?" and isinstance(args, dict) and "more" in args else None


def told(rows: list[dict], decision: str) -> int:
    """How many sign-ins of `decision` the audit tells of: its lines, and what its summary lines count."""
    return sum(more_of(r) or 1 for r in rows if r["decision"] == decision)


def proxied(address: str) -> dict[str, str]:
    return {"X-Forwarded-For": address}


def test_300_wrong_passwords_from_one_address_make_it_wait_and_then_the_right_one_waits_too(any_web_url, provider,
                                                                                             http):
    free = throttle.FREE["pair"]
    with live(any_web_url, provider) as base:
        answers = [login(http, base, "admin", WRONG) for _ in range(300)]
        codes = [a.status_code for a in answers]
        assert codes[:free] == [401] * free and codes[free] == 429
        allowed = codes.count(401)  # each wait doubles: a few more guesses however slow this machine is
        assert allowed <= free + 10 and set(codes) == {401, 429}
        assert all(int(a.headers["Retry-After"]) >= 1 for a in answers if a.status_code == 429)
        # the last refusal says when to try again (on a slow machine a wait may end before the 300th guess)
        waited = next(a for a in reversed(answers) if a.status_code == 429)
        assert "try again in" in waited.json()["detail"] and WRONG not in waited.text

        time_passes(any_web_url)
        assert login(http, base, "admin", WRONG).status_code == 401
        right = login(http, base, "admin", PASSWORDS["admin"])
        assert right.status_code == 429, "the right password got through from the address that must wait"
        wait = throttle.FIRST_DELAY_S * 2 ** (allowed + 1 - free)  # twice the wait before
        assert 1 <= int(right.headers["Retry-After"]) <= wait
        assert waits_of(any_web_url)["pair:admin|127.0.0.1"] == timedelta(seconds=wait)

        time_passes(any_web_url)
        assert login(http, base, "admin", PASSWORDS["admin"]).status_code == 200
        assert login(http, base, "admin", WRONG).status_code == 401  # a success starts the address from zero

    rows = [r for r in audit_rows(any_web_url) if r["tool"] == "sign-in"]
    assert told(rows, "refused:sign_in_failed") == allowed + 2
    assert told(rows, "refused:sign_in_throttled") == 300 - allowed + 1
    assert len(rows) <= 2 * (audit.NOISE_LINES + 1) + 1, "one address grew the audit past its bound"
    [throttled] = [r for r in rows if r["decision"].startswith("throttled:")]
    assert throttled["decision"] == "throttled:address" and throttled["user_name"] == "admin"
    assert f"{free} failed sign-ins of admin from 127.0.0.1" in throttled["message"]
    assert {r["source"] for r in rows} == {"web 127.0.0.1"}
    assert {r["user_name"] for r in rows} <= {"admin", "?"}
    assert all(r["at"] is not None for r in rows)
    for r in rows:  # never the password tried
        assert WRONG not in json.dumps(r, default=str) and PASSWORDS["admin"] not in json.dumps(r, default=str)


def test_a_stranger_at_one_address_cannot_lock_a_known_user_out(any_web_url, provider, http):
    """The red team's attack: 300 guesses at admin's password from one address. Only that address waits."""
    stranger, admin = proxied("203.0.113.7"), proxied("198.51.100.9")
    with live(any_web_url, provider, trusted_proxy="127.0.0.1") as base:
        codes = [login(http, base, "admin", WRONG, **stranger).status_code for _ in range(300)]
        assert codes[:throttle.FREE["pair"]] == [401] * throttle.FREE["pair"] and codes[-1] == 429
        assert login(http, base, "admin", PASSWORDS["admin"], **stranger).status_code == 429
        assert login(http, base, "admin", PASSWORDS["admin"], **admin).status_code == 200, "the admin is locked out"
        assert login(http, base, "admin", WRONG, **proxied("192.0.2.44")).status_code == 401  # not refused: no wait
    rows = [r for r in audit_rows(any_web_url) if r["decision"].startswith("throttled:")]
    assert [(r["decision"], r["user_name"], r["source"]) for r in rows] == [
        ("throttled:address", "admin", "web 203.0.113.7")]


def test_many_addresses_failing_one_account_slow_the_account_in_every_process(any_web_url, provider, http):
    spread = throttle.FREE["user"]
    with ExitStack() as stack:
        a, b = (stack.enter_context(live(any_web_url, provider, trusted_proxy="127.0.0.1")) for _ in range(2))
        for i in range(spread - 1):
            assert login(http, a if i % 2 else b, "tanaka", WRONG, **proxied(f"203.0.113.{i + 1}")).status_code == 401
        assert login(http, a, "tanaka", PASSWORDS["tanaka"], **proxied("198.51.100.1")).status_code == 200
        assert login(http, b, "tanaka", WRONG, **proxied("203.0.113.100")).status_code == 401  # the spread-th
        for base in (a, b):  # now the account itself waits, whoever asks, in every process
            slowed = login(http, base, "tanaka", PASSWORDS["tanaka"], **proxied("198.51.100.2"))
            assert slowed.status_code == 429
            assert 1 <= int(slowed.headers["Retry-After"]) <= throttle.MAX_DELAY_S["user"]
        assert login(http, b, "suzuki", PASSWORDS["suzuki"], **proxied("203.0.113.1")).status_code == 200
        time_passes(any_web_url)
        assert login(http, b, "tanaka", PASSWORDS["tanaka"], **proxied("198.51.100.2")).status_code == 200
        assert login(http, a, "tanaka", WRONG, **proxied("203.0.113.102")).status_code == 401
        assert login(http, a, "tanaka", PASSWORDS["tanaka"], **proxied("198.51.100.3")).status_code == 429, (
            "a success forgot the other addresses that failed")
    [line] = [r for r in audit_rows(any_web_url) if r["decision"] == "throttled:account"]
    assert line["user_name"] == "tanaka" and f"from {spread} different addresses" in line["message"]
    assert line["source"] == "web 203.0.113.100"


def test_addresses_of_one_ipv6_64_count_as_one_and_cannot_lock_the_account(web_url, provider, http):
    """One host holds a whole /64: sixty addresses of it are one address, whose failures never reach the account's
    own wait; an IPv4 client written as IPv4-mapped IPv6 is that IPv4 client."""
    with live(web_url, provider, trusted_proxy="127.0.0.1") as base:
        for i in range(60):
            login(http, base, "suzuki", WRONG, **proxied(f"2001:db8:1:2::{i + 1:x}"))
        assert login(http, base, "suzuki", PASSWORDS["suzuki"], **proxied("198.51.100.7")).status_code == 200
        assert login(http, base, "suzuki", PASSWORDS["suzuki"], **proxied("2001:db8:1:2::ffff")).status_code == 429
        for _ in range(throttle.FREE["pair"]):
            login(http, base, "tanaka", WRONG, **proxied("203.0.113.9"))
        mapped = login(http, base, "tanaka", PASSWORDS["tanaka"], **proxied("::ffff:203.0.113.9"))
        assert mapped.status_code == 429  # the same client, however its address is written


def test_the_count_of_one_address_is_shared_by_every_server_process(any_web_url, provider, http):
    with ExitStack() as stack:
        a, b = (stack.enter_context(live(any_web_url, provider)) for _ in range(2))
        for i in range(throttle.FREE["pair"]):
            assert login(http, a if i % 2 else b, "tanaka", WRONG).status_code == 401
        assert login(http, a, "tanaka", PASSWORDS["tanaka"]).status_code == 429
        assert login(http, b, "tanaka", PASSWORDS["tanaka"]).status_code == 429
        assert login(http, b, "suzuki", PASSWORDS["suzuki"]).status_code == 200  # another account is not held up


def test_guesses_sent_all_at_once_are_counted_as_fully_as_one_by_one(any_web_url, provider):
    results: list[int] = []
    with live(any_web_url, provider) as base:
        def guess() -> None:
            with httpx2.Client(timeout=60) as client:
                results.append(login(client, base, "admin", WRONG).status_code)

        threads = [threading.Thread(target=guess) for _ in range(30)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
    assert len(results) == 30
    assert results.count(401) == throttle.FREE["pair"] and results.count(429) == 30 - throttle.FREE["pair"]


def test_one_address_trying_many_accounts_is_throttled(web_url, provider, http):
    with live(web_url, provider) as base:
        free = throttle.FREE["addr"]
        codes = [login(http, base, f"guess{i}", WRONG).status_code for i in range(free)]
        assert codes == [401] * free
        assert login(http, base, "suzuki", PASSWORDS["suzuki"]).status_code == 429  # this address must wait
        # a client naming another address of its own is still this address: no proxy is trusted
        spoofed = login(http, base, "tanaka", PASSWORDS["tanaka"], **proxied("198.51.100.9"))
        assert spoofed.status_code == 429
    rows = [r for r in audit_rows(web_url) if r["tool"] == "sign-in"]
    assert {r["source"] for r in rows} == {"web 127.0.0.1"}
    [line] = [r for r in rows if r["decision"] == "throttled:address_all"]
    assert line["user_name"] == f"guess{free - 1}" and "whatever the account" in line["message"]


def test_behind_a_trusted_proxy_the_client_address_it_names_is_counted_and_audited(web_url, provider, http):
    with live(web_url, provider, trusted_proxy="127.0.0.1") as base:
        attacker, colleague = proxied("203.0.113.7"), proxied("198.51.100.9")
        for i in range(throttle.FREE["addr"]):
            assert login(http, base, f"guess{i}", WRONG, **attacker).status_code == 401
        assert login(http, base, "suzuki", PASSWORDS["suzuki"], **attacker).status_code == 429
        assert login(http, base, "suzuki", PASSWORDS["suzuki"], **colleague).status_code == 200
    sources = {r["source"] for r in audit_rows(web_url) if r["tool"] == "sign-in"}
    assert sources == {"web 203.0.113.7"}


def test_a_new_password_set_by_an_admin_lifts_the_wait(web_url, provider, http):
    from concierge.storage import passwords

    with live(web_url, provider) as base:
        for _ in range(throttle.FREE["pair"] + 1):
            login(http, base, "tanaka", WRONG)
        assert login(http, base, "tanaka", PASSWORDS["tanaka"]).status_code == 429
        db = Database(web_url)
        try:
            passwords.set_password(db, "tanaka", "reset-by-the-admin")
            with db.read() as conn:
                keys = set(conn.scalars(sa.select(schema.signin_throttle.c.key)))
        finally:
            db.dispose()
        assert "user:tanaka" not in keys and "addr:127.0.0.1" in keys
        assert login(http, base, "tanaka", "reset-by-the-admin").status_code == 200


def test_the_delays_grow_and_are_capped():
    free = throttle.FREE["pair"]
    first = throttle.FIRST_DELAY_S
    assert [throttle.delay_s(n, free) for n in range(1, free + 4)] == [0] * (free - 1) + [first, 2 * first, 4 * first,
                                                                                          8 * first]
    assert throttle.delay_s(free + 40, free) == throttle.MAX_DELAY_S["pair"]
    assert throttle.delay_s(40, throttle.FREE["user"], throttle.MAX_DELAY_S["user"]) == throttle.MAX_DELAY_S["user"]
