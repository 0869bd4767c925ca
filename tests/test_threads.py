"""Blocking calls off the event loop (`concierge.threads.run`): results, errors, context, cancellation."""

from __future__ import annotations

import contextvars
import threading

import anyio
import pytest

from concierge import threads

pytestmark = pytest.mark.anyio

SOURCE: contextvars.ContextVar[str] = contextvars.ContextVar("source", default="none")


async def test_the_call_runs_in_another_thread_and_its_result_or_error_comes_back():
    total, worker = await threads.run(lambda a, b: (a + b, threading.get_ident()), 2, 3)
    assert total == 5
    assert worker != threading.get_ident()
    assert (await threads.run(lambda a, b: a + b, 2, 3)) == 5
    with pytest.raises(ZeroDivisionError):
        await threads.run(lambda: 1 / 0)


async def test_the_callers_context_variables_go_with_the_call():
    SOURCE.set("mcp-http 10.0.0.7")
    assert await threads.run(SOURCE.get) == "mcp-http 10.0.0.7"


async def test_a_cancelled_caller_waits_for_its_call_to_finish_then_is_cancelled():
    started, release = threading.Event(), threading.Event()
    seen: list[str] = []

    def write() -> None:
        started.set()
        release.wait(timeout=30)
        seen.append("written")

    async def caller(scope: anyio.CancelScope) -> None:
        with scope:
            await threads.run(write)
            seen.append("not cancelled")  # never reached: the scope is cancelled while the call runs
        seen.append(f"caller ended, cancelled={scope.cancelled_caught}")

    scope = anyio.CancelScope()
    async with anyio.create_task_group() as group:
        group.start_soon(caller, scope)
        await anyio.to_thread.run_sync(started.wait)
        scope.cancel()
        for _ in range(10):  # the cancellation is delivered; the caller keeps waiting
            await anyio.sleep(0)
        assert seen == []
        release.set()
    assert seen == ["written", "caller ended, cancelled=True"]


async def test_more_calls_than_workers_wait_their_turn_and_each_gets_its_own_result():
    release = threading.Event()
    running: set[int] = set()

    def call(n: int) -> int:
        running.add(threading.get_ident())
        release.wait(timeout=30)
        return n * n

    results: dict[int, int] = {}

    async def one(n: int) -> None:
        results[n] = await threads.run(call, n)

    calls = threads.WORKERS + 10
    async with anyio.create_task_group() as group:
        for n in range(calls):
            group.start_soon(one, n)
        with anyio.fail_after(10):
            while len(running) < threads.WORKERS:
                await anyio.sleep(0.01)
        assert len(running) == threads.WORKERS  # no more at once than the workers
        release.set()
    assert results == {n: n * n for n in range(calls)}
