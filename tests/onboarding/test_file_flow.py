"""Files as a database: `concierge init --file sales.csv --file items.xlsx`, then ask, as a user runs it.

The files are made here (the Excel workbook with openpyxl), shaped as staff export them: amounts with
thousands separators and yen signs, codes with leading zeros, dates. Every figure an answer must state is
computed here with plain Python over the rows written. A CSV with a broken line is reported with its line and
column and loads nothing: the data already loaded keeps answering; `concierge db reload` re-reads a fixed file.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from datetime import date
from pathlib import Path

import openpyxl
import pytest

from concierge.errors import DataImportError
from concierge.storage import file_import

PASSWORD = "yamada-pass-1"

SALES = [  # (code, product, amount as exported, day)
    ("007", "Green tea", '"1,200"', "2026-08-03"),
    ("010", "Cheesecake", "¥300", "2026/8/4"),
    ("011", "Apple pie", "1500円", "2026-08-15"),
    ("007", "Green tea", '"¥12,400"', "2026-08-20"),
    ("012", "Rice ball", "250", "2026-09-01"),
]
ITEMS = [  # (code, name, quantity, received)
    ("0007", "Green tea", 40, date(2026, 8, 1)),
    ("0010", "Cheesecake", 12, date(2026, 8, 2)),
    ("0011", "Apple pie", 7, date(2026, 9, 5)),
]


def _yen(text: str) -> int:
    return int(re.sub(r"[^\d-]", "", text))


def _day(text: str) -> str:
    return date(*(int(part) for part in re.split(r"[-/]", text))).isoformat()


def _write_sales(path: Path, rows: list[tuple[str, str, str, str]], extra: str = "") -> None:
    path.write_text("code,product,amount,day\n" + "".join(",".join(r) + "\n" for r in rows) + extra,
                    encoding="utf-8")


def _write_items(path: Path) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["code", "name", "quantity", "received"])
    for code, name, quantity, received in ITEMS:
        sheet.append([code, name, quantity, received])
    book.save(path)


class Desk:
    def __init__(self, root: Path):
        self.root, self.folder = root, root / "desk"
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("CONCIERGE_", "XDG_"))}
        src = str(Path(file_import.__file__).parents[2])
        self.env = {**keep, "HOME": str(root / "home"), "PYTHONPATH": src}

    def run(self, *args: str, cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "concierge", *args], cwd=cwd or self.folder, env=self.env,
                              input=stdin, capture_output=True, text=True, timeout=120)

    def ask(self, question: str) -> dict:
        asked = self.run("ask", question, "--user", "yamada", "--json")
        assert asked.returncode == 0, said(asked)
        return json.loads(asked.stdout)

    def rows(self, sql: str) -> list[tuple]:
        with sqlite3.connect(self.folder / file_import.DATABASE_FILE) as conn:
            return conn.execute(sql).fetchall()


def said(process: subprocess.CompletedProcess) -> str:
    return f"exit {process.returncode}\nstdout:\n{process.stdout}\nstderr:\n{process.stderr}"


def numbers(text: str) -> set[int]:
    return {int(n.replace(",", "")) for n in re.findall(r"(?<![\d,.])(\d{1,3}(?:,\d{3})+|\d+)(?![\d-])", text)}


@pytest.fixture(scope="module")
def desk(tmp_path_factory) -> Desk:
    d = Desk(tmp_path_factory.mktemp("files"))
    _write_sales(d.root / "sales.csv", SALES)
    _write_items(d.root / "items.xlsx")
    init = d.run("init", "--file", "sales.csv", "--file", "items.xlsx", "--dir", "desk", cwd=d.root)
    assert init.returncode == 0, said(init)
    added = d.run("user", "add", "yamada", "--role", "staff", "--password-stdin", stdin=PASSWORD + "\n")
    assert added.returncode == 0, said(added)
    return d


def test_init_loads_each_file_into_a_typed_table_and_drafts_both(desk):
    assert desk.rows("SELECT code, amount, day FROM sales ORDER BY rowid") == [
        (code, _yen(amount), _day(day)) for code, _, amount, day in SALES]
    assert desk.rows("SELECT code, quantity, received FROM items ORDER BY rowid") == [
        (code, quantity, received.isoformat()) for code, _, quantity, received in ITEMS]
    schema = dict(desk.rows("SELECT name, sql FROM sqlite_master WHERE type = 'table'"))
    assert re.search(r'"code" TEXT.*"amount" INTEGER.*"day" DATE', schema["sales"])
    assert re.search(r'"code" TEXT.*"quantity" INTEGER.*"received" DATE', schema["items"])
    catalog = (desk.folder / "catalogs" / "sales.yaml").read_text()
    assert "FROM sales" in catalog and "FROM items" in catalog
    check = desk.run("catalog", "check")
    assert check.returncode == 0, said(check)


def test_a_question_on_the_csv_is_answered_with_the_figure_python_computes(desk):
    august = [_yen(amount) for _, _, amount, day in SALES if _day(day).startswith("2026-08")]
    turn = desk.ask("What was the total amount in August 2026?")
    assert sum(august) in numbers(turn["answer"]), turn["answer"]
    assert len(august) in numbers(turn["answer"]), turn["answer"]


def test_a_question_on_the_excel_file_is_answered_with_the_figure_python_computes(desk):
    turn = desk.ask("How many items do we have?")
    assert len(ITEMS) in numbers(turn["answer"]), turn["answer"]
    turn = desk.ask("What was the total quantity in August 2026?")
    expected = sum(q for _, _, q, received in ITEMS if received.month == 8)
    assert expected in numbers(turn["answer"]), turn["answer"]


def test_a_broken_line_is_reported_loads_nothing_and_a_fixed_file_is_reloaded_in_one_command(desk):
    before = desk.rows("SELECT count(*), sum(amount) FROM sales")
    _write_sales(desk.root / "sales.csv", SALES, extra='013,Melon bread,200,2026-09-02,extra\n')
    broken = desk.run("db", "reload")
    assert broken.returncode != 0, said(broken)
    assert "sales.csv: line 7, column 5" in broken.stderr and "nothing was loaded" in broken.stderr, said(broken)
    assert desk.rows("SELECT count(*), sum(amount) FROM sales") == before
    turn = desk.ask("How many sales do we have?")
    assert len(SALES) in numbers(turn["answer"]), turn["answer"]

    _write_sales(desk.root / "sales.csv", [*SALES, ("013", "Melon bread", '"2,000"', "2026-09-02")])
    fixed = desk.run("db", "reload")
    assert fixed.returncode == 0, said(fixed)
    assert desk.rows("SELECT count(*), sum(amount) FROM sales") == [(len(SALES) + 1, before[0][1] + 2000)]
    turn = desk.ask("How many sales do we have?")
    assert len(SALES) + 1 in numbers(turn["answer"]), turn["answer"]


def test_a_bad_date_in_a_date_column_names_its_line_and_column(tmp_path):
    path = tmp_path / "sales.csv"
    _write_sales(path, [*SALES[:2], ("013", "Melon bread", "200", "2026-13-45"), *SALES[2:]])
    with pytest.raises(DataImportError) as caught:
        file_import.load(tmp_path / "files.db", [path])
    assert (caught.value.line, caught.value.column) == (4, "day")
    assert not (tmp_path / "files.db").exists() or not sqlite3.connect(tmp_path / "files.db").execute(
        "SELECT name FROM sqlite_master").fetchall()


def test_amounts_codes_and_dates_are_inferred_from_every_cell(tmp_path):
    path = tmp_path / "mixed.csv"
    path.write_text('id,code,price,note,ratio\n1,123,"1,200",a,0.5\n2,0456,-300円,b,1\n', encoding="utf-8")
    (table,) = file_import.read(path)
    assert table.columns == [("id", "INTEGER"), ("code", "TEXT"), ("price", "INTEGER"), ("note", "TEXT"),
                             ("ratio", "REAL")]
    assert table.rows == [(1, "123", 1200, "a", 0.5), (2, "0456", -300, "b", 1.0)]


def test_the_pos_seeds_export_loads_with_the_figures_the_seed_reports(tmp_path):
    """The POS demo's sample as its CSV export (UTF-8 with BOM, Japanese headers): 先週 (2026-08-24..30) against
    the week before, the totals and the biggest drop the seed's 「先週から売上が落ちた商品は？」 reports."""
    from concierge.demo.pos import csv_import, data

    path = tmp_path / "pos.csv"
    csv_import.write_csv(data.rows(), path)
    file_import.load(tmp_path / "files.db", [path])
    with sqlite3.connect(tmp_path / "files.db") as conn:
        def week(start: str, end: str) -> dict[str, int]:
            return dict(conn.execute('SELECT "商品名", sum("売上金額") FROM pos WHERE "日付" BETWEEN ? AND ? '
                                     'GROUP BY 1', [start, end]).fetchall())
        kinds = dict(conn.execute("SELECT name, type FROM pragma_table_info('pos')").fetchall())
        last, before = week("2026-08-24", "2026-08-30"), week("2026-08-17", "2026-08-23")
    assert kinds == {"日付": "DATE", "店舗": "TEXT", "商品名": "TEXT", "カテゴリ": "TEXT", "単価": "INTEGER",
                     "数量": "INTEGER", "売上金額": "INTEGER"}
    assert (sum(last.values()), sum(before.values())) == (635010, 647940)
    drops = sorted(((before[p] - last.get(p, 0), p) for p in before), reverse=True)
    assert drops[:2] == [(31900, "ハンバーグ弁当"), (30600, "明太子おにぎり")]


def test_a_shift_jis_export_as_excel_saves_it_on_japanese_windows_loads_the_same_figures(tmp_path):
    """The POS seed's export saved as Excel's 「CSV (コンマ区切り)」 on Japanese Windows: Shift_JIS (cp932), no BOM,
    with a 髙 and a ① that only cp932 has. The same rows and figures as the UTF-8 file; a broken line of it is
    reported by its line, and a file that is neither encoding is refused and loads nothing."""
    from concierge.demo.pos import csv_import, data

    utf8 = tmp_path / "pos_utf8.csv"
    csv_import.write_csv(data.rows(), utf8)
    text = utf8.read_text(encoding="utf-8-sig").replace("ハンバーグ弁当", "髙橋さんのハンバーグ弁当①")
    sjis = tmp_path / "pos.csv"
    sjis.write_bytes(text.encode("cp932"))
    with pytest.raises(UnicodeDecodeError):
        sjis.read_bytes().decode("utf-8")
    file_import.load(tmp_path / "files.db", [sjis])
    with sqlite3.connect(tmp_path / "files.db") as conn:
        last = dict(conn.execute('SELECT "商品名", sum("売上金額") FROM pos WHERE "日付" BETWEEN ? AND ? GROUP BY 1',
                                 ["2026-08-24", "2026-08-30"]).fetchall())
    assert sum(last.values()) == 635010 and last["髙橋さんのハンバーグ弁当①"] == 29000

    lines = text.splitlines(keepends=True)
    lines[6] = lines[6].rstrip("\n") + ",余分\n"
    broken = tmp_path / "broken.csv"
    broken.write_bytes("".join(lines).encode("cp932"))
    with pytest.raises(DataImportError) as err:
        file_import.load(tmp_path / "files.db", [broken])
    assert (err.value.line, err.value.column) == (7, "8"), str(err.value)

    latin = tmp_path / "latin.csv"
    latin.write_bytes("name,price\nCaf\u00e9 cr\u00e8me,300\n".encode("latin-1"))
    with pytest.raises(DataImportError, match="is neither UTF-8 nor Shift_JIS text; save it as CSV UTF-8"):
        file_import.load(tmp_path / "files.db", [latin])


def test_the_pos_seeds_question_is_answered_on_the_drafted_catalog_with_the_figures_plain_sql_gives(tmp_path):
    """「先週から売上が落ちた商品は？」 on the catalog `concierge init --file pos.csv` drafts: its comparison tool
    (`pos_compare`), with the clock of the POS demo (先週 = 2026-08-24..30), gives each product's two sums and
    change as plain SQL does, the biggest drops first (ハンバーグ弁当 -31,900, 明太子おにぎり -30,600)."""
    from concierge.demo.pos import csv_import, data

    d = Desk(tmp_path)
    csv_import.write_csv(data.rows(), tmp_path / "pos.csv")
    init = d.run("init", "--file", "pos.csv", "--dir", "desk", cwd=tmp_path)
    assert init.returncode == 0, said(init)
    catalog = d.folder / "catalogs" / "pos.yaml"
    assert "  pos_compare:" in catalog.read_text(encoding="utf-8")
    catalog.write_text('demo_today: "2026-08-31"\n' + catalog.read_text(encoding="utf-8"), encoding="utf-8")
    check = d.run("catalog", "check")
    assert check.returncode == 0 and " 0 problems" in check.stdout, said(check)
    added = d.run("user", "add", "yamada", "--role", "staff", "--password-stdin", stdin=PASSWORD + "\n")
    assert added.returncode == 0, said(added)

    def week(start: str, end: str) -> dict[str, int]:
        return dict(d.rows(f'SELECT "商品名", sum("売上金額") FROM pos WHERE "日付" BETWEEN \'{start}\' AND '
                           f"'{end}' GROUP BY 1"))
    last, before = week("2026-08-24", "2026-08-30"), week("2026-08-17", "2026-08-23")
    expected = sorted((last.get(p, 0) - before.get(p, 0), p, last.get(p, 0), before.get(p, 0))
                       for p in {*last, *before})
    turn = d.ask("先週から売上が落ちた商品は？")
    (call,) = turn["calls"]
    assert (call["name"], call["args"]) == ("pos_compare", {"cur_start": "2026-08-24", "cur_end": "2026-08-30",
                                                            "prev_start": "2026-08-17", "prev_end": "2026-08-23"})
    rows = [(r["change"], r["item"], r["cur_amount"], r["prev_amount"]) for r in call["result"]["rows"]]
    assert rows == expected
    assert rows[:2] == [(-31900, "ハンバーグ弁当", 29000, 60900), (-30600, "明太子おにぎり", 29880, 60480)]
    summary = call["result"]["summary"]
    assert (summary["current_total"], summary["previous_total"]) == (635010, 647940)
    assert {635010, 647940, 31900, 30600} <= numbers(turn["answer"]), turn["answer"]
    assert turn["answer"].index("ハンバーグ弁当") < turn["answer"].index("明太子おにぎり"), turn["answer"]


def test_parquet_keeps_its_types_and_a_workbook_of_two_sheets_makes_two_tables(tmp_path):
    import duckdb

    duckdb.sql(f"COPY (SELECT '007' AS code, DATE '2026-08-01' AS day, 1200 AS amount, 1.5::DECIMAL(4, 2) AS rate) "
               f"TO '{tmp_path / 'prices.parquet'}' (FORMAT parquet)")
    book = openpyxl.Workbook()
    book.active.title = "Tokyo"
    book.active.append(["code", "quantity"])
    book.active.append(["0001", 3])
    book.create_sheet("Osaka").append(["code", "quantity"])
    book["Osaka"].append(["0002", 5])
    book.save(tmp_path / "stock.xlsx")
    tables = file_import.load(tmp_path / "files.db", [tmp_path / "prices.parquet", tmp_path / "stock.xlsx"])
    assert [(t.name, t.columns, t.rows) for t in tables] == [
        ("prices", [("code", "TEXT"), ("day", "DATE"), ("amount", "INTEGER"), ("rate", "REAL")],
         [("007", "2026-08-01", 1200, 1.5)]),
        ("stock_tokyo", [("code", "TEXT"), ("quantity", "INTEGER")], [("0001", 3)]),
        ("stock_osaka", [("code", "TEXT"), ("quantity", "INTEGER")], [("0002", 5)]),
    ]
    file_import.load(tmp_path / "files.db", [tmp_path / "prices.parquet"])  # a file left out: its tables go
    with sqlite3.connect(tmp_path / "files.db") as conn:
        assert conn.execute("SELECT name FROM sqlite_master").fetchall() == [("prices",)]
