"""Where a turn's time went, phase by phase: deciding (each model or planner request), each tool call,
the first piece of the answer, the whole turn. One log line per turn on the `concierge.latency` logger;
the same figures are the turn's `timings` (the web trace shows them), and a channel adds its own
(the phone: from the caller's words to the first text sent). The record carries them as attributes
(`turn`, `channel`, `phases`) for a handler that collects figures (bench/phone.py).
"""

from __future__ import annotations

import logging

from concierge.agent.turn import Turn
from concierge.pipeline.access import User

log = logging.getLogger("concierge.latency")


def describe(turn: Turn) -> str:
    """decide 12.0+3.1 ms · get_sales 4.2 ms · first text 19.8 ms · total 21.0 ms"""
    t = turn.timings
    parts = [f"decide {'+'.join(f'{ms:.1f}' for ms in t.model_ms) or '0'} ms"]
    parts += [f"{call.name} {call.ms:.1f} ms" for call in turn.calls]
    if t.first_text_ms is not None:
        parts.append(f"first text {t.first_text_ms:.1f} ms")
    parts.append(f"total {t.total_ms:.1f} ms")
    return " · ".join(parts)


def log_turn(turn: Turn, user: User) -> None:
    """The agent's line, for every turn on every channel."""
    if log.isEnabledFor(logging.INFO):
        log.info("turn %s (%s): %s", turn.session_id, user.name, describe(turn),
                 extra={"turn": turn, "channel": "", "phases": {}})


def log_channel(turn: Turn, user: User, channel: str, **phases: float | None) -> None:
    """A channel's own figures for the same turn (the phone: prompt_to_first_text)."""
    if log.isEnabledFor(logging.INFO):
        shown = " · ".join(f"{name.replace('_', ' ')} {ms:.1f} ms" for name, ms in phases.items() if ms is not None)
        log.info("%s turn %s (%s): %s", channel, turn.session_id, user.name, shown or "-",
                 extra={"turn": turn, "channel": channel, "phases": phases})
