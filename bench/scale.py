"""The scale benchmark: tool calls through the pipeline against pandas, used naively and carefully, side by side.

    .venv/bin/python bench/scale.py --rows 10000 --rows 1000000 --rows 10000000 [--db sqlite --db postgres]
    .venv/bin/python bench/scale.py --rows 1000000 --db sqlite --db postgres --db duckdb --db mariadb
    .venv/bin/python bench/scale.py --rows 1000000 --anchors duckdb   # without the Polars anchor
    .venv/bin/python bench/scale.py --rows 10000000 --explain     # the query plans instead

Builds the data it lacks (see bench/scale_data.py), then for each size and
database times, through `Pipeline.invoke` (guard, access, SQL, shaping and
the audit line, as every caller gets them):

- get_sales: one customer, one month;
- compare_periods: a week against the week before, all products, for one
  store (bench/pos_by_store.yaml) and for all stores (the demo catalog).

The arguments change on every call (customers, months, weeks and stores drawn
from a seeded generator), and every engine gets the same argument sets in the
same order. Beside them, on the same data and the same arguments, pandas two
ways, each in its own process so that its peak memory can be read:

- naive: the replaced POS copilot's way, reading the whole CSV export for
  every question, then filtering and grouping;
- careful: the CSV read once into a frame (only the columns the questions
  need, text as categories, dates parsed at load), then every question
  answered from that frame in memory.

Two anchors a data person would pick, in this process beside the engines:
DuckDB's own table (this size's DuckDB file, the question written in DuckDB
SQL) and Polars (the CSV export read once into a DataFrame, the question as a
Polars expression); `--anchors` chooses them.

Every contender in this process makes the same warm calls twice: taking turns
call by call (A, B, C, A, B, C ...), then in blocks (all of A's, then all of
B's ...). Printed per question and contender: the cold call (a freshly opened
pipeline's first call, which also reads the enum values and date ranges the
guard needs; for careful pandas and Polars the load plus the first question),
p50 and p95 taking turns, p50 in its block, the median CPU time of this
process per call in both orders, the data rows the answers cover,
how many answers equal careful pandas' for the same arguments (any difference,
or a block answer unlike its turn's, fails the run), pandas' peak RSS, careful
and naive pandas' p50 divided by the engine's, the engine's p50 divided by its
own hand-written SQL's, every p50 divided by DuckDB's own table's (taking
turns, and in blocks), and the 1-minute load average when its calls ended.

DuckDB and MariaDB have no rollup (concierge keeps rollups with triggers on
SQLite and PostgreSQL only): their rollup row says so. Their pipelines keep
the state (users, audit lines) in a SQLite file beside the data (a DuckDB file
is read-only to concierge). Where concierge cannot open an engine's URLs (mysql
before MySQL support), a line says so and only its hand-written SQL is timed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import machine

from concierge.demo.bootstrap import open_pipeline

try:
    import pandas as pd
except ImportError:  # without pandas only --pandas-runs 0 runs (main says so)
    pd = None

if TYPE_CHECKING:  # the pandas worker process imports none of these, so its memory is pandas' own
    import duckdb
    import polars as pl
    import scale_data
    import sqlalchemy as sa

    from concierge.pipeline.pipeline import Pipeline

BENCH = Path(__file__).resolve().parent
STORE_CATALOG = str(BENCH / "pos_by_store.yaml")
SEED = 16
NAIVE, CAREFUL = "pandas naive", "pandas careful"
ROLLUP_ENGINES = ("sqlite", "postgres")  # where concierge builds rollups (triggers)
STATE_APART = ("duckdb", "mariadb")  # engines whose pipeline keeps its state in a SQLite file of its own
POS_COLUMNS = ["日付", "店舗", "商品名", "売上金額"]  # date, store, product, amount
FARM_COLUMNS = ["顧客コード", "販売日", "金額"]  # customer, date, amount


@dataclass(frozen=True)
class Query:
    label: str
    pipeline: str  # "demo" (farm + pos) or "store" (bench/pos_by_store.yaml)
    tool: str
    kind: str  # "sales" or "compare": which pandas answer
    csv: str  # which export pandas reads
    args: list[dict]  # call number -> arguments; call 0 is the cold one
    rollups: bool = True  # False: the pipeline reads the base table even where the catalog declares a rollup
    raw: bool = False  # also the same statement run by the driver itself (hand-written SQL, no pipeline)


@dataclass
class Timing:
    cold_ms: float
    times_ms: list[float]  # the warm calls, 1..n, the contenders taking turns call by call
    answers: list[dict]  # per call number, cold included
    rows: list[int | None] = field(default_factory=list)  # data rows each answer covers, where known
    peak_mb: float | None = None
    block_ms: list[float] = field(default_factory=list)  # the same warm calls again, all of this contender's in a row
    block_answers: list[dict] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)  # this process's CPU time per warm call, taking turns
    block_cpu_ms: list[float] = field(default_factory=list)  # and in its block
    load: float | None = None  # the 1-minute load average when its last call ended

    @property
    def p50(self) -> float:
        return statistics.median(self.times_ms)

    @property
    def block_p50(self) -> float | None:
        return statistics.median(self.block_ms) if self.block_ms else None

    @property
    def cpu_p50s(self) -> tuple[float, float] | None:
        """The median CPU time per call of this process, taking turns and in the block, where measured."""
        return (statistics.median(self.cpu_ms), statistics.median(self.block_cpu_ms)) if self.block_cpu_ms else None

    @property
    def p95(self) -> float:
        return statistics.quantiles(self.times_ms, n=20)[-1] if len(self.times_ms) > 1 else self.times_ms[0]


# --- the questions and their arguments -----------------------------------------------------------------
def queries(ds: scale_data.Dataset, calls: int) -> list[Query]:
    import scale_data

    rng = random.Random(SEED)
    stores = scale_data.store_names(ds)

    def month() -> tuple[date, date]:
        first = date(rng.randint(2015, 2023), rng.randint(1, 12), 1)
        return first, (first + timedelta(days=32)).replace(day=1) - timedelta(days=1)

    def weeks() -> dict:
        cur = scale_data.POS_FIRST + timedelta(days=rng.randint(7, scale_data.POS_DAYS - 7))
        return {"cur_start": cur.isoformat(), "cur_end": (cur + timedelta(days=6)).isoformat(),
                "prev_start": (cur - timedelta(days=7)).isoformat(),
                "prev_end": (cur - timedelta(days=1)).isoformat(), "category": None}

    sales = []
    for _ in range(calls):
        first, last = month()
        sales.append({"code_customer": f"{rng.randint(1, ds.customers):04d}",
                      "date_sales_begin_str": first.isoformat(), "date_sales_end_str": last.isoformat()})
    one_store = [{**weeks(), "store": rng.choice(stores)} for _ in range(calls)]
    all_stores = [weeks() for _ in range(calls)]
    return [
        Query("get_sales, 1 customer, 1 month", "demo", "get_sales", "sales", "farm_sales", sales),
        Query("compare_periods, 2 weeks, 1 store", "store", "compare_store_periods", "compare", "pos", one_store),
        Query("compare_periods, all stores, rollup", "demo", "compare_periods", "compare", "pos", all_stores,
              raw=True),
        Query("compare_periods, all stores, base table", "demo", "compare_periods", "compare", "pos", all_stores,
              rollups=False, raw=True),
    ]


def answer_of(result) -> dict:
    """What a person is told."""
    if result.status != "ok":
        raise SystemExit(f"{result.tool} failed: {result.status} {result.message}")
    if result.summary:
        return {k: result.summary[k] for k in ("current_total", "previous_total", "change")}
    return {"count": result.totals["count"], "price": result.totals["price"]}


# --- pandas, in a process of its own ---------------------------------------------------------------------
def naive_load(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, encoding="utf-8-sig", dtype={"顧客コード": str})


def careful_load(path: Path, csv: str) -> pd.DataFrame:
    """Only the columns the questions need, text as categories (read as text first: customer codes
    like 0016 would otherwise become numbers), dates parsed at load."""
    if csv == "pos":
        columns, day, text = POS_COLUMNS, "日付", ["店舗", "商品名"]
    else:
        columns, day, text = FARM_COLUMNS, "販売日", ["顧客コード"]
    df = pd.read_csv(path, encoding="utf-8-sig", usecols=columns, parse_dates=[day], dtype=dict.fromkeys(text, str))
    return df.astype(dict.fromkeys(text, "category"))


def pandas_sales(args: dict, df: pd.DataFrame) -> tuple[dict, int]:
    days = df["販売日"] if df["販売日"].dtype.kind == "M" else pd.to_datetime(df["販売日"])
    rows = df[(df["顧客コード"] == args["code_customer"])
              & (days >= pd.Timestamp(args["date_sales_begin_str"]))
              & (days <= pd.Timestamp(args["date_sales_end_str"]))]
    return {"count": len(rows), "price": int(rows["金額"].sum())}, len(rows)


def pandas_compare(args: dict, df: pd.DataFrame) -> tuple[dict, int]:
    if "store" in args:
        df = df[df["店舗"] == args["store"]]
    days = df["日付"] if df["日付"].dtype.kind == "M" else pd.to_datetime(df["日付"])
    cur = df[(days >= pd.Timestamp(args["cur_start"])) & (days <= pd.Timestamp(args["cur_end"]))]
    prev = df[(days >= pd.Timestamp(args["prev_start"])) & (days <= pd.Timestamp(args["prev_end"]))]
    cur_sums = cur.groupby("商品名", observed=True)["売上金額"].sum()
    prev_sums = prev.groupby("商品名", observed=True)["売上金額"].sum()
    change = cur_sums.sub(prev_sums, fill_value=0)
    answer = {"current_total": int(cur_sums.sum()), "previous_total": int(prev_sums.sum()),
              "change": int(change.sum())}
    return answer, len(cur) + len(prev)


PANDAS_ANSWER = {"sales": pandas_sales, "compare": pandas_compare}


def rss_mb() -> float:
    """This process's peak resident memory. Linux's VmHWM is this program's own: `getrusage`'s ru_maxrss keeps,
    across exec, the peak of the process that started it (here the bench, its engines and Polars frames)."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:  # no /proc: ru_maxrss, an upper bound
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1024 if sys.platform != "darwin" else 1024**2)
    return int(re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)[1]) / 1024


def pandas_worker() -> None:
    """Read a job on stdin, answer it with pandas, print timings, answers and peak RSS as JSON."""
    job = json.load(sys.stdin)
    path, csv, questions = Path(job["path"]), job["csv"], job["questions"]
    baseline = rss_mb()
    out: dict[str, dict] = {q["label"]: {"times": [], "answers": [], "rows": []} for q in questions}
    load_ms = 0.0
    if job["way"] == "careful":
        started = time.perf_counter()
        frame = careful_load(path, csv)
        load_ms = (time.perf_counter() - started) * 1000
    for i in range(job["calls"]):
        for q in questions:
            started = time.perf_counter()
            df = frame if job["way"] == "careful" else naive_load(path)
            answer, rows = PANDAS_ANSWER[q["kind"]](q["args"][i], df)
            out[q["label"]]["times"].append((time.perf_counter() - started) * 1000)
            out[q["label"]]["answers"].append(answer)
            out[q["label"]]["rows"].append(rows)
            del df
    json.dump({"baseline_mb": baseline, "peak_mb": rss_mb(), "load_ms": load_ms, "results": out}, sys.stdout)


def time_pandas(ds: scale_data.Dataset, todo: list[Query], way: str, calls: int) -> dict[str, Timing]:
    """One process per export and way; careful's cold call is its load plus its first question."""
    out: dict[str, Timing] = {}
    for csv in dict.fromkeys(q.csv for q in todo):
        mine = [q for q in todo if q.csv == csv]
        job = {"way": way, "csv": csv, "path": str(ds.file(csv)), "calls": calls,
               "questions": [{"label": q.label, "kind": q.kind, "args": q.args[:calls]} for q in mine]}
        done = subprocess.run([sys.executable, __file__, "--pandas-worker"], input=json.dumps(job), text=True,
                              capture_output=True, check=False)
        if done.returncode:
            raise SystemExit(f"pandas ({way}, {csv}) failed:\n{done.stderr}")
        report = json.loads(done.stdout)
        loaded = f"loaded once in {report['load_ms']:.0f} ms, " if way == "careful" else "read per question, "
        print(f"  pandas {way} on {csv}: {loaded}peak RSS {report['peak_mb']:.0f} MB "
              f"(python + pandas alone {report['baseline_mb']:.0f} MB)", flush=True)
        for q in mine:
            r = report["results"][q.label]
            out[q.label] = Timing(report["load_ms"] + r["times"][0], r["times"][1:] or r["times"], r["answers"],
                                  r["rows"], report["peak_mb"], load=os.getloadavg()[0])
    return out


# --- the engines -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Engine:
    """One database of this size: its kind (sqlite, postgres, duckdb, mariadb), URL, and where its pipeline
    keeps its state (None: beside the data)."""

    kind: str
    url: str
    state_url: str | None = None


_REPORTED: set[str] = set()  # the engines whose pipeline could not open, said once per run


def time_engines(engines: list[Engine], query: Query, runs: int, anchors: Anchors) -> dict[str, Timing]:
    """A fresh pipeline per engine for the cold call, then the same warm calls on every contender twice: first
    taking turns call by call (A, B, C, A, B, C ...: all see the same machine load), then in blocks (all of A's,
    then all of B's ...: each runs with no other engine between its calls). With `query.raw`, the statement
    the pipeline runs (the rollup's or the base table's) sent by each engine's driver, the way hand-written
    SQL is; and the anchors (DuckDB's own table, Polars) asked the same question."""

    catalogs = ["farm", "pos"] if query.pipeline == "demo" else [STORE_CATALOG]
    pipelines = {e.kind: p for e in engines if (p := _open(e, catalogs, query)) is not None}
    callers: dict[str, Callable[[dict], dict]] = {kind: _invoker(p, query.tool) for kind, p in pipelines.items()}
    raws: list = []
    if query.raw:
        for engine in engines:
            caller, conn = anchor(engine.url, _statement(pipelines.get(engine.kind), query))
            callers[f"{engine.kind} SQL"] = caller
            raws.append(conn)
    callers.update(anchors.callers(query))
    try:
        timings = _cold(callers, query, anchors)
        for i in range(1, runs + 1):
            for kind, call in callers.items():
                _timed(call, query.args[i], timings[kind])
        for kind, call in callers.items():
            for i in range(1, runs + 1):
                _timed(call, query.args[i], timings[kind], block=True)
            timings[kind].load = os.getloadavg()[0]
        return timings
    finally:
        for p in pipelines.values():
            p.close()
        for conn in raws:
            conn.close()


def _cold(callers: dict[str, Callable[[dict], dict]], query: Query, anchors: Anchors) -> dict[str, Timing]:
    """Each contender's first call (for Polars, its load too); a pipeline that fails on an engine concierge
    opens but cannot run this tool on is said and left out."""
    timings = {}
    for kind, call in list(callers.items()):
        t = Timing(0.0, [], [])
        try:
            _timed(call, query.args[0], t)
        except (SystemExit, Exception) as err:
            if kind not in STATE_APART:
                raise
            print(f"  {kind}: the pipeline's call of {query.tool} failed on this engine: {err}", flush=True)
            del callers[kind]
            continue
        t.cold_ms = t.times_ms.pop() + anchors.load_ms(kind, query)
        t.cpu_ms.clear()
        timings[kind] = t
    return timings


def _timed(call: Callable[[dict], dict], args: dict, t: Timing, block: bool = False) -> None:
    """One call: its wall time, this process's CPU time (all its threads; a server's own is not in it), its
    answer."""
    started, cpu = time.perf_counter(), time.process_time()
    answer = call(args)
    wall, used = (time.perf_counter() - started) * 1000, (time.process_time() - cpu) * 1000
    if block:
        t.block_ms.append(wall)
        t.block_cpu_ms.append(used)
        t.block_answers.append(answer)
    else:
        t.times_ms.append(wall)
        t.cpu_ms.append(used)
        t.answers.append(answer)


def _open(engine: Engine, catalogs: list[str], query: Query) -> Pipeline | None:
    """The engine's pipeline; None, said once, where this concierge cannot open its URLs."""
    from concierge.errors import ConciergeError
    from concierge.storage.database import first_line

    pipeline = None
    try:
        pipeline = open_pipeline(catalogs, engine.url, state_database=engine.state_url, use_rollups=query.rollups)
        pipeline.guard_context(query.tool)  # a first read: a URL this version opens but cannot read fails here
        return pipeline
    except Exception as err:  # whatever this version does with a URL it does not know
        if engine.kind not in STATE_APART and not isinstance(err, ConciergeError):
            raise
        if engine.kind not in STATE_APART:
            raise
        if engine.kind not in _REPORTED:
            _REPORTED.add(engine.kind)
            scheme = engine.url.split(":")[0].split("+")[0]
            print(f"{engine.kind}: concierge cannot open {scheme} URLs in this version: {first_line(err)}", flush=True)
        if pipeline is not None:
            pipeline.close()
        return None


def _invoker(pipeline: Pipeline, tool: str) -> Callable[[dict], dict]:
    admin = pipeline.user("admin")
    return lambda args: answer_of(pipeline.invoke(tool, args, admin))


def _statement(pipeline: Pipeline | None, query: Query) -> str:
    """The statement the pipeline runs for this query (the rollup's where it reads one); without a pipeline,
    the catalog's base-table statement."""
    if pipeline is None:
        from concierge.catalog.loader import load_catalog

        return load_catalog("pos").tools[query.tool].sql
    pipeline.guard_context(query.tool)
    return pipeline.sql.statement(pipeline.tools[query.tool], {"category": None})


def anchor(url: str, sql: str) -> tuple[Callable[[dict], dict], object]:
    """Hand-written SQL: `sql` on the driver's own persistent connection, one read transaction per call as the
    pipeline has; the answer summed from its rows the way the tool's summary is."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    run, conn = _ANCHORS[parsed.get_backend_name()](parsed, sql)

    def call(args: dict) -> dict:
        rows = run(args)  # product, category, cur_amount, prev_amount, change
        current, previous = sum(int(r[2]) for r in rows), sum(int(r[3]) for r in rows)
        return {"current_total": current, "previous_total": previous, "change": current - previous}

    return call, conn


def _dates(args: dict) -> dict:
    return {k: date.fromisoformat(v) if k.endswith(("_start", "_end")) else v for k, v in args.items()}


def _sqlite_anchor(url: sa.URL, sql: str) -> tuple[Callable[[dict], list], object]:
    import sqlite3

    conn = sqlite3.connect(url.database, isolation_level=None, check_same_thread=False)

    def run(args: dict) -> list[tuple]:
        conn.execute("BEGIN")
        rows = conn.execute(sql, args).fetchall()
        conn.execute("COMMIT")
        return rows

    return run, conn


def _postgres_anchor(url: sa.URL, sql: str) -> tuple[Callable[[dict], list], object]:
    import psycopg

    conn = psycopg.connect(url.set(drivername="postgresql").render_as_string(hide_password=False))
    # a null parameter needs its type written, as SQLAlchemy writes it
    text = _PARAM.sub(r"%(\1)s", sql).replace("%(category)s", "%(category)s::text")

    def run(args: dict) -> list[tuple]:
        with conn.cursor() as cur:
            cur.execute(text, _dates(args))
            rows = cur.fetchall()
        conn.commit()
        return rows

    return run, conn


def _duckdb_connect(path: str) -> duckdb.DuckDBPyConnection:
    """DuckDB's own read-only connection to the file. DuckDB shares one database per file in a process, and
    only between connections of the same configuration: that of the pipeline's (duckdb-engine names itself
    in it)."""
    import duckdb
    import duckdb_engine

    agent = f"duckdb_engine/{duckdb_engine.__version__}(sqlalchemy/{duckdb_engine.sqlalchemy_version})"
    return duckdb.connect(path, read_only=True, config={"custom_user_agent": agent})


def _duckdb_anchor(url: sa.URL, sql: str) -> tuple[Callable[[dict], list], object]:
    conn = _duckdb_connect(url.database)
    text = _PARAM.sub(r"$\1", sql)

    def run(args: dict) -> list[tuple]:
        conn.execute("BEGIN TRANSACTION")
        rows = conn.execute(text, _dates(args)).fetchall()
        conn.execute("COMMIT")
        return rows

    return run, conn


def _mariadb_anchor(url: sa.URL, sql: str) -> tuple[Callable[[dict], list], object]:
    import scale_load_mariadb

    conn = scale_load_mariadb.connect(url.render_as_string(hide_password=False))
    text = mariadb_sql(sql)

    def run(args: dict) -> list[tuple]:
        with conn.cursor() as cur:
            cur.execute("START TRANSACTION READ ONLY")
            cur.execute(text, _dates(args))
            rows = cur.fetchall()
        conn.commit()
        return list(rows)

    return run, conn


def mariadb_sql(sql: str) -> str:
    """Catalog SQL as PyMySQL takes it: `:name` as `%(name)s`, and `change`, a reserved word in MariaDB and
    MySQL, quoted."""
    return re.sub(r"\bchange\b", "`change`", _PARAM.sub(r"%(\1)s", sql))


_PARAM = re.compile(r"(?<![:\w]):([A-Za-z_][A-Za-z0-9_]*)")
_ANCHORS = {"sqlite": _sqlite_anchor, "postgresql": _postgres_anchor, "duckdb": _duckdb_anchor,
            "mysql": _mariadb_anchor}


# --- the anchors: the same question the way a data person would ask it ------------------------------------
OWN_DUCKDB, POLARS = "duckdb own", "polars"
ANCHORS = ("duckdb", "polars")
_DUCKDB_SALES = ("SELECT count(*), coalesce(sum(price), 0) FROM farm_sales "
                 "WHERE customer_code = $customer AND sale_date BETWEEN $first AND $last")
_DUCKDB_COMPARE = ("SELECT coalesce(sum(amount) FILTER (WHERE sale_date BETWEEN $cur_start AND $cur_end), 0), "
                   "coalesce(sum(amount) FILTER (WHERE sale_date BETWEEN $prev_start AND $prev_end), 0) "
                   "FROM pos_sales WHERE sale_date BETWEEN $prev_start AND $cur_end")
_PERIODS = ("cur_start", "cur_end", "prev_start", "prev_end")


class Anchors:
    """What a data person would pick for the same questions on the same data, open for one size:
    `duckdb own`, DuckDB's own table (this size's DuckDB file) asked in DuckDB SQL; `polars`, the CSV export
    read once into a Polars DataFrame (only the columns the questions need), asked by a Polars expression."""

    def __init__(self, ds: scale_data.Dataset, which: list[str], csvs: list[str]) -> None:
        self._duckdb = _duckdb_connect(str(ds.duckdb_path)) if "duckdb" in which else None
        self._frames: dict[str, pl.DataFrame] = {}
        self._load_ms: dict[str, float] = {}
        for csv in csvs if "polars" in which else []:
            started = time.perf_counter()
            self._frames[csv] = polars_load(ds.file(csv), csv)
            self._load_ms[csv] = (time.perf_counter() - started) * 1000
            print(f"  polars on {csv}: loaded once in {self._load_ms[csv]:.0f} ms", flush=True)

    def callers(self, query: Query) -> dict[str, Callable[[dict], dict]]:
        out: dict[str, Callable[[dict], dict]] = {}
        if self._duckdb is not None:
            out[OWN_DUCKDB] = partial(duckdb_answer, self._duckdb)
        if query.csv in self._frames:
            out[POLARS] = partial(POLARS_ANSWER[query.kind], self._frames[query.csv])
        return out

    def load_ms(self, kind: str, query: Query) -> float:
        """What a contender's cold call adds to its first question: for Polars, reading the export."""
        return self._load_ms[query.csv] if kind == POLARS else 0.0

    def close(self) -> None:
        if self._duckdb is not None:
            self._duckdb.close()
        self._frames.clear()


def duckdb_answer(conn: duckdb.DuckDBPyConnection, args: dict) -> dict:
    if "code_customer" in args:
        count, price = conn.execute(_DUCKDB_SALES, {
            "customer": args["code_customer"], "first": date.fromisoformat(args["date_sales_begin_str"]),
            "last": date.fromisoformat(args["date_sales_end_str"])}).fetchone()
        return {"count": count, "price": int(price)}
    params = {k: date.fromisoformat(args[k]) for k in _PERIODS}
    sql = _DUCKDB_COMPARE
    if "store" in args:
        params["store"], sql = args["store"], sql + " AND store = $store"
    current, previous = conn.execute(sql, params).fetchone()
    return {"current_total": int(current), "previous_total": int(previous), "change": int(current - previous)}


def polars_load(path: Path, csv: str) -> pl.DataFrame:
    """Dates as dates, codes as text (customer 0016 stays 0016)."""
    import polars as pl

    if csv == "pos":
        types = {"日付": pl.Date, "店舗": pl.String, "売上金額": pl.Int64}
    else:
        types = {"顧客コード": pl.String, "販売日": pl.Date, "金額": pl.Int64}
    return pl.read_csv(path, columns=list(types), schema_overrides=types)


def polars_sales(df: pl.DataFrame, args: dict) -> dict:
    import polars as pl

    day = pl.col("販売日")
    count, price = df.filter((pl.col("顧客コード") == args["code_customer"]) & day.is_between(
        date.fromisoformat(args["date_sales_begin_str"]), date.fromisoformat(args["date_sales_end_str"]))).select(
        pl.len(), pl.col("金額").sum()).row(0)
    return {"count": count, "price": price}


def polars_compare(df: pl.DataFrame, args: dict) -> dict:
    import polars as pl

    cur_start, cur_end, prev_start, prev_end = (date.fromisoformat(args[k]) for k in _PERIODS)
    day, amount = pl.col("日付"), pl.col("売上金額")
    where = day.is_between(prev_start, cur_end) & (pl.col("店舗") == args["store"] if "store" in args else pl.lit(True))
    current, previous = df.filter(where).select(
        amount.filter(day.is_between(cur_start, cur_end)).sum().alias("current"),
        amount.filter(day.is_between(prev_start, prev_end)).sum().alias("previous")).row(0)
    return {"current_total": current, "previous_total": previous, "change": current - previous}


POLARS_ANSWER = {"sales": polars_sales, "compare": polars_compare}


# --- comparing and printing ------------------------------------------------------------------------------
def check(engines: dict[str, Timing]) -> tuple[dict[str, str], list[str]]:
    """Each engine's answers against the reference's (careful pandas, else the first engine) call by call, and
    its block's answers against its own turns' for the same calls; engines that do not say how many rows they
    cover take the reference's count for the same call."""
    reference = engines.get(CAREFUL) or next(iter(engines.values()))
    same, differences = {}, []
    for kind, t in engines.items():
        pairs = list(zip(t.answers, reference.answers, strict=False))
        equal = sum(mine == theirs for mine, theirs in pairs)
        same[kind] = f"{equal}/{len(pairs)}"
        differences += [f"{kind}, call {i}: {mine} != {theirs}" for i, (mine, theirs) in enumerate(pairs)
                        if mine != theirs][:3]
        differences += [f"{kind}, call {i} in its block: {mine} != {theirs} taking turns" for i, (mine, theirs)
                        in enumerate(zip(t.block_answers, t.answers[1:], strict=False), 1) if mine != theirs][:3]
        if not t.rows:
            t.rows = [a.get("count") for a in t.answers]
        t.rows = [r if r is not None else (reference.rows[i] if i < len(reference.rows) else None)
                  for i, r in enumerate(t.rows)]
    return same, differences


HEADER = (f"{'question':40} {'engine':15} {'cold ms':>9} {'p50 ms':>9} {'p95 ms':>9} {'block p50':>9} {'cpu ms':>7} "
          f"{'blk cpu':>7} {'rows':>8} "
          f"{'same':>7} {'peak MB':>8} {'careful/us':>11} {'naive/us':>10} {'/SQL':>7} {'/duckdb':>8} "
          f"{'blk/duckdb':>10} {machine.LOAD}")


def row_line(label: str, kind: str, t: Timing, same: str, engines: dict[str, Timing]) -> str:
    known = [r for r in t.rows if r is not None]
    rows = f"{round(statistics.median(known)):,}" if known else ""
    peak = f"{t.peak_mb:,.0f}" if t.peak_mb is not None else ""
    ratios = [f"{engines[way].p50 / t.p50:.1f}x" if way in engines and not kind.startswith("pandas") else ""
              for way in (CAREFUL, NAIVE)]
    own_sql = f"{t.p50 / engines[f'{kind} SQL'].p50:.2f}x" if f"{kind} SQL" in engines else ""
    duck = engines.get(OWN_DUCKDB)
    to_duckdb = f"{t.p50 / duck.p50:.2f}x" if duck else ""
    block = f"{t.block_p50:9.2f}" if t.block_p50 is not None else f"{'':9}"
    cpu = " ".join(f"{ms:7.2f}" for ms in t.cpu_p50s) if t.cpu_p50s else f"{'':15}"
    block_to_duckdb = f"{t.block_p50 / duck.block_p50:.2f}x" if duck and duck.block_p50 and t.block_p50 else ""
    load = f"{t.load:5.1f}" if t.load is not None else f"{'':5}"
    return (f"{label:40} {kind:15} {t.cold_ms:9.1f} {t.p50:9.2f} {t.p95:9.2f} {block} {cpu} {rows:>8} {same:>7} "
            f"{peak:>8} {ratios[0]:>11} {ratios[1]:>10} {own_sql:>7} {to_duckdb:>8} {block_to_duckdb:>10} {load}")


def missing_lines(label: str, kinds: list[str], engines: dict[str, Timing], rollup: bool) -> list[str]:
    """A line for each engine of the run with no row for this question."""
    lines = []
    for kind in kinds:
        if kind in engines:
            continue
        why = "no rollup on this engine (see its base-table row)" if rollup and kind not in ROLLUP_ENGINES else (
            "not run through concierge (see the line above the table)")
        lines.append(f"{label:40} {kind:15} {why}")
    return lines


def run_size(ds: scale_data.Dataset, databases: list[str], admin_url: str, runs: int, pandas_runs: int,
             mariadb_url: str, anchors: list[str]) -> bool:
    import scale_data

    urls = scale_data.ensure(ds, databases, admin_url, mariadb_url)
    if "duckdb" in anchors:  # DuckDB's own table: this size's DuckDB file, built if missing
        scale_data.ensure(ds, ["duckdb"], admin_url, mariadb_url)
    engines = [Engine(kind, url, ds.state_url(kind) if kind in STATE_APART else None) for kind, url in urls.items()]
    todo = queries(ds, runs + 1)
    print(f"\n== {ds.label}: farm {ds.rows:,} sales of {ds.customers:,} customers; pos {ds.rows:,} rows = "
          f"{ds.stores:,} store(s) x 20 products x {scale_data.POS_DAYS} days; {machine.header()} ==", flush=True)
    opened = Anchors(ds, anchors, list(dict.fromkeys(q.csv for q in todo)))
    try:
        results = {q.label: time_engines(
            [e for e in engines if not q.raw or not q.rollups or e.kind in ROLLUP_ENGINES], q, runs, opened)
            for q in todo}
    finally:
        opened.close()
    if pandas_runs:
        for label, timing in time_pandas(ds, todo, "careful", runs + 1).items():
            results[label][CAREFUL] = timing
        for label, timing in time_pandas(ds, todo, "naive", pandas_runs).items():
            results[label][NAIVE] = timing
    print(f"  timed: {machine.load_average()}")
    print(HEADER)
    failed = []
    for q in todo:
        same, differences = check(results[q.label])
        failed += [f"{q.label}: {d}" for d in differences]
        for i, (kind, t) in enumerate(results[q.label].items()):
            print(row_line(q.label if i == 0 else "", kind, t, same[kind], results[q.label]))
        for line in missing_lines("", list(urls), results[q.label], q.raw and q.rollups):
            print(line)
    for line in failed:
        print(f"DIFFERENT ANSWER {line}")
    return not failed


# --- query plans ------------------------------------------------------------------------------------------
def explain(ds: scale_data.Dataset, databases: list[str], admin_url: str) -> None:
    import scale_data


    urls = scale_data.ensure(ds, [d for d in databases if d in ROLLUP_ENGINES], admin_url)
    for kind, url in urls.items():
        pipelines = {(q, r): open_pipeline(["farm", "pos"] if q == "demo" else [STORE_CATALOG], url, use_rollups=r)
                     for q in ("demo", "store") for r in (True, False)}
        try:
            for q in queries(ds, 2):
                print(f"\n--- {ds.label} {kind}: {q.label} ({q.tool})")
                for line in plan(pipelines[q.pipeline, q.rollups], q):
                    print(line)
        finally:
            for p in pipelines.values():
                p.close()


def plan(pipeline: Pipeline, query: Query) -> list[str]:
    from concierge.pipeline import guard
    from concierge.sources.sql.bind import bind

    tool = pipeline.tools[query.tool]
    decision = guard.check(pipeline.tools, query.tool, query.args[1], pipeline.guard_context(query.tool))
    assert isinstance(decision, guard.Accepted), decision
    values = {**decision.args, "_user": "admin", "_role": "admin", "_all_rows": True,
              "_today": pipeline.today(query.tool)}
    prefix = "EXPLAIN QUERY PLAN " if pipeline.db.is_sqlite else "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) "
    with pipeline.db.read() as conn:
        rows = conn.execute(bind(tool, prefix + pipeline.sql.statement(tool, values)), values).all()
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
    if sys.argv[1:] == ["--pandas-worker"]:
        pandas_worker()
        return
    sys.path.insert(0, str(BENCH))
    import scale_data

    parser = scale_data.arg_parser(__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50,
                        help="warm calls per question and database, and for careful pandas")
    parser.add_argument("--pandas-runs", type=int, default=3,
                        help="naive pandas calls per question, cold one included (0: skip both pandas ways)")
    parser.add_argument("--anchors", default=",".join(ANCHORS),
                        help="comma-separated: duckdb (its own table), polars; empty for none (default %(default)s)")
    parser.add_argument("--explain", action="store_true", help="print the query plans instead of timing")
    args = parser.parse_args()
    if args.pandas_runs and pd is None:
        raise SystemExit("the scale benchmark compares against pandas: pip install -e '.[bench]' (or --pandas-runs 0)")
    anchors = [a for a in args.anchors.split(",") if a]
    if unknown := set(anchors) - set(ANCHORS):
        raise SystemExit(f"--anchors: unknown {', '.join(sorted(unknown))}; known: {', '.join(ANCHORS)}")
    if "polars" in anchors and importlib.util.find_spec("polars") is None:
        raise SystemExit("the Polars anchor needs polars: pip install -e '.[bench]' (or --anchors duckdb)")
    ok = True
    databases = args.db or scale_data.DEFAULT_ENGINES
    for ds in scale_data.datasets(args):
        if args.explain:  # the plans of SQLite and PostgreSQL only
            explain(ds, databases, args.pg_url)
        else:
            ok = run_size(ds, databases, args.pg_url, args.runs, args.pandas_runs, args.mariadb_url, anchors) and ok
    if not ok:
        raise SystemExit("some answers differ from pandas'")


if __name__ == "__main__":
    main()
