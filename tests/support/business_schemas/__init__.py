"""Business schemas nobody here designed, each with the questions its staff ask and the figures a right answer states.

Each module builds its tables and a seeded data set on SQLite or PostgreSQL (`create(url)`), names the
day its questions assume (`TODAY`: "last month" is the calendar month before it, "last week" Monday to
Sunday of the week before) and lists `QUESTIONS`. The figures of a question are plain SQL, written
from the question and the data, never from what the drafting code or the planner does with them:
`tests/support/business_eval.py` asks every question through the agent and scores the answer.

| name | what |
|---|---|
| `music_store` | a Chinook-like record shop: artists, albums, tracks, customers, invoices and their lines |
| `classic_shop` | a Northwind-like food wholesaler: products, suppliers, customers with text codes, orders |
| `romaji_wholesale` | a Japanese wholesaler whose identifiers are romaji (m_tokuisaki, t_juchu_meisai ...) |
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import ModuleType
from typing import Literal

Kind = Literal["count", "count_by_entity_name", "per_entity_key", "top_entity", "total_in_period",
               "count_in_category", "list_filtered", "follow_up", "sum_lines"]

NAMES = ("music_store", "classic_shop", "romaji_wholesale")


@dataclass(frozen=True)
class Question:
    """One question as staff type it, and the plain SQL of each figure (one value per statement) its answer states.

    `follow_up` is the id of the question this one continues: both are asked in one conversation.
    `may_state` are figures a right answer may add beside those asked for, because they are true and
    belong with them (how many invoices a total adds up); any other figure it adds is wrong.
    """

    id: str
    say: str
    figures_sql: list[str]
    kind: Kind
    follow_up: str | None = None
    may_state: list[str] = field(default_factory=list)


def schema(name: str) -> ModuleType:
    """The module of one business schema, by its name in NAMES."""
    if name not in NAMES:
        raise KeyError(f"no business schema {name!r}; there are {', '.join(NAMES)}")
    return importlib.import_module(f"{__name__}.{name}")


def schemas() -> dict[str, ModuleType]:
    """Every business schema, name -> module."""
    return {name: schema(name) for name in NAMES}
