"""The planner's time budget for one request, checked as it works, and what it answers past it.

Every pass of the planner over a message is linear in its length (spans bounded in length, lookups
memoised, spans kept in order and searched by bisection), and every channel caps a message at
`concierge.agent.turn.MESSAGE_CHARS`; the budget is the bound that holds whatever a message or a catalog
turns out to cost. `Planner.reply` plans `within` it; the loops whose work grows with the message call
`check`, which raises `PlanTooLong` once the request has used `CPU_S` seconds of its thread's CPU time or
`WALL_S` seconds of wall-clock time. The planner then answers `too_long_text` in the user's language: a
reply with text and no tool call, never a partial plan.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

__all__ = ["CPU_S", "WALL_S", "PlanTooLong", "check", "too_long_text", "within"]

CPU_S = 2.0  # CPU seconds of its thread one request may plan for
WALL_S = 6.0  # and wall-clock seconds (a planning thread shares the cores with every other one)
_CPU_LOOK_S = 0.02  # the thread's CPU time (a system call) is read at most this often
_CALLS_A_LOOK = 16  # and the clock once in so many checks: each check ends a step of microseconds


class PlanTooLong(Exception):
    """The request used up the planner's budget before its plan was complete."""

    def __init__(self, cpu_s: float, wall_s: float):
        self.cpu_s, self.wall_s = cpu_s, wall_s
        super().__init__(f"planning used {cpu_s:.2f} s of CPU in {wall_s:.2f} s, past its budget")


@dataclass
class _Deadline:
    cpu_s: float
    wall_s: float
    cpu_start: float = field(default_factory=time.thread_time)
    wall_start: float = field(default_factory=time.monotonic)
    next_cpu_look: float = 0.0  # monotonic time
    calls: int = 0

    def check(self) -> None:
        self.calls += 1
        if (self.calls - 1) % _CALLS_A_LOOK:  # the first check looks, then one in so many
            return
        now = time.monotonic()
        if now - self.wall_start > self.wall_s:
            raise PlanTooLong(time.thread_time() - self.cpu_start, now - self.wall_start)
        if now >= self.next_cpu_look:
            self.next_cpu_look = now + _CPU_LOOK_S
            used = time.thread_time() - self.cpu_start
            if used > self.cpu_s:
                raise PlanTooLong(used, now - self.wall_start)


_deadline: ContextVar[_Deadline | None] = ContextVar("concierge_planner_deadline", default=None)


@contextmanager
def within(cpu_s: float | None = None, wall_s: float | None = None) -> Iterator[None]:
    """Plan under a budget (CPU_S and WALL_S unless given): `check` raises `PlanTooLong` past it. Not nested:
    the innermost budget counts."""
    token = _deadline.set(_Deadline(CPU_S if cpu_s is None else cpu_s, WALL_S if wall_s is None else wall_s))
    try:
        yield
    finally:
        _deadline.reset(token)


def check() -> None:
    """Raise `PlanTooLong` when the request planning now is past its budget; nothing outside `within`."""
    deadline = _deadline.get()
    if deadline is not None:
        deadline.check()


_TOO_LONG = {
    "ja": "このご依頼は長すぎて、処理しきれませんでした。短くするか、いくつかに分けてもう一度お送りください。",
    "en": "This request is too long for me to work out. Please shorten it, or split it into several messages.",
}


def too_long_text(lang: str) -> str:
    """The answer to a request past the budget, in the user's language (Japanese or English)."""
    return _TOO_LONG.get(lang, _TOO_LONG["en"])
