"""How long `concierge init` takes on a company-sized schema: 10 tables, about 1,000,000 rows.

    .venv/bin/python bench/init_time.py [--db sqlite --db postgres] [--runs 3] [--rebuild] [--drop]

The schema is a wholesaler's (regions, branches, employees, categories, suppliers, products,
customers, orders, order lines, payments), with primary and foreign keys, an index on every
foreign key and date column, low-cardinality text columns (segment, status, method) and integer
amounts in cents. It is built once with a fixed seed (SQLite file under --dir, by executemany in
one transaction; PostgreSQL database `concierge_bench_init` on --pg-url, by COPY, then ANALYZE) and
kept for the next run (--rebuild makes it again, --drop removes it).

Then, per database: the wall time of `concierge init --database URL --dir DIR` as a user runs it
(the installed command in a subprocess, a fresh DIR each run; median and range of --runs), the
part of it spent introspecting and sampling (`concierge.onboarding.introspect`, timed in this
process), the command's start-up alone (`concierge --help`), and `concierge catalog check` on the
draft it wrote. No figure is asserted anywhere.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime, timedelta
from pathlib import Path

import machine
import psycopg
import sqlalchemy as sa
from sqlalchemy.engine import make_url

DEFAULT_DIR = Path("/tmp/concierge-bench/init")
DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/postgres"
PG_NAME = "concierge_bench_init"
SEED = 11
CONCIERGE = str(Path(sys.executable).with_name("concierge"))

SIZES = {  # rows per table: 996,000 in all
    "regions": 10, "branches": 50, "employees": 500, "categories": 40, "suppliers": 400,
    "products": 5_000, "customers": 20_000, "orders": 200_000, "order_lines": 620_000, "payments": 150_000,
}
FIRST_DAY = date(2023, 1, 1)
DAYS = 730

metadata = sa.MetaData()
sa.Table("regions", metadata, sa.Column("id", sa.Integer, primary_key=True),
         sa.Column("name", sa.String(40), nullable=False, unique=True))
sa.Table("branches", metadata, sa.Column("id", sa.Integer, primary_key=True),
         sa.Column("name", sa.String(60), nullable=False),
         sa.Column("region_id", sa.Integer, sa.ForeignKey("regions.id"), nullable=False, index=True),
         sa.Column("opened_on", sa.Date, nullable=False))
sa.Table("employees", metadata, sa.Column("id", sa.Integer, primary_key=True),
         sa.Column("full_name", sa.String(80), nullable=False),
         sa.Column("branch_id", sa.Integer, sa.ForeignKey("branches.id"), nullable=False, index=True),
         sa.Column("title", sa.String(30), nullable=False), sa.Column("hired_on", sa.Date, nullable=False))
sa.Table("categories", metadata, sa.Column("id", sa.Integer, primary_key=True),
         sa.Column("name", sa.String(60), nullable=False, unique=True))
sa.Table("suppliers", metadata, sa.Column("id", sa.Integer, primary_key=True),
         sa.Column("company_name", sa.String(80), nullable=False), sa.Column("country", sa.String(30), nullable=False))
sa.Table("products", metadata, sa.Column("id", sa.Integer, primary_key=True),
         sa.Column("sku", sa.String(20), nullable=False, unique=True),
         sa.Column("name", sa.String(80), nullable=False),
         sa.Column("category_id", sa.Integer, sa.ForeignKey("categories.id"), nullable=False, index=True),
         sa.Column("supplier_id", sa.Integer, sa.ForeignKey("suppliers.id"), nullable=False, index=True),
         sa.Column("unit_price_cents", sa.Integer, nullable=False))
sa.Table("customers", metadata, sa.Column("id", sa.Integer, primary_key=True),
         sa.Column("name", sa.String(80), nullable=False), sa.Column("email", sa.String(120), nullable=False),
         sa.Column("city", sa.String(40), nullable=False), sa.Column("segment", sa.String(20), nullable=False),
         sa.Column("branch_id", sa.Integer, sa.ForeignKey("branches.id"), nullable=False, index=True),
         sa.Column("created_on", sa.Date, nullable=False))
sa.Table("orders", metadata, sa.Column("id", sa.Integer, primary_key=True),
         sa.Column("customer_id", sa.Integer, sa.ForeignKey("customers.id"), nullable=False, index=True),
         sa.Column("employee_id", sa.Integer, sa.ForeignKey("employees.id"), nullable=False, index=True),
         sa.Column("ordered_at", sa.DateTime, nullable=False, index=True),
         sa.Column("status", sa.String(20), nullable=False),
         sa.Column("total_cents", sa.Integer, nullable=False))
sa.Table("order_lines", metadata, sa.Column("id", sa.Integer, primary_key=True),
         sa.Column("order_id", sa.Integer, sa.ForeignKey("orders.id"), nullable=False, index=True),
         sa.Column("product_id", sa.Integer, sa.ForeignKey("products.id"), nullable=False, index=True),
         sa.Column("quantity", sa.Integer, nullable=False),
         sa.Column("unit_price_cents", sa.Integer, nullable=False),
         sa.Column("amount_cents", sa.Integer, nullable=False))
sa.Table("payments", metadata, sa.Column("id", sa.Integer, primary_key=True),
         sa.Column("order_id", sa.Integer, sa.ForeignKey("orders.id"), nullable=False, index=True),
         sa.Column("paid_on", sa.Date, nullable=False, index=True),
         sa.Column("method", sa.String(20), nullable=False),
         sa.Column("amount_cents", sa.Integer, nullable=False))

WORDS = ("amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "harbor", "iris", "juniper", "kestrel",
         "lumen", "maple", "nova", "onyx", "pine", "quartz", "raven", "sage", "tidal", "umber", "vale", "willow")
CITIES = ("Osaka", "Tokyo", "Nagoya", "Sapporo", "Fukuoka", "Sendai", "Kobe", "Kyoto", "Hiroshima", "Naha")
SEGMENTS = ("retail", "wholesale", "online", "corporate")
STATUSES = ("placed", "paid", "shipped", "delivered", "cancelled")
METHODS = ("card", "bank_transfer", "cash", "invoice")
TITLES = ("clerk", "sales", "manager", "driver", "buyer")


def rows(rng: random.Random) -> dict[str, list[tuple]]:
    """Every table's rows as tuples in column order, the same for the same seed."""
    n = SIZES
    word = lambda: rng.choice(WORDS)  # noqa: E731
    day = lambda: FIRST_DAY + timedelta(days=rng.randrange(DAYS))  # noqa: E731
    out: dict[str, list[tuple]] = {
        "regions": [(i, f"Region {word().title()} {i}") for i in range(1, n["regions"] + 1)],
        "branches": [(i, f"{word().title()} branch {i}", rng.randint(1, n["regions"]), day())
                     for i in range(1, n["branches"] + 1)],
        "employees": [(i, f"{word().title()} {word().title()}", rng.randint(1, n["branches"]), rng.choice(TITLES),
                       day()) for i in range(1, n["employees"] + 1)],
        "categories": [(i, f"{word()} {i}") for i in range(1, n["categories"] + 1)],
        "suppliers": [(i, f"{word().title()} Trading {i}", rng.choice(CITIES)) for i in range(1, n["suppliers"] + 1)],
        "products": [(i, f"SKU-{i:06d}", f"{word()} {word()} {i}", rng.randint(1, n["categories"]),
                      rng.randint(1, n["suppliers"]), rng.randint(50, 50_000)) for i in range(1, n["products"] + 1)],
        "customers": [(i, f"{word().title()} {word().title()}", f"c{i}@example.com", rng.choice(CITIES),
                       rng.choice(SEGMENTS), rng.randint(1, n["branches"]), day())
                      for i in range(1, n["customers"] + 1)],
    }
    prices = [p[5] for p in out["products"]]
    lines, totals = [], [0] * (n["orders"] + 1)
    for i in range(1, n["order_lines"] + 1):
        order, product, quantity = rng.randint(1, n["orders"]), rng.randint(1, n["products"]), rng.randint(1, 20)
        price = prices[product - 1]
        lines.append((i, order, product, quantity, price, price * quantity))
        totals[order] += price * quantity
    start = datetime.combine(FIRST_DAY, datetime.min.time())
    out["orders"] = [(i, rng.randint(1, n["customers"]), rng.randint(1, n["employees"]),
                      start + timedelta(minutes=(i - 1) * DAYS * 1440 // n["orders"]), rng.choice(STATUSES),
                      totals[i]) for i in range(1, n["orders"] + 1)]
    out["order_lines"] = lines
    out["payments"] = [(i, i, FIRST_DAY + timedelta(days=(i - 1) * DAYS // n["orders"] + rng.randint(0, 3)),
                        rng.choice(METHODS), totals[i]) for i in range(1, n["payments"] + 1)]
    return out


def build_sqlite(path: Path, data: dict[str, list[tuple]]) -> None:
    path.unlink(missing_ok=True)
    engine = sa.create_engine(f"sqlite:///{path}")
    metadata.create_all(engine)
    engine.dispose()
    import sqlite3

    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=OFF")
    conn.execute("PRAGMA synchronous=OFF")
    with conn:
        for table in metadata.sorted_tables:
            marks = ", ".join("?" * len(table.columns))
            values = [tuple(v.isoformat(" ") if isinstance(v, datetime) else v.isoformat() if isinstance(v, date)
                            else v for v in row) for row in data[table.name]]
            conn.executemany(f"INSERT INTO {table.name} VALUES ({marks})", values)
    conn.execute("ANALYZE")
    conn.close()


def build_postgres(server: str, data: dict[str, list[tuple]]) -> str:
    url = make_url(server)
    admin = sa.create_engine(url.set(drivername="postgresql+psycopg"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{PG_NAME}"'))
        conn.execute(sa.text(f'CREATE DATABASE "{PG_NAME}"'))
    admin.dispose()
    target = url.set(database=PG_NAME)
    engine = sa.create_engine(target.set(drivername="postgresql+psycopg"))
    metadata.create_all(engine)
    engine.dispose()
    with psycopg.connect(target.set(drivername="postgresql").render_as_string(hide_password=False)) as conn:
        for table in metadata.sorted_tables:
            with conn.cursor().copy(f"COPY {table.name} FROM STDIN") as copy:
                for row in data[table.name]:
                    copy.write_row(row)
        conn.commit()
        conn.autocommit = True
        conn.execute("ANALYZE")
    return target.render_as_string(hide_password=False)


def pg_database(server: str) -> str:
    return make_url(server).set(database=PG_NAME).render_as_string(hide_password=False)


def pg_exists(server: str) -> bool:
    engine = sa.create_engine(make_url(server).set(drivername="postgresql+psycopg"))
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": PG_NAME}).first() \
                is not None
    finally:
        engine.dispose()


def drop(folder: Path, server: str) -> None:
    (folder / "init.db").unlink(missing_ok=True)
    engine = sa.create_engine(make_url(server).set(drivername="postgresql+psycopg"), isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{PG_NAME}"'))
    engine.dispose()


def count_rows(url: str) -> tuple[int, int]:
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with engine.connect() as conn:
            names = sa.inspect(conn).get_table_names()
            return len(names), sum(conn.execute(sa.text(f"SELECT count(*) FROM {n}")).scalar_one() for n in names)
    finally:
        engine.dispose()


def timed(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    done = subprocess.run([CONCIERGE, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)
    return time.perf_counter() - start, done


def introspect_s(url: str) -> float | None:
    try:
        from concierge.onboarding.introspect import introspect
        from concierge.storage.database import Database
    except ImportError:
        return None
    db = Database(url)
    try:
        start = time.perf_counter()
        introspect(db)
        return time.perf_counter() - start
    finally:
        db.dispose()


def measure(name: str, url: str, runs: int) -> dict:
    tables, total = count_rows(url)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONCIERGE_")}
    with tempfile.TemporaryDirectory(prefix="concierge-init-") as tmp:
        work = Path(tmp)
        env["HOME"] = str(work)
        startup = min(timed(["--help"], work, env)[0] for _ in range(3))
        walls = []
        for i in range(runs):
            wall, done = timed(["init", "--database", url, "--dir", f"shop{i}"], work, env)
            if done.returncode != 0:
                sys.exit(f"concierge init failed on {name}:\n{done.stdout}{done.stderr}")
            walls.append(wall)
        check_wall, check = timed(["catalog", "check"], work / "shop0", env)
    return {"db": name, "tables": tables, "rows": total, "init": walls, "introspect": introspect_s(url),
            "startup": startup, "check": check_wall, "check_rc": check.returncode,
            "check_last": (check.stdout.strip().splitlines() or [""])[-1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", action="append", choices=["sqlite", "postgres"])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--pg-url", default=DEFAULT_PG)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--drop", action="store_true")
    args = parser.parse_args()
    if args.drop:
        drop(args.dir, args.pg_url)
        return
    kinds = args.db or ["sqlite", "postgres"]
    args.dir.mkdir(parents=True, exist_ok=True)
    sqlite_path = args.dir / "init.db"
    need = [k for k in kinds if args.rebuild or (k == "sqlite" and not sqlite_path.exists())
            or (k == "postgres" and not pg_exists(args.pg_url))]
    if need:
        start = time.perf_counter()
        data = rows(random.Random(SEED))
        print(f"data: {sum(len(v) for v in data.values()):,} rows in {time.perf_counter() - start:.1f} s",
              file=sys.stderr)
        for kind in need:
            start = time.perf_counter()
            if kind == "sqlite":
                build_sqlite(sqlite_path, data)
            else:
                build_postgres(args.pg_url, data)
            print(f"built {kind} in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    urls = {"sqlite": f"sqlite:///{sqlite_path}", "postgres": pg_database(args.pg_url)}
    out = io.StringIO()
    print(machine.header(), file=out)
    print(f"{'database':<10} {'tables':>6} {'rows':>11} {'init median s':>14} {'init range s':>14} "
          f"{'introspect s':>13} {'start-up s':>11} {'check s':>8} {machine.LOAD}  check says", file=out)
    for kind in kinds:
        r = measure(kind, urls[kind], args.runs)
        spread = f"{min(r['init']):.2f}-{max(r['init']):.2f}"
        intro = f"{r['introspect']:.2f}" if r["introspect"] is not None else "n/a"
        print(f"{kind:<10} {r['tables']:>6} {r['rows']:>11,} {statistics.median(r['init']):>14.2f} {spread:>14} "
              f"{intro:>13} {r['startup']:>11.2f} {r['check']:>8.2f} {machine.load()}  "
              f"exit {r['check_rc']}: {r['check_last']}",
              file=out)
    print(out.getvalue(), end="")


if __name__ == "__main__":
    main()
