"""Time `concierge db import-pos` (csv_import.load) on SQLite and PostgreSQL, beside pandas.read_csv.

    .venv/bin/python bench/import_speed.py [--rows 2000000] [--db sqlite --db postgres] [--no-pandas]

The POS export of that size is the one bench/scale_data.py writes (under
``--dir``, default /tmp/concierge-bench; written once if missing). Each
measurement runs in a process of its own, so that its peak RSS is its own:

- ``import, empty``: the file into a new database (the table is created);
- ``re-import``: the same file again, replacing every (store, day) it holds;
- ``pandas.read_csv``: the same file read into a frame (dates parsed), the way
  the replaced POS copilot read it.

``rss before`` is the process after its imports, before reading the file.
``cpu s`` is this process's own CPU time (user + system) for the step, the
figure that travels on a shared machine where wall time waits for a core;
``server cpu s`` is the PostgreSQL backends' of the bench database, read from
/proc (where the server runs on this machine; blank otherwise).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def _child(kind: str, target: str, path: Path) -> dict:
    command = [sys.executable, __file__, "--child", kind, "--target", target, "--file", str(path)]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _pg_database(admin_url: str, *, drop_only: bool = False) -> str:
    url = make_url(admin_url)
    with psycopg.connect(url.set(drivername="postgresql").render_as_string(hide_password=False),
                         autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB}")
        if not drop_only:
            conn.execute(f"CREATE DATABASE {BENCH_DB}")
    return url.set(drivername="postgresql+psycopg", database=BENCH_DB).render_as_string(hide_password=False)


def _row(label: str, result: dict, index: int) -> str:
    seconds, server = result["seconds"][index], result["server_cpu"][index]
    return (f"{label:<34} {result['rows']:>10,} {seconds:>8.2f} {result['rows'] / seconds:>12,.0f} "
            f"{result['cpu'][index]:>7.2f} {'' if server is None else f'{server:.2f}':>13} "
            f"{result['rss_before_mb']:>10.0f} {result['peak_rss_mb']:>10.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000, help="rows of the POS export (multiple of 10,000)")
    parser.add_argument("--db", action="append", choices=["sqlite", "postgres"], help="engines (default both)")
    parser.add_argument("--dir", type=Path, default=scale_data.DEFAULT_DIR)
    parser.add_argument("--pg-url", default=scale_data.DEFAULT_PG)
    parser.add_argument("--no-pandas", action="store_true")
    parser.add_argument("--child", choices=["import", "pandas"], help=argparse.SUPPRESS)
    parser.add_argument("--target", help=argparse.SUPPRESS)
    parser.add_argument("--file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        result = _measure_import(args.target, args.file) if args.child == "import" else _measure_pandas(args.file)
        print(json.dumps(result))
        return
    ds = scale_data.Dataset(args.rows, args.dir)
    ds.folder.mkdir(parents=True, exist_ok=True)
    path = ds.file("pos")
    scale_data._write_once(path, pos_import.COLUMNS, lambda: scale_data._pos_lines(ds))
    size_mb = path.stat().st_size / 2**20
    print(f"{path}: {args.rows:,} rows, {size_mb:.0f} MB; batches of {pos_import.BATCH_ROWS:,} rows")
    print(f"{'':<34} {'rows':>10} {'seconds':>8} {'rows/s':>12} {'cpu s':>7} {'server cpu s':>13} "
          f"{'rss before':>10} {'peak rss':>10}")
    for engine in args.db or ["sqlite", "postgres"]:
        if engine == "sqlite":
            file = args.dir / f"import_speed_{os.getpid()}.db"
            url = f"sqlite:///{file}"
        else:
            url = _pg_database(args.pg_url)
        try:
            result = _child("import", url, path)
        finally:
            if engine == "postgres":
                _pg_database(args.pg_url, drop_only=True)
            else:
                for suffix in ("", "-wal", "-shm", "-journal"):
                    Path(f"{file}{suffix}").unlink(missing_ok=True)
        print(_row(f"{engine}: import, empty", result, 0), flush=True)
        print(_row(f"{engine}: re-import (replaces)", result, 1), flush=True)
    if not args.no_pandas:
        print(_row("pandas.read_csv (dates parsed)", _child("pandas", "", path), 0))


if __name__ == "__main__":
    main()
