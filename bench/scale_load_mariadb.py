"""Bulk-load the scaled CSV exports into MariaDB/MySQL (used by bench/scale_data.py).

A database per size (utf8mb4, binary collation: names compare and group as SQLite and PostgreSQL compare
them), the tables of ``concierge.schema`` created from its metadata without their secondary indexes,
`LOAD DATA LOCAL INFILE` of each export with key and foreign-key checks off, then the indexes and
ANALYZE TABLE. No rollup: concierge keeps rollups current with triggers it writes for SQLite and
PostgreSQL only. Written with PyMySQL itself, so it works whether or not concierge opens mysql URLs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pymysql
import sqlalchemy as sa
from scale_load import loads
from sqlalchemy.dialects import mysql
from sqlalchemy.engine import make_url

MARKER = "CREATE TABLE IF NOT EXISTS bench_dataset (demo VARCHAR(10) PRIMARY KEY, `rows` BIGINT NOT NULL)"


def connect(url: str, *, database: bool = True, **options: Any) -> pymysql.connections.Connection:
    """PyMySQL's own connection to the server (and database) of a mysql+pymysql:// URL."""
    parsed = make_url(url)
    return pymysql.connect(host=parsed.host or "127.0.0.1", port=parsed.port or 3306, user=parsed.username or "root",
                           password=parsed.password or "", database=parsed.database if database else None,
                           charset="utf8mb4", **options)


def is_loaded(url: str, demo: str, rows: int) -> bool:
    try:
        conn = connect(url)
    except pymysql.err.OperationalError:  # no such database yet
        return False
    with conn, conn.cursor() as cur:
        cur.execute("SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() "
                    "AND table_name = 'bench_dataset'")
        if cur.fetchone() is None:
            return False
        cur.execute("SELECT `rows` FROM bench_dataset WHERE demo = %s", (demo,))
        found = cur.fetchone()
    return found is not None and found[0] == rows


def load(url: str, files: Callable[[str], Path], demo: str, rows: int) -> None:
    """Load `demo`'s CSV exports (`files(name)`) into the database of `url`, creating it when missing."""
    name = make_url(url).database
    with connect(url, database=False) as server, server.cursor() as cur:
        cur.execute(f"CREATE DATABASE IF NOT EXISTS `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
    dialect, tables = mysql.dialect(), loads(demo)
    with connect(url, local_infile=True, autocommit=True) as conn, conn.cursor() as cur:
        cur.execute("SET foreign_key_checks = 0, unique_checks = 0")
        cur.execute(MARKER)
        cur.execute("DELETE FROM bench_dataset WHERE demo = %s", (demo,))
        for table, _, _ in reversed(tables):
            cur.execute(f"DROP TABLE IF EXISTS {table.name}")
        for table, csv_name, columns in tables:
            started = time.perf_counter()
            cur.execute(str(sa.schema.CreateTable(table).compile(dialect=dialect)))
            variables = ", ".join(f"@c{i}" for i in range(len(columns)))
            assign = ", ".join(f"{column} = NULLIF(@c{i}, '')" for i, column in enumerate(columns.values()))
            cur.execute(f"LOAD DATA LOCAL INFILE %s INTO TABLE {table.name} CHARACTER SET utf8mb4 "
                        "FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' LINES TERMINATED BY '\\n' "
                        f"IGNORE 1 LINES ({variables}) SET {assign}", (str(files(csv_name)),))
            for index in table.indexes:
                cur.execute(str(sa.schema.CreateIndex(index).compile(dialect=dialect)))
            cur.execute(f"ANALYZE TABLE {table.name}")
            cur.fetchall()
            print(f"  mariadb {table.name}: loaded and indexed in {time.perf_counter() - started:.1f} s", flush=True)
        cur.execute("SET foreign_key_checks = 1, unique_checks = 1")
        cur.execute("INSERT INTO bench_dataset VALUES (%s, %s)", (demo, rows))


def drop(url: str) -> None:
    try:
        with connect(url, database=False) as server, server.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS `{make_url(url).database}`")
    except pymysql.err.OperationalError as err:
        print(f"  mariadb: not dropped ({err})")
