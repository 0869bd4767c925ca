"""A store's CSV export loads whole, or not at all with the line and column of the first bad row."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from concierge.demo.pos import csv_import as pos_import
from concierge.demo.pos import data as pos
from concierge.errors import DataImportError
from concierge.pipeline.pipeline import Pipeline
from concierge.storage.database import Database
from concierge.storage.state import create_state

WEEK = {"cur_start": "2026-08-24", "cur_end": "2026-08-30", "prev_start": "2026-08-17", "prev_end": "2026-08-23"}


@pytest.fixture
def export(tmp_path):
    path = tmp_path / "export.csv"
    pos_import.write_csv(pos.rows(), path)
    return path


def test_the_export_is_utf8_with_bom_and_japanese_headers(export):
    raw = export.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    assert raw.decode("utf-8-sig").splitlines()[0] == "日付,店舗,商品名,カテゴリ,単価,数量,売上金額"


@pytest.mark.parametrize("url_fixture", ["sqlite_url", pytest.param("pg_url", marks=pytest.mark.postgres)])
def test_the_demo_data_loads_from_csv_with_the_same_facts(request, url_fixture, export):
    url = request.getfixturevalue(url_fixture)
    db = Database(url)
    create_state(db)
    assert pos_import.load(db, export) == 1240
    assert pos_import.load(db, export) == 1240  # a re-import replaces, never doubles
    db.dispose()
    p = Pipeline.open(["pos"], url)
    try:
        result = p.invoke("compare_periods", {**WEEK, "category": None}, p.user("pos_analyst"))
        with p.db.read() as conn:
            assert conn.scalar(sa.text("SELECT COUNT(*) FROM pos_sales")) == 1240
    finally:
        p.close()
    assert (result.summary["current_total"], result.summary["previous_total"]) == (635010, 647940)


def _corrupt(path, line: int, column: int, value: str):
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    cells = lines[line - 1].split(",")
    cells[column] = value
    lines[line - 1] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8-sig")


@pytest.mark.parametrize(
    ("line", "column", "value", "header", "words"),
    [
        (17, 0, "2026-02-30", "日付", "not a date"),
        (300, 5, "十", "数量", "not a whole number"),
        (1001, 6, "999", "売上金額", "is not 単価"),
        (42, 2, "", "商品名", "is empty"),
    ],
)
def test_a_bad_row_is_reported_and_nothing_is_loaded(sqlite_url, export, line, column, value, header, words):
    _corrupt(export, line, column, value)
    db = Database(sqlite_url)
    create_state(db)
    with pytest.raises(DataImportError) as caught:
        pos_import.load(db, export)
    assert (caught.value.line, caught.value.column) == (line, header)
    assert words in str(caught.value) and "nothing was loaded" in str(caught.value)
    assert not sa.inspect(db.engine).has_table("pos_sales") or _count(db) == 0
    db.dispose()


def test_a_missing_header_is_named(tmp_path, sqlite_url):
    path = tmp_path / "bad.csv"
    path.write_text("日付,店舗,商品名\n2026-07-01,D店,麦茶\n", encoding="utf-8-sig")
    with pytest.raises(DataImportError, match="カテゴリ"):
        pos_import.read_csv(path)


def _count(db):
    with db.read() as conn:
        return conn.scalar(sa.text("SELECT COUNT(*) FROM pos_sales"))
