"""Business schemas nobody here designed, each with the questions its staff ask and the figures a right answer states.

Each module builds its tables and a seeded data set on SQLite or PostgreSQL (`create(url)`), names the
day its questions assume (`TODAY`: "last month" is the calendar month before it, "last week" Monday to
Sunday of the week before), lists `QUESTIONS`, and checks with `traps(url)` that what a careless draft
gets wrong is really in the data (two customers of one first name, a unit price beside an amount). The
figures of a question are plain SQL, written from the question and the data, never from what the
drafting code or the planner does with them:
`tests/support/business_eval.py` asks every question through the agent and scores the answer.

| name | what |
|---|---|
| `music_store` | a Chinook-like record shop: artists, albums, tracks, customers, invoices and their lines |
| `classic_shop` | a Northwind-like food wholesaler: products, suppliers, customers with text codes, orders |
| `romaji_wholesale` | a Japanese wholesaler whose identifiers are romaji (m_tokuisaki, t_juchu_meisai ...) |
| `film_rental` | a Sakila-like film rental chain: films, actors, categories, stores, customers, rentals, payments |
| `clinic` | a Japanese clinic's bookings and billing: romaji identifiers (kanja, yoyaku, kaikei), Japanese comments |
| `hotel` | a small hotel: guests, rooms of a few types, stays (a check-out empty while the guest is in), payments |
| `cycle_works` | a bicycle maker's sales named in PascalCase as SQL Server samples are (SalesOrderHeader, OrderQty) |
| `warehouse` | a distributor's warehouses in terse abbreviations (wh, sku_mst, po_hdr, so_dtl, qty_on_hand, rcv_dt) |
| `gym` | a fitness club chain an ORM created: quoted camelCase ("Members"."cancelledAt"), createdAt on every table |
| `salon` | a hair salon chain whose tables and columns are named in Japanese (店舗, 顧客, 来店, 施術明細) |
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Literal

import sqlalchemy as sa

Kind = Literal["count", "count_by_entity_name", "per_entity_key", "top_entity", "total_in_period",
               "count_in_category", "list_filtered", "follow_up", "sum_lines"]

NAMES = ("music_store", "classic_shop", "romaji_wholesale", "film_rental", "clinic", "hotel", "cycle_works", "salon",
         "warehouse", "gym")


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


def load(url: str, metadata: sa.MetaData, rows: Mapping[sa.Table, list[dict]]) -> None:
    """A schema's tables (with their comments, on PostgreSQL) and its seeded rows, the same on both engines."""
    engine = sa.create_engine(url)
    try:
        metadata.create_all(engine)
        with engine.begin() as conn:
            for table, data in rows.items():
                conn.execute(table.insert(), data)
    finally:
        engine.dispose()


def scalar(url: str, sql: str):
    """The one value of a plain SQL statement on the database at `url`."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text(sql)).scalar_one()
    finally:
        engine.dispose()


def schema(name: str) -> ModuleType:
    """The module of one business schema, by its name in NAMES."""
    if name not in NAMES:
        raise KeyError(f"no business schema {name!r}; there are {', '.join(NAMES)}")
    return importlib.import_module(f"{__name__}.{name}")


def schemas() -> dict[str, ModuleType]:
    """Every business schema, name -> module."""
    return {name: schema(name) for name in NAMES}
