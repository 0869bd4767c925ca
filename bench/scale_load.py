"""Bulk-load the scaled CSV exports into SQLite or PostgreSQL (used by bench/scale_data.py).

PostgreSQL: COPY into the bare table, then its primary key, indexes and foreign keys, then
VACUUM (ANALYZE). SQLite: executemany in transactions of 200,000 rows with the journal off and a
large cache, secondary indexes after the load, then ANALYZE and back to WAL. Either way the result
has the tables, keys and indexes of ``concierge.schema``; a small `bench_dataset` table records
which demo of which size is complete.
"""

from __future__ import annotations

import csv
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url

from concierge.catalog.loader import load_catalog
from concierge.demo.farm import tables as farm_tables
from concierge.demo.pos import csv_import as pos_import
from concierge.demo.pos import tables as pos_tables
from concierge.storage import rollups
from concierge.storage.database import Database
from concierge.storage.migrate import ensure_state

FARM_CUSTOMER_COLUMNS = {"顧客コード": "code", "氏名": "name", "住所": "address", "電話番号": "phone",
                         "担当": "assigned_to"}
FARM_SALES_COLUMNS = {"販売番号": "sales_number", "顧客コード": "customer_code", "販売日": "sale_date",
                      "商品": "products", "金額": "price"}
_LOADS = {  # demo -> (table of concierge.schema, CSV name, columns) in load order
    "farm": [(farm_tables.farm_customers, "farm_customers", FARM_CUSTOMER_COLUMNS),
             (farm_tables.farm_sales, "farm_sales", FARM_SALES_COLUMNS)],
    "pos": [(pos_tables.pos_sales, "pos", pos_import.COLUMNS)],
}
DEMOS = tuple(_LOADS)
Load = tuple[sa.Table, str, dict[str, str]]  # a table, the CSV export it is loaded from, CSV header -> column
_MARKER = sa.Table("bench_dataset", sa.MetaData(), sa.Column("demo", sa.String(10), primary_key=True),
                   sa.Column("rows", sa.BigInteger, nullable=False))


def loads(demo: str) -> list[Load]:
    """`demo`'s tables in load order, as fresh copies of concierge.schema's, one set per load. DDL changes the
    tables it is compiled from (`AddConstraint` keeps its constraint out of every later CREATE TABLE of that
    table), so a load must never compile from the tables another load, or concierge, creates from."""
    metadata = sa.MetaData()
    return [(table.to_metadata(metadata), name, columns) for table, name, columns in _LOADS[demo]]


@dataclass(frozen=True)
class Structure:
    """A table's primary key columns, index names and number of foreign keys."""

    primary_key: tuple[str, ...]
    indexes: frozenset[str]
    foreign_keys: int


def expected(demo: str) -> dict[str, Structure]:
    """What every engine's copy of `demo`'s tables must have: concierge.schema's keys and indexes."""
    return {table.name: Structure(tuple(c.name for c in table.primary_key.columns),
                                  frozenset(ix.name for ix in table.indexes if ix.name),
                                  len(table.foreign_key_constraints))
            for table, _, _ in _LOADS[demo]}


def lacking(found: dict[str, Structure], demo: str) -> list[str]:
    """What the tables `found` lack of `demo`'s schema, in words; empty when nothing."""
    said = []
    for name, want in expected(demo).items():
        have = found.get(name)
        if have is None:
            said.append(f"{name} itself")
            continue
        if have.primary_key != want.primary_key:
            said.append(f"{name}'s primary key ({', '.join(want.primary_key)})")
        said += [f"{name}'s index {ix}" for ix in sorted(want.indexes - have.indexes)]
        if have.foreign_keys < want.foreign_keys:
            said.append(f"{name}'s foreign keys")
    return said


def structure(url: str, demo: str) -> dict[str, Structure]:
    """The keys and indexes `demo`'s tables have on the database `url` (SQLite, PostgreSQL, MariaDB)."""
    engine = sa.create_engine(url)
    try:
        inspector = sa.inspect(engine)
        return {name: Structure(tuple(inspector.get_pk_constraint(name)["constrained_columns"]),
                                frozenset(ix["name"] for ix in inspector.get_indexes(name) if ix["name"]),
                                len(inspector.get_foreign_keys(name)))
                for name in expected(demo) if inspector.has_table(name)}
    finally:
        engine.dispose()


def is_loaded(url: str, demo: str, rows: int) -> bool:
    db = Database(url)
    try:
        if not sa.inspect(db.engine).has_table(_MARKER.name):
            return False
        with db.read() as conn:
            return conn.scalar(sa.select(_MARKER.c.rows).where(_MARKER.c.demo == demo)) == rows
    finally:
        db.dispose()


def load_sqlite(path: Path, files: Callable[[str], Path], demo: str, rows: int) -> None:
    """Load `demo`'s CSV exports (`files(name)`) into the SQLite file at `path`."""
    url = f"sqlite:///{path}"
    tables = loads(demo)
    _recreate_tables(url, demo, [t for t, _, _ in tables])
    raw = sqlite3.connect(path, isolation_level=None)
    try:
        for pragma in ("journal_mode = OFF", "synchronous = OFF", "cache_size = -524288", "temp_store = MEMORY"):
            raw.execute(f"PRAGMA {pragma}")
        for table, name, columns in tables:
            started = time.perf_counter()
            sql = f"INSERT INTO {table.name} ({', '.join(columns.values())}) VALUES ({', '.join('?' * len(columns))})"
            for batch in _csv_batches(files(name), 200_000):
                raw.execute("BEGIN")
                raw.executemany(sql, batch)
                raw.execute("COMMIT")
            for index in table.indexes:
                raw.execute(str(sa.schema.CreateIndex(index).compile(dialect=sqlite.dialect())))
            print(f"  sqlite {table.name}: loaded and indexed in {time.perf_counter() - started:.1f} s", flush=True)
        raw.execute("ANALYZE")
        raw.execute("PRAGMA journal_mode = WAL")
    finally:
        raw.close()
    _mark(url, demo, rows)


def _csv_batches(path: Path, size: int) -> Iterator[list[list]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        next(reader)
        batch = []
        for row in reader:
            batch.append([cell or None for cell in row])
            if len(batch) == size:
                yield batch
                batch = []
        if batch:
            yield batch


def load_postgres(url: str, admin_url: str, files: Callable[[str], Path], demo: str, rows: int) -> None:
    """Load `demo`'s CSV exports (`files(name)`) into the PostgreSQL database `url`, creating it on the
    server of `admin_url` when missing."""
    _create_database(admin_url, make_url(url).database)
    plan = loads(demo)
    tables = [t for t, _, _ in plan]
    _recreate_tables(url, demo, tables)
    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo, autocommit=True) as conn:
        for table in reversed(tables):
            for name in conn.execute("SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass "
                                     "ORDER BY contype = 'p'", (table.name,)).fetchall():
                conn.execute(f'ALTER TABLE {table.name} DROP CONSTRAINT "{name[0]}"')
            for index in table.indexes:
                conn.execute(f"DROP INDEX {index.name}")
        conn.execute("SET maintenance_work_mem = '512MB'")
        for table, name, columns in plan:
            started = time.perf_counter()
            copy_sql = f"COPY {table.name} ({', '.join(columns.values())}) FROM STDIN (FORMAT csv, HEADER true)"
            with conn.cursor().copy(copy_sql) as copy, files(name).open("rb") as handle:
                while data := handle.read(1 << 20):
                    copy.write(data)
            ddl = [sa.schema.AddConstraint(table.primary_key), *map(sa.schema.CreateIndex, table.indexes)]
            for statement in ddl:
                conn.execute(str(statement.compile(dialect=postgresql.dialect())))
            print(f"  postgres {table.name}: loaded and indexed in {time.perf_counter() - started:.1f} s",
                  flush=True)
        for table in tables:
            for fk in table.foreign_key_constraints:
                conn.execute(str(sa.schema.AddConstraint(fk).compile(dialect=postgresql.dialect())))
            conn.execute(f"VACUUM (ANALYZE) {table.name}")
    _mark(url, demo, rows)


def _create_database(admin_url: str, name: str) -> None:
    conninfo = make_url(admin_url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            conn.execute(f'CREATE DATABASE "{name}"')


def _recreate_tables(url: str, demo: str, tables: list[sa.Table]) -> None:
    db = Database(url)
    try:
        ensure_state(db)
        with db.write() as conn:
            _MARKER.create(conn, checkfirst=True)
            conn.execute(_MARKER.delete().where(_MARKER.c.demo == demo))
            tables[0].metadata.drop_all(conn, tables=list(reversed(tables)))
            tables[0].metadata.create_all(conn, tables=tables)
            if db.is_sqlite:
                for table in tables:
                    for index in table.indexes:
                        index.drop(conn)
    finally:
        db.dispose()


def add_missing_indexes(url: str, demo: str) -> None:
    """Data loaded before an index joined concierge.schema gets it now."""
    db = Database(url)
    try:
        tables = [t for t, _, _ in loads(demo)]
        have = {(t.name, ix["name"]) for t in tables for ix in sa.inspect(db.engine).get_indexes(t.name)}
        missing = [ix for t in tables for ix in t.indexes if (t.name, ix.name) not in have]
        for index in missing:
            started = time.perf_counter()
            with db.write() as conn:
                index.create(conn)
            print(f"  {url.split(':')[0]} {index.name}: built in {time.perf_counter() - started:.1f} s", flush=True)
        if missing:
            with db.write() as conn:
                conn.exec_driver_sql("ANALYZE")
    finally:
        db.dispose()


def ensure_rollups(url: str, demo: str) -> None:
    """The demo catalog's rollups (concierge.storage.rollups), built where missing or out of date."""
    db = Database(url)
    try:
        started = time.perf_counter()
        if not rollups.ensure(db, load_catalog(demo).spec.rollups):
            return
        if not db.is_sqlite:
            with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.exec_driver_sql("VACUUM (ANALYZE)")
        print(f"  {url.split(':')[0]} {demo} rollups: current after {time.perf_counter() - started:.1f} s", flush=True)
    finally:
        db.dispose()


def _mark(url: str, demo: str, rows: int) -> None:
    ensure_rollups(url, demo)
    db = Database(url)
    try:
        with db.write() as conn:
            conn.execute(_MARKER.insert(), {"demo": demo, "rows": rows})
    finally:
        db.dispose()
