"""MCP over stdin/stdout: one JSON-RPC message per line, and nothing else on stdout.

The SDK's stdio transport drops a line it cannot parse without answering and
reads a line of any length into memory. This one answers every bad frame and
keeps serving: a line that is not JSON gets a parse error, JSON that is not a
JSON-RPC message gets an invalid-request error (with its id when one can be
read), and a line longer than `MAX_FRAME_BYTES` is skipped unread, answered
with an invalid-request error.

While it serves, file descriptor 1 points at stderr, so a stray print from any
library lands in the log instead of corrupting the protocol, and descriptor 0
at the null device.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any, BinaryIO

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from concierge.mcp import pipes

MAX_FRAME_BYTES = 1 << 20


async def serve(server: Server[Any], *, max_frame_bytes: int = MAX_FRAME_BYTES) -> None:
    """Serve `server` on this process's stdin/stdout until stdin closes."""
    with _claimed_std_streams() as (wire_in, wire_out):
        async with frame_streams(wire_in, wire_out, max_frame_bytes=max_frame_bytes) as (read, write):
            await server.run(read, write, server.create_initialization_options())


@contextmanager
def _claimed_std_streams() -> Iterator[tuple[BinaryIO, BinaryIO]]:
    sys.stdout.flush()
    wire_in = os.fdopen(os.dup(0), "rb")
    wire_out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    try:
        yield wire_in, wire_out
    finally:
        sys.stdout.flush()
        os.dup2(wire_in.fileno(), 0)
        os.dup2(wire_out.fileno(), 1)
        wire_out.close()  # wire_in stays open: a worker thread may still be blocked reading it (`pipes`)


@asynccontextmanager
async def frame_streams(
    wire_in: BinaryIO, wire_out: BinaryIO, *, max_frame_bytes: int = MAX_FRAME_BYTES
) -> AsyncIterator[tuple[Any, Any]]:
    """The (read, write) stream pair `Server.run` takes, over newline-delimited binary files."""
    to_server, server_reads = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    server_writes, to_wire = anyio.create_memory_object_stream[SessionMessage](0)
    replies = server_writes.clone()

    async def read_loop(next_frame: Callable[[], Awaitable[pipes.Frame]]) -> None:
        async with to_server, replies:
            while True:
                frame = await next_frame()
                if frame is None:
                    return
                if frame is pipes.TOO_LONG:
                    await replies.send(_error(None, types.INVALID_REQUEST,
                                              f"Invalid request: message longer than {max_frame_bytes} bytes"))
                    continue
                if not frame.strip():
                    continue
                try:
                    message = types.jsonrpc_message_adapter.validate_json(frame, by_name=False)
                except ValidationError:
                    await replies.send(_rejection(frame))
                    continue
                await to_server.send(SessionMessage(message))

    async def write_loop(write: Callable[[bytes], Awaitable[None]]) -> None:
        async with to_wire:
            async for item in to_wire:
                await write(item.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n")

    async with pipes.frames(wire_in, max_frame_bytes) as next_frame, pipes.writer(wire_out) as write, \
            anyio.create_task_group() as tg:
        tg.start_soon(read_loop, next_frame)
        tg.start_soon(write_loop, write)
        yield server_reads, server_writes


def _rejection(frame: bytes) -> SessionMessage:
    try:
        data = json.loads(frame)
    except ValueError:
        return _error(None, types.PARSE_ERROR, "Parse error: the message is not valid JSON")
    request_id = data.get("id") if isinstance(data, dict) else None
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        request_id = None
    return _error(request_id, types.INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message")


def _error(request_id: str | int | None, code: int, message: str) -> SessionMessage:
    error = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))
    return SessionMessage(error)
