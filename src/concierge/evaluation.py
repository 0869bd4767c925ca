"""Replaying conversation cases and scoring them, as docs/eval-format.md defines.

Each case runs on a fresh copy of its demo database (a temporary SQLite file), with the
case's clock and user, through the real agent loop and the chosen provider. A write
that waits for confirmation is confirmed as a user would (`Agent.confirm`); that
confirmation is not a call of its own, and the turn's answer is the one given after it.
Every turn is scored: the calls requested (whether the guard accepted them or not)
against `calls` / `calls_any`, and the answer against `answer_contains` /
`answer_lacks`, all compared after NFKC, without white space, lower-cased.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import tempfile
import time
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from concierge.agent.loop import Agent
from concierge.agent.providers import make_provider
from concierge.agent.turn import CallRecord
from concierge.catalog.loader import Catalog
from concierge.errors import ConfigError, DatabaseError, ProviderError
from concierge.pipeline.access import User
from concierge.pipeline.pipeline import Pipeline
from concierge.plugins import demo, demos
from concierge.storage.database import Database

MAX_CONFIRMATIONS = 5  # writes confirmed in one turn, at most (a model could keep asking)


@dataclass
class TurnScore:
    say: str
    passed: bool
    differences: list[str]
    calls: list[dict[str, Any]]
    answer: str
    ungrounded: list[str]
    ms: float
    provider_ms: float


@dataclass
class CaseScore:
    id: str
    passed: bool
    turns: list[TurnScore] = field(default_factory=list)
    error: str | None = None

    def line(self) -> str:
        if self.passed:
            return f"PASS {self.id}"
        if self.error:
            return f"FAIL {self.id}: {self.error}"
        failed = [f"turn {i}: {'; '.join(t.differences)}" for i, t in enumerate(self.turns, 1) if not t.passed]
        return f"FAIL {self.id}: " + " | ".join(failed)


@dataclass
class Report:
    file: str
    provider: str
    cases: list[CaseScore]
    passed: int
    failed: int
    turns_passed: int
    turns: int
    ungrounded: int
    turn_ms_p50: float
    turn_ms_p95: float
    provider_ms_p50: float

    def lines(self) -> list[str]:
        out = [c.line() for c in self.cases]
        out.append(f"turns: {self.turns_passed}/{self.turns} passed")
        out.append(f"ungrounded numbers: {self.ungrounded}")
        out.append(f"turn time: p50 {self.turn_ms_p50:.2f} ms, p95 {self.turn_ms_p95:.2f} ms "
                   f"(provider p50 {self.provider_ms_p50:.2f} ms)")
        out.append(f"{self.passed} passed, {self.failed} failed")
        return out

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def load_cases(path: str | Path) -> list[dict[str, Any]]:
    cases = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
        except json.JSONDecodeError as err:
            raise ConfigError(f"{path}: line {number}: not JSON: {err}") from None
        problem = _case_problem(case)
        if problem:
            raise ConfigError(f"{path}: line {number}: {problem}")
        cases.append(case)
    return cases


def _case_problem(case: Any) -> str | None:
    if not isinstance(case, dict) or not isinstance(case.get("id"), str):
        return "a case is an object with an id"
    if case.get("domain") not in demos():
        return f"domain must be one of {', '.join(demos())}"
    try:
        date.fromisoformat(case.get("today", ""))
    except (TypeError, ValueError):
        return "today must be a date YYYY-MM-DD"
    turns = case.get("turns")
    if not isinstance(turns, list) or not turns:
        return "turns must be a non-empty list"
    for turn in turns:
        if not isinstance(turn, dict) or not isinstance(turn.get("say"), str):
            return "each turn has a say"
        if ("calls" in turn) == ("calls_any" in turn):
            return "each turn has either calls or calls_any"
    return None


# --- comparing -----------------------------------------------------------------------------
def norm(value: Any) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", str(value))).lower()


def same_value(expected: Any, got: Any) -> bool:
    if isinstance(expected, int | float) or isinstance(got, int | float):
        try:
            return Decimal(norm(expected)) == Decimal(norm(got))
        except InvalidOperation:
            return False
    return norm(expected) == norm(got)


def call_matches(expected: dict[str, Any], got: dict[str, Any]) -> bool:
    if expected.get("tool") != got.get("tool"):
        return False
    args = {k: v for k, v in (got.get("args") or {}).items() if v is not None}
    want = {k: v for k, v in (expected.get("args") or {}).items() if v is not None}
    may_add = expected.get("may_add") or {}
    for key, value in want.items():
        if key not in args or not same_value(value, args[key]):
            return False
    for key, value in args.items():
        if key in want:
            continue
        if key not in may_add or (may_add[key] != "*" and not same_value(may_add[key], value)):
            return False
    return True


def calls_match(expected: list[dict], got: list[dict], ordered: bool) -> bool:
    if len(expected) != len(got):
        return False
    if ordered:
        return all(call_matches(e, g) for e, g in zip(expected, got, strict=True))
    return _pairing(expected, got, set())


def _pairing(expected: list[dict], got: list[dict], used: set[int]) -> bool:
    if not expected:
        return True
    for i, call in enumerate(got):
        if i not in used and call_matches(expected[0], call) and _pairing(expected[1:], got, used | {i}):
            return True
    return False


def call_differences(expected: list[dict], got: list[dict], ordered: bool) -> list[str]:
    left, extra = list(expected), []
    for call in got:
        match = next((e for e in left if call_matches(e, call)), None)
        if match is None:
            extra.append(call)
        else:
            left.remove(match)
    out = [f"missing call {_show(e)}" for e in left] + [f"unexpected call {_show(c)}" for c in extra]
    return out or (["calls in another order"] if ordered else ["calls differ"])


def _show(call: dict[str, Any]) -> str:
    return f"{call.get('tool')}{json.dumps(call.get('args') or {}, ensure_ascii=False, sort_keys=True)}"


def answer_norm(text: str) -> str:
    return re.sub(r"(?<=\d),(?=\d)", "", norm(text))


def score_turn(turn: dict[str, Any], calls: list[dict], answer: str) -> list[str]:
    """What differs from the expectation (empty when the turn passes)."""
    differences: list[str] = []
    ordered = bool(turn.get("ordered", False))
    options = turn["calls_any"] if "calls_any" in turn else [turn["calls"]]
    if not any(calls_match(option, calls, ordered) for option in options):
        closest = min(options, key=lambda o: len(call_differences(o, calls, ordered)))
        differences += call_differences(closest, calls, ordered)
    said = answer_norm(answer)
    differences += [f"answer lacks {s!r}" for s in turn.get("answer_contains", []) if answer_norm(s) not in said]
    differences += [f"answer contains {s!r}" for s in turn.get("answer_lacks", []) if answer_norm(s) in said]
    return differences


# --- running -------------------------------------------------------------------------------
class _Databases:
    """One demo database per domain, made once; each case gets a fresh copy of it.

    The copies of a domain take turns at one path, on one engine, with the catalogs parsed
    once: a case sees only its own fresh data, and does not pay again for what depends only
    on the catalog and the SQL dialect (parsing, compiled statements).
    """

    def __init__(self, folder: Path):
        self.folder = folder
        self.domains: dict[str, tuple[list[Catalog], Database, Path, Path]] = {}

    def fresh(self, domain: str) -> tuple[list[Catalog], Database]:
        if domain not in self.domains:
            template = self.folder / f"{domain}-template.db"
            made = Pipeline.open([domain], f"sqlite:///{template}")
            made.close()
            path = self.folder / f"{domain}.db"
            self.domains[domain] = (made.catalogs, Database(f"sqlite:///{path}"), template, path)
        catalogs, db, template, path = self.domains[domain]
        db.dispose()  # the previous case's connections are closed before its file is replaced
        for leftover in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            leftover.unlink(missing_ok=True)
        shutil.copyfile(template, path)
        return catalogs, db

    def close(self) -> None:
        for _, db, _, _ in self.domains.values():
            db.dispose()


async def run_case(case: dict[str, Any], databases: _Databases, provider: str, model: str | None,
                   base_url: str | None) -> CaseScore:
    plugin = demo(case["domain"])
    if plugin.backend is not None:  # a web API's demo: its own stand-in service and state for this case
        with plugin.backend() as env, _environment(env):
            pipeline = Pipeline.open([plugin.name], f"sqlite:///{databases.folder / (case['id'] + '.db')}",
                                     today=date.fromisoformat(case["today"]))
            return await _score(case, pipeline, provider, model, base_url)
    pipeline = Pipeline(*databases.fresh(case["domain"]), today=date.fromisoformat(case["today"]))
    return await _score(case, pipeline, provider, model, base_url)


async def _score(case: dict[str, Any], pipeline: Pipeline, provider: str, model: str | None,
                 base_url: str | None) -> CaseScore:
    try:
        chooser = make_provider(provider, model=model, base_url=base_url, pipeline=pipeline)
        user = pipeline.user(case.get("user", "admin"))
        score = CaseScore(case["id"], passed=True)
        try:
            await _play(case, Agent(pipeline, chooser), user, score)
        except (ProviderError, DatabaseError) as err:  # this case fails; the others still run
            score.passed, score.error = False, f"turn {len(score.turns) + 1}: {err}"
        finally:
            await chooser.aclose()
        return score
    finally:
        pipeline.close()


async def _play(case: dict[str, Any], agent: Agent, user: User, score: CaseScore) -> None:
    session = None
    for turn in case["turns"]:
        started = time.perf_counter()
        result = await agent.ask(turn["say"], user, session_id=session)
        session = result.session_id
        records: list[CallRecord] = list(result.calls)
        provider_ms = sum(result.timings.model_ms)
        for _ in range(MAX_CONFIRMATIONS):
            if result.pending is None:
                break
            result = await agent.confirm(session, user)
            records += result.calls[1:]  # the first is the confirmed write itself
            provider_ms += sum(result.timings.model_ms)
        ms = (time.perf_counter() - started) * 1000
        calls = [{"tool": r.name, "args": r.args if isinstance(r.args, dict) else {}} for r in records]
        differences = score_turn(turn, calls, result.answer)
        score.turns.append(TurnScore(turn["say"], not differences, differences, calls, result.answer,
                                     result.ungrounded, round(ms, 3), round(provider_ms, 3)))
        score.passed = score.passed and not differences


async def run(path: str | Path, provider: str = "offline", model: str | None = None,
              base_url: str | None = None) -> Report:
    cases = load_cases(path)
    scores = []
    with tempfile.TemporaryDirectory(prefix="concierge-eval-", dir=_memory_folder()) as folder:
        databases = _Databases(Path(folder))
        try:
            for case in cases:
                scores.append(await run_case(case, databases, provider, model, base_url))
        finally:
            databases.close()
    turns = [t for c in scores for t in c.turns]
    return Report(
        file=str(path), provider=provider, cases=scores,
        passed=sum(c.passed for c in scores), failed=sum(not c.passed for c in scores),
        turns_passed=sum(t.passed for t in turns), turns=len(turns),
        ungrounded=sum(len(t.ungrounded) for t in turns),
        turn_ms_p50=percentile([t.ms for t in turns], 50), turn_ms_p95=percentile([t.ms for t in turns], 95),
        provider_ms_p50=percentile([t.provider_ms for t in turns], 50),
    )


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _memory_folder() -> str | None:
    """A memory-backed folder for the throwaway databases where the system has one (no disk syncs)."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)], 3)
