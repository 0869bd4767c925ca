"""What the cases of a demo are played on: one pipeline, provider and agent per demo for the whole run, as a
running server holds them, each case on data no earlier case changed and on its own day.

A turn is timed as a running server answers it: what depends only on the catalog, the data as the demo ships it
and the SQL dialect (the values read from the data, the planner's words, the tools offered, compiled statements,
the database's triggers and keys) is made once, not again at each case's first turn. What a case did is undone
before the next one: its data file is copied anew from the demo's (the state tables with it: conversations,
audit, confirmations), a web API's stand-in is put back as it started, and the values read from the data are read
again where a write of the case changed them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import date

from concierge.agent.loop import Agent
from concierge.agent.providers.interface import Provider
from concierge.evaluation.databases import DemoDatabases
from concierge.pipeline.pipeline import Pipeline
from concierge.plugins import Backend, demo


@dataclass
class Stand:
    """One demo as a running server holds it."""

    pipeline: Pipeline
    provider: Provider
    agent: Agent
    backend: Backend | None
    facts: int  # the pipeline's facts_version as the last case began


class Stands:
    """The demos' stands of one run, each opened at its first case and closed with `aclose`."""

    def __init__(self, databases: DemoDatabases, choose: Callable[[Pipeline], Provider]):
        self._databases = databases
        self._choose = choose  # the provider of a pipeline
        self._stands: dict[str, Stand] = {}
        self._backends: dict[str, Backend | None] = {}
        self._running = ExitStack()

    @contextmanager
    def case(self, domain: str, today: date) -> Iterator[Stand]:
        """The demo's stand with its data as the demo ships it, its clock on `today`, and the environment its
        catalog reads set while the case runs."""
        stand = self._stands.get(domain)
        backend = self._backend(domain)
        with _environment(backend.environment if backend is not None else {}):
            catalogs, db = self._databases.fresh(domain)
            if stand is None:
                pipeline = Pipeline(catalogs, db, today=today)
                provider = self._choose(pipeline)
                stand = self._stands[domain] = Stand(pipeline, provider, Agent(pipeline, provider), backend,
                                                     pipeline.facts_version)
            if backend is not None:
                backend.reset()
            stand.pipeline.set_today(today)
            if stand.pipeline.facts_version != stand.facts:  # a write of the last case changed the values read
                stand.pipeline.refresh()
                stand.pipeline.guard_context()  # read again before the turn, as a server reads them as it starts
            stand.facts = stand.pipeline.facts_version
            yield stand

    def _backend(self, domain: str) -> Backend | None:
        """The demo's stand-in service, started at its first case; None for a database demo."""
        if domain not in self._backends:
            start = demo(domain).backend
            self._backends[domain] = self._running.enter_context(start()) if start is not None else None
        return self._backends[domain]

    async def aclose(self) -> None:
        try:
            for stand in self._stands.values():
                await stand.provider.aclose()
                stand.pipeline.close()
        finally:
            self._running.close()


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
