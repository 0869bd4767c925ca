"""Blocking calls off the event loop (`concierge.threads.run`): results, errors, context, cancellation."""

from __future__ import annotations

import asyncio
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


async def test_a_coroutine_run_through_a_worker_makes_its_trips_there_at_once():
    loop_thread = threading.get_ident()
    seen: list[int] = []

    def step(n: int) -> int:
        seen.append(threading.get_ident())
        return n + 1

    async def turn() -> int:
        n = await threads.run(step, 0)
        n = await threads.run(step, n)
        return await threads.run(step, n)

    SOURCE.set("web 10.0.0.9")
    assert await threads.run(threads.through, turn()) == 3
    assert len(set(seen)) == 1 and seen[0] != loop_thread  # one worker, never the event loop
    assert await threads.run(threads.through, _source()) == "web 10.0.0.9"
    assert not threads.here()


async def _source() -> str:
    return await threads.run(SOURCE.get)


async def test_a_coroutine_that_waits_for_anything_else_is_refused_on_a_worker():
    async def sleeps() -> None:
        await asyncio.sleep(0)  # gives the event loop a turn: there is none on a worker

    with pytest.raises(RuntimeError, match="other than a worker's call"):
        await threads.run(threads.through, sleeps())


async def test_calls_made_together_run_at_once_and_a_failure_comes_after_all_of_them():
    both = threading.Barrier(2, timeout=10)

    def meets(n: int) -> int:
        both.wait()  # each waits for the other: made one after another, this would time out
        return n

    async def reads() -> list[int]:
        return await threads.run_all([lambda: meets(1), lambda: meets(2)])

    assert await reads() == [1, 2]
    assert await threads.run(threads.through, reads()) == [1, 2]
    finished: list[str] = []

    def slow() -> None:
        threading.Event().wait(0.05)
        finished.append("slow")

    async def failing() -> None:
        await threads.run_all([lambda: 1 / 0, slow])

    for attempt in (failing(), None):
        with pytest.raises(ZeroDivisionError):
            await (threads.run(threads.through, attempt) if attempt else failing())
        assert finished[-1] == "slow"


@pytest.mark.timeout(60)
async def test_turns_on_every_worker_that_make_calls_together_never_wait_for_each_other():
    """Every worker holds a turn that makes two calls together: the second is made where no worker is free."""
    started = threading.Barrier(threads.WORKERS, timeout=10)

    def read(n: int) -> int:
        return n

    async def turn(n: int) -> list[int]:
        await threads.run(started.wait)  # every worker is taken before any turn goes on
        return await threads.run_all([lambda: read(n), lambda: read(-n)])

    results: dict[int, list[int]] = {}

    async def one(n: int) -> None:
        results[n] = await threads.run(threads.through, turn(n))

    with anyio.fail_after(20):
        async with anyio.create_task_group() as group:
            for n in range(threads.WORKERS):
                group.start_soon(one, n)
    assert results == {n: [n, -n] for n in range(threads.WORKERS)}
