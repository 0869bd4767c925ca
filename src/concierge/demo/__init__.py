"""Install the demo businesses (and the demo users) into a database."""

from __future__ import annotations

import sqlalchemy as sa

from concierge import schema
from concierge.db import Database
from concierge.demo import farm, pos

DEMO_USERS = [  # name, role, display name (shared/spec/demo-data.md §3)
    ("admin", "admin", "管理者"),
    ("tanaka", "sales_rep", "田中(営業)"),
    ("suzuki", "viewer", "鈴木(閲覧)"),
    ("pos_analyst", "analyst", "POSアナリスト"),
]


def create_state(db: Database) -> None:
    """Create concierge's own tables and the demo users where missing."""
    with db.write() as conn:
        schema.metadata.create_all(conn, tables=schema.STATE_TABLES)
        have = set(conn.scalars(sa.select(schema.users.c.name)))
        new = [{"name": n, "role": r, "display_name": d} for n, r, d in DEMO_USERS if n not in have]
        if new:
            conn.execute(schema.users.insert(), new)


def is_installed(db: Database, demo: str) -> bool:
    inspector = sa.inspect(db.engine)
    return all(inspector.has_table(t.name) for t in schema.DEMO_TABLES[demo])


def install(db: Database, demo: str, *, replace: bool = False) -> dict[str, int]:
    """Create the demo tables and load their generated rows; returns row counts per table."""
    create_state(db)
    tables = schema.DEMO_TABLES[demo]
    with db.write() as conn:
        if replace:
            schema.metadata.drop_all(conn, tables=list(reversed(tables)))
        schema.metadata.create_all(conn, tables=tables)
        if conn.scalar(sa.select(sa.func.count()).select_from(tables[0])):
            return {t.name: conn.scalar(sa.select(sa.func.count()).select_from(t)) for t in tables}
        data = _generate(demo)
        for table in tables:
            conn.execute(table.insert(), data[table.name])
        return {t.name: len(data[t.name]) for t in tables}


def _generate(demo: str) -> dict[str, list[dict]]:
    if demo == "farm":
        return {"farm_customers": farm.customers(), "farm_sales": farm.sales()}
    return {"pos_sales": pos.rows()}
