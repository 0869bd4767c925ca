"""Blocking work off the event loop: the pipeline and the state database, called from a request.

`run(func, *args)` is `anyio.to_thread.run_sync` for the calls every request makes (the session or
token check, the conversation, the planner, each tool call), on worker threads of its own. It keeps
what matters of anyio's: the caller's context variables go with the call (the audit's source), and
a caller cancelled meanwhile waits for the call to finish before it is cancelled, so a write is
never left running unseen. A call is handed to a worker that waits for one, a new worker started
where none waits (at most WORKERS), and its outcome comes back as one callback on the caller's loop:
no executor future chained to an asyncio one, no shield, no capacity limiter or cancel scope. A turn of a
model made about six such trips (the offline planner's: one, below); `bench/thread_hop.py` measures one against
the executor's and anyio's.

A process that exits waits for the calls still running (a write finishes, or fails, before the
interpreter goes), as `concurrent.futures` does for its workers.

A coroutine whose every wait is such a trip (a turn of the offline planner: the conversation, the plan,
the tool calls, the save) can be run to its end on one worker instead (`through`): its trips are then calls
made there at once, and calls it makes together (`together`) go to the workers that wait for one. One trip
where it made five or six.

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
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypeVar

import anyio

WORKERS = 40  # as many as anyio's default limiter lets run at once
T = TypeVar("T")
_here: contextvars.ContextVar[bool] = contextvars.ContextVar("concierge_threads_here", default=False)


class _Call:
    """One call handed to a worker, and what its caller waits on."""

    __slots__ = ("args", "context", "finished", "func", "future", "loop", "settled")

    def __init__(self, loop: asyncio.AbstractEventLoop, func: Callable[..., Any], args: tuple[Any, ...]):
        self.loop, self.func, self.args = loop, func, args
        self.context = contextvars.copy_context()
        self.future: asyncio.Future[Any] = loop.create_future()
        self.settled = False  # the outcome is back on the loop
        self.finished: asyncio.Future[None] | None = None  # what a cancelled caller waits on

    def settle(self, value: Any, ok: bool) -> None:
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits for the outcome
            self.loop.call_soon_threadsafe(_settle, self, value, ok)


class _Waited:
    """One call handed to a worker by a worker (`together`), and the event its caller waits on."""

    __slots__ = ("args", "context", "done", "func", "ok", "value")

    def __init__(self, func: Callable[[], Any]):
        self.func, self.args = func, ()
        self.context = contextvars.copy_context()
        self.done = threading.Event()
        self.value: Any = None
        self.ok = False

    def settle(self, value: Any, ok: bool) -> None:
        self.value, self.ok = value, ok
        self.done.set()


class _Workers:
    def __init__(self, most: int):
        self.most = most
        self.calls: queue.SimpleQueue[_Call | _Waited] = queue.SimpleQueue()
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
            call.settle(value, ok)
            del call, value
            with self.lock:
                self.running -= 1
                self.idle += 1
                if not self.running:
                    self.quiet.notify_all()

    def hand_to_idle(self, call: _Waited) -> bool:
        """Hand `call` to a worker that waits for one; False where none waits (a worker's call never waits for a
        worker to be free: all of them could be waiting so)."""
        with self.lock:
            if not self.idle:
                return False
            self.idle -= 1
            self.running += 1
        self.calls.put(call)
        return True

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
    """`func(*args)` in a worker thread, with the caller's context variables; its result or its error. Inside
    `through`, made at once: the caller is on a worker already."""
    if _here.get():
        return contextvars.copy_context().run(func, *args)
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


async def run_all(funcs: Sequence[Callable[[], T]]) -> list[T]:
    """Each call in a worker thread, all at once; their results in order, or the first error once all are done.
    Inside `through`, `together`."""
    if _here.get():
        return together(funcs)
    outcomes: list[tuple[bool, Any]] = [(False, None)] * len(funcs)

    async def one(i: int) -> None:
        try:
            outcomes[i] = (True, await run(funcs[i]))
        except Exception as err:
            outcomes[i] = (False, err)

    async with anyio.create_task_group() as group:
        for i in range(len(funcs)):
            group.start_soon(one, i)
    return _results(outcomes)


def through(work: Coroutine[Any, Any, T]) -> T:
    """Run `work` to its end here, on a worker (`run(through, work)`), its trips to threads made at once. For a
    coroutine that waits for nothing but such trips; one that waits for anything else is an error."""
    _here.set(True)  # in this call's own context: the caller's is unchanged
    try:
        work.send(None)
    except StopIteration as end:
        return end.value
    work.close()
    raise RuntimeError("a coroutine run through a worker waited for something other than a worker's call")


def here() -> bool:
    """Whether this is a coroutine run `through` a worker (no event loop runs it)."""
    return _here.get()


def together(funcs: Sequence[Callable[[], T]]) -> list[T]:
    """From a worker: the calls at once, each but the first on a worker that waits for one (else here); their
    results in order, or the first error once all are done."""
    waited = [_Waited(func) for func in funcs[1:]]
    away = [_workers.hand_to_idle(w) for w in waited]
    first = _Waited(funcs[0])
    for w in [first, *(w for w, handed in zip(waited, away, strict=True) if not handed)]:
        try:
            w.settle(w.context.run(w.func), True)
        except BaseException as err:
            w.settle(err, False)
    for w in waited:
        w.done.wait()
    return _results([(w.ok, w.value) for w in (first, *waited)])


def _results(outcomes: Sequence[tuple[bool, Any]]) -> list[Any]:
    """The values of calls made together, in order; the first error where one failed."""
    failed = next((value for ok, value in outcomes if not ok), None)
    if failed is not None:
        raise failed
    return [value for _, value in outcomes]
