"""The scale benchmark: tool calls through the pipeline against the pandas approach, side by side.

    .venv/bin/python bench/scale.py --rows 10000 --rows 1000000 --rows 10000000 [--db sqlite --db postgres]
    .venv/bin/python bench/scale.py --rows 10000000 --explain     # the query plans instead

Builds the data it lacks (see bench/scale_data.py), then for each size and
database times, through `Pipeline.invoke` (guard, access, SQL, shaping and
the audit line, as every caller gets them):

- get_sales: one customer, one month (the customer and month change every call);
- compare_periods: two weeks against the two before, all products, for one
  store (bench/pos_by_store.yaml) and for all stores (the demo catalog).

Beside them, in the same run and on the same data, the replaced POS
copilot's approach: read the CSV export with pandas, filter and group in
memory. Its time is the load plus the query, as it paid both per question.
Both answers are compared; a difference stops the benchmark.

Printed: the first call (it also reads the enum values and date ranges the
guard needs), p50 and p95 of the calls after it, the rows the answer covers
(`matched`) per second at p50, and pandas' p50 divided by ours.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import sqlalchemy as sa

from concierge.pipeline.bind import bind
from concierge.pipeline.pipeline import Pipeline

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scale_data  # noqa: E402

try:
    import pandas as pd
except ImportError:  # pragma: no cover - the message is the point
    raise SystemExit("the scale benchmark compares against pandas: pip install -e '.[bench]'") from None

STORE_CATALOG = str(Path(__file__).resolve().parent / "pos_by_store.yaml")
CUR = (date(2026, 8, 24), date(2026, 8, 30))
PREV = (date(2026, 8, 17), date(2026, 8, 23))
PANDAS = "pandas (load+query)"


@dataclass(frozen=True)
class Query:
    label: str
    pipeline: str  # "demo" (farm + pos) or "store" (bench/pos_by_store.yaml)
    tool: str
    args: Callable[[int], dict]  # call number -> arguments
    pandas: Callable[[dict, pd.DataFrame], dict]  # arguments, loaded frame -> answer
    csv: str  # which export pandas reads
    covered: int | None = None  # data rows the answer sums up (None: the rows it lists)


@dataclass
class Timing:
    first_ms: float
    times_ms: list[float]
    matched: int
    answer: dict

    @property
    def p50(self) -> float:
        return statistics.median(self.times_ms)

    @property
    def p95(self) -> float:
        return statistics.quantiles(self.times_ms, n=20)[-1] if len(self.times_ms) > 1 else self.times_ms[0]


# --- the questions -----------------------------------------------------------------------------------
def queries(ds: scale_data.Dataset) -> list[Query]:
    rng = random.Random(1)
    customers = [f"{rng.randint(1, ds.customers):04d}" for _ in range(200)]
    months = [date(rng.randint(2015, 2023), rng.randint(1, 12), 1) for _ in range(200)]

    def sales_args(i: int) -> dict:
        first = months[i % len(months)]
        last = (first + timedelta(days=32)).replace(day=1) - timedelta(days=1)
        return {"code_customer": customers[i % len(customers)], "date_sales_begin_str": first.isoformat(),
                "date_sales_end_str": last.isoformat()}

    days = (CUR[1] - CUR[0]).days + (PREV[1] - PREV[0]).days + 2
    products = len(scale_data.pos.PRODUCTS)
    periods = {"cur_start": CUR[0].isoformat(), "cur_end": CUR[1].isoformat(),
               "prev_start": PREV[0].isoformat(), "prev_end": PREV[1].isoformat(), "category": None}
    return [
        Query("get_sales, 1 customer, 1 month", "demo", "get_sales", sales_args, pandas_sales, "farm_sales"),
        Query("compare_periods, 2 weeks, 1 store", "store", "compare_store_periods",
              lambda _i: {**periods, "store": scale_data.pos.STORE}, pandas_compare, "pos", days * products),
        Query("compare_periods, 2 weeks, all stores", "demo", "compare_periods",
              lambda _i: dict(periods), pandas_compare, "pos", days * products * ds.stores),
    ]


def answer_of(result) -> dict:
    """What a person is told."""
    if result.status != "ok":
        raise SystemExit(f"{result.tool} failed: {result.status} {result.message}")
    if result.summary:
        return {k: result.summary[k] for k in ("current_total", "previous_total", "change")}
    return {"count": result.totals["count"], "price": result.totals["price"]}


def covered(query: Query, answer: dict) -> int:
    return query.covered if query.covered is not None else answer["count"]


# --- the replaced approach: pandas over the CSV export ---------------------------------------------------
def pandas_load(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, encoding="utf-8-sig", dtype={"顧客コード": str})


def pandas_sales(args: dict, df: pd.DataFrame) -> dict:
    days = pd.to_datetime(df["販売日"])
    rows = df[(df["顧客コード"] == args["code_customer"])
              & (days >= args["date_sales_begin_str"]) & (days <= args["date_sales_end_str"])]
    return {"count": len(rows), "price": int(rows["金額"].sum())}


def pandas_compare(args: dict, df: pd.DataFrame) -> dict:
    if "store" in args:
        df = df[df["店舗"] == args["store"]]
    days = pd.to_datetime(df["日付"])
    cur = df[(days >= args["cur_start"]) & (days <= args["cur_end"])].groupby("商品名")["売上金額"].sum()
    prev = df[(days >= args["prev_start"]) & (days <= args["prev_end"])].groupby("商品名")["売上金額"].sum()
    change = cur.sub(prev, fill_value=0)
    return {"current_total": int(cur.sum()), "previous_total": int(prev.sum()), "change": int(change.sum())}


# --- measuring -------------------------------------------------------------------------------------------
def time_pipelines(pipelines: dict[str, Pipeline], query: Query, runs: int) -> dict[str, Timing]:
    """Time the same calls on every database, taking turns, so that all see the same machine load."""
    first, answer, times, matches = {}, {}, {}, {}
    for kind, pipeline in pipelines.items():
        started = time.perf_counter()
        answer[kind] = answer_of(pipeline.invoke(query.tool, query.args(0), pipeline.user("admin")))
        first[kind] = (time.perf_counter() - started) * 1000
        times[kind], matches[kind] = [], []
    for i in range(1, runs + 1):
        for kind, pipeline in pipelines.items():
            admin = pipeline.user("admin")
            started = time.perf_counter()
            result = pipeline.invoke(query.tool, query.args(i), admin)
            times[kind].append((time.perf_counter() - started) * 1000)
            matches[kind].append(covered(query, answer_of(result)))
    return {kind: Timing(first[kind], times[kind], round(statistics.median(matches[kind])), answer[kind])
            for kind in pipelines}


def time_pandas(ds: scale_data.Dataset, todo: list[Query], runs: int) -> dict[str, dict[str, Timing]]:
    """Each run loads the export and answers every question on it; the copilot loaded it per question."""
    load_ms: dict[str, list[float]] = {}
    query_ms: dict[str, list[float]] = {q.label: [] for q in todo}
    answers: dict[str, dict] = {}
    matched: dict[str, list[int]] = {q.label: [] for q in todo}
    for run in range(runs):
        for name in dict.fromkeys(q.csv for q in todo):  # one frame in memory at a time
            started = time.perf_counter()
            frame = pandas_load(ds.file(name))
            load_ms.setdefault(name, []).append((time.perf_counter() - started) * 1000)
            for q in (q for q in todo if q.csv == name):
                started = time.perf_counter()
                answer = q.pandas(q.args(run), frame)
                query_ms[q.label].append((time.perf_counter() - started) * 1000)
                answers.setdefault(q.label, answer)
                matched[q.label].append(covered(q, answer))
            del frame
    out = {}
    for q in todo:
        totals = [load + query for load, query in zip(load_ms[q.csv], query_ms[q.label], strict=True)]
        rows = round(statistics.median(matched[q.label]))
        out[q.label] = {
            PANDAS: Timing(totals[0], totals, rows, answers[q.label]),
            "pandas (in memory)": Timing(query_ms[q.label][0], query_ms[q.label], rows, answers[q.label]),
        }
    return out


def run_size(ds: scale_data.Dataset, databases: list[str], admin_url: str, runs: int, pandas_runs: int) -> None:
    urls = scale_data.ensure(ds, databases, admin_url)
    todo = queries(ds)
    print(f"\n== {ds.label}: farm {ds.rows:,} sales of {ds.customers:,} customers; pos {ds.rows:,} rows = "
          f"{ds.stores:,} store(s) x 20 products x {scale_data.POS_DAYS} days; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores ==")
    print(f"{'question':38} {'engine':20} {'first ms':>9} {'p50 ms':>9} {'p95 ms':>9} {'matched':>8} "
          f"{'rows/s':>12} {'pandas/us':>10}")
    results: dict[str, dict[str, Timing]] = {}
    pipelines = {kind: {"demo": Pipeline.open(["farm", "pos"], url), "store": Pipeline.open([STORE_CATALOG], url)}
                 for kind, url in urls.items()}
    try:
        for q in todo:
            results[q.label] = time_pipelines({kind: p[q.pipeline] for kind, p in pipelines.items()}, q, runs)
    finally:
        for p in (p for by_catalog in pipelines.values() for p in by_catalog.values()):
            p.close()
    if pandas_runs:
        for label, timings in time_pandas(ds, todo, pandas_runs).items():
            results[label].update(timings)
    for q in todo:
        engines = results[q.label]
        answers = {kind: t.answer for kind, t in engines.items()}
        if len({repr(a) for a in answers.values()}) != 1:
            raise SystemExit(f"{q.label}: the answers differ: {answers}")
        pandas = engines.get(PANDAS)
        for i, (kind, t) in enumerate(engines.items()):
            ratio = f"{pandas.p50 / t.p50:.0f}x" if pandas and kind in urls else ""
            print(f"{q.label if i == 0 else '':38} {kind:20} {t.first_ms:9.1f} {t.p50:9.2f} {t.p95:9.2f} "
                  f"{t.matched:8,} {t.matched / (t.p50 / 1000):12,.0f} {ratio:>10}")


# --- query plans ------------------------------------------------------------------------------------------
def explain(ds: scale_data.Dataset, databases: list[str], admin_url: str) -> None:
    urls = scale_data.ensure(ds, databases, admin_url)
    for kind, url in urls.items():
        pipelines = {"demo": Pipeline.open(["farm", "pos"], url), "store": Pipeline.open([STORE_CATALOG], url)}
        try:
            for q in queries(ds):
                print(f"\n--- {ds.label} {kind}: {q.label} ({q.tool})")
                for line in plan(pipelines[q.pipeline], q):
                    print(line)
        finally:
            for p in pipelines.values():
                p.close()


def plan(pipeline: Pipeline, query: Query) -> list[str]:
    from concierge.pipeline import guard

    tool = pipeline.tools[query.tool]
    decision = guard.check(pipeline.tools, query.tool, query.args(1), pipeline.guard_context(query.tool))
    assert isinstance(decision, guard.Accepted), decision
    values = {**decision.args, "_user": "admin", "_role": "admin", "_all_rows": True,
              "_today": pipeline.today(query.tool)}
    prefix = "EXPLAIN QUERY PLAN " if pipeline.db.is_sqlite else "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) "
    with pipeline.db.read() as conn:
        rows = conn.execute(bind(tool, prefix + tool.sql), values).all()
    if pipeline.db.is_sqlite:
        return [f"{'  ' * _depth(rows, r)}{r[-1]}" for r in rows]
    return [r[0] for r in rows]


def _depth(rows: list[sa.Row], row: sa.Row) -> int:
    parents = {r[0]: r[1] for r in rows}
    depth, parent = 0, row[1]
    while parent:
        depth, parent = depth + 1, parents.get(parent, 0)
    return depth


def main() -> None:
    parser = scale_data.arg_parser(__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50, help="timed calls per question and database")
    parser.add_argument("--pandas-runs", type=int, default=3, help="pandas load+query rounds (0: skip pandas)")
    parser.add_argument("--explain", action="store_true", help="print the query plans instead of timing")
    args = parser.parse_args()
    for ds in scale_data.datasets(args):
        if args.explain:
            explain(ds, args.db or ["sqlite", "postgres"], args.pg_url)
        else:
            run_size(ds, args.db or ["sqlite", "postgres"], args.pg_url, args.runs, args.pandas_runs)


if __name__ == "__main__":
    main()
