"""One trip of blocking work off the event loop and back: `concierge.threads.run` against the executor's
(`loop.run_in_executor`, the previous `threads.run` was it with a shield and the caller's context) and anyio's
`to_thread.run_sync`, for a call that does nothing (the trip alone) and one summing 30,000 integers.

    .venv/bin/python bench/thread_hop.py [--calls 2000] [--rounds 2]

A turn of the offline planner makes about six trips (the conversation, the offer, the planner twice, the tool
call, the save). Printed per caller count (1, 8 at once), work and round: wall and CPU time of this process per
call for each, side by side, and the ratio to the executor's. The three take turns within a round.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

import anyio.to_thread

sys.path.insert(0, str(Path(__file__).resolve().parent))
import machine  # noqa: E402

from concierge import threads  # noqa: E402

_pool = ThreadPoolExecutor(max_workers=40)


async def _executor(func):
    call = partial(contextvars.copy_context().run, func)
    return await asyncio.shield(asyncio.get_running_loop().run_in_executor(_pool, call))


def _nothing() -> None:
    return None


def _some_work() -> int:
    return sum(range(30000))


async def _time(hop, func, calls: int, callers: int) -> tuple[float, float]:
    async def one() -> None:
        for _ in range(calls // callers):
            await hop(func)

    wall, cpu = time.perf_counter(), time.process_time()
    async with anyio.create_task_group() as group:
        for _ in range(callers):
            group.start_soon(one)
    return (time.perf_counter() - wall) / calls * 1e6, (time.process_time() - cpu) / calls * 1e6


async def main(calls: int, rounds: int) -> None:
    hops = {"threads.run": threads.run, "executor": _executor, "anyio": anyio.to_thread.run_sync}
    print(machine.header())
    print(f"{'callers':>7} {'work':>6} {'round':>5} " + " ".join(f"{n + ' wall/cpu us':>26}" for n in hops)
          + f" {'threads.run / executor (cpu)':>30} {machine.LOAD}")
    for hop in hops.values():  # warm: threads started, code paths run
        await _time(hop, _nothing, 200, 8)
    for callers in (1, 8):
        for work, func in (("none", _nothing), ("sum", _some_work)):
            for rnd in range(1, rounds + 1):
                got = {name: await _time(hop, func, calls, callers) for name, hop in hops.items()}
                cells = " ".join(f"{w:>15.1f} / {c:>8.1f}" for w, c in got.values())
                ratio = got["threads.run"][1] / got["executor"][1]
                print(f"{callers:>7} {work:>6} {rnd:>5} {cells} {ratio:>29.2f}x {machine.load()}", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    asyncio.run(main(args.calls, args.rounds))
