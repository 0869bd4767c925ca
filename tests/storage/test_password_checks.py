"""Password checks: bounded process-wide, old hashes verify and are upgraded, unknown names cost a check."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from argon2 import PasswordHasher, extract_parameters, profiles

from concierge.demo.bootstrap import open_pipeline
from concierge.storage import passwords, sessions
from concierge.storage import state as schema
from concierge.storage.database import Database

OLD = PasswordHasher.from_parameters(profiles.RFC_9106_LOW_MEMORY)  # argon2-cffi's default before


@pytest.fixture
def state(sqlite_url) -> Iterator[Database]:
    pipeline = open_pipeline(["farm", "pos"], sqlite_url)
    try:
        yield pipeline.state
    finally:
        pipeline.close()


def _stored(db: Database, name: str) -> str | None:
    with db.read() as conn:
        return conn.scalar(sa.select(schema.users.c.password_hash).where(schema.users.c.name == name))


def _store(db: Database, name: str, password_hash: str) -> None:
    with db.write() as conn:
        conn.execute(schema.users.update().where(schema.users.c.name == name).values(password_hash=password_hash))


def _all_at_once(count: int, work) -> list:
    start, results = threading.Barrier(count), [None] * count

    def run(i: int) -> None:
        start.wait()
        results[i] = work(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def test_parameters_are_owasp_argon2id_and_the_limit_is_small():
    params = extract_parameters(passwords.hash_password("a long passphrase"))
    assert (params.type.name, params.memory_cost, params.time_cost, params.parallelism) == ("ID", 19456, 2, 1)
    assert 2 <= passwords.CONCURRENT_CHECKS <= 4
    assert passwords.gate.limit == passwords.CONCURRENT_CHECKS


def test_simultaneous_checks_never_exceed_the_limit(state):
    passwords.set_password(state, "admin", "admin-pass-1")
    passwords.gate.reset()
    count = 3 * passwords.CONCURRENT_CHECKS + 2
    right = _all_at_once(count, lambda i: passwords.verify(state, "admin", "admin-pass-1" if i % 2 else "wrong-pass"))
    assert [r is not None for r in right] == [bool(i % 2) for i in range(count)]
    assert passwords.gate.most == passwords.CONCURRENT_CHECKS  # they did overlap, and no more than the limit
    assert passwords.gate.active == 0


def test_the_gate_counts_and_bounds_memory():
    gate = passwords.CheckGate(limit=3, budget_kib=100)
    seen: list[int] = []

    def check(cost: int) -> None:
        with gate.check(cost):
            seen.append(gate.active)
            time.sleep(0.05)

    _all_at_once(9, lambda i: check(30))
    assert gate.most == 3 and max(seen) == 3
    gate.reset()
    _all_at_once(4, lambda i: check(60 if i % 2 else 30))  # 60 + 30 fits; 60 + 60 does not
    assert gate.most <= 2
    gate.reset()
    _all_at_once(3, lambda i: check(500))  # costlier than the whole budget: one at a time, never stuck
    assert gate.most == 1 and gate.active == 0


def test_an_old_hash_verifies_and_is_rehashed_on_success_keeping_sessions(state):
    old = OLD.hash("tanaka-pass-1")
    _store(state, "tanaka", old)
    session = sessions.start(state, "tanaka", passwords.fingerprint(old))
    assert passwords.verify(state, "tanaka", "wrong-pass") is None
    assert _stored(state, "tanaka") == old  # a wrong password changes nothing

    fingerprint = passwords.verify(state, "tanaka", "tanaka-pass-1")
    new = _stored(state, "tanaka")
    assert new != old and fingerprint == passwords.fingerprint(new)
    assert extract_parameters(new).memory_cost == passwords.PARAMETERS.memory_cost
    assert sessions.check(state, session) == "tanaka"  # signed in with the old hash: still signed in
    assert passwords.verify(state, "tanaka", "tanaka-pass-1") == fingerprint  # no second rehash
    assert _stored(state, "tanaka") == new


def test_simultaneous_sign_ins_with_an_old_hash_all_succeed(state):
    _store(state, "suzuki", OLD.hash("suzuki-pass-1"))
    found = _all_at_once(4, lambda i: passwords.verify(state, "suzuki", "suzuki-pass-1"))
    assert found == [passwords.fingerprint(_stored(state, "suzuki"))] * 4


def test_an_old_hash_runs_alone():
    gate = passwords.gate
    assert OLD.memory_cost + passwords.PARAMETERS.memory_cost > gate.budget_kib or gate.limit == 1


def test_an_unknown_name_costs_a_check_with_the_same_parameters(state, monkeypatch):
    passwords.set_password(state, "admin", "admin-pass-1")
    checked: list[str] = []
    real = passwords._verify
    monkeypatch.setattr(passwords, "_verify", lambda h, p: checked.append(h) or real(h, p))
    assert passwords.verify(state, "nobody", "admin-pass-1") is None
    assert passwords.verify(state, "admin", "wrong-pass") is None
    dummy, stored = (extract_parameters(h) for h in checked)
    assert dummy == stored == passwords.PARAMETERS
