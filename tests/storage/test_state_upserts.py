"""The state's rows made once however many ask at once (audit noise windows, sign-in throttles, single-use tokens),
on each database the state may live on: one statement that inserts unless the key is there
(storage/insert_once.py)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from concierge.pipeline import audit
from concierge.storage import state as schema
from concierge.storage import throttle
from concierge.storage.database import Database
from concierge.storage.insert_once import insert_once
from concierge.storage.migrate import ensure_state


def refused(db: Database, source: str) -> None:
    audit.stranger(db, kind="sign-in", user="x", tool="sign-in", decision="refused:sign_in_failed",
                   message="wrong user name or password", source=source)


def test_a_row_is_inserted_once_and_the_second_leaves_it_as_it_was(state_url):
    db = Database(state_url)
    try:
        ensure_state(db)
        now = datetime.now(UTC)
        row = {"token_hash": "a" * 64, "user_name": "admin", "tool": "marker", "args": "{}", "created_at": now}
        with db.write() as conn:
            assert insert_once(conn, schema.confirmations, row) is True
            assert insert_once(conn, schema.confirmations, {**row, "user_name": "other"}) is False
        with db.read() as conn:
            assert conn.execute(sa.select(schema.confirmations.c.user_name)).scalars().all() == ["admin"]
    finally:
        db.dispose()


def test_a_stranger_flood_from_many_threads_keeps_one_window_and_counts_every_request(state_url):
    db = Database(state_url)
    try:
        ensure_state(db)
        with ThreadPoolExecutor(6) as pool:
            list(pool.map(lambda _: refused(db, "web 192.0.2.1"), range(60)))
        lines = [r for r in audit.latest(db, 1000) if r["source"] == "web 192.0.2.1"]
        summaries = [r for r in lines if "more" in json.loads(r["args"])]
        assert len(lines) == audit.NOISE_LINES + 1 and len(summaries) == 1
        assert audit.NOISE_LINES + json.loads(summaries[0]["args"])["more"] == 60
        with db.read() as conn:
            assert conn.scalar(sa.select(sa.func.count()).select_from(schema.audit_noise)) == 1
    finally:
        db.dispose()


def test_old_windows_are_forgotten_when_a_new_one_starts(state_url):
    db = Database(state_url)
    table = schema.audit_noise
    try:
        ensure_state(db)
        for source in ("web 192.0.2.1", "web 192.0.2.2"):
            refused(db, source)
        with db.write() as conn:
            for source, by in (("web 192.0.2.1", timedelta(hours=2)), ("web 192.0.2.2", audit.NOISE_WINDOW)):
                start = conn.scalar(sa.select(table.c.window_start).where(table.c.source == source))
                conn.execute(table.update().where(table.c.source == source).values(window_start=start - by))
        refused(db, "web 192.0.2.2")
        with db.read() as conn:
            assert list(conn.scalars(sa.select(table.c.source))) == ["web 192.0.2.2"]
    finally:
        db.dispose()


def test_sign_in_attempts_from_many_threads_each_count_once(state_url):
    db = Database(state_url)
    try:
        ensure_state(db)
        free = throttle.FREE["pair"]
        with ThreadPoolExecutor(free) as pool:
            attempts = list(pool.map(lambda _: throttle.begin(db, "yamada", "192.0.2.7"), range(free)))
        assert all(a.allowed for a in attempts)
        assert [t.kind for a in attempts for t in a.throttled] == ["pair"]  # the 5th failure makes the pair wait
        refused = throttle.begin(db, "yamada", "192.0.2.7")
        assert not refused.allowed and refused.waiting == "pair" and refused.retry_after_s > 0
    finally:
        db.dispose()
