"""Per-call overhead of an http tool over the raw request it sends.

Serves the home demo's SwitchBot SIMULATOR (`concierge.demo.home.simulator`: uvicorn on 127.0.0.1, in a process
of its own, so that it does not share the interpreter lock with the client measured) and times, per call, the
same signed `GET /v1.1/devices/{id}/status`:

- raw httpx: one `httpx2.Client` (a kept-alive connection), the signed request and `.json()`: the anchor;
- raw http.client: one kept-alive `http.client.HTTPConnection` (the standard library, no pool);
- `Client.send`: concierge's client of the source (`concierge.sources.http.client`: headers, signature,
  error mapping, JSON);
- `Pipeline.invoke` of the home catalog's `light_status` (access, guard, request building, send, status
  mapping, shaping, audit).

Medians of N calls each; the paths take turns call by call, each first in turn, so that they see the same load.
Usage: .venv/bin/python bench/http_overhead.py [N]
"""

from __future__ import annotations

import http.client
import multiprocessing
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path

import httpx2
import machine

from concierge.catalog.loader import parse_catalog
from concierge.catalog.model import HttpRequest
from concierge.demo.home.simulator import serve
from concierge.pipeline.pipeline import Pipeline
from concierge.sources.http.client import Client
from concierge.sources.http.request import build
from concierge.sources.http.switchbot import headers
from concierge.storage import users
from concierge.storage.database import Database
from concierge.storage.migrate import ensure_state

CATALOG = Path(__file__).resolve().parents[1] / "src" / "concierge" / "demo" / "home" / "catalog.yaml"
LIGHT, LIGHT_ID = "リビングの電気", "6055F92A1B01"
PATH = f"/v1.1/devices/{LIGHT_ID}/status"


def simulate(ready: Connection) -> None:
    """The simulator, in the child process: sends back its environment (base URL, token, secret) once it listens."""
    serve("127.0.0.1", 0, None, report=lambda _line: None, ready=lambda sim: ready.send(sim.environment()))


def medians_ms(paths: dict[str, Callable[[], None]], n: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in paths}
    names = list(paths)
    for i in range(n):
        for name in names[i % len(names):] + names[:i % len(names)]:
            started = time.perf_counter()
            paths[name]()
            times[name].append((time.perf_counter() - started) * 1000)
    return {name: statistics.median(t) for name, t in times.items()}


def measure(env: dict[str, str], n: int) -> dict[str, float]:
    base_url, token, secret = env["SWITCHBOT_BASE_URL"], env["SWITCHBOT_TOKEN"], env["SWITCHBOT_SECRET"]
    host, port = base_url.removeprefix("http://").rsplit(":", 1)
    with tempfile.TemporaryDirectory() as tmp, httpx2.Client(base_url=base_url, timeout=10) as raw_httpx:
        conn = http.client.HTTPConnection(host, int(port), timeout=10)

        def raw() -> None:
            assert raw_httpx.get(PATH, headers=headers(token, secret)).json()["statusCode"] == 100

        def stdlib() -> None:
            conn.request("GET", PATH, headers=headers(token, secret))
            assert b'"statusCode":100' in conn.getresponse().read()

        db = Database(f"sqlite:///{tmp}/state.db")
        ensure_state(db)
        users.add(db, "hanako", "family")
        catalog = parse_catalog(CATALOG.read_text(encoding="utf-8"), "catalog.yaml", env)
        p = Pipeline([catalog], db)
        user = p.user("hanako")
        client = Client(catalog.sources["switchbot"])
        built = build(HttpRequest(method="GET", path=PATH), {})

        def send() -> None:
            assert client.send(built).doc["statusCode"] == 100

        def tool() -> None:
            assert p.invoke("light_status", {"light": LIGHT}, user).ok

        paths = {"raw httpx": raw, "raw http.client": stdlib, "Client.send": send, "Pipeline.invoke": tool}
        medians_ms(paths, 20)  # warm: connections, the enum listing, SQLite
        got = medians_ms(paths, n)
        client.close()
        p.close()
        conn.close()
    return got


def main(n: int = 300) -> None:
    context = multiprocessing.get_context("spawn")
    mine, theirs = context.Pipe()
    server = context.Process(target=simulate, args=(theirs,), daemon=True)
    server.start()
    try:
        if not mine.poll(60):
            raise SystemExit("the simulator did not start")
        got = measure(mine.recv(), n)
    finally:
        server.terminate()
        server.join(10)
    anchor = got["raw httpx"]
    print(f"median of {n} calls each, against the SwitchBot simulator on 127.0.0.1 (uvicorn, its own process); "
          f"{machine.load_average()} at the start, {machine.load().strip()} at the end")
    for name, ms in got.items():
        print(f"  {name:<18} {ms:7.3f} ms   {ms - anchor:+.3f} ms  {ms / anchor:4.2f}x raw httpx")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
