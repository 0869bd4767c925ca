"""Time `concierge db import-pos` (csv_import.load) beside the like-for-like raw load, on SQLite and PostgreSQL.

    .venv/bin/python bench/import_speed.py [--rows 2000000] [--db sqlite --db postgres] [--rounds 2]
        [--before-src /work/main/src] [--no-pandas]

The POS export of that size is the one bench/scale_data.py writes (under
``--dir``, default /tmp/concierge-bench; written once if missing). Each round
runs, engine by engine, the raw load and then each import, every measurement
in a process (and a database) of its own, so that its peak RSS is its own:

- ``raw load``: the same table (same primary key, WITHOUT ROWID on SQLite),
  loaded the engine's fastest way, its three indexes built after the rows, in
  one transaction: SQLite, the sqlite3 CLI's ``.import`` into a temporary table
  and one ``INSERT ... SELECT ... ORDER BY`` the key; PostgreSQL, the file's
  bytes through one ``COPY ... (FORMAT csv, HEADER)``. Nothing is checked.
- ``import, empty``: the file into a new database (the table is created);
- ``re-import``: the same file again, replacing every (store, day) it holds;
- with ``--before-src``, the same two by the concierge under that folder;
- ``duckdb read_csv``: the file read into a DuckDB table, for reference;
- ``pandas.read_csv``: the same file read into a frame (dates parsed), the way
  the replaced POS copilot read it.

``ratio`` is the import's seconds over the raw load's of the same round;
``cpu ratio`` the same of the CPU seconds (the process's and the server's),
the figure that travels on a shared machine, where wall time waits for a core.
``load`` is the 1-minute load average after the step. ``rss before`` is the
process after its imports, before reading the file. ``cpu s`` is the measured
process's own CPU time (user + system; the sqlite3 CLI's for its raw load);
``server cpu s`` is the PostgreSQL backends' of the bench database, read from
/proc (where the server runs on this machine; blank otherwise).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psycopg
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scale_data  # noqa: E402

from concierge.demo.pos import csv_import as pos_import  # noqa: E402

BENCH_DB = f"concierge_bench_import_{os.getpid()}"  # a run of its own, whoever else runs the bench


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _server_cpu_s(db) -> float | None:
    """CPU seconds of the PostgreSQL backends serving `db`'s database, where /proc shows them."""
    if db.is_sqlite:
        return None
    url = db.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(url) as conn:  # not the pool's: its backends are the ones counted
        pids = [pid for (pid,) in conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = "
                                               "current_database() AND pid <> pg_backend_pid()")]
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
    return total


def _measure_import(url: str, path: Path) -> dict:
    from concierge.storage.database import Database

    db = Database(url)
    with db.engine.connect():  # the connection the imports will take from the pool, open before counting
        pass
    before = _rss_mb()
    times, cpu, server = [], [], []
    for _ in range(2):  # into the new table, then a re-import that replaces it
        started, cpu_started, server_started = time.perf_counter(), _cpu_s(), _server_cpu_s(db)
        count = pos_import.load(db, path)
        times.append(time.perf_counter() - started)
        cpu.append(_cpu_s() - cpu_started)
        server_now = _server_cpu_s(db)
        server.append(None if server_now is None or server_started is None else server_now - server_started)
    db.dispose()
    return {"rows": count, "seconds": times, "cpu": cpu, "server_cpu": server, "rss_before_mb": before,
            "peak_rss_mb": _rss_mb()}


def _measure_pandas(path: Path) -> dict:
    import pandas as pd

    before = _rss_mb()
    started, cpu_started = time.perf_counter(), _cpu_s()
    frame = pd.read_csv(path, encoding="utf-8-sig", parse_dates=["日付"])
    seconds = time.perf_counter() - started
    return {"rows": len(frame), "seconds": [seconds], "cpu": [_cpu_s() - cpu_started], "server_cpu": [None],
            "rss_before_mb": before, "peak_rss_mb": _rss_mb()}


def _raw_sqlite(url: str, path: Path) -> dict:
    """The like-for-like raw load: the sqlite3 CLI's `.import` into a plain table, then the rows into pos_sales
    (same key, WITHOUT ROWID) in key order and its three indexes built after, in one transaction."""
    import sqlalchemy as sa

    from concierge.demo.pos import tables

    file = make_url(url).database
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("PRAGMA journal_mode = WAL")
        tables.pos_sales.create(conn)
        indexes = [str(sa.schema.CreateIndex(i).compile(conn)) for i in tables.pos_sales.indexes]
        for index in tables.pos_sales.indexes:
            conn.exec_driver_sql(f"DROP INDEX {index.name}")
    engine.dispose()
    file_cols = ", ".join(f"c{i}" for i in range(len(pos_import.COLUMNS)))
    order = [list(pos_import.COLUMNS.values()).index(c) for c in pos_import.INSERT_COLUMNS]
    script = "\n".join([
        "PRAGMA synchronous = NORMAL;", f"PRAGMA cache_size = {-pos_import.SQLITE_CACHE_KIB};", "BEGIN;",
        f"CREATE TEMP TABLE staging ({file_cols});", f".import --csv --skip 1 --schema temp {path} staging",
        f"INSERT INTO pos_sales ({', '.join(pos_import.INSERT_COLUMNS)}) SELECT "
        f"{', '.join(f'c{i}' for i in order)} FROM temp.staging ORDER BY c1, c0, c2;",
        *(f"{sql};" for sql in indexes), "COMMIT;", ""])
    started, cpu_started = time.perf_counter(), _children_cpu_s()
    subprocess.run(["sqlite3", "-bail", file], input=script, text=True, check=True, capture_output=True)
    seconds = time.perf_counter() - started
    with sqlite3.connect(file) as conn:
        rows = conn.execute("SELECT COUNT(*) FROM pos_sales").fetchone()[0]
    return {"rows": rows, "seconds": [seconds], "cpu": [_children_cpu_s() - cpu_started], "server_cpu": [None],
            "rss_before_mb": _rss_mb(), "peak_rss_mb": _rss_mb()}


def _raw_postgres(url: str, path: Path) -> dict:
    """The like-for-like raw load: the file's bytes through one `COPY ... (FORMAT csv, HEADER)` into pos_sales
    (same key), then its three indexes, in one transaction."""
    import sqlalchemy as sa

    from concierge.demo.pos import tables
    from concierge.storage.database import Database

    db = Database(url)
    indexes = []
    with db.write() as conn:
        tables.pos_sales.create(conn)
        indexes = [str(sa.schema.CreateIndex(i).compile(conn)) for i in tables.pos_sales.indexes]
        for index in tables.pos_sales.indexes:
            conn.exec_driver_sql(f"DROP INDEX {index.name}")
    file_columns = ", ".join(pos_import.COLUMNS.values())
    before = _rss_mb()
    started, cpu_started, server_started = time.perf_counter(), _cpu_s(), _server_cpu_s(db)
    with db.write() as conn:
        raw = conn.connection.driver_connection
        with raw.cursor() as cursor, cursor.copy(
                f"COPY pos_sales ({file_columns}) FROM STDIN (FORMAT csv, HEADER)") as copy, path.open("rb") as f:
            f.read(3)  # the BOM
            while chunk := f.read(1 << 20):
                copy.write(chunk)
        for sql in indexes:
            conn.exec_driver_sql(sql)
    seconds, cpu, server_now = time.perf_counter() - started, _cpu_s() - cpu_started, _server_cpu_s(db)
    with db.read() as conn:
        rows = conn.exec_driver_sql("SELECT COUNT(*) FROM pos_sales").scalar()
    db.dispose()
    server = None if server_now is None or server_started is None else server_now - server_started
    return {"rows": rows, "seconds": [seconds], "cpu": [cpu], "server_cpu": [server], "rss_before_mb": before,
            "peak_rss_mb": _rss_mb()}


def _measure_duckdb(path: Path) -> dict:
    import duckdb

    before = _rss_mb()
    started, cpu_started = time.perf_counter(), _cpu_s()
    with duckdb.connect() as conn:
        conn.execute("CREATE TABLE pos AS SELECT * FROM read_csv(?, header = true)", [str(path)])
        rows = conn.execute("SELECT COUNT(*) FROM pos").fetchone()[0]
    return {"rows": rows, "seconds": [time.perf_counter() - started], "cpu": [_cpu_s() - cpu_started],
            "server_cpu": [None], "rss_before_mb": before, "peak_rss_mb": _rss_mb()}


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _child(kind: str, target: str, path: Path, src: str | None = None) -> dict:
    command = [sys.executable, __file__, "--child", kind, "--target", target, "--file", str(path)]
    env = dict(os.environ, PYTHONPATH=src) if src else None
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _pg_database(admin_url: str, *, drop_only: bool = False) -> str:
    url = make_url(admin_url)
    with psycopg.connect(url.set(drivername="postgresql").render_as_string(hide_password=False),
                         autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB}")
        if not drop_only:
            conn.execute(f"CREATE DATABASE {BENCH_DB}")
    return url.set(drivername="postgresql+psycopg", database=BENCH_DB).render_as_string(hide_password=False)


def _all_cpu(result: dict, index: int) -> float:
    return result["cpu"][index] + (result["server_cpu"][index] or 0.0)


def _row(label: str, result: dict, index: int, anchor: dict | None = None) -> str:
    seconds, server = result["seconds"][index], result["server_cpu"][index]
    ratio = "" if anchor is None else f"{seconds / anchor['seconds'][0]:.2f}x"
    cpu_ratio = "" if anchor is None else f"{_all_cpu(result, index) / _all_cpu(anchor, 0):.2f}x"
    return (f"{label:<40} {result['rows']:>10,} {seconds:>8.2f} {ratio:>7} {result['rows'] / seconds:>12,.0f} "
            f"{result['cpu'][index]:>7.2f} {'' if server is None else f'{server:.2f}':>13} {cpu_ratio:>9} "
            f"{result['rss_before_mb']:>10.0f} {result['peak_rss_mb']:>10.0f} {result['load']:>5.2f}")


def _run(kind: str, engine: str, path: Path, args: argparse.Namespace, src: str | None = None) -> dict:
    """One measurement in a process (and a database) of its own, removed afterwards."""
    file = args.dir / f"import_speed_{os.getpid()}.db"
    url = f"sqlite:///{file}" if engine == "sqlite" else _pg_database(args.pg_url)
    try:
        result = _child(kind, url, path, src)
    finally:
        if engine == "postgres":
            _pg_database(args.pg_url, drop_only=True)
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{file}{suffix}").unlink(missing_ok=True)
    result["load"] = os.getloadavg()[0]
    return result


def _round(engine: str, path: Path, args: argparse.Namespace) -> None:
    """The contenders of one engine, one after the other: the raw load first, each concierge after it."""
    raw = _run(f"raw-{engine}", engine, path, args)
    print(_row(f"{engine}: raw load (key + 3 indexes)", raw, 0), flush=True)
    for label, src in [("concierge", None), *(("before", s) for s in args.before_src)]:
        result = _run("import", engine, path, args, src)
        print(_row(f"{engine}: {label} import, empty", result, 0, raw), flush=True)
        print(_row(f"{engine}: {label} re-import (replaces)", result, 1, raw), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000, help="rows of the POS export (multiple of 10,000)")
    parser.add_argument("--db", action="append", choices=["sqlite", "postgres"], help="engines (default both)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the contenders, interleaved")
    parser.add_argument("--before-src", action="append", default=[], metavar="SRC",
                        help="also time the import of the concierge under SRC (e.g. /work/main/src), interleaved")
    parser.add_argument("--dir", type=Path, default=scale_data.DEFAULT_DIR)
    parser.add_argument("--pg-url", default=scale_data.DEFAULT_PG)
    parser.add_argument("--no-pandas", action="store_true")
    parser.add_argument("--child", choices=["import", "raw-sqlite", "raw-postgres", "duckdb", "pandas"],
                        help=argparse.SUPPRESS)
    parser.add_argument("--target", help=argparse.SUPPRESS)
    parser.add_argument("--file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        measure = {"import": lambda: _measure_import(args.target, args.file),
                   "raw-sqlite": lambda: _raw_sqlite(args.target, args.file),
                   "raw-postgres": lambda: _raw_postgres(args.target, args.file),
                   "duckdb": lambda: _measure_duckdb(args.file), "pandas": lambda: _measure_pandas(args.file)}
        print(json.dumps(measure[args.child]()))
        return
    ds = scale_data.Dataset(args.rows, args.dir)
    ds.folder.mkdir(parents=True, exist_ok=True)
    path = ds.file("pos")
    scale_data._write_once(path, pos_import.COLUMNS, lambda: scale_data._pos_lines(ds))
    size_mb = path.stat().st_size / 2**20
    print(f"{path}: {args.rows:,} rows, {size_mb:.0f} MB; ratio: the import's seconds / the raw load's just before; "
          "cpu ratio: the same of cpu s + server cpu s")
    print(f"{'':<40} {'rows':>10} {'seconds':>8} {'ratio':>7} {'rows/s':>12} {'cpu s':>7} {'server cpu s':>13} "
          f"{'cpu ratio':>9} {'rss before':>10} {'peak rss':>10} {'load':>5}")
    for _ in range(args.rounds):
        for engine in args.db or ["sqlite", "postgres"]:
            _round(engine, path, args)
        duck = _run("duckdb", "sqlite", path, args)
        print(_row("duckdb read_csv (reference)", duck, 0), flush=True)
    if not args.no_pandas:
        result = _child("pandas", "", path)
        result["load"] = os.getloadavg()[0]
        print(_row("pandas.read_csv (dates parsed)", result, 0))


if __name__ == "__main__":
    main()
