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


# --- streaming: batches in one transaction ----------------------------------------------------------

ENGINES = ["sqlite_url", pytest.param("pg_url", marks=pytest.mark.postgres)]


def _big_export(path, stores: int, days: int = 50):
    """stores x days x the demo's products, day by day as a store exports them (D店 keeps its demo rows)."""
    from datetime import timedelta

    demo = {(r["store"], r["sale_date"], r["product"]): r for r in pos.rows()}

    def rows():
        for offset in range(days):
            day = pos.LAST_DAY - timedelta(days=days - 1 - offset)
            for s in range(stores):
                store = pos.STORE if s == 0 else f"{s:04d}号店"
                for product in sorted(pos.PRODUCTS):
                    category, price, usual = pos.PRODUCTS[product]
                    known = demo.get((store, day, product))
                    qty = known["quantity"] if known else 1 + (s * 7 + offset * 3 + len(product)) % (usual + 5)
                    yield {"sale_date": day, "store": store, "product": product, "category": category,
                           "unit_price": price, "quantity": qty, "amount": price * qty}

    pos_import.write_csv(rows(), path)
    return path


def _table(db):
    with db.read() as conn:
        result = conn.execute(sa.text(
            "SELECT store, sale_date, product, category, unit_price, quantity, amount FROM pos_sales "
            "ORDER BY store, sale_date, product"))
        return [(s, str(d), p, c, u, q, a) for s, d, p, c, u, q, a in result]


@pytest.mark.parametrize("url_fixture", ENGINES)
def test_a_streamed_import_holds_what_the_whole_file_check_reads(request, url_fixture, tmp_path, export):
    url = request.getfixturevalue(url_fixture)
    big = _big_export(tmp_path / "big.csv", stores=12)
    db = Database(url)
    try:
        assert pos_import.load(db, export) == 1240
        expected = {(r["store"], r["sale_date"], r["product"]): r for r in pos.rows()}
        expected.update({(r["store"], r["sale_date"], r["product"]): r for r in pos_import.read_csv(big)})
        for _ in range(2):  # over the demo rows (replacing its days), then a re-import of itself
            assert pos_import.load(db, big, batch_rows=1_000) == 12 * 50 * len(pos.PRODUCTS)
            want = sorted((r["store"], str(r["sale_date"]), r["product"], r["category"], r["unit_price"],
                           r["quantity"], r["amount"]) for r in expected.values())
            assert _table(db) == want
    finally:
        db.dispose()


@pytest.mark.parametrize("url_fixture", ENGINES)
@pytest.mark.parametrize(("line", "column", "value", "header", "words"), [
    (5_003, 5, "x", "数量", "not a whole number"),
    (5_004, 6, "1", "売上金額", "is not 単価"),
])
def test_a_bad_line_in_the_middle_of_a_big_file_loads_nothing(request, url_fixture, tmp_path, export,
                                                              line, column, value, header, words):
    url = request.getfixturevalue(url_fixture)
    big = _big_export(tmp_path / "big.csv", stores=10)  # 10,000 lines, read 1,000 at a time
    _corrupt(big, line, column, value)
    db = Database(url)
    try:
        pos_import.load(db, export)
        before = _table(db)
        with pytest.raises(DataImportError) as caught:
            pos_import.load(db, big, batch_rows=1_000)
        assert (caught.value.line, caught.value.column) == (line, header)
        assert words in str(caught.value)
        assert _table(db) == before  # the rows of the batches before it were rolled back with it
    finally:
        db.dispose()


@pytest.mark.parametrize("url_fixture", ENGINES)
def test_a_line_repeating_one_of_an_earlier_batch_is_named_with_both_lines(request, url_fixture, tmp_path):
    url = request.getfixturevalue(url_fixture)
    big = _big_export(tmp_path / "big.csv", stores=10)
    lines = big.read_text(encoding="utf-8-sig").splitlines()
    lines[7_000 - 1] = lines[120 - 1]  # line 7,000 repeats line 120, six batches earlier
    lines[8_000 - 1] = lines[8_000 - 1].replace(",", ",,", 1)  # a later bad line must not be the one reported
    big.write_text("\n".join(lines) + "\n", encoding="utf-8-sig")
    db = Database(url)
    try:
        with pytest.raises(DataImportError, match="as line 120;") as caught:
            pos_import.load(db, big, batch_rows=1_000)
        assert (caught.value.line, caught.value.column) == (7_000, "商品名")
        assert not sa.inspect(db.engine).has_table("pos_sales") or _count(db) == 0
    finally:
        db.dispose()


def test_blank_lines_and_quoted_line_breaks_keep_the_line_numbers(tmp_path, sqlite_url):
    path = tmp_path / "odd.csv"
    text = ('日付,店舗,商品名,カテゴリ,単価,数量,売上金額\n2026-07-01,D店,"麦茶\n500ml",飲料,100,2,200\n\n'
            '2026/7/1, D店 ,緑茶,飲料,"1,000",1,1000\n2026-07-02,D店,緑茶,飲料,100,2,201\n')
    path.write_text(text, encoding="utf-8-sig")
    db = Database(sqlite_url)
    try:
        with pytest.raises(DataImportError) as caught:
            pos_import.load(db, path, batch_rows=2)
        assert (caught.value.line, caught.value.column) == (6, "売上金額")
        path.write_text(path.read_text(encoding="utf-8-sig").replace(",201\n", ",200\n"), encoding="utf-8-sig")
        assert pos_import.load(db, path, batch_rows=2) == 3
        assert ("D店", "2026-07-01", "緑茶", "飲料", 1000, 1, 1000) in _table(db)
    finally:
        db.dispose()


def _import_peak(path, url) -> int:
    import tracemalloc

    db = Database(url)
    try:
        tracemalloc.start()
        try:
            pos_import.load(db, path)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    finally:
        db.dispose()


def test_memory_stays_flat_in_the_size_of_the_file(tmp_path):
    small = _big_export(tmp_path / "small.csv", stores=20)  # 20,000 lines
    big = _big_export(tmp_path / "big.csv", stores=200)  # 200,000 lines, ~12 MB
    small_peak = _import_peak(small, f"sqlite:///{tmp_path / 'small.db'}")
    peak = _import_peak(big, f"sqlite:///{tmp_path / 'big.db'}")
    # Reading the whole file into row dicts took ~10x the file's size; a batch at a time is a few MB
    # whatever the file's size.
    assert peak < big.stat().st_size / 1.5, f"peak {peak / 2**20:.1f} MB for {big.stat().st_size / 2**20:.1f} MB"
    assert peak < small_peak * 1.3 + 2**20, f"peak {peak / 2**20:.1f} MB, {small_peak / 2**20:.1f} MB for 1/10"
