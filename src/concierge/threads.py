"""Blocking work off the event loop: the pipeline and the state database, called from a request.

`run(func, *args)` is `anyio.to_thread.run_sync` for the calls every request makes (the session or
token check, the conversation, each tool call), on a pool of worker threads of its own. It keeps
what matters of anyio's: the caller's context variables go with the call (the audit's source), and
a caller cancelled meanwhile waits for the call to finish before it is cancelled, so a write is
never left running unseen. It costs about a third of anyio's per call when many requests wait at
once (15 against 45 microseconds of CPU with 8 callers): a queued call is taken by a worker that
is already awake, with no capacity limiter or cancel scope around it.

A read of the terminal or of the stdio pipes may block for ever and must be abandoned when its caller is
cancelled: those keep anyio's `to_thread.run_sync(..., abandon_on_cancel=True)` (`cli/ask_cmd`, `mcp/pipes`).
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

WORKERS = 40  # as many as anyio's default limiter lets run at once
T = TypeVar("T")

_pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="concierge-worker")


async def run(func: Callable[..., T], *args: Any) -> T:
    """`func(*args)` in a worker thread, with the caller's context variables; its result or its error."""
    call = partial(contextvars.copy_context().run, func, *args)
    future = asyncio.get_running_loop().run_in_executor(_pool, call)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        while not future.done():  # the call runs on in its thread: wait for it, whatever else is cancelled
            try:
                await asyncio.shield(future)
            except asyncio.CancelledError:
                continue
            except Exception:  # its own error is not the caller's: the caller was cancelled
                break
        raise
