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
"""

from __future__ import annotations

import argparse
import json
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

BENCH_DB = "concierge_bench_import"


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _measure_import(url: str, path: Path) -> dict:
    from concierge.storage.database import Database

    db = Database(url)
    before = _rss_mb()
    times = []
    for _ in range(2):  # into the new table, then a re-import that replaces it
        started = time.perf_counter()
        count = pos_import.load(db, path)
        times.append(time.perf_counter() - started)
    db.dispose()
    return {"rows": count, "seconds": times, "rss_before_mb": before, "peak_rss_mb": _rss_mb()}


def _measure_pandas(path: Path) -> dict:
    import pandas as pd

    before = _rss_mb()
    started = time.perf_counter()
    frame = pd.read_csv(path, encoding="utf-8-sig", parse_dates=["日付"])
    seconds = time.perf_counter() - started
    return {"rows": len(frame), "seconds": [seconds], "rss_before_mb": before, "peak_rss_mb": _rss_mb()}


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
    seconds = result["seconds"][index]
    return (f"{label:<34} {result['rows']:>10,} {seconds:>8.2f} {result['rows'] / seconds:>12,.0f} "
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
    print(f"{'':<34} {'rows':>10} {'seconds':>8} {'rows/s':>12} {'rss before':>10} {'peak rss':>10}")
    for engine in args.db or ["sqlite", "postgres"]:
        if engine == "sqlite":
            file = args.dir / "import_speed.db"
            for suffix in ("", "-wal", "-shm"):
                Path(f"{file}{suffix}").unlink(missing_ok=True)
            url = f"sqlite:///{file}"
        else:
            url = _pg_database(args.pg_url)
        try:
            result = _child("import", url, path)
        finally:
            if engine == "postgres":
                _pg_database(args.pg_url, drop_only=True)
        print(_row(f"{engine}: import, empty", result, 0), flush=True)
        print(_row(f"{engine}: re-import (replaces)", result, 1), flush=True)
    if not args.no_pandas:
        print(_row("pandas.read_csv (dates parsed)", _child("pandas", "", path), 0))


if __name__ == "__main__":
    main()
