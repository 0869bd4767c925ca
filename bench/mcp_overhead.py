"""What MCP costs around a tool call: one long-lived server, against a new server process per message.

    .venv/bin/python bench/mcp_overhead.py [--calls 1000] [--per-process 10]

On a fresh demo SQLite file in a temporary folder, one client (the SDK's own)
makes sequential tools/call requests and times each from send to answer:

- pipeline in process: `Pipeline.invoke` called directly, no MCP (the tool's own work);
- the floors: a trivial server on the same SDK (the low-level `Server`, one tool that
  answers "ok", no database) on the SDK's own stdio and streamable HTTP transports;
- concierge, persistent stdio: `concierge mcp` started once, every call over one session;
- concierge, persistent HTTP: `concierge mcp --transport http` with a bearer token, one session;
- process per message, the pattern concierge replaces: for each message a new
  `concierge mcp` process is started, the session opened, one call made, the process ended
  (on a smaller count).

The call is get_sales of customer 0009 for one week, through the whole pipeline
(guard, access, SQL, shaping, and the audit line it writes). Printed: p50 and
p95 in milliseconds, the pipeline's share as results report it (`ms`, the audit
line not included), and the ratios: persistent stdio against the trivial server
(target: within 1.5x), the same less the pipeline's own work (what MCP itself
costs), HTTP against its floor, and a process per message against persistent
stdio (target: at least 100x).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from importlib.metadata import version
from pathlib import Path

import anyio
import httpx2
import mcp_types as types
import uvicorn
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server
from mcp.server.stdio import stdio_server

from concierge.demo.bootstrap import open_pipeline
from concierge.mcp.config import server_command
from concierge.storage import tokens

TOOL = "get_sales"
ARGS = {"code_customer": "0009", "date_sales_begin_str": "2025-05-05", "date_sales_end_str": "2025-05-11"}
WARMUP = 20


def trivial_server() -> Server:
    async def list_tools(_ctx, _params) -> types.ListToolsResult:
        schema = {"type": "object", "properties": {}, "additionalProperties": False}
        return types.ListToolsResult(tools=[types.Tool(name="echo", description="answers ok", input_schema=schema)])

    async def call_tool(_ctx, _params) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text="ok")])

    return Server("trivial", on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_trivial(port: int | None) -> None:
    """The floor uses the SDK's own transports, so nothing of ours is in it."""
    server = trivial_server()
    if port is None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
        return
    app = server.streamable_http_app(json_response=True)  # as concierge answers
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    await uvicorn.Server(config).serve()


async def timed(client: Client, tool: str, args: dict, calls: int) -> tuple[list[float], list[float]]:
    """Milliseconds per call, and the pipeline's own milliseconds where the result reports them."""
    for _ in range(WARMUP):
        await client.call_tool(tool, args)
    wall, inside = [], []
    for _ in range(calls):
        started = time.perf_counter()
        result = await client.call_tool(tool, args)
        wall.append((time.perf_counter() - started) * 1000)
        if result.is_error:
            raise SystemExit(f"{tool} failed: {result.content}")
        if result.structured_content:
            inside.append(result.structured_content["ms"])
    return wall, inside


def concierge_stdio(database: str) -> StdioServerParameters:
    command = server_command()
    return StdioServerParameters(command=command[0], args=[*command[1:], "mcp", "--catalog", "farm"],
                                 env={**os.environ, "CONCIERGE_DATABASE": database})


async def persistent_stdio(database: str, calls: int):
    async with Client(concierge_stdio(database)) as client:
        return await timed(client, TOOL, ARGS, calls)


async def trivial_stdio(calls: int):
    me = StdioServerParameters(command=sys.executable, args=[__file__, "--trivial-server"])
    async with Client(me) as client:
        return await timed(client, "echo", {}, calls)


def in_process(database: str, calls: int):
    """`Pipeline.invoke` called directly: the tool's own work, audit line included, with no MCP at all."""
    pipeline = open_pipeline(["farm"], database)
    try:
        admin = pipeline.user("admin")
        wall = []
        for n in range(WARMUP + calls):
            started = time.perf_counter()
            pipeline.invoke(TOOL, ARGS, admin)
            if n >= WARMUP:
                wall.append((time.perf_counter() - started) * 1000)
        return wall, []
    finally:
        pipeline.close()


async def over_http(command: list[str], folder: Path, calls: int, tool: str, args: dict, token: str | None):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = (folder / "http.log").open("wb")
    server = subprocess.Popen([*command, "--port", str(port)], stdout=log, stderr=log)
    try:
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if server.poll() is not None:
                    raise SystemExit(f"the HTTP server exited; see {folder / 'http.log'}") from None
                await anyio.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http, \
                Client(streamable_http_client(url, http_client=http)) as client:
            return await timed(client, tool, args, calls)
    finally:
        server.terminate()
        server.wait()
        log.close()


async def trivial_http(folder: Path, calls: int):
    return await over_http([sys.executable, __file__, "--trivial-server"], folder, calls, "echo", {}, None)


async def persistent_http(database: str, folder: Path, calls: int):
    db = open_pipeline(["farm"], database)
    try:
        token = tokens.create(db.db, "admin", label="bench")
    finally:
        db.close()
    command = [*server_command(), "mcp", "--catalog", "farm", "--database", database, "--transport", "http"]
    return await over_http(command, folder, calls, TOOL, ARGS, token)


async def process_per_message(database: str, messages: int):
    wall = []
    for _ in range(messages):
        started = time.perf_counter()
        async with Client(concierge_stdio(database)) as client:
            result = await client.call_tool(TOOL, ARGS)
        wall.append((time.perf_counter() - started) * 1000)
        if result.is_error:
            raise SystemExit(f"{TOOL} failed: {result.content}")
    return wall, []


def p(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


async def main(calls: int, per_process: int) -> None:
    with tempfile.TemporaryDirectory(prefix="concierge-mcp-bench-") as tmp:
        folder = Path(tmp)
        database = f"sqlite:///{folder / 'bench.db'}"
        open_pipeline(["farm"], database).close()
        runs: list[tuple[str, Callable[[], Awaitable]]] = [
            ("pipeline in process, no MCP", lambda: anyio.to_thread.run_sync(in_process, database, calls)),
            ("trivial server, stdio (the floor)", lambda: trivial_stdio(calls)),
            ("concierge, persistent stdio", lambda: persistent_stdio(database, calls)),
            ("trivial server, HTTP (the floor)", lambda: trivial_http(folder, calls)),
            ("concierge, persistent HTTP", lambda: persistent_http(database, folder, calls)),
            (f"concierge, process per message (n={per_process})", lambda: process_per_message(database, per_process)),
        ]
        print(f"MCP overhead: {calls} sequential tools/call per persistent server; mcp {version('mcp')}, "
              f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
        print(f"{'':48}{'p50 ms':>10}{'p95 ms':>10}{'pipeline p50':>14}")
        p50 = {}
        for name, run in runs:
            wall, inside = await run()
            p50[name] = p(wall, 50)
            share = f"{p(inside, 50):>11.2f} ms" if inside else ""
            print(f"{name:48}{p50[name]:>10.2f}{p(wall, 95):>10.2f}{share:>14}", flush=True)
        tool, floor, ours, http_floor, http, spawn = (p50[name] for name, _ in runs)
        print(f"persistent stdio / trivial stdio (p50):                    {ours / floor:6.2f}x   (target <= 1.5x)")
        print(f"persistent stdio less the pipeline's own work / trivial:   {(ours - tool) / floor:6.2f}x")
        print(f"persistent HTTP / trivial HTTP (p50):                      {http / http_floor:6.2f}x")
        print(f"process per message / persistent stdio (p50):              {spawn / ours:6.0f}x   (target >= 100x)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--trivial-server"]:  # run by the benchmark itself, with --port for HTTP
        anyio.run(serve_trivial, int(sys.argv[3]) if sys.argv[2:3] == ["--port"] else None)
        raise SystemExit(0)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--per-process", type=int, default=10)
    options = parser.parse_args()
    anyio.run(main, options.calls, options.per_process)
