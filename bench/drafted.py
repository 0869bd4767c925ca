"""Analytics on a catalog drafted by `concierge init`, against DuckDB's own table (issue 28, target 1).

The scale data's `pos_sales` (see scale_data.py) is introspected and drafted as `concierge init` does it; the
draft's rollup of `pos_sales` is built as `concierge db refresh` builds it (once; later runs find it current).
Two questions a data person asks of a sales table, through `Pipeline.invoke` (guard, access, SQL, shaping,
the audit line), the drafted tools as they are:

- a period comparison: every product's sales over the last two weeks of the data against the two weeks before
  (`pos_sales_compare`);
- a top-N by product: the five products of most sales over those two weeks (`pos_sales_summary`).

The anchor is the same question in DuckDB SQL on DuckDB's own copy of the table (a persistent connection). The
contenders take turns call by call (an alternation), then run in blocks of `--runs` calls each; the figures of
every contender are compared with DuckDB's. `--base` also times the drafted tools reading the table itself
(rollups off), a few calls. The first call of a fresh pipeline (it reads the enum values and date bounds the
guard checks against) is timed apart.

    .venv/bin/python bench/drafted.py --rows 10000000 [--db sqlite --db postgres] [--runs 50] [--base 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).parent))
import machine  # noqa: E402
import scale_data  # noqa: E402

from concierge.catalog.loader import load_catalog  # noqa: E402
from concierge.demo.bootstrap import open_pipeline  # noqa: E402
from concierge.errors import DatabaseError  # noqa: E402
from concierge.onboarding.draft import draft_catalog  # noqa: E402
from concierge.onboarding.introspect import introspect  # noqa: E402
from concierge.storage import migrate, rollups, users  # noqa: E402
from concierge.storage.database import Database  # noqa: E402

LAST_DAY = date(2026, 8, 31)  # the scale data's last day
CURRENT = (LAST_DAY - timedelta(days=13), LAST_DAY)
PREVIOUS = (CURRENT[0] - timedelta(days=14), CURRENT[0] - timedelta(days=1))
TOP = 5

COMPARE_ARGS = {"cur_start": CURRENT[0].isoformat(), "cur_end": CURRENT[1].isoformat(),
                "prev_start": PREVIOUS[0].isoformat(), "prev_end": PREVIOUS[1].isoformat()}
TOP_ARGS = {"sale_date_from": CURRENT[0].isoformat(), "sale_date_to": CURRENT[1].isoformat(),
            "group_by": "product", "rank_by": "amount", "top_n": TOP}
DUCKDB_COMPARE = (
    "SELECT product, SUM(CASE WHEN sale_date BETWEEN $cs AND $ce THEN amount ELSE 0 END) - "
    "SUM(CASE WHEN sale_date BETWEEN $ps AND $pe THEN amount ELSE 0 END) FROM pos_sales "
    "WHERE sale_date BETWEEN $ps AND $ce GROUP BY product")
DUCKDB_TOP = (f"SELECT product, SUM(amount) FROM pos_sales WHERE sale_date BETWEEN $cs AND $ce "
              f"GROUP BY product ORDER BY 2 DESC, 1 LIMIT {TOP}")
DUCKDB_VALUES = {"cs": CURRENT[0], "ce": CURRENT[1], "ps": PREVIOUS[0], "pe": PREVIOUS[1]}

Answer = frozenset | tuple
Caller = Callable[[], Answer]


def drafted(ds: scale_data.Dataset, kind: str, url: str) -> Path:
    """The catalog `concierge init` drafts over this database, its pos_sales rollup built; the file's path."""
    folder = ds.folder / f"drafted_{kind}_{ds.label}"
    folder.mkdir(exist_ok=True)
    file = folder / "bench.yaml"
    if not file.exists():
        started = time.perf_counter()
        db = Database(url, read_timeout_s=3600)
        try:
            file.write_text(draft_catalog(introspect(db), "bench").text, encoding="utf-8")
        finally:
            db.dispose()
        print(f"{kind}: drafted in {time.perf_counter() - started:.1f} s: {file}", flush=True)
    spec = load_catalog(str(file)).spec
    wanted = {n: r for n, r in spec.rollups.items() if r.table == "pos_sales"}
    if not wanted:
        raise SystemExit(f"{kind}: the draft keeps no rollup of pos_sales: {file}")
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            missing = set(wanted) - rollups.current(conn, wanted)
            for name in sorted(missing):
                started = time.perf_counter()
                built = rollups.build(conn, name, wanted[name])
                print(f"{kind}: built {name} ({built.groups:,} rows summing {built.source_rows:,}) in "
                      f"{time.perf_counter() - started:.1f} s", flush=True)
    finally:
        engine.dispose()
    return file


def state(ds: scale_data.Dataset, kind: str) -> str:
    """A SQLite state database of its own per engine, beside the data, at the newest revision."""
    url = f"sqlite:///{ds.folder / f'drafted_state_{kind}_{ds.label}.db'}"
    db = Database(url)
    try:
        migrate.upgrade(db)
    finally:
        db.dispose()
    return url


def pipeline_callers(kind: str, url: str, catalog: Path, state_url: str, *, rollups_on: bool):
    started = time.perf_counter()
    pipeline = open_pipeline([str(catalog)], url, state_database=state_url, use_rollups=rollups_on,
                             today=LAST_DAY + timedelta(days=1))
    if "bench" not in {u.name for u in users.all_users(pipeline.state)}:
        users.add(pipeline.state, "bench", "admin")
    user = pipeline.user("bench")
    first = pipeline.invoke("pos_sales_compare", COMPARE_ARGS, user)
    cold = (time.perf_counter() - started) * 1000

    def compare() -> Answer:
        result = pipeline.invoke("pos_sales_compare", COMPARE_ARGS, user)
        assert result.status == "ok", result.message
        return frozenset((r["item"], int(r["change"])) for r in result.rows)

    def top() -> Answer:
        result = pipeline.invoke("pos_sales_summary", TOP_ARGS, user)
        assert result.status == "ok", result.message
        return tuple((r["group_value"], int(r["amount"])) for r in result.rows)

    assert first.status == "ok", first.message
    return pipeline, cold, {"compare": compare, "top": top}


def duckdb_callers(path: Path) -> tuple[object, dict[str, Caller]]:
    import duckdb

    conn = duckdb.connect(str(path), read_only=True)

    def compare() -> Answer:
        return frozenset((p, int(c)) for p, c in conn.execute(DUCKDB_COMPARE, DUCKDB_VALUES).fetchall())

    def top() -> Answer:
        values = {k: v for k, v in DUCKDB_VALUES.items() if k in ("cs", "ce")}
        return tuple((p, int(a)) for p, a in conn.execute(DUCKDB_TOP, values).fetchall())

    return conn, {"compare": compare, "top": top}


def timed(call: Caller) -> tuple[float, Answer]:
    started = time.perf_counter()
    answer = call()
    return (time.perf_counter() - started) * 1000, answer


def run(contenders: dict[str, dict[str, Caller]], question: str, runs: int, *, blocks: bool
        ) -> dict[str, tuple[list[float], set]]:
    out: dict[str, tuple[list[float], set]] = {name: ([], set()) for name in contenders}
    order = [(name, i) for name in contenders for i in range(runs)] if blocks else \
        [(name, i) for i in range(runs) for name in contenders]
    for name, _ in order:
        ms, answer = timed(contenders[name][question])
        out[name][0].append(ms)
        out[name][1].add(answer)
    return out


def report(title: str, found: dict[str, tuple[list[float], set]], anchor: str) -> None:
    truth = found[anchor][1]
    base = statistics.median(found[anchor][0])
    print(f"  {title} ({machine.load_average()})")
    print(f"    {'contender':44} {'p50 ms':>9} {'p95 ms':>9} {'/ DuckDB':>9}  figures  {machine.LOAD}")
    for name, (times, answers) in found.items():
        times = sorted(times)
        p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
        same = "same" if answers == truth and len(answers) == 1 else f"DIFFER ({len(answers)} answers)"
        print(f"    {name:44} {statistics.median(times):9.2f} {p95:9.2f} "
              f"{statistics.median(times) / base:8.2f}x  {same:7}  {machine.load()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--db", action="append", choices=["sqlite", "postgres"])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--base", type=int, default=5, help="calls of the tools reading the table itself (0: none)")
    parser.add_argument("--dir", type=Path, default=scale_data.DEFAULT_DIR)
    parser.add_argument("--pg-url", default=scale_data.DEFAULT_PG)
    args = parser.parse_args()
    kinds = args.db or ["sqlite", "postgres"]
    ds = scale_data.Dataset(args.rows, args.dir)
    urls = scale_data.ensure(ds, [*kinds, "duckdb"], args.pg_url)
    print(f"== {ds.label}: the drafted catalog's tools against DuckDB's own table; {machine.header()} ==", flush=True)
    opened, contenders, base = [], {}, {}
    for kind in kinds:
        catalog = drafted(ds, kind, urls[kind])
        state_url = state(ds, kind)
        pipeline, cold, callers = pipeline_callers(kind, urls[kind], catalog, state_url, rollups_on=True)
        print(f"  {kind}: first call of a fresh pipeline (enum values, date bounds, rollup check) {cold:.0f} ms",
              flush=True)
        opened.append(pipeline)
        contenders[f"concierge {kind}, drafted + rollup"] = callers
        if args.base:
            try:
                pipeline, cold, callers = pipeline_callers(kind, urls[kind], catalog, state_url, rollups_on=False)
            except (AssertionError, DatabaseError) as err:
                print(f"  {kind}: the drafted tools reading the table itself fail: {str(err).splitlines()[0]}",
                      flush=True)
                continue
            opened.append(pipeline)
            base[f"concierge {kind}, drafted, table itself"] = callers
    conn, duck = duckdb_callers(Path(sa.make_url(urls["duckdb"]).database or ""))
    contenders["DuckDB, own table (anchor)"] = duck
    try:
        for question, said in (("compare", "period comparison by product, 2 weeks vs the 2 before"),
                               ("top", f"top {TOP} products by sales, 2 weeks")):
            print(f"\n{said}, {args.runs} calls each")
            report("alternating call by call", run(contenders, question, args.runs, blocks=False),
                   "DuckDB, own table (anchor)")
            report("in blocks", run(contenders, question, args.runs, blocks=True), "DuckDB, own table (anchor)")
            if base:
                with_base = {**base, "DuckDB, own table (anchor)": duck}
                report("the table itself, alternating", run(with_base, question, args.base, blocks=False),
                       "DuckDB, own table (anchor)")
    finally:
        for pipeline in opened:
            pipeline.close()
        conn.close()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
