"""Helpers of the MCP tests: demo databases with API tokens, and real servers in subprocesses.

The subprocesses are the installed `concierge mcp` command, over stdio or
serving HTTP on 127.0.0.1 at a free port; one HTTP server serves a whole
test module. The interop clients come from tests/mcp/interop/node_modules
(`npm ci --prefix tests/mcp/interop`, which `.ci/run` does); when they are
missing the tests that need them fail, they never skip.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest
from demo_databases import with_demos
from mcp import StdioServerParameters

from concierge.demo.bootstrap import open_pipeline
from concierge.mcp.config import server_command
from concierge.storage import tokens

INTEROP = Path(__file__).resolve().parents[1] / "mcp" / "interop"
ALL_CATALOGS = ["--catalog", "farm", "--catalog", "pos"]
USERS = ("admin", "tanaka", "suzuki", "pos_analyst")


def node_installed(relative: str) -> Path:
    path = INTEROP / "node_modules" / relative
    if not path.exists():
        pytest.fail(f"{path} is missing: run npm ci --prefix tests/mcp/interop")
    return path


def node_bin(name: str) -> Path:
    return node_installed(f".bin/{name}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def demo_database(folder: Path) -> str:
    """A SQLite file with both demos and the demo users."""
    return with_demos(f"sqlite:///{folder / 'mcp.db'}", "farm", "pos")


def stdio_params(database: str, *args: str) -> StdioServerParameters:
    command = server_command()
    return StdioServerParameters(command=command[0], args=[*command[1:], "mcp", *ALL_CATALOGS, *args],
                                 env={**os.environ, "CONCIERGE_DATABASE": database})


@dataclass
class HttpServer:
    url: str
    port: int
    database: str
    tokens: dict[str, str]
    process: subprocess.Popen
    log: Path

    def client(self, user: str | None) -> httpx2.AsyncClient:
        headers = {"Authorization": f"Bearer {self.tokens[user]}"} if user else {}
        return httpx2.AsyncClient(headers=headers, timeout=30)

    def alive(self) -> bool:
        return self.process.poll() is None


def start_http(folder: Path, *args: str) -> HttpServer:
    database = demo_database(folder)
    db = open_pipeline(["farm"], database)
    try:
        made = {user: tokens.create(db.db, user, label="tests") for user in USERS}
    finally:
        db.close()
    port = free_port()
    log = folder / "server.log"
    command = [*server_command(), "mcp", *ALL_CATALOGS, "--database", database, "--transport", "http",
               "--port", str(port), *args]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    server = HttpServer(f"http://127.0.0.1:{port}/mcp", port, database, made, process, log)
    try:
        wait_listening(port, process, log)
    except BaseException:
        stop(server)
        raise
    return server


def wait_listening(port: int, process: subprocess.Popen, log: Path) -> None:
    """Until the server started as `process` listens on `port`; fails the test, with its log, if it never does."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the MCP HTTP server exited:\n{log.read_text()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"the MCP HTTP server did not listen within 60 s:\n{log.read_text()}")


def stop(server: HttpServer) -> None:
    server.process.send_signal(signal.SIGINT)
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()


class RawStdio:
    """`concierge mcp` over stdio, spoken to line by line, as a host would."""

    def __init__(self, database: str, *args: str, stderr: Path):
        command = [*server_command(), *args, "mcp", *ALL_CATALOGS, "--database", database]
        self._stderr = stderr.open("wb")
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr)
        self.stdout_lines: list[bytes] = []

    def send(self, message: dict | bytes) -> None:
        data = message if isinstance(message, bytes) else json.dumps(message, ensure_ascii=False).encode()
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def reply(self) -> dict:
        line = self.process.stdout.readline()
        self.stdout_lines.append(line)
        return json.loads(line)

    def initialize(self) -> dict:
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                   "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "raw", "version": "1"}}})
        answer = self.reply()
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def call(self, request_id: int, tool: str, arguments: dict) -> dict:
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                   "params": {"name": tool, "arguments": arguments}})
        return self.reply()

    def close(self) -> bytes:
        """Ends the session (stdin closed) and returns what else the server wrote to stdout."""
        rest, _ = self.process.communicate(timeout=30)
        self._stderr.close()
        return rest
