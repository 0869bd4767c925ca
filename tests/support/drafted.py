"""A schema made by a test, its draft (loaded by the catalog loader) and a pipeline over it, on SQLite or PostgreSQL;
the offline agent over it, and the figures an answer's prose states."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from decimal import Decimal

import pytest
import sqlalchemy as sa
import yaml
from pg_databases import sqlite_or_postgres

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider
from concierge.catalog.loader import parse_catalog
from concierge.demo.bootstrap import open_pipeline
from concierge.onboarding.draft import draft_catalog
from concierge.onboarding.introspect import introspect
from concierge.pipeline.pipeline import Pipeline
from concierge.storage import users
from concierge.storage.database import Database

TODAY = date(2025, 6, 10)
BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


def scalar(url: str, sql: str):
    """The first value of a plain SQL statement on the database at `url`."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text(sql)).scalar()
    finally:
        engine.dispose()


def figures(text: str) -> set[Decimal]:
    """The numbers an answer's prose states (its table left out)."""
    prose = "\n".join(line for line in text.splitlines() if not line.startswith("|"))
    return {Decimal(n.replace(",", "")) for n in re.findall(r"(?<![\d.,])\d[\d,]*(?:\.\d+)?", prose)}


async def ask(agent: Agent, pipeline: Pipeline, say: str, session: str | None = None):
    """One turn of the boss, in `session` when given."""
    return await agent.ask(say, pipeline.user("boss"), session_id=session)


class Drafted:
    def __init__(self, url: str, statements: list[str], tmp_path, name: str, *, today: date = TODAY):
        engine = sa.create_engine(url)
        try:
            with engine.begin() as conn:
                for statement in statements:
                    conn.execute(sa.text(statement))
        finally:
            engine.dispose()
        db = Database(url)
        try:
            self.schema = introspect(db)
        finally:
            db.dispose()
        self.draft = draft_catalog(self.schema, name)
        parse_catalog(self.draft.text, f"{name}.yaml")  # loads with no problem
        self.raw = yaml.safe_load(self.draft.text)
        file = tmp_path / f"{name}.yaml"
        file.write_text(self.draft.text, encoding="utf-8")
        self.url = url
        self.pipeline = open_pipeline([str(file)], url, today=today)
        users.add(self.pipeline.db, "boss", "admin")
        self.agent = Agent(self.pipeline, OfflineProvider(self.pipeline))

    def call(self, tool: str, args: dict):
        return self.pipeline.invoke(tool, args, self.pipeline.user("boss"))

    def invoke(self, tool: str, args: dict):
        result = self.call(tool, args)
        assert result.status == "ok", (tool, args, result.message)
        return result

    def scalar(self, sql: str):
        return scalar(self.url, sql)

    def rows(self, sql: str) -> list[tuple]:
        engine = sa.create_engine(self.url)
        try:
            with engine.connect() as conn:
                return [tuple(r) for r in conn.execute(sa.text(sql))]
        finally:
            engine.dispose()

    def tool(self, name: str) -> dict:
        return self.raw["tools"][name]

    def params(self, name: str) -> dict:
        return self.tool(name)["params"]

    def keywords(self, name: str) -> list[str]:
        return self.tool(name)["intents"]["keywords"]


def schema_fixture(name: str, statements: Callable[[], list[str]], today: date):
    """A test module's fixture: the schema `statements` make, drafted and served, on SQLite and on PostgreSQL."""

    @pytest.fixture(params=BACKENDS, scope="module")
    def drafted(request, tmp_path_factory):
        folder = tmp_path_factory.mktemp(name)
        with sqlite_or_postgres(request.param, request, folder, name) as url:
            made = Drafted(url, statements(), folder, name, today=today)
            yield made
            made.pipeline.close()

    return drafted


def assert_compared(turn, changes: dict[str, int], current: tuple[str, str], previous: tuple[str, str]) -> None:
    """The turn made one comparison of the periods given, its rows' changes are `changes` (by plain SQL), and the
    answer names the three largest falls, each with its own change."""
    fell = sorted((c, n) for n, c in changes.items() if c < 0)[:3]
    assert fell and len(set(changes.values())) == len(changes)  # the data gives each item a change of its own
    (call,) = turn.calls
    assert call.args == {"cur_start": current[0], "cur_end": current[1],
                         "prev_start": previous[0], "prev_end": previous[1]}, call
    assert {r["item"]: r["change"] for r in call.result.rows} == changes
    for change, item in fell:
        assert f"{item}（{change:,}）" in turn.answer or f"{item} ({change:,})" in turn.answer, turn.answer
