"""Blocking work off the event loop: the pipeline and the state database, called from a request.

`run(func, *args)` is `anyio.to_thread.run_sync` for the calls every request makes (the session or
token check, the conversation, the planner, each tool call), on worker threads of its own. It keeps
what matters of anyio's: the caller's context variables go with the call (the audit's source), and
a caller cancelled meanwhile waits for the call to finish before it is cancelled, so a write is
never left running unseen. A call is handed to a worker that waits for one, a new worker started
where none waits (at most WORKERS), and its outcome comes back as one callback on the caller's loop:
no executor future chained to an asyncio one, no shield, no capacity limiter or cancel scope. A turn
makes about six such trips; `bench/thread_hop.py` measures one against the executor's and anyio's.

A process that exits waits for the calls still running (a write finishes, or fails, before the
interpreter goes), as `concurrent.futures` does for its workers.

A read of the terminal or of the stdio pipes may block for ever and must be abandoned when its caller is
cancelled: those keep anyio's `to_thread.run_sync(..., abandon_on_cancel=True)` (`cli/ask_cmd`, `mcp/pipes`).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import contextvars
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

WORKERS = 40  # as many as anyio's default limiter lets run at once
T = TypeVar("T")


class _Call:
    """One call handed to a worker, and what its caller waits on."""

    __slots__ = ("args", "context", "finished", "func", "future", "loop", "settled")

    def __init__(self, loop: asyncio.AbstractEventLoop, func: Callable[..., Any], args: tuple[Any, ...]):
        self.loop, self.func, self.args = loop, func, args
        self.context = contextvars.copy_context()
        self.future: asyncio.Future[Any] = loop.create_future()
        self.settled = False  # the outcome is back on the loop
        self.finished: asyncio.Future[None] | None = None  # what a cancelled caller waits on


class _Workers:
    def __init__(self, most: int):
        self.most = most
        self.calls: queue.SimpleQueue[_Call] = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.idle = 0  # workers waiting for a call that no call handed out yet has claimed
        self.started = 0
        self.running = 0  # calls handed out and not yet back
        self.quiet = threading.Condition(self.lock)

    def hand(self, call: _Call) -> None:
        with self.lock:
            self.running += 1
            start = False
            if self.idle:
                self.idle -= 1  # a waiting worker takes it
            elif self.started < self.most:
                self.started, start = self.started + 1, True
        self.calls.put(call)
        if start:
            threading.Thread(target=self._work, name=f"concierge-worker-{self.started}", daemon=True).start()

    def _work(self) -> None:
        while True:
            call = self.calls.get()
            try:
                value, ok = call.context.run(call.func, *call.args), True
            except BaseException as err:
                value, ok = err, False
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits for the outcome
                call.loop.call_soon_threadsafe(_settle, call, value, ok)
            del call, value
            with self.lock:
                self.running -= 1
                self.idle += 1
                if not self.running:
                    self.quiet.notify_all()

    def drain(self) -> None:
        """Wait for the calls still running (at the process's exit)."""
        with self.lock:
            self.quiet.wait_for(lambda: not self.running)


_workers = _Workers(WORKERS)
atexit.register(_workers.drain)


def _settle(call: _Call, value: Any, ok: bool) -> None:
    call.settled = True
    if not call.future.done():
        if ok:
            call.future.set_result(value)
        else:
            call.future.set_exception(value)
    if call.finished is not None and not call.finished.done():
        call.finished.set_result(None)


async def run(func: Callable[..., T], *args: Any) -> T:
    """`func(*args)` in a worker thread, with the caller's context variables; its result or its error."""
    call = _Call(asyncio.get_running_loop(), func, args)
    _workers.hand(call)
    try:
        return await call.future
    except asyncio.CancelledError:
        while not call.settled:  # the call runs on in its thread: wait for it, whatever else is cancelled
            call.finished = call.loop.create_future()
            with contextlib.suppress(asyncio.CancelledError):
                await call.finished
        raise
