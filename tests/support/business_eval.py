"""Score drafted catalogs on business schemas nobody here designed: ask every question, judge every answer.

`run(module, url)` does what a new company's `concierge init` does (introspect the database, draft a
catalog, open it with the schema's clock), asks each of the module's QUESTIONS through the real
agent (a follow-up in the conversation of the question it follows), and gives one `Outcome` each:

- **right**: every expected figure is stated, and the prose adds no figure but those the question
  allows (`Question.may_state`: how many invoices a total adds up, say);
- **honest**: no figure at all beyond the numbers and dates the question contains, and no table of
  results: an ask, a refusal, or a stated limitation;
- **wrong**: anything else, a figure that is not the one asked for: the dangerous case.

A figure is a number or a name. Numbers are compared as numbers, thousands separators removed: a
count exactly, money to the cent (an integer yen is a count of yen); a number written with more
decimals than cents (81.23999999999998) states no amount of money. A name is found as text, ignoring
case, width and spaces, in the prose or in the first rows of a table (as many rows as names are
asked: a listing of every product names the best seller too, but does not say which it is). Dates
and times are never figures; neither are bare years, nor a count in the prose that is the number of
rows the table shows. Lines of a Markdown table are the result's rows: they may hold the expected
figures, and an extra number there (an id, a price per row) does not make a right answer wrong.
"""

from __future__ import annotations

import re
import tempfile
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import anyio
import sqlalchemy as sa
from business_schemas import Question

from concierge.agent.loop import Agent
from concierge.agent.providers.interface import Provider
from concierge.agent.providers.offline import OfflineProvider
from concierge.demo.bootstrap import open_pipeline
from concierge.onboarding.draft import draft_catalog
from concierge.onboarding.introspect import introspect
from concierge.pipeline.pipeline import Pipeline
from concierge.storage import users
from concierge.storage.database import Database

Verdict = Literal["right", "honest", "wrong"]
ProviderChoice = str | Callable[[Pipeline], Provider]
CENT = Decimal("0.01")


@dataclass(frozen=True)
class Figure:
    """One value a right answer states: a number (money compared to the cent) or a name."""

    value: Decimal | str
    money: bool = False

    @classmethod
    def of(cls, value: Any) -> Figure:
        if value is None:
            raise ValueError("a figure's SQL returned NULL")
        if isinstance(value, int):  # a bool too
            return cls(Decimal(int(value)))
        if isinstance(value, float | Decimal):
            return cls(Decimal(str(value)), money=True)
        if isinstance(value, datetime | date):
            return cls(value.isoformat())
        return cls(str(value))

    def matches(self, number: Decimal) -> bool:
        if isinstance(self.value, str):
            return False
        if not self.money:
            return number == self.value
        written_to_cents = number.as_tuple().exponent >= -2  # type: ignore[operator]
        return written_to_cents and abs(number - self.value) <= Decimal("0.005") + Decimal("1e-9")

    def __str__(self) -> str:
        if isinstance(self.value, str):
            return self.value
        return f"{self.value.quantize(CENT):,}" if self.money and self.value != int(self.value) else f"{self.value:,}"


@dataclass(frozen=True)
class Call:
    name: str
    args: Any
    status: str


@dataclass(frozen=True)
class Outcome:
    question: Question
    answer: str
    calls: tuple[Call, ...]
    verdict: Verdict
    expected: tuple[Figure, ...] = ()
    missing: tuple[Figure, ...] = ()  # expected figures the answer does not state
    extra: tuple[str, ...] = ()  # numbers the answer states that nobody asked for, as written


# --- reading an answer -----------------------------------------------------------------------------
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_DATES = re.compile("|".join([
    r"\d{4}-\d{1,2}-\d{1,2}(?:[t ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?",
    r"\d{4}/\d{1,2}(?:/\d{1,2})?",
    r"\d{4}-\d{2}(?!\d)",
    r"\d{4}年(?:\d{1,2}月(?:\d{1,2}日)?)?",
    r"\d{1,2}月(?:\d{1,2}日)?",
    r"\d{1,2}日",
    r"\d{1,2}:\d{2}(?::\d{2})?",
    r"(?<![\d,.])\d{1,2}/\d{1,2}(?![\d/])",
    rf"{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}",
    rf"\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\s+\d{{4}}",
    rf"{_MONTH}\s+\d{{4}}",
    rf"{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:\s*[-–〜~]\s*\d{{1,2}}(?:st|nd|rd|th)?)?(?!\d)",
]), re.IGNORECASE)
_NUMBER = re.compile(r"(?<![0-9A-Za-z_.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![0-9A-Za-z_])")


def _normal(text: str) -> str:
    return unicodedata.normalize("NFKC", text).replace("\u2019", "'").replace("\u2212", "-")


def numbers(text: str) -> list[str]:
    """The numbers a text states as written, dates and times left out."""
    return _NUMBER.findall(_DATES.sub(" ", _normal(text)))


def _value(written: str) -> Decimal:
    return Decimal(written.replace(",", ""))


def _is_year(written: str) -> bool:
    return written.isdigit() and 1900 <= int(written) <= 2100


def _names(text: str) -> str:
    return re.sub(r"\s+", "", _normal(text).casefold())


def _states(prose: str, rows: Sequence[str], figure: Figure, names: int) -> bool:
    """Whether the answer states the figure: a number anywhere; a name in the prose or in the first rows of
    its table, as many as the question asks names (a listing of every product names the best seller too)."""
    if isinstance(figure.value, str):
        return any(_names(figure.value) in _names(text) for text in (prose, *rows[:names]))
    return any(figure.matches(_value(n)) for n in numbers("\n".join((prose, *rows))))


def judge(question: str, answer: str, expected: Sequence[Figure], allowed: Sequence[Figure] = ()
          ) -> tuple[Verdict, tuple[Figure, ...], tuple[str, ...]]:
    """The verdict on one answer, the expected figures it leaves out, and the numbers it adds.

    `allowed` are true figures a right answer may add. A number in the prose that is the count of the
    table's rows is the size of the result shown, not a figure of its own.
    """
    asked = {_value(n) for n in numbers(question)}
    lines = answer.splitlines()
    table = [line for line in lines if line.lstrip().startswith("|")]
    rows = [line for line in table if not re.fullmatch(r"[\s|:-]*", line)][1:]  # the header is no row
    prose = "\n".join(line for line in lines if not line.lstrip().startswith("|"))
    known = [*expected, *allowed]

    named = [_normal(f.value) for f in known if isinstance(f.value, str)]

    def unasked(text: str, shown: int | None = None) -> list[str]:
        text = _normal(text)
        for name in named:  # the digits of a name asked for (Water Bottle - 30 oz.) are the name's
            text = text.replace(name, " ")
        return [n for n in numbers(text) if _value(n) not in asked and not _is_year(n) and _value(n) != shown
                and not any(f.matches(_value(n)) for f in known)]

    names = sum(isinstance(f.value, str) for f in expected)
    missing = tuple(f for f in expected if not _states(prose, rows, f, names))
    extra = unasked(prose, len(rows) if rows else None)
    if not missing and not extra:
        return "right", missing, ()
    in_table = unasked("\n".join(table))
    if not extra and not in_table and not rows:
        return "honest", missing, ()
    return "wrong", missing, tuple(extra or in_table)


# --- asking ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Expected:
    """A question's figures: those its answer must state, and those it may add."""

    figures: tuple[Figure, ...]
    allowed: tuple[Figure, ...] = ()


def expected_figures(module: ModuleType, url: str) -> dict[str, Expected]:
    """Each question's figures, by plain SQL on the business database."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            def values(statements: list[str]) -> tuple[Figure, ...]:
                return tuple(Figure.of(conn.execute(sa.text(sql)).scalar_one()) for sql in statements)

            return {q.id: Expected(values(q.figures_sql), values(q.may_state)) for q in module.QUESTIONS}
    finally:
        engine.dispose()


def draft(module: ModuleType, url: str) -> str:
    """The catalog `concierge init` drafts for the database, as YAML text."""
    db = Database(url)
    try:
        schema = introspect(db)
    finally:
        db.dispose()
    return draft_catalog(schema, _name(module)).text


def ask_all(module: ModuleType, url: str, catalog: str, *, provider: ProviderChoice = "offline",
            expected: dict[str, Expected] | None = None) -> list[Outcome]:
    """Every question of the module, asked through the agent on the drafted `catalog`, judged."""
    expected = expected if expected is not None else expected_figures(module, url)
    with tempfile.TemporaryDirectory(prefix="business_eval_") as folder:
        file = Path(folder) / f"{_name(module)}.yaml"
        file.write_text(catalog, encoding="utf-8")
        pipeline = open_pipeline([str(file)], url, today=module.TODAY)
        try:
            users.add(pipeline.db, "boss", "admin")
            agent = Agent(pipeline, _provider(provider, pipeline))
            return anyio.run(_ask, agent, pipeline, module.QUESTIONS, expected)
        finally:
            pipeline.close()


def run(module: ModuleType, url: str, *, provider: ProviderChoice = "offline") -> list[Outcome]:
    """Draft the catalog of a database the module created, ask its questions, judge the answers."""
    expected = expected_figures(module, url)  # before the pipeline adds its own tables
    return ask_all(module, url, draft(module, url), provider=provider, expected=expected)


def counts(outcomes: Iterable[Outcome]) -> dict[Verdict, int]:
    tally: dict[Verdict, int] = {"right": 0, "honest": 0, "wrong": 0}
    for o in outcomes:
        tally[o.verdict] += 1
    return tally


async def _ask(agent: Agent, pipeline: Pipeline, questions: Sequence[Question],
               expected: dict[str, Expected]) -> list[Outcome]:
    boss = pipeline.user("boss")
    sessions: dict[str, str] = {}
    said: dict[str, str] = {}  # what the person has said in the question's conversation, up to and with it
    outcomes = []
    for q in questions:
        session = sessions.get(q.follow_up) if q.follow_up else None
        if q.follow_up and session is None:
            raise ValueError(f"{q.id} follows {q.follow_up!r}, which is not asked before it")
        turn = await agent.ask(q.say, boss, session_id=session)
        sessions[q.id] = turn.session_id
        said[q.id] = f"{said[q.follow_up]}\n{q.say}" if q.follow_up else q.say
        figures = expected[q.id]  # a number the person said earlier in the conversation is theirs, as in this turn
        verdict, missing, extra = judge(said[q.id], turn.answer, figures.figures, figures.allowed)
        outcomes.append(Outcome(q, turn.answer, tuple(Call(c.name, c.args, c.status) for c in turn.calls), verdict,
                                figures.figures, missing, extra))
    return outcomes


def _provider(choice: ProviderChoice, pipeline: Pipeline) -> Provider:
    if callable(choice):
        return choice(pipeline)
    if choice == "offline":
        return OfflineProvider(pipeline)
    raise ValueError(f"unknown provider {choice!r}: 'offline', or a function of the pipeline")


def _name(module: ModuleType) -> str:
    return module.__name__.rsplit(".", 1)[-1]
