"""Helpers of the planner tests: plans without a database, and conversations with the real agent."""

from __future__ import annotations

from datetime import date
from typing import Any

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider
from concierge.pipeline.pipeline import Pipeline
from concierge.planner import progress
from concierge.planner.lexicon import Lexicon
from concierge.planner.plan import Context, Memory, build
from concierge.planner.text import normalise

TODAY = {"farm": date(2025, 5, 15), "pos": date(2026, 8, 31)}


class Planning:
    """Plans built straight from a message, with no database: the first calls a request makes."""

    def __init__(self, pipeline: Pipeline, today: date):
        self.pipeline, self.today = pipeline, today
        self.lexicon = Lexicon(pipeline.tools)

    def plan(self, text: str, *, today: date | None = None, offered: set[str] | None = None,
             memory: Memory | None = None):
        ctx = Context(self.lexicon, offered if offered is not None else set(self.pipeline.tools),
                      today or self.today, dict(self.pipeline.guard_context().enum_values), memory or Memory())
        return build(normalise(text), ctx)

    def first_calls(self, text: str, **options: Any) -> list[tuple[str, dict]]:
        calls, _ = progress.advance(self.plan(text, **options), [], self.pipeline.tools)
        return calls


def open_demo(domain: str, url: str, today: date | None = None) -> Pipeline:
    return Pipeline.open([domain], url, today=today or TODAY[domain])


async def converse(agent: Agent, user, texts: list[str]) -> list[tuple[list[tuple[str, dict, str]], Any]]:
    """Each message in one conversation, confirming writes as a user would: (calls, final turn) per message."""
    out, session = [], None
    for text in texts:
        turn = await agent.ask(text, user, session_id=session)
        session = turn.session_id
        calls = [(c.name, dict(c.args), c.status) for c in turn.calls]
        while turn.pending is not None:
            turn = await agent.confirm(session, user)
            calls += [(c.name, dict(c.args), c.status) for c in turn.calls[1:]]
        out.append((calls, turn))
    return out


def offline_agent(pipeline: Pipeline) -> Agent:
    return Agent(pipeline, OfflineProvider(pipeline))
