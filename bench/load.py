"""Load: concurrent chat users over HTTP and concurrent MCP clients, against one `concierge serve`.

    .venv/bin/python bench/load.py [--users 8] [--turns 100] [--mcp-clients 4] [--calls 200] [--duration 300]
    .venv/bin/python bench/load.py --replicas 2 [--pg-url postgresql://postgres@127.0.0.1:5432/postgres]

Starts `concierge serve` as a subprocess, as a user runs it: the offline planner, a fresh
embedded SQLite demo database in a temporary folder, both demo catalogs on their own clocks
(farm 2025-05-15, pos 2026-08-31, the clocks of the eval cases), on a free port of 127.0.0.1.
With `--replicas N`: N such processes on one fresh PostgreSQL database (created on --pg-url's
server, dropped at the end) behind nginx (round-robin, in the foreground from a config in the
temporary folder), as docs/deploy.md describes; every client goes through nginx.
Then, each phase timed from the moment every client is ready:

- chat: N users sign in (accounts of their own, load-1 .. load-N with the admin role) and each
  sends K chat requests, reading every event stream to its end. The questions are the eval cases' turns (their own
  conversations, in order); a write that asks for a yes is confirmed, as the eval runner does,
  and the confirmation is one of the K requests;
- MCP: M clients of the official SDK, with a bearer token from `concierge token create`, each
  make K tools/call requests to /mcp: the read calls the eval cases expect (writes are left to
  the chat phase, where a person confirms them);
- both at once.

Printed per phase: requests per second, p50/p95/max latency, the CPU the server and this client
used per request, and every error (a failed request, an `error` event, a stream without its
answer, an MCP result with isError); exits 1 after any. The servers (and nginx) are always terminated.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import httpx2
import sqlalchemy as sa
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[1]
CASE_FILES = (ROOT / "tests" / "planner" / "dev_cases.jsonl", ROOT / "tests" / "planner" / "cases.jsonl")
USER = "admin"  # the eval cases' user: may call every tool, so no request is refused for permissions
ROLE = "admin"  # ... and its role, which each chat user gets: a user may have only two turns in progress at once
REQUEST_TIMEOUT_S = 30
GIVE_UP = 3  # failed requests in a row after which a client stops (the server has gone, say)
TICKS = os.sysconf("SC_CLK_TCK")
SIGN_IN = anyio.Lock()  # untimed: before the phase starts
DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/postgres"
NGINX = """\
{user}
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {folder}/client_body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    upstream concierge {{
{servers}
        keepalive 32;
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://concierge;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_buffering off;
            proxy_read_timeout 300s;
        }}
    }}
}}
"""


@dataclass
class Phase:
    """What one kind of client did in one phase."""

    name: str
    clients: int
    ms: list[float] = field(default_factory=list)
    agent_ms: list[float] = field(default_factory=list)  # chat: the turn's own time, as the server reports it
    errors: list[str] = field(default_factory=list)
    planned: int = 0
    wall_s: float = 0.0


@dataclass
class Server:
    url: str
    process: subprocess.Popen
    log: Path

    def cpu_s(self) -> float:
        """CPU seconds (user + system, all threads) the server has used so far."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS


@dataclass
class Deployment:
    """What the clients talk to: one server, or several behind nginx."""

    url: str
    servers: list[Server]
    what: str
    proxy: subprocess.Popen | None = None

    def cpu_s(self) -> float:
        """CPU seconds of every concierge process together (nginx not counted)."""
        return sum(s.cpu_s() for s in self.servers)

    def exited(self) -> Server | None:
        return next((s for s in self.servers if s.process.poll() is not None), None)


# --- the questions and the calls -------------------------------------------------------------
def load_cases() -> tuple[Path, list[dict]]:
    path = next(p for p in CASE_FILES if p.exists())
    return path, [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def expected_calls(cases: list[dict]) -> list[tuple[str, dict]]:
    calls = []
    for case in cases:
        for turn in case["turns"]:
            listed = turn.get("calls", (turn.get("calls_any") or [[]])[0])
            calls += [(c["tool"], c["args"]) for c in listed]
    return calls


# --- the server ------------------------------------------------------------------------------
def concierge(*args: str, env: dict, stdin: str | None = None) -> str:
    done = subprocess.run([sys.executable, "-m", "concierge", *args], input=stdin, capture_output=True,
                          text=True, env=env, timeout=120)
    if done.returncode != 0:
        raise SystemExit(f"concierge {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def serve_command(port: int) -> list[str]:
    return [sys.executable, "-m", "concierge", "serve", "--host", "127.0.0.1", "--port", str(port)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(folder: Path, env: dict, name: str = "serve") -> Server:
    port = free_port()
    log = folder / f"{name}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(serve_command(port), stdout=out, stderr=subprocess.STDOUT, env=env)
    server = Server(f"http://127.0.0.1:{port}", process, log)
    deadline = time.monotonic() + 60
    while True:
        if process.poll() is not None or time.monotonic() > deadline:
            stop_server(server)
            raise SystemExit(f"concierge serve did not start:\n{log.read_text(errors='replace')}")
        try:
            if httpx2.get(f"{server.url}/api/me", timeout=2).status_code == 401:
                return server
        except httpx2.TransportError:
            time.sleep(0.1)


def stop_server(server: Server) -> None:
    stop(server.process)


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def start_nginx(folder: Path, servers: list[Server]) -> tuple[str, subprocess.Popen]:
    """nginx in the foreground, round-robin over `servers`; its URL and process."""
    binary = shutil.which("nginx") or shutil.which("/usr/sbin/nginx")
    if binary is None:
        raise SystemExit("--replicas needs nginx: apt-get install -y nginx (bash .ci/run does, as root)")
    port = free_port()
    conf = folder / "nginx.conf"
    conf.write_text(NGINX.format(
        user="user root;" if os.geteuid() == 0 else "",  # root's workers would be `nobody`, kept out of the folder
        folder=folder, port=port,
        servers="\n".join(f"        server {s.url.removeprefix('http://')} max_fails=0;" for s in servers)))
    command = [binary, "-p", str(folder), "-e", str(folder / "nginx-error.log"), "-c", str(conf), "-g", "daemon off;"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None or time.monotonic() > deadline:
            stop(process)
            log = folder / "nginx-error.log"
            raise SystemExit(f"nginx did not start:\n{log.read_text(errors='replace') if log.exists() else ''}")
        try:
            httpx2.get(f"{url}/api/me", timeout=2)
            return url, process
        except httpx2.TransportError:
            time.sleep(0.05)


def postgres_database(server: str) -> str:
    """A new, empty database on the PostgreSQL `server`; its URL."""
    url = sa.engine.make_url(server).set(drivername="postgresql+psycopg")
    name = f"concierge_load_{secrets.token_hex(5)}"
    engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    finally:
        engine.dispose()
    return url.set(database=name).render_as_string(hide_password=False)


def drop_database(database: str) -> None:
    url = sa.engine.make_url(database)
    engine = sa.create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{url.database}" WITH (FORCE)'))
    finally:
        engine.dispose()


# --- the clients ------------------------------------------------------------------------------
async def read_stream(http: httpx2.AsyncClient, path: str, body: dict | None) -> dict:
    """POST, read the event stream to its end; the answer's turn, or raise with what went wrong."""
    async with http.stream("POST", path, json=body) as response:
        if response.status_code != 200:
            await response.aread()
            raise RuntimeError(f"HTTP {response.status_code}: {response.text[:200]}")
        event, answer = "message", None
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data = json.loads(line[5:])
                if event == "error":
                    raise RuntimeError(f"error event: {data.get('message')}")
                if event == "answer":
                    answer = data["turn"]
    if answer is None:
        raise RuntimeError("the stream ended without an answer")
    return answer


def chat_user_name(n: int) -> str:
    return f"load-{n + 1}"


async def chat_user(n: int, url: str, password: str, dialogs: list[list[str]], turns: int,
                    ready: Callable[[], Awaitable[None]], deadline: float, phase: Phase) -> None:
    async with httpx2.AsyncClient(base_url=url, timeout=REQUEST_TIMEOUT_S) as http:
        async with SIGN_IN:  # one at a time: the sign-in throttle counts parallel attempts of one account as guesses
            signed_in = await http.post("/api/login", json={"name": chat_user_name(n), "password": password})
        await ready()
        if signed_in.status_code != 200:
            phase.errors.append(f"sign-in: HTTP {signed_in.status_code}")
            return
        done, dialog, failing = 0, n, 0  # users start at different conversations
        while done < turns and time.perf_counter() < deadline and failing < GIVE_UP:
            session = None
            for text in dialogs[dialog % len(dialogs)]:
                if done >= turns or time.perf_counter() >= deadline:
                    break
                turn = await timed_turn(http, "/api/chat", {"text": text, "session_id": session}, text, phase)
                done, failing = done + 1, 0 if turn else failing + 1
                if turn is None:
                    break
                session = turn["session_id"]
                if turn.get("pending") and done < turns:
                    yes = await timed_turn(http, f"/api/sessions/{session}/confirm", None, f"yes to: {text}", phase)
                    done, failing = done + 1, 0 if yes else failing + 1
            dialog += 1
        if failing >= GIVE_UP:
            phase.errors.append(f"chat user {n} stopped: {GIVE_UP} requests in a row failed")


async def timed_turn(http: httpx2.AsyncClient, path: str, body: dict | None, what: str, phase: Phase) -> dict | None:
    started = time.perf_counter()
    try:
        turn = await read_stream(http, path, body)
    except Exception as err:  # every failure is counted and printed, none stops the run
        phase.errors.append(f"chat {what!r}: {describe(err)}")
        return None
    phase.ms.append((time.perf_counter() - started) * 1000)
    phase.agent_ms.append(turn["timings"]["total_ms"])
    return turn


async def mcp_client(n: int, url: str, token: str, calls: list[tuple[str, dict]], count: int,
                     ready: Callable[[], Awaitable[None]], deadline: float, phase: Phase) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=REQUEST_TIMEOUT_S) as http, \
            Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
        await ready()
        failing = 0
        for i in range(count):
            if time.perf_counter() >= deadline:
                return
            if failing >= GIVE_UP:
                phase.errors.append(f"MCP client {n} stopped: {GIVE_UP} requests in a row failed")
                return
            name, args = calls[(n + i) % len(calls)]
            started = time.perf_counter()
            try:
                result = await client.call_tool(name, args)
            except Exception as err:
                phase.errors.append(f"mcp {name} {args}: {describe(err)}")
                failing += 1
                continue
            failing = 0
            phase.ms.append((time.perf_counter() - started) * 1000)
            if result.is_error:
                text = result.content[0].text if result.content else ""
                phase.errors.append(f"mcp {name} {args}: isError: {text[:200]}")


async def read_calls(url: str, token: str, cases: list[dict]) -> list[tuple[str, dict]]:
    """The cases' expected calls of the tools the server marks read-only."""
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=REQUEST_TIMEOUT_S) as http, \
            Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
        tools = (await client.list_tools()).tools
    reads = {t.name for t in tools if t.annotations and t.annotations.read_only_hint}
    return [(name, args) for name, args in expected_calls(cases) if name in reads]


def describe(err: BaseException) -> str:
    while isinstance(err, BaseExceptionGroup) and err.exceptions:  # the SDK's task groups wrap the cause
        err = err.exceptions[0]
    return f"{type(err).__name__}: {err}" if str(err) else type(err).__name__


# --- one phase ----------------------------------------------------------------------------------
async def run_phase(starters: list[tuple[Phase, Callable]], deadline: float,
                    cpu: Callable[[], float] = lambda: 0.0) -> float:
    """Start every client; time from when all are ready (signed in, initialised) to when the last ends,
    and return how much `cpu` (the server's CPU seconds) grew over that time."""
    waiting = sum(phase.clients for phase, _ in starters)
    go = anyio.Event()

    async def ready() -> None:
        nonlocal waiting
        waiting -= 1
        if waiting == 0:
            go.set()
        await go.wait()

    ended: dict[str, float] = {}
    began, cpu_before = time.perf_counter(), cpu()

    async def client(phase: Phase, start: Callable, n: int) -> None:
        try:
            await start(n, ready)
        except Exception as err:  # a client that could not even connect
            phase.errors.append(f"{phase.name} client {n}: {describe(err)}")
            if not go.is_set():
                await ready()
        ended[phase.name] = time.perf_counter()

    with anyio.move_on_after(max(deadline - time.perf_counter(), 0) + REQUEST_TIMEOUT_S) as scope:
        async with anyio.create_task_group() as group:
            for phase, start in starters:
                for n in range(phase.clients):
                    group.start_soon(client, phase, start, n)
            await go.wait()
            began, cpu_before = time.perf_counter(), cpu()
    if scope.cancelled_caught:
        for phase, _ in starters:
            phase.errors.append(f"{phase.name}: clients still running past the time limit were stopped")
    used = cpu() - cpu_before
    for phase, _ in starters:
        phase.wall_s = ended.get(phase.name, time.perf_counter()) - began
    return used


# --- printing -----------------------------------------------------------------------------------
def pct(values: list[float], q: int) -> float:
    if not values:
        return float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


HEADER = (f"{'phase':12}{'clients':10}{'done':>10}{'per s':>9}{'p50 ms':>8}{'p95 ms':>8}{'max ms':>8}"
          f"{'turn ms':>9}{'errors':>7}{'load':>6}   CPU ms per request (chat alone: per turn; mcp alone: per "
          "call): server / this client")


def report(label: str, phases: list[Phase], server_cpu_s: float, client_cpu_s: float) -> None:
    """One row per kind of client; the CPU columns cover every request of the phase, the load average (1 min)
    is read at its end."""
    requests = sum(len(p.ms) + len(p.errors) for p in phases)
    cpu = f"{server_cpu_s * 1000 / requests:.2f} / {client_cpu_s * 1000 / requests:.2f}" if requests else ""
    load = f"{os.getloadavg()[0]:>6.1f}"
    for i, p in enumerate(phases):
        who, unit = ("users", "turns") if p.name == "chat" else ("MCP", "calls")
        done = len(p.ms)
        cut = f"  (only {done} of {p.planned} done)" if done < p.planned else ""
        turn = f"{pct(p.agent_ms, 50):>9.1f}" if p.agent_ms else f"{'':9}"
        print(f"{label if i == 0 else '':12}{p.clients:>2} {who:7}{done:>4} {unit:5}"
              f"{done / p.wall_s if p.wall_s else 0:>9.1f}{pct(p.ms, 50):>8.1f}{pct(p.ms, 95):>8.1f}"
              f"{max(p.ms, default=float('nan')):>8.1f}{turn}{len(p.errors):>7}{load if i == 0 else '':>6}   "
              f"{cpu if i == 0 else ''}{cut}")
    for p in phases:
        for message, count in Counter(p.errors).items():
            print(f"    ERROR x{count}: {message}")


# --- main ---------------------------------------------------------------------------------------
async def main(options: argparse.Namespace) -> int:
    source, cases = load_cases()
    dialogs = [[turn["say"] for turn in case["turns"]] for case in cases]  # each case is a conversation
    with tempfile.TemporaryDirectory(prefix="concierge-load-") as tmp, ExitStack() as stack:
        folder = Path(tmp)
        database = f"sqlite:///{folder / 'load.db'}"
        if options.replicas:
            database = postgres_database(options.pg_url)
            stack.callback(drop_database, database)
        env = {**os.environ, "CONCIERGE_DATABASE": database,
               "CONCIERGE_SECRET": secrets.token_urlsafe(32), "PYTHONUNBUFFERED": "1"}
        env.pop("CONCIERGE_TODAY", None)  # each demo catalog keeps its own clock
        if options.replicas:
            concierge("db", "init", env=env)  # the demo data and users (the embedded default gets them by itself)
        password = secrets.token_urlsafe(12)
        for n in range(max(options.users, 1)):  # the warm-up's one user is the first
            concierge("user", "add", chat_user_name(n), "--role", ROLE, "--password-stdin", env=env,
                      stdin=password + "\n")
        token = concierge("token", "create", "--user", USER, "--label", "bench/load.py", env=env).strip()
        deployment = deploy(options, folder, env, stack)
        return await measure(options, deployment, password, token, cases, dialogs, source)


def deploy(options: argparse.Namespace, folder: Path, env: dict, stack: ExitStack) -> Deployment:
    """One server reached directly, or `--replicas` servers behind nginx; each is stopped by `stack`."""
    servers = []
    for n in range(max(options.replicas, 1)):
        servers.append(start_server(folder, env, f"serve-{n + 1}"))
        stack.callback(stop_server, servers[-1])
    if not options.replicas:
        return Deployment(servers[0].url, servers, f"concierge serve on {servers[0].url} (fresh demo SQLite)")
    url, proxy = start_nginx(folder, servers)
    stack.callback(stop, proxy)
    shown = sa.engine.make_url(env["CONCIERGE_DATABASE"]).render_as_string(hide_password=True)
    return Deployment(url, servers, f"{len(servers)} x concierge serve ({', '.join(s.url for s in servers)}) "
                      f"behind nginx on {url} (fresh demo PostgreSQL {shown})", proxy)


async def measure(options, deployment: Deployment, password: str, token: str, cases: list[dict],
                  dialogs: list[list[str]], source: Path) -> int:
    url = deployment.url
    calls = await read_calls(url, token, cases) if options.mcp_clients else []
    print(f"load: {deployment.what}, offline planner; "
          f"{sum(map(len, dialogs))} questions in {len(dialogs)} conversations and {len(calls)} read calls "
          f"from {source.relative_to(ROOT.parent) if ROOT.parent in source.parents else source}; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    deadline = time.perf_counter() + options.duration

    def chat(users: int, turns: int) -> tuple[Phase, Callable]:
        phase = Phase("chat", users, planned=users * turns)
        return phase, lambda n, ready: chat_user(n, url, password, dialogs, turns, ready, deadline, phase)

    def mcp(clients: int, count: int) -> tuple[Phase, Callable]:
        phase = Phase("mcp", clients, planned=clients * count)
        return phase, lambda n, ready: mcp_client(n, url, token, calls, count, ready, deadline, phase)

    # Untimed warm-up: every question (and its confirmation) and every call once, by one client each,
    # so that first-call costs (the guard's values read from the data) are not in the figures.
    warm = [chat(1, sum(map(len, dialogs)) + len(dialogs))] + ([mcp(1, len(calls))] if calls else [])
    await run_phase(warm, deadline)
    errors = [e for p, _ in warm for e in p.errors]
    for message in errors:
        print(f"    ERROR (warm-up): {message}")

    print(HEADER)
    plan: list[tuple[str, Callable[[], list[tuple[Phase, Callable]]]]] = []
    if options.users:
        plan.append(("chat", lambda: [chat(options.users, options.turns)]))
    if options.mcp_clients and calls:
        plan.append(("mcp", lambda: [mcp(options.mcp_clients, options.calls)]))
    if options.users and options.mcp_clients and calls:
        plan.append(("chat + mcp",
                     lambda: [chat(options.users, options.turns), mcp(options.mcp_clients, options.calls)]))
    failed = len(errors)
    for label, make in plan:
        if time.perf_counter() >= deadline or deployment.exited():
            print(f"{label:12}not run: " + ("a server has exited" if deployment.exited()
                                            else f"--duration {options.duration:g} s has passed"))
            continue
        starters = make()
        client_before = time.process_time()
        server_cpu = await run_phase(starters, deadline, deployment.cpu_s)
        report(label, [p for p, _ in starters], server_cpu, time.process_time() - client_before)
        failed += sum(len(p.errors) for p, _ in starters)
    gone = deployment.exited()
    if gone is not None:
        print(f"a server exited ({gone.process.returncode}):\n{gone.log.read_text(errors='replace')[-3000:]}")
        failed += 1
    print(f"errors: {failed}")
    return 1 if failed else 0


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=8, help="concurrent chat users (0: no chat phase)")
    parser.add_argument("--turns", type=int, default=100, help="chat requests per user")
    parser.add_argument("--mcp-clients", type=int, default=4, help="concurrent MCP clients (0: no MCP phase)")
    parser.add_argument("--calls", type=int, default=200, help="tools/call requests per MCP client")
    parser.add_argument("--duration", type=float, default=300,
                        help="time limit in seconds for the warm-up and all phases together: no request starts "
                        "after it, and one still running 30 s later is stopped and counted as an error")
    parser.add_argument("--replicas", type=int, default=0,
                        help="N servers on one fresh PostgreSQL database behind nginx (0: one server on SQLite, "
                        "reached directly)")
    parser.add_argument("--pg-url", default=DEFAULT_PG,
                        help="the PostgreSQL server where --replicas creates (and then drops) its database")
    options = parser.parse_args(argv)
    if min(options.users, options.turns, options.mcp_clients, options.calls, options.replicas) < 0 \
            or options.duration <= 0:
        parser.error("counts must be >= 0 and --duration > 0")
    return options


if __name__ == "__main__":
    sys.exit(anyio.run(main, parse()))
