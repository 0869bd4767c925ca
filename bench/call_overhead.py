"""Per-call overhead: `Pipeline.invoke` against the raw driver running the same SQL, on SQLite and PostgreSQL.

    .venv/bin/python bench/call_overhead.py --rows 10000 [--db sqlite --db postgres] [--runs 300]

Over the data bench/scale_data.py builds (the size given, default 10^6), two small queries:

- get_sales: one customer, one month (the farm demo catalog);
- compare_store_periods: a week against the week before, one store (bench/pos_by_store.yaml).

Two anchors, each what a hand-written program would do on one persistent `sqlite3` or `psycopg`
connection with the tool's main statement (as the pipeline sends it, with the same bound values):

- raw: execute + fetchall, and the commit a read needs on that driver (none on `sqlite3`, whose
  SELECTs open no transaction; one on `psycopg`, which opens one);
- careful: the same, plus one audit line inserted in the same table and committed with it (SQLite
  with the pipeline's own `synchronous = NORMAL`): what a careful engineer's own code would do, and
  the line issue 28's target is set against (invoke within 1.5x of it).

Arguments change on every call; the three sides get the same sets in the same order, taking turns
call by call so that they see the same load.

Printed per query and engine, with the load average: p50 of invoke, raw and careful, invoke's ratio
to each, and where invoke's time goes, from timers around its parts in the same calls (p50 of each;
they add about a microsecond): the existence check, the read (transaction, main statement, totals,
shaping; the check excluded), the audit line, and the rest (rights, access, guard, arguments). Last,
the CPU time of this process's thread per call (p50) for invoke and careful, and their ratio: what
a loaded machine changes least (the database server's own CPU is not in it).
"""

from __future__ import annotations

import json
import os
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import contextmanager
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import psycopg
from sqlalchemy.engine import make_url

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
import scale  # noqa: E402
import scale_data  # noqa: E402

from concierge.demo.bootstrap import open_pipeline  # noqa: E402
from concierge.pipeline import access, audit, guard  # noqa: E402
from concierge.pipeline.pipeline import Pipeline  # noqa: E402
from concierge.sources.result import capped_sql, needs_every_row  # noqa: E402
from concierge.sources.sql import executor as sql_executor  # noqa: E402
from concierge.sources.sql.bind import bind, sql_values  # noqa: E402
from concierge.sources.sql.executor import SqlExecutor  # noqa: E402

QUERIES = ("get_sales", "compare_store_periods")


def bound_values(pipeline: Pipeline, tool_name: str, args: dict) -> dict:
    """The values `Pipeline.invoke` binds to the tool's SQL for these arguments, as the admin."""
    tool, user = pipeline.tools[tool_name], pipeline.user("admin")
    permission = access.decide(user, tool, pipeline.roles[tool.catalog])
    decision = guard.check_args(tool, args, pipeline.guard_context(tool_name))
    assert isinstance(permission, access.Permitted) and isinstance(decision, guard.Accepted), (permission, decision)
    return sql_values(tool, {**decision.args, **permission.identity, "_today": pipeline.today(tool_name)})


def main_sql(pipeline: Pipeline, tool_name: str) -> str:
    """The main statement as the pipeline sends it: capped by the database on PostgreSQL, in the driver's
    parameter style (with SQLAlchemy's casts of typed parameters there, which let a NULL be bound)."""
    tool = pipeline.tools[tool_name]
    every = needs_every_row(tool.result)
    sql = tool.sql if every or pipeline.db.is_sqlite else capped_sql(tool.sql, tool.result)
    return sql if pipeline.db.is_sqlite else str(bind(tool, sql).compile(dialect=pipeline.db.engine.dialect))


AUDIT_INSERT = ("INSERT INTO concierge_audit (at, user_name, tool, args, decision, result_id, rows, ms, message, "
                "source) VALUES ({0}, {0}, {0}, {0}, {0}, {0}, {0}, {0}, NULL, NULL)")


Run = Callable[[dict, dict, bool], int]  # (bound values, arguments, with an audit line) -> rows


def raw_runner(kind: str, url: str, sql: str, tool: str) -> tuple[Run, Callable[[], None]]:
    """A persistent connection of the driver itself; returns (run one call -> rows, close). The call takes the
    bound values, the arguments, and whether to commit an audit line with the read (the careful anchor)."""
    calls = iter(range(1, 1 << 62))

    def line(args: dict, rows: int) -> tuple:
        return (datetime.now(UTC).isoformat(), "admin", tool, json.dumps(args, ensure_ascii=False, default=str),
                "ok", f"r_raw{next(calls):07x}", rows, 0.0)

    if kind == "sqlite":
        conn = sqlite3.connect(make_url(url).database or "")
        conn.execute("PRAGMA synchronous = NORMAL")  # as the pipeline's connections (WAL is the file's)
        insert = AUDIT_INSERT.format("?")

        def run_sqlite(values: dict, args: dict, audited: bool) -> int:
            plain = {k: v.isoformat() if isinstance(v, date) else int(v) if isinstance(v, bool) else v
                     for k, v in values.items()}
            rows = conn.execute(sql, plain).fetchall()
            if audited:
                conn.execute(insert, line(args, len(rows)))
            conn.commit()  # without the line a no-op: sqlite3 opens no transaction for a SELECT
            return len(rows)

        return run_sqlite, conn.close
    pg = psycopg.connect(make_url(url).set(drivername="postgresql").render_as_string(hide_password=False))
    pg_insert = AUDIT_INSERT.format("%s")

    def run_pg(values: dict, args: dict, audited: bool) -> int:
        with pg.cursor() as cur:
            cur.execute(sql, values)
            rows = cur.fetchall()
            if audited:
                cur.execute(pg_insert, line(args, len(rows)))
        pg.commit()
        return len(rows)

    return run_pg, pg.close


@contextmanager
def timers() -> Any:
    """Timers around the parts of a call: the check, the read, the audit line (ms per call, appended)."""
    parts: dict[str, list[float]] = {"check": [], "read": [], "audit": []}
    pending: dict[str, float] = {}
    originals = {"check": sql_executor.failed_check, "audit": audit.record, "read": SqlExecutor.read}

    def timed(name: str, fn: Callable) -> Callable:
        def wrapper(*a: Any, **kw: Any) -> Any:
            started = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                pending[name] = pending.get(name, 0.0) + (time.perf_counter() - started) * 1000
        return wrapper

    sql_executor.failed_check = timed("check", originals["check"])
    audit.record = timed("audit", originals["audit"])
    SqlExecutor.read = timed("read", originals["read"])  # type: ignore[method-assign]

    def flush() -> None:
        check = pending.get("check", 0.0)
        parts["check"].append(check)
        parts["read"].append(pending.get("read", 0.0) - check)
        parts["audit"].append(pending.get("audit", 0.0))
        pending.clear()

    try:
        yield parts, flush
    finally:
        sql_executor.failed_check = originals["check"]
        audit.record = originals["audit"]
        SqlExecutor.read = originals["read"]  # type: ignore[method-assign]


def measure(kind: str, url: str, query: scale.Query, runs: int) -> dict[str, float]:
    catalogs = ["farm", "pos"] if query.pipeline == "demo" else [scale.STORE_CATALOG]
    pipeline = open_pipeline(catalogs, url)
    raw, close = raw_runner(kind, url, main_sql(pipeline, query.tool), query.tool)
    try:
        admin = pipeline.user("admin")
        values = [bound_values(pipeline, query.tool, a) for a in query.args]
        for i in range(min(20, runs)):  # warm all three: caches, pools, the OS page cache
            pipeline.invoke(query.tool, query.args[i], admin)
            raw(values[i], query.args[i], False)
            raw(values[i], query.args[i], True)
        ours, theirs, careful, our_cpu, careful_cpu = [], [], [], [], []
        with timers() as (parts, flush):
            for args, bound in zip(query.args, values, strict=True):
                started, cpu = time.perf_counter(), time.thread_time()
                result = pipeline.invoke(query.tool, args, admin)
                ours.append((time.perf_counter() - started) * 1000)
                our_cpu.append((time.thread_time() - cpu) * 1000)
                flush()
                started = time.perf_counter()
                count = raw(bound, args, False)
                theirs.append((time.perf_counter() - started) * 1000)
                started, cpu = time.perf_counter(), time.thread_time()
                raw(bound, args, True)
                careful.append((time.perf_counter() - started) * 1000)
                careful_cpu.append((time.thread_time() - cpu) * 1000)
                if result.status != "ok" or result.row_count != count and count <= query_cap(pipeline, query):
                    raise SystemExit(f"{query.tool} on {kind}: {result.status} {result.message}, "
                                     f"{result.row_count} rows against the driver's {count}")
        rest = [t - parts["check"][i] - parts["read"][i] - parts["audit"][i] for i, t in enumerate(ours)]
        return {"invoke": statistics.median(ours), "raw": statistics.median(theirs),
                "careful": statistics.median(careful), "cpu": statistics.median(our_cpu),
                "careful_cpu": statistics.median(careful_cpu),
                **{k: statistics.median(v) for k, v in parts.items()}, "rest": statistics.median(rest)}
    finally:
        close()
        pipeline.close()


def query_cap(pipeline: Pipeline, query: scale.Query) -> int:
    return pipeline.tools[query.tool].result.max_rows


def main() -> None:
    parser = scale_data.arg_parser(__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300, help="calls per query and database (each side)")
    args = parser.parse_args()
    sizes = args.rows or [1_000_000]
    databases = args.db or ["sqlite", "postgres"]
    for rows in sizes:
        ds = scale_data.Dataset(rows, args.dir)
        urls = scale_data.ensure(ds, databases, args.pg_url)
        todo = [q for q in scale.queries(ds, args.runs) if q.tool in QUERIES]
        print(f"\n{ds.label} rows, {args.runs} calls each; p50 in ms; the anchors: raw, careful (raw + audit line)")
        print(f"{'query':<36} {'db':<9} {'load':>4} {'invoke':>7} {'raw':>7} {'careful':>7} {'/raw':>6} "
              f"{'/careful':>8}   {'check':>6} {'read':>6} {'audit':>6} {'rest':>6}   {'cpu':>6} {'careful':>7} "
              f"{'/careful':>8}")
        for query in todo:
            for kind in databases:
                m = measure(kind, urls[kind], query, args.runs)
                load = os.getloadavg()[0]
                print(f"{query.label:<36} {kind:<9} {load:4.1f} {m['invoke']:7.3f} {m['raw']:7.3f} "
                      f"{m['careful']:7.3f} {m['invoke'] / m['raw']:5.2f}x {m['invoke'] / m['careful']:7.2f}x   "
                      f"{m['check']:6.3f} {m['read']:6.3f} {m['audit']:6.3f} {m['rest']:6.3f}   {m['cpu']:6.3f} "
                      f"{m['careful_cpu']:7.3f} {m['cpu'] / m['careful_cpu']:7.2f}x", flush=True)

if __name__ == "__main__":
    main()
