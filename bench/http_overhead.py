"""Per-call overhead of an http tool over the raw request it sends.

Runs the test service of tests/services/wire.py on 127.0.0.1 and times, per call (median of N):
the raw signed request over a kept-alive connection (http.client, the same transport the tool uses),
and `Pipeline.invoke` of the same read tool (guard, access, build, send, status, shaping, audit).
Usage: .venv/bin/python bench/http_overhead.py [N]
"""

from __future__ import annotations

import http.client
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.services.wire import API_KEY, BEARER, SECRET, TOKEN, serving  # noqa: E402

from concierge.catalog.loader import parse_catalog  # noqa: E402
from concierge.devices.switchbot import headers  # noqa: E402
from concierge.pipeline.pipeline import Pipeline  # noqa: E402
from concierge.storage import users  # noqa: E402
from concierge.storage.database import Database  # noqa: E402
from concierge.storage.migrate import ensure_state  # noqa: E402


def median_ms(fn, n: int) -> float:
    times = []
    for _ in range(n):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main(n: int = 300) -> None:
    catalog = (ROOT / "tests" / "services" / "home.yaml").read_text(encoding="utf-8")
    with serving() as service, tempfile.TemporaryDirectory() as tmp:
        host, port = service.base_url.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=5)

        def raw() -> None:
            conn.request("GET", "/v1.1/devices/B01/status", headers=headers(TOKEN, SECRET))
            conn.getresponse().read()

        db = Database(f"sqlite:///{tmp}/state.db")
        ensure_state(db)
        users.add(db, "mother", "family")
        env = {"BOT_URL": service.base_url, "BOT_TOKEN": TOKEN, "BOT_SECRET": SECRET, "HA_TOKEN": BEARER,
               "API_KEY": API_KEY}
        p = Pipeline([parse_catalog(catalog, "home.yaml", env)], db)
        user = p.user("mother")

        def tool() -> None:
            assert p.invoke("device_status", {"device": "リビング"}, user).ok

        def tool_no_audit() -> None:
            p._invoke("device_status", {"device": "リビング"}, user, None)  # noqa: SLF001 - what the audit costs

        for fn in (raw, tool, tool_no_audit):
            median_ms(fn, 20)  # warm: connections, the enum listing, SQLite
        raw_ms, tool_ms, bare_ms = median_ms(raw, n), median_ms(tool, n), median_ms(tool_no_audit, n)
        p.close()
        conn.close()
    print(f"raw signed request (keep-alive):       {raw_ms:.3f} ms  (median of {n})")
    print(f"http tool via Pipeline.invoke:          {tool_ms:.3f} ms  overhead {tool_ms - raw_ms:+.3f} ms")
    print(f"  of which the audit line (SQLite):     {tool_ms - bare_ms:.3f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
