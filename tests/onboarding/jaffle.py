"""The dbt "Jaffle Shop" data, made by the PyPI package `jafgen`, as a real company would keep it.

A schema nobody here designed: the onboarding tests point `concierge init` at it.
`jafgen` has no seed option; it draws from `random`, `numpy.random`, Faker's
shared generator and `uuid.uuid4` (the keys). `generate` seeds the first three,
replaces `uuid.uuid4` by a seeded one while it runs, restores all of them
afterwards, and simulates fewer days than the command's whole year (the
simulation is the same, day by day, only shorter), so the same call gives the
same rows every time, in a few seconds.

`load` writes the rows into SQLite, PostgreSQL or MariaDB with the types a company
would use: timestamps and dates, integer cents, uuid keys (PostgreSQL's own
`uuid` type there, text elsewhere), primary keys, foreign keys and indexes on them. The
tables are jafgen's CSV files without the `raw_` prefix, with its column names.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import numpy as np
import sqlalchemy as sa
from faker import Faker
from faker.generator import random as faker_random
from jafgen.curves import Day
from jafgen.simulation import Simulation  # imported before seeding: its import seeds Faker itself
from jafgen.stores.inventory import Inventory
from jafgen.stores.stock import Stock

SEED = 20180901
DAYS = 240  # 2018-09-01 .. 2019-04-28: Philadelphia from day 0, Brooklyn from day 192

metadata = sa.MetaData()
KEY = sa.Uuid(as_uuid=False).with_variant(sa.String(36), "sqlite", "mysql", "mariadb")  # CHAR(36) text there

stores = sa.Table(
    "stores", metadata,
    sa.Column("id", KEY, primary_key=True),
    sa.Column("name", sa.String(100), nullable=False, unique=True),
    sa.Column("opened_at", sa.Date, nullable=False),
    sa.Column("tax_rate", sa.Numeric(6, 4), nullable=False),
)
customers = sa.Table(
    "customers", metadata,
    sa.Column("id", KEY, primary_key=True),
    sa.Column("name", sa.String(200), nullable=False),
)
products = sa.Table(
    "products", metadata,
    sa.Column("sku", sa.String(20), primary_key=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("type", sa.String(20), nullable=False),
    sa.Column("price", sa.Integer, nullable=False),  # cents
    sa.Column("description", sa.Text),
)
orders = sa.Table(
    "orders", metadata,
    sa.Column("id", KEY, primary_key=True),
    sa.Column("customer", KEY, sa.ForeignKey("customers.id"), nullable=False, index=True),
    sa.Column("ordered_at", sa.DateTime, nullable=False, index=True),
    sa.Column("store_id", KEY, sa.ForeignKey("stores.id"), nullable=False, index=True),
    sa.Column("subtotal", sa.Integer, nullable=False),  # cents
    sa.Column("tax_paid", sa.Integer, nullable=False),
    sa.Column("order_total", sa.Integer, nullable=False),
)
items = sa.Table(
    "items", metadata,
    sa.Column("id", KEY, primary_key=True),
    sa.Column("order_id", KEY, sa.ForeignKey("orders.id"), nullable=False, index=True),
    sa.Column("sku", sa.String(20), sa.ForeignKey("products.sku"), nullable=False, index=True),
)
supplies = sa.Table(
    "supplies", metadata,
    sa.Column("id", sa.String(20), primary_key=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("cost", sa.Integer, nullable=False),  # cents
    sa.Column("perishable", sa.Boolean, nullable=False),
    sa.Column("sku", sa.String(20), sa.ForeignKey("products.sku"), primary_key=True),
)
tweets = sa.Table(
    "tweets", metadata,
    sa.Column("id", KEY, primary_key=True),
    sa.Column("user_id", KEY, sa.ForeignKey("customers.id"), nullable=False, index=True),
    sa.Column("tweeted_at", sa.DateTime, nullable=False),
    sa.Column("content", sa.Text, nullable=False),
)
ORDER = [stores, customers, products, orders, items, supplies, tweets]  # parents before children

Rows = dict[str, list[dict[str, Any]]]


@contextmanager
def _seeded(seed: int) -> Iterator[None]:
    saved = random.getstate(), np.random.get_state(), faker_random.getstate(), uuid.uuid4
    keys = random.Random(seed)
    random.seed(seed)
    np.random.seed(seed % 2**32)
    Faker.seed(seed)
    uuid.uuid4 = lambda: uuid.UUID(int=keys.getrandbits(128), version=4)
    try:
        yield
    finally:
        random.setstate(saved[0])
        np.random.set_state(saved[1])
        faker_random.setstate(saved[2])
        uuid.uuid4 = saved[3]


def generate(days: int = DAYS, seed: int = SEED) -> Rows:
    """jafgen's tables for `days` days from 2018-09-01, as its CSV files have them (all values text)."""
    with _seeded(seed):
        sim = Simulation(1, "raw")
        for i in range(days):  # Simulation.run_simulation, without its progress bar
            day = Day(i)
            for market in sim.markets:
                for order, tweet in market.sim_day(day):
                    if order:
                        sim.orders.append(order)
                        sim.customers.setdefault(order.customer.customer_id, order.customer)
                    if tweet:
                        sim.tweets.append(tweet)
        rows: Rows = {  # Simulation.save_results, without the files
            "customers": [c.to_dict() for c in sim.customers.values()],
            "orders": [o.to_dict() for o in sim.orders],
            "items": [i.to_dict() for o in sim.orders for i in o.items],
            "stores": [m.store.to_dict() for m in sim.markets],
            "supplies": Stock.to_dict(),
            "products": Inventory.to_dict(),
            "tweets": [t.to_dict() for t in sim.tweets],
        }
    return rows


def _typed(table: sa.Table, row: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for column in table.columns:
        value = row[column.name]
        kind = column.type.python_type if not isinstance(column.type, sa.Uuid) else str
        if kind is datetime:
            value = datetime.fromisoformat(value)
        elif kind is date:
            value = datetime.fromisoformat(value).date()
        elif kind is bool:
            value = value in (True, "True")
        elif kind is int:
            value = int(value)
        elif kind is Decimal:
            value = Decimal(value)
        out[column.name] = value
    return out


def load(url: str, rows: Rows) -> None:
    """Create the tables and insert the rows (the database is expected to have none of them)."""
    engine = sa.create_engine(url)
    try:
        metadata.create_all(engine)
        with engine.begin() as conn:
            for table in ORDER:
                data = [_typed(table, r) for r in rows[table.name]]
                if table is tweets:  # jafgen tweets about orders it then drops (no items): keep known users
                    known = {r["id"] for r in rows["customers"]}
                    data = [r for r in data if r["user_id"] in known]
                for start in range(0, len(data), 5000):
                    conn.execute(table.insert(), data[start:start + 5000])
    finally:
        engine.dispose()
