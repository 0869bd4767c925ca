"""Bulk-load the scaled CSV exports into a DuckDB file (used by bench/scale_data.py).

The same exports SQLite and PostgreSQL load, read by DuckDB's own CSV reader (`read_csv`) into the tables of
``concierge.schema`` (created from its metadata: primary keys, foreign keys, the indexes), then CHECKPOINT.
No rollup: concierge keeps rollups current with triggers, which DuckDB has not. The file is written here
with DuckDB's own driver; concierge opens it read-only.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import sqlalchemy as sa
from duckdb_engine import Dialect as DuckDBDialect
from scale_load import Structure, expected, loads

MARKER = "CREATE TABLE IF NOT EXISTS bench_dataset (demo VARCHAR PRIMARY KEY, rows BIGINT NOT NULL)"


def is_loaded(path: Path, demo: str, rows: int) -> bool:
    if not path.exists():
        return False
    with duckdb.connect(str(path), read_only=True) as conn:
        if not conn.execute("SELECT 1 FROM duckdb_tables() WHERE table_name = 'bench_dataset'").fetchall():
            return False
        found = conn.execute("SELECT rows FROM bench_dataset WHERE demo = ?", [demo]).fetchone()
    return found is not None and found[0] == rows


def load(path: Path, files: Callable[[str], Path], demo: str, rows: int) -> None:
    """Load `demo`'s CSV exports (`files(name)`) into the DuckDB file at `path`, replacing its tables."""
    dialect, tables = DuckDBDialect(), loads(demo)
    with duckdb.connect(str(path)) as conn:
        conn.execute(MARKER)
        conn.execute("DELETE FROM bench_dataset WHERE demo = ?", [demo])
        for table, _, _ in reversed(tables):
            conn.execute(f"DROP TABLE IF EXISTS {table.name}")
        for table, name, columns in tables:
            started = time.perf_counter()
            conn.execute(str(sa.schema.CreateTable(table).compile(dialect=dialect)))
            wanted = ", ".join(f'"{header}"' for header in columns)
            conn.execute(f"INSERT INTO {table.name} ({', '.join(columns.values())}) SELECT {wanted} "
                         "FROM read_csv(?, header = true, all_varchar = true)", [str(files(name))])
            for index in table.indexes:
                conn.execute(str(sa.schema.CreateIndex(index).compile(dialect=dialect)))
            print(f"  duckdb {table.name}: loaded and indexed in {time.perf_counter() - started:.1f} s", flush=True)
        conn.execute("INSERT INTO bench_dataset VALUES (?, ?)", [demo, rows])
        conn.execute("CHECKPOINT")


def structure(path: Path, demo: str) -> dict[str, Structure]:
    """The keys and indexes `demo`'s tables have in the DuckDB file at `path`, read from its catalog."""
    found = {}
    with duckdb.connect(str(path), read_only=True) as conn:
        for name in expected(demo):
            if not conn.execute("SELECT 1 FROM duckdb_tables() WHERE table_name = ?", [name]).fetchall():
                continue
            keys = conn.execute("SELECT constraint_type, constraint_column_names FROM duckdb_constraints() "
                                "WHERE table_name = ? AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')",
                                [name]).fetchall()
            indexes = conn.execute("SELECT index_name FROM duckdb_indexes() WHERE table_name = ?", [name]).fetchall()
            found[name] = Structure(next((tuple(cols) for kind, cols in keys if kind == "PRIMARY KEY"), ()),
                                    frozenset(ix for (ix,) in indexes),
                                    sum(kind == "FOREIGN KEY" for kind, _ in keys))
    return found
