"""bench/scale.py still runs with its DuckDB and MariaDB paths: a tiny size (10^4 rows, the smallest it builds),
two warm calls, no pandas. Nothing is timed here; the answers are checked against each other by the bench."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

import duckdb
import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
SRC = BENCH.parent / "src"


@pytest.fixture(scope="module")
def scale():
    sys.path.insert(0, str(BENCH))
    try:
        import scale

        yield scale
    finally:
        sys.path.remove(str(BENCH))


def test_duckdb_answers_every_question_as_sqlite_does_and_says_it_has_no_rollup(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, str(BENCH / "scale.py"), "--rows", "10000", "--db", "sqlite", "--db", "duckdb",
         "--runs", "2", "--pandas-runs", "0", "--anchors", "duckdb", "--dir", str(tmp_path)],
        capture_output=True, text=True, timeout=300, env=env)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    table = output[output.index("question "):]
    # on every question it answers, each engine's three answers (the cold call, two warm taking turns) equal
    # sqlite's, beside its p50 and CPU in a block, its ratio to DuckDB's own table, and the load average
    answered = {"sqlite": 4, "duckdb": 3, "sqlite SQL": 2, "duckdb SQL": 1, "duckdb own": 4}
    for engine, questions in answered.items():
        rows = re.findall(rf"\s{re.escape(engine)}\s+(?:[\d.]+\s+){{6}}\S*\s*3/3\s.*\d\.\d\dx\s+\d+\.\d$",
                          table, re.M)
        assert len(rows) == questions, table
    assert re.search(r"^\s+duckdb\s+no rollup on this engine", table, re.M), table
    assert "DIFFERENT ANSWER" not in output
    with duckdb.connect(str(tmp_path / "duckdb_1e4.duckdb"), read_only=True) as conn:
        assert conn.execute("SELECT count(*), count(DISTINCT store) FROM pos_sales").fetchone() == (10_000, 1)
        assert conn.execute("SELECT count(*) FROM farm_sales").fetchone() == (10_000,)


def test_a_mysql_url_this_concierge_cannot_open_is_said_in_one_line(scale, tmp_path, capsys):
    engine = scale.Engine("mariadb", "mysql+pymysql://root@127.0.0.1:1/concierge_bench_1e4",
                          f"sqlite:///{tmp_path / 'state.db'}")
    query = scale.Query("get_sales", "demo", "get_sales", "sales", "farm_sales", [{}])
    assert scale._open(engine, ["farm", "pos"], query) is None
    assert scale._open(engine, ["farm", "pos"], query) is None
    said = capsys.readouterr().out.splitlines()
    assert len(said) == 1 and said[0].startswith("mariadb: concierge cannot open mysql URLs in this version: "), said


def test_the_mariadb_anchor_sends_the_catalog_statement_with_pymysql_parameters_and_change_quoted(scale):
    sql = "SELECT SUM(cur) - SUM(prev) AS change FROM t WHERE d BETWEEN :cur_start AND :cur_end ORDER BY change"
    assert scale.mariadb_sql(sql) == ("SELECT SUM(cur) - SUM(prev) AS `change` FROM t WHERE d BETWEEN "
                                      "%(cur_start)s AND %(cur_end)s ORDER BY `change`")


def _scale_data(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCH / "scale_data.py"), *args], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(SRC)})


def test_two_sizes_built_in_one_process_keep_their_primary_keys_on_sqlite_and_duckdb(pg_server, tmp_path):
    # the PostgreSQL build adds its keys after COPY; the SQLite and DuckDB builds after it must still create theirs
    auth = pg_server["user"] + (f":{pg_server['password']}" if pg_server["password"] else "")
    where = ["--dir", str(tmp_path), "--pg-url", f"postgresql://{auth}@{pg_server['host']}:{pg_server['port']}/postgres",
             "--db-prefix", f"concierge_bench_test_{uuid.uuid4().hex[:8]}", "--rows", "10000", "--rows", "20000"]
    try:
        done = _scale_data(*where, "--db", "postgres", "--db", "sqlite", "--db", "duckdb")
        assert done.returncode == 0, done.stdout + done.stderr
        for label in ("1e4", "20000"):
            assert _sqlite_keys(tmp_path / f"sqlite_{label}.db") == {
                "farm_customers": ["code"], "farm_sales": ["sales_number"],
                "pos_sales": ["store", "sale_date", "product"], "farm_sales foreign keys": 1}, label
            with duckdb.connect(str(tmp_path / f"duckdb_{label}.duckdb"), read_only=True) as conn:
                keyed = conn.execute("SELECT table_name FROM duckdb_constraints() WHERE constraint_type = "
                                     "'PRIMARY KEY' AND table_name <> 'bench_dataset' ORDER BY table_name").fetchall()
            assert keyed == [("farm_customers",), ("farm_sales",), ("pos_sales",)], label
    finally:
        _scale_data(*where, "--drop")


def _sqlite_keys(path: Path) -> dict[str, list[str] | int]:
    with sqlite3.connect(path) as conn:
        keys: dict[str, list[str] | int] = {
            table: [row[1] for row in sorted(conn.execute(f"PRAGMA table_info({table})"), key=lambda r: r[5]) if row[5]]
            for table in ("farm_customers", "farm_sales", "pos_sales")}
        keys["farm_sales foreign keys"] = len(conn.execute("PRAGMA foreign_key_list(farm_sales)").fetchall())
    return keys


def test_a_table_without_its_primary_key_is_named_and_never_timed(tmp_path):
    sys.path.insert(0, str(BENCH))
    try:
        import scale_data
    finally:
        sys.path.remove(str(BENCH))
    ds = scale_data.Dataset(10_000, tmp_path)
    with sqlite3.connect(ds.sqlite_path) as conn:
        conn.execute("CREATE TABLE farm_customers (code TEXT, name TEXT, address TEXT, phone TEXT, assigned_to TEXT)")
        conn.execute("CREATE TABLE farm_sales (sales_number TEXT, customer_code TEXT, sale_date DATE, products TEXT, "
                     "price INTEGER)")
    said = scale_data.lacking(ds, "sqlite", ds.sqlite_url, "farm")
    assert said == ["farm_customers's primary key (code)", "farm_sales's primary key (sales_number)",
                    "farm_sales's index ix_farm_sales_customer_date", "farm_sales's foreign keys"]


def test_polars_and_duckdb_own_table_answer_as_the_pipeline_does(tmp_path):
    done = subprocess.run(
        [sys.executable, str(BENCH / "scale.py"), "--rows", "10000", "--db", "sqlite", "--runs", "2",
         "--pandas-runs", "0", "--dir", str(tmp_path)],
        capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(SRC)})
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    table = output[output.index("question "):]
    for engine in ("polars", "duckdb own"):
        assert len(re.findall(rf"^\s+{engine}\s+(?:[\d.]+\s+){{6}}\S*\s*3/3\s", table, re.M)) == 4, table
    assert "polars on pos: loaded once in" in output and "DIFFERENT ANSWER" not in output
