"""`concierge mcp --transport http --no-auth` (loopback, no tokens): whoever reaches the port is a stranger, so
the refusals of its transport are audited bounded, as every unauthenticated refusal is (`audit.stranger`)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import httpx2
import sqlalchemy as sa
from mcp_servers import start_http, stop

from concierge.pipeline import audit
from concierge.storage import state as schema
from concierge.storage.database import Database

FLOOD = 300  # requests: fifteen times the lines a window writes one by one
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def test_a_flood_of_bad_requests_to_a_server_without_tokens_adds_a_bounded_number_of_audit_rows(tmp_path):
    server = start_http(tmp_path, "--no-auth")
    try:
        with httpx2.Client(timeout=30) as http, ThreadPoolExecutor(6) as pool:
            codes = set(pool.map(lambda i: http.post(server.url, content=b"{not json " + str(i).encode(),
                                                     headers=HEADERS).status_code, range(FLOOD)))
    finally:
        stop(server)
    assert codes == {400}
    db = Database(server.database)
    try:
        with db.read() as conn:
            rows = [dict(r) for r in conn.execute(sa.select(schema.audit).where(
                schema.audit.c.source == "mcp-http 127.0.0.1")).mappings()]
    finally:
        db.dispose()
    [summary] = [r for r in rows if "more" in json.loads(r["args"] or "{}")]
    assert len(rows) == audit.NOISE_LINES + 1, f"{len(rows)} audit rows for {FLOOD} requests"
    assert json.loads(summary["args"])["more"] == FLOOD - audit.NOISE_LINES
