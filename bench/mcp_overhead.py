"""What MCP costs around a tool call: concierge beside a trivial server on the same SDK, taking turns.

    .venv/bin/python bench/mcp_overhead.py [--rounds 10] [--block 50] [--clients 1 4 16] [--per-process 10]
    .venv/bin/python bench/mcp_overhead.py --baseline ../main/src     # another tree's concierge beside this one

On a fresh demo SQLite file in a temporary folder, every server is started once and kept:

- the floors: a trivial server on the same SDK (the low-level `Server`, one tool that answers "ok",
  no database) on the SDK's own stdio and streamable HTTP transports;
- concierge: `concierge mcp` over stdio, and `concierge mcp --transport http` with a bearer token
  (checked on every request, as deployed);
- with `--baseline SRC`: the same two concierge servers run from the sources in SRC (PYTHONPATH),
  so that a change is measured against the code before it in the same minutes.

The contenders take turns in blocks of `--block` calls, `--rounds` times, each round in another
order, so that all of them see the same load; the load average (1 min) is read at every block
and printed beside each figure (its range over the contender's blocks). Per call: the SDK's own
client, get_sales of customer 0009 for one week through the whole pipeline (guard, access, SQL,
shaping, and the audit line it writes), timed from send to answer. Over stdio one client calls
one server at a time; over HTTP `--clients` N clients (sessions of their own) call at once, for
each N. Also printed: `Pipeline.invoke` in this process with no MCP (the tool's own work, taking
its turn like the servers), and a new `concierge mcp` process per message (the pattern concierge
replaces: start, open the session, one call, end; `--per-process` messages, after the rest).

Printed: p50 and p95 in milliseconds, and the ratios to the floor of the same transport
(targets: stdio within 1.3x, HTTP within 1.5x at each N; a process per message at least 100x
a persistent stdio call).
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
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
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
THIS = "concierge"


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


@dataclass
class Contender:
    """One server (or the pipeline in process) and what its turns measured."""

    name: str
    clients: list[Client]
    tool: str
    args: dict
    ms: list[float] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)

    async def block(self, calls: int) -> None:
        """`calls` calls from each client, the clients at once; the time of each call."""
        self.loads.append(os.getloadavg()[0])

        async def one(client: Client) -> None:
            for _ in range(calls):
                started = time.perf_counter()
                result = await client.call_tool(self.tool, self.args)
                self.ms.append((time.perf_counter() - started) * 1000)
                if result.is_error:
                    raise SystemExit(f"{self.name}: {self.tool} failed: {result.content}")

        async with anyio.create_task_group() as group:
            for client in self.clients:
                group.start_soon(one, client)

    def row(self, floor: Contender | None, target: float | None, width: int) -> str:
        ours = floor is not None and self.name.startswith(THIS)
        ratio = f"{p(self.ms, 50) / p(floor.ms, 50):6.2f}x" if ours else ""
        goal = f" (target <= {target}x)" if ours and target else ""
        return (f"  {self.name:{width}}{p(self.ms, 50):>8.2f}{p(self.ms, 95):>8.2f}"
                f"   load {min(self.loads):4.1f}-{max(self.loads):<4.1f}{ratio:>9}{goal}")


class InProcess(Contender):
    """`Pipeline.invoke` called directly: the tool's own work, audit line included, with no MCP at all."""

    def __init__(self, database: str):
        super().__init__("pipeline in process, no MCP", [], TOOL, ARGS)
        self.pipeline = open_pipeline(["farm"], database)
        self.admin = self.pipeline.user("admin")

    async def block(self, calls: int) -> None:
        self.loads.append(os.getloadavg()[0])
        for _ in range(calls):
            started = time.perf_counter()
            self.pipeline.invoke(TOOL, ARGS, self.admin)
            self.ms.append((time.perf_counter() - started) * 1000)


async def take_turns(contenders: list[Contender], rounds: int, calls: int) -> None:
    for contender in contenders:  # warm: connections, caches, the client's compiled output schema
        await contender.block(max(WARMUP // max(len(contender.clients), 1), 1))
        contender.ms.clear()
        contender.loads.clear()
    for n in range(rounds):
        shift = n % len(contenders)
        for contender in contenders[shift:] + contenders[:shift]:
            await contender.block(calls)


def p(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def env_for(src: str | None, database: str) -> dict[str, str]:
    env = {**os.environ, "CONCIERGE_DATABASE": database}
    if src is not None:
        env["PYTHONPATH"] = src
    return env


def stdio_params(src: str | None, database: str) -> StdioServerParameters:
    command = [sys.executable, "-m", "concierge"] if src else server_command()
    return StdioServerParameters(command=command[0], args=[*command[1:], "mcp", "--catalog", "farm"],
                                 env=env_for(src, database))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def http_server(stack: AsyncExitStack, command: list[str], env: dict[str, str], log: Path) -> str:
    """Starts an HTTP server on a free port (stopped by `stack`); its /mcp URL once it listens."""
    port = free_port()
    out = stack.enter_context(log.open("wb"))
    server = subprocess.Popen([*command, "--port", str(port)], stdout=out, stderr=out, env=env)
    stack.callback(server.wait)
    stack.callback(server.terminate)
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return f"http://127.0.0.1:{port}/mcp"
        except OSError:
            if server.poll() is not None:
                raise SystemExit(f"an HTTP server exited; see {log}") from None
            await anyio.sleep(0.1)


async def http_clients(stack: AsyncExitStack, url: str, token: str | None, n: int) -> list[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    clients = []
    for _ in range(n):
        http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=30))
        clients.append(await stack.enter_async_context(Client(streamable_http_client(url, http_client=http))))
    return clients


async def process_per_message(database: str, messages: int) -> list[float]:
    wall = []
    for _ in range(messages):
        started = time.perf_counter()
        async with Client(stdio_params(None, database)) as client:
            result = await client.call_tool(TOOL, ARGS)
        wall.append((time.perf_counter() - started) * 1000)
        if result.is_error:
            raise SystemExit(f"{TOOL} failed: {result.content}")
    return wall


def print_table(title: str, contenders: list[Contender], target: float | None) -> None:
    width = max(len(c.name) for c in contenders) + 2
    print(f"{title}\n  {'':{width}}{'p50 ms':>8}{'p95 ms':>8}   {'load avg (1 min)':17}{'/ floor':>8}")
    floor = next((c for c in contenders if c.name.startswith("trivial")), None)
    for contender in contenders:
        print(contender.row(floor, target, width), flush=True)
    ours = [c for c in contenders if c.name.startswith(THIS)]
    if len(ours) == 2:
        print(f"  {ours[0].name} / {ours[1].name} (p50): {p(ours[0].ms, 50) / p(ours[1].ms, 50):.2f}x")


async def main(options: argparse.Namespace) -> None:
    me = [sys.executable, __file__, "--trivial-server"]
    sources: list[tuple[str, str | None]] = [(THIS, None)]
    if options.baseline:
        sources.append((f"{THIS} ({options.baseline})", str(Path(options.baseline).resolve())))
    with tempfile.TemporaryDirectory(prefix="concierge-mcp-bench-") as tmp:
        folder = Path(tmp)
        database = f"sqlite:///{folder / 'bench.db'}"
        seed = open_pipeline(["farm"], database)
        try:
            token = tokens.create(seed.db, "admin", label="bench")
        finally:
            seed.close()
        print(f"MCP overhead: blocks of {options.block} calls per client, {options.rounds} rounds, the contenders "
              f"taking turns; mcp {version('mcp')}, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
        stdio_ours: Contender
        async with AsyncExitStack() as stack:
            in_process = InProcess(database)
            stack.callback(in_process.pipeline.close)
            trivial = Contender("trivial server, stdio (the floor)",
                                [await stack.enter_async_context(Client(StdioServerParameters(
                                    command=me[0], args=me[1:])))], "echo", {})
            ours = [Contender(f"{name}, stdio", [await stack.enter_async_context(
                Client(stdio_params(src, database)))], TOOL, ARGS) for name, src in sources]
            stdio = [in_process, trivial, *ours]
            await take_turns(stdio, options.rounds, options.block)
            print_table("persistent stdio, one client:", stdio, 1.3)
            stdio_ours = ours[0]
        for n in options.clients:
            async with AsyncExitStack() as stack:
                floor_url = await http_server(stack, me, dict(os.environ), folder / "trivial.log")
                http = [Contender("trivial server, HTTP (the floor)", await http_clients(stack, floor_url, None, n),
                                  "echo", {})]
                for i, (name, src) in enumerate(sources):
                    command = ([sys.executable, "-m", "concierge"] if src else server_command()) + [
                        "mcp", "--catalog", "farm", "--database", database, "--transport", "http"]
                    url = await http_server(stack, command, env_for(src, database), folder / f"http-{i}.log")
                    http.append(Contender(f"{name}, HTTP", await http_clients(stack, url, token, n), TOOL, ARGS))
                await take_turns(http, options.rounds, max(options.block // n, 1))
                print_table(f"persistent HTTP, {n} client{'s' if n > 1 else ''} at once:", http, 1.5)
        if options.per_process:
            spawn = await process_per_message(database, options.per_process)
            ratio = p(spawn, 50) / p(stdio_ours.ms, 50)
            print(f"process per message (n={options.per_process}): p50 {p(spawn, 50):.0f} ms, {ratio:.0f}x a "
                  f"persistent stdio call (target >= 100x), load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--trivial-server"]:  # run by the benchmark itself, with --port for HTTP
        anyio.run(serve_trivial, int(sys.argv[3]) if sys.argv[2:3] == ["--port"] else None)
        raise SystemExit(0)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10, help="turns of each contender")
    parser.add_argument("--block", type=int, default=50, help="calls per turn (over HTTP: shared by the clients)")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 4, 16], help="HTTP clients at once")
    parser.add_argument("--per-process", type=int, default=10, help="messages with a process each (0: none)")
    parser.add_argument("--baseline", metavar="SRC", help="also run concierge from the sources in SRC")
    anyio.run(main, parser.parse_args())
