"""A DuckDB file as the business database: `concierge init --database duckdb:///shop.duckdb`, `catalog check`, then
ask, as a user runs them. The file is made here with a schema of its own (keys, a foreign key, decimal amounts,
dates); every figure an answer must state is computed here with plain SQL on the same file. concierge opens the
file read-only: writes and state tables are refused with what to do, a process writing to the file is named, and
a read that runs past the timeout is stopped.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
import sqlalchemy as sa

from concierge.errors import ConfigError, DatabaseError
from concierge.onboarding.check import check_catalogs
from concierge.onboarding.introspect import introspect
from concierge.pipeline.pipeline import Pipeline
from concierge.storage import duckdb_file
from concierge.storage.database import Database

SCHEMA = """
CREATE TABLE branches (branch_code VARCHAR PRIMARY KEY, branch_name VARCHAR NOT NULL, region VARCHAR NOT NULL);
CREATE TABLE rentals (
    rental_id INTEGER PRIMARY KEY,
    branch_code VARCHAR NOT NULL REFERENCES branches (branch_code),
    rented_on DATE NOT NULL,
    fee DECIMAL(10, 2) NOT NULL,
    kind VARCHAR NOT NULL
);
INSERT INTO branches VALUES ('B01', 'Harbour', 'east'), ('B02', 'Hillside', 'west'), ('B03', 'Station', 'east');
INSERT INTO rentals
SELECT i, 'B0' || (1 + i % 3), DATE '2026-05-01' + CAST(i % 92 AS INTEGER), 12.5 + (i * 7) % 40,
       CASE WHEN i % 5 = 0 THEN 'van' WHEN i % 2 = 0 THEN 'bike' ELSE 'car' END
FROM range(1, 401) t(i);
"""


def figure(path: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(path), read_only=True) as conn:
        return conn.execute(sql).fetchall()


def numbers(text: str) -> set[Decimal]:
    return {Decimal(n.replace(",", "")) for n in re.findall(r"(?<![\d,.])\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+", text)}


def said(process: subprocess.CompletedProcess) -> str:
    return f"exit {process.returncode}\nstdout:\n{process.stdout}\nstderr:\n{process.stderr}"


class Desk:
    def __init__(self, root: Path):
        self.root, self.folder, self.file = root, root / "desk", root / "rentals.duckdb"
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("CONCIERGE_", "XDG_"))}
        self.env = {**keep, "HOME": str(root / "home"), "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}

    def run(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "concierge", *args], cwd=cwd or self.folder, env=self.env,
                              capture_output=True, text=True, timeout=120)

    def ask(self, question: str) -> dict:
        asked = self.run("ask", question, "--user", "owner", "--json")
        assert asked.returncode == 0, said(asked)
        return json.loads(asked.stdout)


@pytest.fixture(scope="module")
def desk(tmp_path_factory) -> Desk:
    d = Desk(tmp_path_factory.mktemp("duck"))
    with duckdb.connect(str(d.file)) as conn:
        conn.execute(SCHEMA)
    init = d.run("init", "--database", f"duckdb:///{d.file}", "--dir", "desk", cwd=d.root)
    assert init.returncode == 0, said(init)
    assert "in the duckdb database 'rentals'" in init.stdout, said(init)
    added = d.run("user", "add", "owner", "--role", "admin", "--no-password")
    assert added.returncode == 0, said(added)
    return d


def test_init_reads_the_keys_and_types_and_every_drafted_tool_passes_the_check(desk):
    db = Database(f"duckdb:///{desk.file}")
    try:
        schema = introspect(db)
    finally:
        db.dispose()
    rentals = schema.table("rentals")
    assert rentals is not None and rentals.row_count == 400
    assert rentals.primary_key == ("rental_id",)
    assert [(fk.columns, fk.table) for fk in rentals.foreign_keys] == [(("branch_code",), "branches")]
    kinds = {c.name: c.kind for c in rentals.columns}
    assert kinds == {"rental_id": "integer", "branch_code": "text", "rented_on": "date", "fee": "number",
                     "kind": "text"}
    assert 'database = "duckdb:///' in (desk.folder / "concierge.toml").read_text()
    check = desk.run("catalog", "check")
    assert check.returncode == 0, said(check)
    assert "0 problems" in check.stdout + check.stderr, said(check)


def test_answers_state_the_figures_plain_sql_computes_on_the_file(desk):
    (count,) = figure(desk.file, "SELECT count(*) FROM rentals")[0]
    turn = desk.ask("How many rentals do we have?")
    assert count in numbers(turn["answer"]), turn["answer"]

    by_kind = figure(desk.file, "SELECT kind, count(*), sum(fee) FROM rentals GROUP BY kind")
    turn = desk.ask("rentals summary by kind")
    for kind, rentals, fees in by_kind:
        line = next(line for line in turn["answer"].splitlines() if f"| {kind} |" in line)
        assert {Decimal(rentals), fees} <= numbers(line), turn["answer"]

    (june,) = figure(desk.file, "SELECT count(*) FROM rentals WHERE rented_on BETWEEN '2026-06-01' AND '2026-06-30'")[0]
    turn = desk.ask("How many rentals were there in June 2026?")
    assert june in numbers(turn["answer"]), turn["answer"]


def test_the_state_tables_are_refused_on_the_duckdb_file_with_the_setting_to_use(desk):
    with pytest.raises(ConfigError, match=r"set state_database.*sqlite:///state\.db") as refused:
        Pipeline.open([str(desk.folder / "catalogs" / "rentals.yaml")], f"duckdb:///{desk.file}")
    assert str(desk.file) in str(refused.value)
    asked = desk.run("ask", "How many rentals do we have?", "--state-database", f"duckdb:///{desk.file}")
    assert asked.returncode != 0 and "set state_database" in asked.stderr, said(asked)


def test_a_write_is_refused_and_leaves_the_file_as_it_was(desk):
    db = Database(f"duckdb:///{desk.file}")
    try:
        with pytest.raises(DatabaseError, match="read-only to concierge"), db.write() as conn:
            conn.execute(sa.text("DELETE FROM rentals"))
    finally:
        db.dispose()
    assert figure(desk.file, "SELECT count(*) FROM rentals") == [(400,)]


def test_a_process_writing_to_the_file_is_named_in_the_message(desk):
    writer = subprocess.Popen(
        [sys.executable, "-c", f"import duckdb, sys; c = duckdb.connect({str(desk.file)!r}); "
         "print('open', flush=True); sys.stdin.read()"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "open"
        db = Database(f"duckdb:///{desk.file}")
        try:
            with pytest.raises(DatabaseError, match=f"the DuckDB file {re.escape(str(desk.file))} is open for writing "
                               rf"in another process .*PID {writer.pid}"), db.read() as conn:
                conn.execute(sa.text("SELECT 1"))
        finally:
            db.dispose()
    finally:
        writer.communicate("", timeout=30)
    assert figure(desk.file, "SELECT count(*) FROM rentals") == [(400,)]


def test_a_read_past_the_timeout_is_stopped_and_the_next_read_runs(desk):
    db = Database(f"duckdb:///{desk.file}", read_timeout_s=0.3)
    try:
        started = time.monotonic()
        with pytest.raises(sa.exc.DBAPIError, match="Interrupted"), db.read() as conn:
            conn.execute(sa.text("SELECT count(*) FROM range(100000000000) a, range(10) b")).all()
        assert time.monotonic() - started < 5
        time.sleep(0.5)  # any timer of the stopped read would have fired by now
        with db.read() as conn:
            assert conn.execute(sa.text("SELECT count(*) FROM rentals")).scalar() == 400
    finally:
        db.dispose()


WRITE_CATALOG = """
catalog: rental_writes
description: {ja: 料金を変更します, en: Change a rental's fee}
roles:
  admin: {all_rows: true}
tools:
  set_fee:
    description: {ja: 料金を変更します, en: Change a rental's fee}
    mode: write
    confirm: true
    roles: [admin]
    params:
      rental:
        type: integer
        required: true
        description: {ja: 貸出番号, en: the rental number}
      fee:
        type: integer
        required: true
        min: 0
        max: 1000
        description: {ja: 新しい料金, en: the new fee}
    preview_sql: SELECT rental_id, fee AS old_fee, :fee AS new_fee FROM rentals WHERE rental_id = :rental
    sql: UPDATE rentals SET fee = :fee WHERE rental_id = :rental
"""


def test_catalog_check_reports_a_write_tool_as_one_that_cannot_run_on_the_file(desk, tmp_path):
    (tmp_path / "writes.yaml").write_text(WRITE_CATALOG, encoding="utf-8")
    db = Database(f"duckdb:///{desk.file}")
    try:
        report = check_catalogs([str(tmp_path / "writes.yaml")], db)
    finally:
        db.dispose()
    assert [(p.key, p.message) for p in report.problems] == [
        ("tools.set_fee.mode", "a write tool cannot run here: " + duckdb_file.WRITES_REFUSED)]
    assert figure(desk.file, "SELECT count(*) FROM rentals") == [(400,)]
