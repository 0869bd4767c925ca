"""Lines in and out of this process's standard streams, by the event loop where it can.

A pipe or a socket (what an MCP host gives its server) is read and written by the event loop
itself, with no worker thread per message. Anything else (a terminal, a file) is read line by
line and written in a worker thread, as is a stdout that shares its pipe with stderr: the event
loop makes a pipe non-blocking, and a log line written to that stderr must not fail when the
host reads slowly. Pipes are made blocking again when the server ends.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from enum import Enum
from typing import BinaryIO, Final, Literal

import anyio


class _Frame(Enum):
    TOO_LONG = "too long"


TOO_LONG: Final = _Frame.TOO_LONG
Frame = bytes | Literal[_Frame.TOO_LONG] | None  # a line (with its newline), one past the limit, or the end
NEWLINE = b"\n"


@asynccontextmanager
async def frames(wire: BinaryIO, limit: int) -> AsyncIterator[Callable[[], Awaitable[Frame]]]:
    """A function giving the next line of `wire`: one longer than `limit` bytes is skipped unread, as `TOO_LONG`."""
    if not _pollable(wire):
        yield lambda: anyio.to_thread.run_sync(_read_frame, wire, limit, abandon_on_cancel=True)
        return
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=limit, loop=loop)
    pipe = os.fdopen(os.dup(wire.fileno()), "rb", buffering=0)
    transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), pipe)
    try:
        yield lambda: _next_line(reader)
    finally:
        transport.close()
        os.set_blocking(wire.fileno(), True)


@asynccontextmanager
async def writer(wire: BinaryIO) -> AsyncIterator[Callable[[bytes], Awaitable[None]]]:
    """A function writing bytes to `wire`; when it ends, everything written has left the process."""
    if not _pollable(wire) or _same_pipe(wire.fileno(), 2):
        yield lambda data: anyio.to_thread.run_sync(_write, wire, data)
        return
    loop = asyncio.get_running_loop()
    pipe = os.fdopen(os.dup(wire.fileno()), "wb", buffering=0)
    transport, flow = await loop.connect_write_pipe(_Flow, pipe)

    async def write(data: bytes) -> None:
        if flow.gone.is_set():
            raise BrokenPipeError("the reader of the pipe has gone")
        transport.write(data)
        await flow.writable.wait()

    try:
        yield write
    finally:
        transport.close()  # ends once the buffered bytes are written
        await flow.gone.wait()
        os.set_blocking(wire.fileno(), True)


class _Flow(asyncio.Protocol):
    """Back-pressure of a write pipe: `writable` is clear while the transport's buffer is full."""

    def __init__(self) -> None:
        self.writable = asyncio.Event()
        self.writable.set()
        self.gone = asyncio.Event()

    def pause_writing(self) -> None:
        self.writable.clear()

    def resume_writing(self) -> None:
        self.writable.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.gone.set()
        self.writable.set()


async def _next_line(reader: asyncio.StreamReader) -> Frame:
    try:
        return await reader.readuntil(NEWLINE)
    except asyncio.IncompleteReadError as end:  # the last line without its newline, then the end
        return end.partial or None
    except asyncio.LimitOverrunError as over:
        await reader.readexactly(over.consumed)
    while True:  # the rest of the long line, dropped as it comes
        try:
            await reader.readuntil(NEWLINE)
            return TOO_LONG
        except asyncio.IncompleteReadError:
            return TOO_LONG
        except asyncio.LimitOverrunError as over:
            await reader.readexactly(over.consumed)


def _pollable(wire: BinaryIO) -> bool:
    try:
        mode = os.fstat(wire.fileno()).st_mode
    except (OSError, ValueError):  # no descriptor (an in-memory file)
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _same_pipe(fd: int, other: int) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.fstat(other))
    except OSError:
        return False


def _read_frame(wire: BinaryIO, limit: int) -> Frame:
    """One line; None at the end of input; `TOO_LONG` (the rest skipped) past `limit` bytes."""
    line = wire.readline(limit + 1)
    if not line:
        return None
    if len(line) > limit and not line.endswith(NEWLINE):
        while line and not line.endswith(NEWLINE):
            line = wire.readline(1 << 16)
        return TOO_LONG
    return line


def _write(wire: BinaryIO, data: bytes) -> None:
    wire.write(data)
    wire.flush()
