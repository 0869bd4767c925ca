"""A small shop schema made here, for the draft and init tests, on SQLite, PostgreSQL and MariaDB.

It has what real schemas have and the draft must cope with: foreign keys (one to a small table),
a view, a mixed-case reserved-word column ("Group"), dates kept as TEXT, a timestamp, amounts,
and on PostgreSQL and MariaDB comments (some in Japanese). Its names are not the draft's business: the tests
ask the database what to expect, never the names.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta

import sqlalchemy as sa

REGIONS = [("R01", "North"), ("R02", "South"), ("R03", "Harbour")]
GROUPS = ["gold", "silver", "bronze"]
STATUSES = ["placed", "shipped", "returned"]


def rows(seed: int = 7):
    rnd = random.Random(seed)
    customers = [(f"C-{i:04d}", f"{rnd.choice(['Anna', 'Ben', 'Chika', 'Dai', 'Emma'])} {name}",
                  REGIONS[i % 3][0], GROUPS[i % 3], (date(2024, 1, 1) + timedelta(days=7 * i)).isoformat())
                 for i, name in enumerate(["Smith", "Sato", "Jones", "Suzuki", "Brown", "Tanaka", "Lee", "Kato",
                                           "Wilson", "Ito", "Moore", "Yamada"], start=1)]
    orders = []
    for i in range(1, 241):
        at = datetime(2025, 3, 1, 9, 0) + timedelta(hours=11 * i)
        orders.append((i, customers[rnd.randrange(len(customers))][0], STATUSES[rnd.randrange(3)], at,
                       rnd.randrange(100, 5000), rnd.randrange(1, 6)))
    return customers, orders


def create(url: str) -> None:
    engine = sa.create_engine(url)
    pg, mysql = engine.dialect.name == "postgresql", engine.dialect.name in ("mysql", "mariadb")
    ts = "DATETIME(6)" if mysql else "TIMESTAMP"  # MySQL's TIMESTAMP is a time zone's, and defaults to now
    group = engine.dialect.identifier_preparer.quote("Group")
    customers, orders = rows()
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE regions (code VARCHAR(3) PRIMARY KEY, name TEXT NOT NULL)"))
        conn.execute(sa.text(  # a foreign key as a table constraint: MySQL ignores REFERENCES on a column
            'CREATE TABLE customers (id VARCHAR(6) PRIMARY KEY, full_name TEXT NOT NULL, '
            f'region_code VARCHAR(3), {group} TEXT, joined_on TEXT, '
            'FOREIGN KEY (region_code) REFERENCES regions(code))'))
        conn.execute(sa.text(
            f"CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id VARCHAR(6), "
            f"status TEXT NOT NULL, ordered_at {ts} NOT NULL, amount NUMERIC(10, 2) NOT NULL, quantity INTEGER, "
            f"FOREIGN KEY (customer_id) REFERENCES customers(id))"))
        conn.execute(sa.text("CREATE INDEX orders_ordered_at ON orders (ordered_at)"))
        conn.execute(sa.text(
            "CREATE VIEW big_orders AS SELECT id, customer_id, ordered_at, amount FROM orders WHERE amount >= 2500"))
        conn.execute(sa.text("INSERT INTO regions VALUES (:c, :n)"), [{"c": c, "n": n} for c, n in REGIONS])
        conn.execute(sa.text("INSERT INTO customers VALUES (:i, :n, :r, :g, :j)"),
                     [dict(zip("inrgj", c, strict=True)) for c in customers])
        conn.execute(sa.text("INSERT INTO orders VALUES (:i, :c, :s, :a, :m, :q)"),
                     [dict(zip("icsamq", o, strict=True)) for o in orders])
        if pg:
            conn.execute(sa.text("COMMENT ON TABLE customers IS '顧客'"))
            conn.execute(sa.text("COMMENT ON COLUMN customers.full_name IS '氏名'"))
            conn.execute(sa.text("COMMENT ON TABLE orders IS 'Orders placed by customers'"))
        if mysql:
            conn.execute(sa.text("ALTER TABLE customers COMMENT = '顧客'"))
            conn.execute(sa.text("ALTER TABLE customers MODIFY full_name TEXT NOT NULL COMMENT '氏名'"))
            conn.execute(sa.text("ALTER TABLE orders COMMENT = 'Orders placed by customers'"))
    engine.dispose()
