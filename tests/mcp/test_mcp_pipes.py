"""`concierge mcp` over standard streams that are not a pair of pipes of their own (`concierge.mcp.pipes`).

A host gives its server two pipes, which the event loop reads and writes itself; a terminal, a
file or a stdout shared with stderr is served line by line in a worker thread instead, and
answers every request the same way.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import time
import tty

from mcp_servers import ALL_CATALOGS, demo_database

from concierge.mcp.config import server_command
from concierge.mcp.stdio import MAX_FRAME_BYTES

QUESTION = {"code_customer": "0009", "date_sales_begin_str": "2025-05-05", "date_sales_end_str": "2025-05-11"}
REQUESTS = [
    {"jsonrpc": "2.0", "id": 0, "method": "initialize",
     "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_sales", "arguments": QUESTION}},
]
TOO_LONG = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                       "params": {"name": "get_customers", "arguments": {"name_str_customer": "x" * MAX_FRAME_BYTES}}})
LAST = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_sales", "arguments": QUESTION}}


def command(database: str, *args: str) -> list[str]:
    return [*server_command(), *args, "mcp", *ALL_CATALOGS, "--database", database]


def answers(lines: list[bytes]) -> dict:
    """The JSON-RPC answers among `lines`, by id (log lines, when they share the stream, are left out)."""
    found = {}
    for line in lines:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("jsonrpc") == "2.0" and "id" in message:
            found[message["id"]] = message
    return found


def test_a_terminal_for_stdin_and_a_file_for_stdout_are_served_line_by_line(tmp_path):
    database = demo_database(tmp_path)
    master, terminal = pty.openpty()
    tty.setraw(terminal)  # lines as sent, no echo
    written = tmp_path / "answers.jsonl"
    with written.open("wb") as stdout, (tmp_path / "stderr.log").open("wb") as stderr:
        server = subprocess.Popen(command(database), stdin=terminal, stdout=stdout, stderr=stderr)
    os.close(terminal)
    try:
        os.write(master, b"".join(json.dumps(m).encode() + b"\n" for m in [*REQUESTS, LAST]))
        got = wait_for(lambda: answers(written.read_bytes().splitlines()), {0, 1, 3}, server)
    finally:
        server.kill()
        server.wait()
        os.close(master)
    assert got[0]["result"]["serverInfo"]["name"] == "concierge"
    assert got[1]["result"]["structuredContent"]["totals"]["price"] == 1050
    assert got[3]["result"]["structuredContent"]["totals"]["price"] == 1050


def test_a_stdout_shared_with_stderr_carries_every_answer(tmp_path):
    database = demo_database(tmp_path)
    server = subprocess.Popen(command(database, "--verbose"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT)
    server.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in [*REQUESTS, TOO_LONG, LAST]) + b"\n")
    server.stdin.flush()
    lines: list[bytes] = []
    while not {1, 3} <= answers(lines).keys():
        line = server.stdout.readline()
        assert line, b"".join(lines)[-2000:]  # the server ended before answering
        lines.append(line)
    rest, _ = server.communicate(timeout=60)  # stdin closed: the server ends
    got = answers(lines)
    assert server.returncode == 0, rest[-2000:]
    assert got[1]["result"]["structuredContent"]["totals"]["price"] == 1050
    assert got[None]["error"]["code"] == -32600  # the line over the limit, skipped unread
    assert got[3]["result"]["structuredContent"]["totals"]["price"] == 1050
    assert any(b"DEBUG" in line for line in lines)  # the log went to the same pipe


def wait_for(read, ids: set, server: subprocess.Popen, limit_s: float = 60) -> dict:
    """`read()` once it holds an answer for each of `ids` (a bound, not a measure: fails past `limit_s`)."""
    deadline = time.monotonic() + limit_s
    while True:
        got = read()
        if ids <= got.keys():
            return got
        assert server.poll() is None and time.monotonic() < deadline, got
        time.sleep(0.05)
