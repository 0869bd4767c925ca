"""Helpers of the web tests: apps in process or over real servers, signing in, reading event streams."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

import httpx2
import sqlalchemy as sa
from in_process_server import served_in_thread
from starlette.testclient import TestClient

from concierge.demo.bootstrap import open_pipeline
from concierge.demo.farm import tables as farm_tables
from concierge.pipeline.pipeline import Pipeline
from concierge.storage import passwords
from concierge.web import create_app

SECRET = b"web-test-secret"
PASSWORDS = {"admin": "admin-pass-1", "tanaka": "tanaka-pass-1", "suzuki": "suzuki-pass-1"}


def with_passwords(url: str) -> str:
    pipeline = open_pipeline(["farm", "pos"], url)  # installs the demo data on SQLite
    try:
        for name, password in PASSWORDS.items():
            passwords.set_password(pipeline.db, name, password)
    finally:
        pipeline.close()
    return url


Web = tuple[Pipeline, Callable[[], TestClient]]


@contextmanager
def running(url: str, provider) -> Iterator[Web]:
    """The pipeline and a factory of clients of one running app (each client has its own cookies).

    The first client runs the app's lifespan (once, as a server does); the others share it.
    """
    pipeline = open_pipeline(["farm", "pos"], url)
    app = create_app(pipeline, provider=provider, secret=SECRET)
    with ExitStack() as stack:
        stack.callback(pipeline.close)
        stack.enter_context(TestClient(app))

        def client() -> TestClient:
            c = TestClient(app)
            stack.callback(c.close)
            return c

        yield pipeline, client


@contextmanager
def live(url: str, provider, catalogs: tuple[str, ...] = ("farm", "pos"), **options) -> Iterator[str]:
    """The app served by a real uvicorn on 127.0.0.1, in a thread; yields its base URL.

    `options` go to `create_app` (`trusted_proxy=`, `secure_cookie=`, `phone=`); each call is a server process of
    its own as far as the app can tell: its own pipeline, engine and connections."""
    pipeline = open_pipeline(list(catalogs), url)
    app = create_app(pipeline, provider=provider, secret=SECRET, **options)
    try:
        with served_in_thread(app, proxy_headers=False) as base_url:
            yield base_url
    finally:
        pipeline.close()


@dataclass
class Served:
    url: str
    database: str
    passwords: dict[str, str]  # printed at start-up; empty when every user already had one
    output: list[str]


@contextmanager
def concierge_serve(database_url: str, *args: str, env: dict[str, str] | None = None) -> Iterator[Served]:
    """`concierge serve` as a user runs it, in a subprocess on a free port of 127.0.0.1 (`env` added to its
    environment)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "CONCIERGE_SECRET": "served-test-secret", **(env or {})}
    process = subprocess.Popen(
        [sys.executable, "-m", "concierge", "serve", "--port", str(port), "--database", database_url, *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )
    with serving_process(process, f"http://127.0.0.1:{port}") as (url, output):
        yield Served(url, database_url, printed_passwords("".join(output)), output)


@contextmanager
def serving_process(process: subprocess.Popen, url: str) -> Iterator[tuple[str, list[str]]]:
    """A started `concierge serve` process, once it answers at `url`: (url, its output so far and on);
    stopped when the block ends."""
    output: list[str] = []
    reader = threading.Thread(target=lambda: output.extend(process.stdout or ()), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, "concierge serve exited:\n" + "".join(output)
            assert time.monotonic() < deadline, "concierge serve did not start:\n" + "".join(output)
            try:
                if httpx2.get(f"{url}/api/me", timeout=2).status_code == 401:
                    break
            except httpx2.TransportError:
                time.sleep(0.1)
        yield url, output
    finally:
        process.terminate()
        process.wait(timeout=20)
        reader.join(timeout=5)
        if process.stdout is not None:
            process.stdout.close()


def printed_passwords(output: str) -> dict[str, str]:
    """The passwords `db init` or `serve` printed, by user name."""
    return dict(re.findall(r"^  (\w+) +(\S+)$", output, flags=re.M))


def sign_in(client: TestClient, name: str, password: str | None = None) -> TestClient:
    res = client.post("/api/login", json={"name": name, "password": password or PASSWORDS[name]})
    assert res.status_code == 200, res.text
    return client


def events(response) -> list[tuple[str, dict]]:
    """The (event, data) pairs of a server-sent event stream, in order; keep-alive comments skipped."""
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    out = []
    for block in response.text.replace("\r\n", "\n").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":"))
        if "data" in fields:
            out.append((fields.get("event", "message"), json.loads(fields["data"])))
    return out


def farm_sales(pipeline: Pipeline, customer: str) -> list[dict]:
    with pipeline.db.read() as conn:
        rows = conn.execute(sa.select(farm_tables.farm_sales).where(farm_tables.farm_sales.c.customer_code == customer))
        return [dict(r) for r in rows.mappings()]
