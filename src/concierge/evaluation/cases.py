"""Reading a case file: JSON Lines, one conversation case per line (docs/eval-format.md)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import date
from pathlib import Path
from typing import Any

from concierge.errors import ConfigError
from concierge.plugins import demos


def load_cases(path: str | Path, domains: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The cases of the file, each checked; `domains` are the names a case may give besides the demos
    (the catalogs of the settings folder). A malformed line is a ConfigError with its number."""
    known = [*demos(), *(d for d in domains if d not in demos())]
    cases = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
        except json.JSONDecodeError as err:
            raise ConfigError(f"{path}: line {number}: not JSON: {err}") from None
        problem = case_problem(case, known)
        if problem:
            raise ConfigError(f"{path}: line {number}: {problem}")
        cases.append(case)
    return cases


def case_problem(case: Any, domains: list[str]) -> str | None:
    """What is wrong with one case's shape, or None."""
    if not isinstance(case, dict) or not isinstance(case.get("id"), str):
        return "a case is an object with an id"
    if case.get("domain") not in domains:
        own = [d for d in domains if d not in demos()]
        extra = f" (demos), or a catalog of the settings folder: {', '.join(own)}" if own else ""
        return f"domain must be one of {', '.join(demos())}{extra}"
    try:
        date.fromisoformat(case.get("today", ""))
    except (TypeError, ValueError):
        return "today must be a date YYYY-MM-DD"
    if "kind" in case and not isinstance(case["kind"], str):
        return "kind is a word (count, period_total ...)"
    if "user" in case and not isinstance(case["user"], str):
        return "user is a user's name"
    turns = case.get("turns")
    if not isinstance(turns, list) or not turns:
        return "turns must be a non-empty list"
    for turn in turns:
        if not isinstance(turn, dict) or not isinstance(turn.get("say"), str):
            return "each turn has a say"
        if "calls" in turn and "calls_any" in turn:
            return "a turn has calls or calls_any, not both"
        if not any(key in turn for key in ("calls", "calls_any", "answer_contains", "answer_lacks")):
            return "each turn checks its calls (calls, calls_any), its answer (answer_contains, answer_lacks), or both"
    return None
