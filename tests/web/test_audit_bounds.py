"""A stranger's requests cannot grow the audit without bound (the red team wrote ≈700 rows/s from one client).

Over real HTTP to real servers: each client address (an IPv6 one by its /64) and kind of refusal has its
first lines of each minute written one by one, and one summary line that counts the rest, right however many
server processes and threads count together; the next minute starts anew, and another address is not hidden
by the first one's flood."""

from __future__ import annotations

import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from datetime import timedelta

import httpx2
import pytest
import sqlalchemy as sa
from web_fakes import live

from concierge.pipeline import audit
from concierge.storage import state as schema
from concierge.storage.database import Database

REQUESTS = 600  # thirty times the lines a window writes one by one
STRANGER = {"X-Forwarded-For": "203.0.113.7"}
CROSS_SITE = {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}


def audit_rows(url: str) -> list[dict]:
    db = Database(url)
    try:
        return audit.latest(db, 100_000)
    finally:
        db.dispose()


def summaries(rows: list[dict]) -> list[dict]:
    return [r for r in rows if r["user_name"] == "?" and "more" in json.loads(r["args"])]


def told(rows: list[dict], decision: str, source: str) -> int:
    """The requests of `decision` from `source` the audit tells of: its lines and what summary lines count."""
    return sum(json.loads(r["args"]).get("more", 1) if r in summaries(rows) else 1
               for r in rows if r["decision"] == decision and r["source"] == source)


def time_passes(db: Database, by: timedelta = audit.NOISE_WINDOW, source: str | None = None) -> None:
    """The windows (of `source`, else every one) started `by` earlier."""
    table = schema.audit_noise
    with db.write() as conn:
        for row in conn.execute(sa.select(table.c.source, table.c.kind, table.c.window_start)).all():
            if source in (None, row.source):
                conn.execute(table.update().where(table.c.source == row.source, table.c.kind == row.kind)
                             .values(window_start=row.window_start - by))


def a_minute_passes(url: str) -> None:
    db = Database(url)
    try:
        time_passes(db)
    finally:
        db.dispose()


def stranger_request(http: httpx2.Client, base: str, i: int) -> str:
    """One of three refusals a stranger gets without signing in; what it was."""
    if i % 3 == 0:
        answer = http.post(f"{base}/api/login", json={"name": "admin", "password": f"guess-{i}"}, headers=STRANGER)
        return {401: "refused:sign_in_failed", 429: "refused:sign_in_throttled"}[answer.status_code]
    if i % 3 == 1:
        answer = http.post(f"{base}/api/logout", headers={**STRANGER, **CROSS_SITE})
        assert answer.status_code == 403
        return "refused:cross_site"
    answer = http.post(f"{base}/api/login", json={"name": "admin"}, headers=STRANGER)
    assert answer.status_code == 422
    return "refused:invalid_request"


def test_a_flood_of_unauthenticated_requests_adds_a_bounded_number_of_audit_rows(any_web_url, provider):
    before = len(audit_rows(any_web_url))
    with ExitStack() as stack:
        servers = [stack.enter_context(live(any_web_url, provider, trusted_proxy="127.0.0.1")) for _ in range(2)]
        http = stack.enter_context(httpx2.Client(timeout=60, limits=httpx2.Limits(max_connections=16)))
        with ThreadPoolExecutor(8) as pool:
            sent = Counter(pool.map(lambda i: stranger_request(http, servers[i % 2], i), range(REQUESTS)))
        rows = audit_rows(any_web_url)[: len(audit_rows(any_web_url)) - before]
        kinds = len(sent) + 1  # and the one line that says the address waits
        assert len(rows) <= kinds * (audit.NOISE_LINES + 1), f"{len(rows)} audit rows for {REQUESTS} requests"
        for decision, count in sent.items():  # every request is told of, by a line or in a summary's count
            assert told(rows, decision, "web 203.0.113.7") == count, decision
        for summary in summaries(rows):
            more = json.loads(summary["args"])["more"]
            assert summary["message"].startswith(f"and {more} more like this from web 203.0.113.7 since ")
        assert sum(r["decision"] == "refused:cross_site" and r not in summaries(rows)
                   for r in rows) == audit.NOISE_LINES
        assert [r["decision"] for r in rows if r["decision"].startswith("throttled:")] == ["throttled:address"]

        colleague = httpx2.post(f"{servers[0]}/api/logout", headers={"X-Forwarded-For": "198.51.100.9", **CROSS_SITE})
        assert colleague.status_code == 403
        a_minute_passes(any_web_url)
        for _ in range(audit.NOISE_LINES + 5):
            assert http.post(f"{servers[1]}/api/logout", headers={**STRANGER, **CROSS_SITE}).status_code == 403
    after = audit_rows(any_web_url)[: len(audit_rows(any_web_url)) - before - len(rows)]
    assert [(r["user_name"], r["source"]) for r in after][-1] == ("?", "web 198.51.100.9")  # not hidden
    assert len(after) == 1 + audit.NOISE_LINES + 1  # a new minute: its own lines, its own summary
    [summary] = summaries(after)
    assert json.loads(summary["args"])["more"] == 5 and summary["source"] == "web 203.0.113.7"


def test_a_stranger_changing_address_within_one_ipv6_block_is_counted_as_one(web_url, provider):
    before = len(audit_rows(web_url))
    with live(web_url, provider, trusted_proxy="127.0.0.1") as base, httpx2.Client(timeout=60) as http:
        for i in range(200):
            guessed = {"X-Forwarded-For": f"2001:db8:7:1::{i + 1:x}", **CROSS_SITE}
            assert http.post(f"{base}/api/logout", headers=guessed).status_code == 403
    rows = audit_rows(web_url)[: len(audit_rows(web_url)) - before]
    assert len(rows) == audit.NOISE_LINES + 1
    [summary] = summaries(rows)
    assert summary["source"] == "web 2001:db8:7:1::/64"
    assert json.loads(summary["args"])["more"] == 200 - audit.NOISE_LINES
    assert {r["source"] for r in rows} - {summary["source"]} == {f"web 2001:db8:7:1::{i + 1:x}"
                                                                 for i in range(audit.NOISE_LINES)}


@pytest.mark.parametrize(("source", "counted"), [
    ("web 203.0.113.7", "web 203.0.113.7"),
    ("mcp-http 2001:db8:1:2:3:4:5:6", "mcp-http 2001:db8:1:2::/64"),
    ("web ::ffff:203.0.113.7", "web 203.0.113.7"),  # the IPv4 client it is, however written
    ("web unknown", "web unknown"),
    ("phone", "phone"),
])
def test_the_source_a_stranger_is_counted_by(source, counted):
    assert audit.noise_source(source) == counted


def test_old_windows_are_forgotten(web_url):
    db = Database(web_url)
    try:
        for source in ("web 192.0.2.1", "web 192.0.2.2"):
            audit.stranger(db, kind="sign-in", user="x", tool="sign-in", decision="refused:sign_in_failed",
                           message="wrong user name or password", source=source)
        time_passes(db, timedelta(hours=2), "web 192.0.2.1")
        time_passes(db, audit.NOISE_WINDOW, "web 192.0.2.2")
        audit.stranger(db, kind="sign-in", user="x", tool="sign-in", decision="refused:sign_in_failed",
                       message="wrong user name or password", source="web 192.0.2.2")  # a new window sweeps
        with db.read() as conn:
            assert list(conn.scalars(sa.select(schema.audit_noise.c.source))) == ["web 192.0.2.2"]
    finally:
        db.dispose()


def test_a_summary_line_deleted_meanwhile_is_written_anew(web_url):
    db = Database(web_url)
    try:
        def refused() -> None:
            audit.stranger(db, kind="bearer-token", user="?", tool="bearer-token", decision="refused:token_unknown",
                           message="no such bearer token", source="mcp-http 192.0.2.9")

        for _ in range(audit.NOISE_LINES + 2):
            refused()
        [summary] = summaries(audit.latest(db, 100))
        with db.write() as conn:  # the audit pruned by hand
            conn.execute(schema.audit.delete().where(schema.audit.c.id == summary["id"]))
        refused()
        [again] = summaries(audit.latest(db, 100))
        assert json.loads(again["args"])["more"] == 3  # the count goes on, in a line that exists
    finally:
        db.dispose()
