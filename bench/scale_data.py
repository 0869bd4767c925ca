"""Scale the two demo schemas up to millions of sales rows, on SQLite, PostgreSQL, DuckDB and MariaDB.

    .venv/bin/python bench/scale_data.py --rows 10000 --rows 1000000 [--db sqlite --db postgres --db duckdb ...]

Each size is generated once into the CSV exports a business would have (the
files the replaced POS copilot read with pandas), under ``--dir`` (default
/tmp/concierge-bench, never the repository), then bulk-loaded from them by
bench/scale_load.py: PostgreSQL by COPY, SQLite by executemany in large
transactions; DuckDB by its own CSV reader (bench/scale_load_duckdb.py);
MariaDB by LOAD DATA LOCAL INFILE (bench/scale_load_mariadb.py). All end with
the tables, keys and indexes of ``concierge.schema`` and fresh statistics;
the rollups only on SQLite and PostgreSQL (they are kept by triggers).

The demo rows are kept as they are, so every fact of the demo still holds and
the catalogs work unchanged:

- farm: customers 0001..0020 as in the demo, more up to one per 1,000 sales
  (the 4-digit code caps them at 9,999); filler sales spread evenly over
  2015-01-01 .. 2024-09-30, before the demo's own first day.
- pos: the demo's 20 products in stores x 500 days (2025-04-19 .. 2026-08-31),
  so 10,000 rows per store; D店 keeps the demo's July-August rows exactly.

Rows are written in the order they would arrive (by day), as a live system
appends them.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import psycopg
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from concierge.demo.farm import data as farm
from concierge.demo.pos import csv_import as pos_import
from concierge.demo.pos import data as pos
from concierge.errors import DatabaseError

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scale_load  # noqa: E402
import scale_load_duckdb  # noqa: E402
import scale_load_mariadb  # noqa: E402

DEFAULT_DIR = Path("/tmp/concierge-bench")
DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/postgres"
DEFAULT_MARIADB = "mysql+pymysql://root@127.0.0.1:3306/"
DEFAULT_PREFIX = "concierge_bench"
ENGINES = ["sqlite", "postgres", "duckdb", "mariadb"]
DEFAULT_ENGINES = ["sqlite", "postgres"]
SEED = 7

FARM_FIRST = date(2015, 1, 1)
FARM_LAST = farm.FIRST_DAY - timedelta(days=1)
SALES_PER_CUSTOMER = 1_000
MAX_CUSTOMERS = 9_999
POS_DAYS = 500
POS_FIRST = pos.LAST_DAY - timedelta(days=POS_DAYS - 1)
ROWS_PER_STORE = POS_DAYS * len(pos.PRODUCTS)

_SURNAMES = ("鈴木", "高橋", "田中", "伊藤", "渡辺", "中村", "小林", "加藤", "吉田", "山本", "松本", "井上",
             "木村", "林", "清水", "山崎", "森", "池田", "橋本", "阿部")
_GIVEN = ("一郎", "花子", "健", "美咲", "大輔", "さくら", "翔", "由美", "直子", "陽介", "真由", "拓也")
_PLACES = ("東京都八王子市", "神奈川県相模原市", "埼玉県川越市", "千葉県船橋市", "茨城県水戸市", "栃木県宇都宮市",
           "群馬県前橋市", "山梨県甲府市", "長野県松本市", "静岡県浜松市")


@dataclass(frozen=True)
class Dataset:
    """One size of scaled data: its files under `folder`, its PostgreSQL and MariaDB databases named
    `<prefix>_<label>`."""

    rows: int
    folder: Path
    prefix: str = DEFAULT_PREFIX

    @property
    def label(self) -> str:
        exponent = len(str(self.rows)) - 1
        return f"1e{exponent}" if self.rows == 10**exponent else str(self.rows)

    def file(self, name: str) -> Path:
        return self.folder / f"{name}_{self.label}.csv"

    @property
    def sqlite_path(self) -> Path:
        return self.folder / f"sqlite_{self.label}.db"

    @property
    def sqlite_url(self) -> str:
        return f"sqlite:///{self.sqlite_path}"

    @property
    def duckdb_path(self) -> Path:
        return self.folder / f"duckdb_{self.label}.duckdb"

    @property
    def duckdb_url(self) -> str:
        return f"duckdb:///{self.duckdb_path}"

    def mariadb_url(self, server_url: str) -> str:
        url = make_url(server_url).set(database=f"{self.prefix}_{self.label}")
        return url.render_as_string(hide_password=False)

    def state_url(self, kind: str) -> str:
        """Where the pipeline on `kind` keeps its state (users, audit) when not beside the data: a SQLite file."""
        return f"sqlite:///{self.folder / f'state_{kind}_{self.label}.db'}"

    def postgres_url(self, admin_url: str) -> str:
        url = make_url(admin_url).set(drivername="postgresql+psycopg", database=f"{self.prefix}_{self.label}")
        return url.render_as_string(hide_password=False)

    @property
    def stores(self) -> int:
        return max(1, self.rows // ROWS_PER_STORE)

    @property
    def customers(self) -> int:
        return min(MAX_CUSTOMERS, max(len(farm.CUSTOMERS), self.rows // SALES_PER_CUSTOMER))


# --- generating the CSV exports -------------------------------------------------------------------
def write_exports(ds: Dataset) -> None:
    ds.folder.mkdir(parents=True, exist_ok=True)
    _write_once(ds.file("farm_customers"), scale_load.FARM_CUSTOMER_COLUMNS, lambda: _customer_lines(ds))
    _write_once(ds.file("farm_sales"), scale_load.FARM_SALES_COLUMNS, lambda: _farm_sales_lines(ds))
    _write_once(ds.file("pos"), pos_import.COLUMNS, lambda: _pos_lines(ds))


def _write_once(path: Path, columns: dict[str, str], lines: Callable[[], Iterator[str]]) -> None:
    """Write the file under a temporary name and rename it, so a present file is a complete one."""
    if path.exists():
        return
    started = time.perf_counter()
    part = path.with_suffix(".part")
    with part.open("w", encoding="utf-8-sig", newline="") as handle:
        handle.write(",".join(columns) + "\n")
        for chunk in lines():
            handle.write(chunk)
    part.rename(path)
    print(f"  wrote {path} in {time.perf_counter() - started:.1f} s", flush=True)


def customer_rows(ds: Dataset) -> list[tuple]:
    rng = random.Random(SEED)
    rows = [(c["code"], c["name"], c["address"], c["phone"], c["assigned_to"] or "") for c in farm.customers()]
    for number in range(len(rows) + 1, ds.customers + 1):
        name = rng.choice(_SURNAMES) + rng.choice(_GIVEN)
        address = f"{rng.choice(_PLACES)}{rng.randint(1, 9)}-{rng.randint(1, 30)}-{rng.randint(1, 20)}"
        phone = f"0{rng.randint(20, 99)}-{rng.randint(200, 999)}-{number:04d}"
        rows.append((f"{number:04d}", name, address, phone, ""))
    return rows


def _customer_lines(ds: Dataset) -> Iterator[str]:
    yield "".join(",".join(row) + "\n" for row in customer_rows(ds))


def _farm_sales_lines(ds: Dataset) -> Iterator[str]:
    rng = random.Random(SEED)
    demo_sales = farm.sales()
    filler = ds.rows - len(demo_sales)
    if filler < 0:
        raise SystemExit(f"--rows {ds.rows} is smaller than the demo's own {len(demo_sales)} sales")
    codes = [f"{c:04d}" for c in range(1, ds.customers + 1)]
    baskets = [_basket(rng) for _ in range(1_000)]
    span = (FARM_LAST - FARM_FIRST).days + 1
    chunk, day_index, iso, compact = [], -1, "", ""
    randrange = rng.randrange
    for i in range(filler):
        if i * span // filler != day_index:
            day_index = i * span // filler
            day = FARM_FIRST + timedelta(days=day_index)
            iso, compact = day.isoformat(), f"{day:%Y%m%d}"
        products, price = baskets[randrange(1_000)]
        chunk.append(f"S{compact}-{i:08d},{codes[randrange(len(codes))]},{iso},{products},{price}\n")
        if len(chunk) >= 50_000:
            yield "".join(chunk)
            chunk = []
    chunk.extend(
        f"{s['sales_number']},{s['customer_code']},{s['sale_date'].isoformat()},{s['products']},{s['price']}\n"
        for s in demo_sales
    )
    yield "".join(chunk)


def _basket(rng: random.Random) -> tuple[str, int]:
    items = rng.sample(farm.PRODUCE, rng.choice((1, 1, 2)))
    quantities = [rng.randint(2, 20) for _ in items]
    text = "と".join(f"{name}{q}{counter}" for (name, counter, _), q in zip(items, quantities, strict=True))
    return text, sum(unit * q for (_, _, unit), q in zip(items, quantities, strict=True))


def store_names(ds: Dataset) -> list[str]:
    return [pos.STORE] + [f"{n:04d}号店" for n in range(1, ds.stores)]


def _pos_lines(ds: Dataset) -> Iterator[str]:
    rng = random.Random(SEED)
    demo = {(r["sale_date"], r["product"]): r["quantity"] for r in pos.rows()}
    stores = store_names(ds)
    size = {store: rng.uniform(0.6, 1.6) for store in stores}
    products = [(p, *pos.PRODUCTS[p]) for p in sorted(pos.PRODUCTS)]
    rnd = rng.random
    for offset in range(POS_DAYS):
        day = POS_FIRST + timedelta(days=offset)
        iso, busy = day.isoformat(), 1.15 if day.weekday() >= 5 else 1.0
        lines = []
        for store in stores:
            demo_day = store == pos.STORE and day >= pos.FIRST_DAY
            scale = size[store] * busy
            for product, category, price, usual in products:
                qty = demo[(day, product)] if demo_day else max(1, int(usual * scale * (0.7 + 0.6 * rnd())))
                lines.append(f"{iso},{store},{product},{category},{price},{qty},{qty * price}\n")
        yield "".join(lines)


def ensure(ds: Dataset, databases: list[str], admin_url: str = DEFAULT_PG,
           mariadb_url: str = DEFAULT_MARIADB) -> dict[str, str]:
    """Generate and load whatever of this size is missing; returns the database URL per kind. Tables that lack
    a key or an index of concierge.schema are built again; if a build leaves them lacking one, the run stops
    there, so that no figure is ever taken on them."""
    urls = {}
    for kind in databases:
        url = _url(ds, kind, admin_url, mariadb_url)
        for demo in scale_load.DEMOS:
            if _ready(ds, kind, url, demo):
                continue
            print(f"{ds.label}: building {demo} on {kind}", flush=True)
            write_exports(ds)
            _load(ds, kind, url, admin_url, demo)
            if missing := lacking(ds, kind, url, demo):
                raise SystemExit(f"{ds.label}: {demo} on {kind} lacks {', '.join(missing)} after its build; "
                                 "nothing is timed on such tables")
        urls[kind] = url
    return urls


def _url(ds: Dataset, kind: str, admin_url: str, mariadb_url: str) -> str:
    return {"sqlite": ds.sqlite_url, "postgres": ds.postgres_url(admin_url), "duckdb": ds.duckdb_url,
            "mariadb": ds.mariadb_url(mariadb_url)}[kind]


def _ready(ds: Dataset, kind: str, url: str, demo: str) -> bool:
    """Loaded at this size, keys and indexes complete; on SQLite and PostgreSQL an index or rollup that joined
    concierge.schema since the build is added here."""
    if not _loaded(ds, kind, url, demo):
        return False
    if kind in ("sqlite", "postgres"):
        scale_load.add_missing_indexes(url, demo)
        scale_load.ensure_rollups(url, demo)
    if missing := lacking(ds, kind, url, demo):
        print(f"{ds.label}: {demo} on {kind} lacks {', '.join(missing)}: building it again", flush=True)
    return not missing


def _loaded(ds: Dataset, kind: str, url: str, demo: str) -> bool:
    if kind == "duckdb":
        return scale_load_duckdb.is_loaded(ds.duckdb_path, demo, ds.rows)
    if kind == "mariadb":
        return scale_load_mariadb.is_loaded(url, demo, ds.rows)
    if kind == "sqlite" and not ds.sqlite_path.exists():
        return False
    try:
        return scale_load.is_loaded(url, demo, ds.rows)
    except (DatabaseError, sa.exc.OperationalError):  # no such database yet
        return False


def _load(ds: Dataset, kind: str, url: str, admin_url: str, demo: str) -> None:
    if kind == "sqlite":
        scale_load.load_sqlite(ds.sqlite_path, ds.file, demo, ds.rows)
    elif kind == "postgres":
        scale_load.load_postgres(url, admin_url, ds.file, demo, ds.rows)
    elif kind == "duckdb":
        scale_load_duckdb.load(ds.duckdb_path, ds.file, demo, ds.rows)
    else:
        scale_load_mariadb.load(url, ds.file, demo, ds.rows)


def lacking(ds: Dataset, kind: str, url: str, demo: str) -> list[str]:
    """What `demo`'s tables on this engine lack of concierge.schema's keys and indexes, in words."""
    found = scale_load_duckdb.structure(ds.duckdb_path, demo) if kind == "duckdb" else scale_load.structure(url, demo)
    return scale_load.lacking(found, demo)


def drop(ds: Dataset, admin_url: str, mariadb_url: str = DEFAULT_MARIADB) -> None:
    """Remove this size's files and its PostgreSQL and MariaDB databases."""
    for path in ds.folder.glob(f"*_{ds.label}.*"):
        path.unlink()
    scale_load_mariadb.drop(ds.mariadb_url(mariadb_url))
    conninfo = make_url(admin_url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{make_url(ds.postgres_url(admin_url)).database}" WITH (FORCE)')


def arg_parser(description: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description or __doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, action="append",
                        help="sales rows per demo (repeatable; default 10000, 1000000 and 10000000); "
                             f"pos needs a multiple of {ROWS_PER_STORE:,} (one store)")
    parser.add_argument("--db", action="append", choices=ENGINES,
                        help="databases (repeatable; default sqlite and postgres)")
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="folder for CSV exports and SQLite files")
    parser.add_argument("--pg-url", default=DEFAULT_PG,
                        help="a PostgreSQL server URL; one database per size is created on it")
    parser.add_argument("--mariadb-url", default=DEFAULT_MARIADB,
                        help="a MariaDB/MySQL server URL; one database per size is created on it")
    parser.add_argument("--db-prefix", default=DEFAULT_PREFIX,
                        help="the PostgreSQL and MariaDB databases are named <prefix>_<size> (default %(default)s)")
    parser.add_argument("--drop", action="store_true", help="remove the data of these sizes and stop")
    return parser


def datasets(args: argparse.Namespace) -> list[Dataset]:
    sizes = args.rows or [10_000, 1_000_000, 10_000_000]
    bad = [n for n in sizes if n % ROWS_PER_STORE]
    if bad:
        raise SystemExit(f"--rows must be multiples of {ROWS_PER_STORE:,}: {bad}")
    return [Dataset(n, args.dir, args.db_prefix) for n in sizes]


def main() -> None:
    args = arg_parser().parse_args()
    for ds in datasets(args):
        if args.drop:
            drop(ds, args.pg_url, args.mariadb_url)
            print(f"{ds.label}: dropped")
            continue
        started = time.perf_counter()
        urls = ensure(ds, args.db or DEFAULT_ENGINES, args.pg_url, args.mariadb_url)
        print(f"{ds.label}: ready in {time.perf_counter() - started:.1f} s: {', '.join(urls.values())}")


if __name__ == "__main__":
    main()
