"""Replaying cases through the real agent loop and the chosen provider, and scoring each turn.

Each case runs on data no earlier case changed (`evaluation.databases`), with the case's clock and
user; a demo's cases share one pipeline, provider and agent, as a running server does
(`evaluation.stands`). A write that waits for confirmation is confirmed as a user would
(`Agent.confirm`); that confirmation is not a call of its own, and the turn's answer is the one given
after it. A case that cannot run (its user is unknown, the provider or the database fails) is that
case's failure, with a line saying why; the cases after it still run.
"""

from __future__ import annotations

import os
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

from concierge.agent.loop import Agent
from concierge.agent.providers import make_provider
from concierge.agent.providers.interface import Provider
from concierge.agent.turn import CallRecord
from concierge.errors import DatabaseError, ProviderError, UnknownUser
from concierge.evaluation.cases import load_cases
from concierge.evaluation.databases import DEFAULT_USER, DemoDatabases, SettingsData
from concierge.evaluation.report import CaseScore, Report, TurnScore
from concierge.evaluation.scoring import score_turn, stated_wrong_figure
from concierge.evaluation.stands import Stands
from concierge.pipeline.access import User
from concierge.pipeline.pipeline import Pipeline
from concierge.plugins import demos
from concierge.settings import Settings

MAX_CONFIRMATIONS = 5  # writes confirmed in one turn, at most (a model could keep asking)


class _Provider:
    def __init__(self, name: str, model: str | None, base_url: str | None):
        self.name, self.model, self.base_url = name, model, base_url

    def make(self, pipeline: Pipeline) -> Provider:
        """The provider, for the offline planner over `pipeline`'s catalogs and data."""
        return make_provider(self.name, model=self.model, base_url=self.base_url, pipeline=pipeline)


async def run(path: str | Path, provider: str = "offline", model: str | None = None,
              base_url: str | None = None, *, settings: Settings | None = None) -> Report:
    """Every case of the file, scored. With `settings`, a case's domain may be a catalog of that settings
    folder (its data: the settings' database); without, only the demos."""
    chooser = _Provider(provider, model, base_url)
    with tempfile.TemporaryDirectory(prefix="concierge-eval-", dir=_memory_folder()) as folder:
        own = _settings_data(settings, Path(folder), path)
        cases = load_cases(path, own.names if own else ())
        demos_data = DemoDatabases(Path(folder))
        stands = Stands(demos_data, chooser.make)
        scores = []
        try:
            for case in cases:
                if case["domain"] in demos():
                    score = await _demo_case(case, stands)
                else:
                    assert own is not None  # load_cases accepts a settings domain only where there are settings
                    score = await _settings_case(case, own, chooser)
                scores.append(score)
        finally:
            try:
                await stands.aclose()
            finally:
                demos_data.close()
                if own is not None:
                    own.close()
    return Report.of(str(path), provider, scores, own.notes if own else [])


def _settings_data(settings: Settings | None, folder: Path, path: str | Path) -> SettingsData | None:
    """The settings folder's own catalogs, where it has any and some case names one of them."""
    if settings is None or all(ref in demos() for ref in settings.catalogs):
        return None
    own = folder / "settings"
    own.mkdir()
    data = SettingsData(settings, own)
    cases = load_cases(path, data.names)
    if not any(c["domain"] in data.names for c in cases):
        data.close()
        return None
    return data


async def _demo_case(case: dict[str, Any], stands: Stands) -> CaseScore:
    with stands.case(case["domain"], date.fromisoformat(case["today"])) as stand:
        return await _score(case, stand.agent, case.get("user", DEFAULT_USER), f"the {case['domain']} demo")


async def _settings_case(case: dict[str, Any], data: SettingsData, provider: _Provider) -> CaseScore:
    with data.pipeline(case["id"], date.fromisoformat(case["today"])) as pipeline:
        chooser = provider.make(pipeline)
        try:
            return await _score(case, Agent(pipeline, chooser), case.get("user", data.default_user), data.where)
        finally:
            await chooser.aclose()


async def _score(case: dict[str, Any], agent: Agent, user_name: str, where: str) -> CaseScore:
    score = CaseScore(case["id"], passed=True, kind=case.get("kind"))
    try:
        user = agent.pipeline.user(user_name)
    except UnknownUser as err:
        known = f" (users: {', '.join(err.known)})" if err.known else ""
        score.passed = False
        score.error = (f"user {user_name!r} is not a user of {where}{known}; add it with "
                       f"concierge user add {user_name} --role ROLE")
        return score
    try:
        await _play(case, agent, user, score)
    except (ProviderError, DatabaseError) as err:  # this case fails; the others still run
        score.passed, score.error = False, f"turn {len(score.turns) + 1}: {err}"
    return score


async def _play(case: dict[str, Any], agent: Agent, user: User, score: CaseScore) -> None:
    session = None
    said: list[str] = []
    for turn in case["turns"]:
        said.append(turn["say"])
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
        wrong = bool(differences) and stated_wrong_figure(result.answer, turn.get("answer_contains", []), said)
        score.turns.append(TurnScore(turn["say"], not differences, differences, calls, result.answer,
                                     result.ungrounded, round(ms, 3), round(provider_ms, 3), wrong))
        score.passed = score.passed and not differences


def _memory_folder() -> str | None:
    """A memory-backed folder for the throwaway databases where the system has one (no disk syncs)."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None
