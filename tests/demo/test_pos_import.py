"""A store's CSV export loads whole, or not at all with the line and column of the first bad row."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from concierge.catalog.loader import load_catalog
from concierge.demo.bootstrap import open_pipeline
from concierge.demo.pos import csv_import as pos_import
from concierge.demo.pos import data as pos
from concierge.demo.pos import tables
from concierge.errors import DataImportError
from concierge.storage import rollups
from concierge.storage.database import Database
from concierge.storage.migrate import ensure_state

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
    ensure_state(db)
    assert pos_import.load(db, export) == 1240
    assert pos_import.load(db, export) == 1240  # a re-import replaces, never doubles
    db.dispose()
    p = open_pipeline(["pos"], url)
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
    ensure_state(db)
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
@pytest.mark.parametrize("stored", [False, True], ids=["empty table", "over stored rows"])
def test_a_line_repeating_one_of_an_earlier_batch_is_named_with_both_lines(request, url_fixture, tmp_path,
                                                                          export, stored):
    url = request.getfixturevalue(url_fixture)
    big = _big_export(tmp_path / "big.csv", stores=10)
    lines = big.read_text(encoding="utf-8-sig").splitlines()
    lines[7_000 - 1] = lines[120 - 1]  # line 7,000 repeats line 120, six batches earlier
    lines[8_000 - 1] = lines[8_000 - 1].replace(",", ",,", 1)  # a later bad line must not be the one reported
    big.write_text("\n".join(lines) + "\n", encoding="utf-8-sig")
    db = Database(url)
    try:
        if stored:
            pos_import.load(db, export)
        before = _table(db) if stored else []
        with pytest.raises(DataImportError, match="as line 120;") as caught:
            pos_import.load(db, big, batch_rows=1_000)
        assert (caught.value.line, caught.value.column) == (7_000, "商品名")
        assert not sa.inspect(db.engine).has_table("pos_sales") or _table(db) == before
    finally:
        db.dispose()


@pytest.mark.parametrize("url_fixture", ENGINES)
def test_a_repeat_on_the_last_line_is_found_before_the_bad_line_after_it(request, url_fixture, tmp_path):
    url = request.getfixturevalue(url_fixture)
    big = _big_export(tmp_path / "big.csv", stores=10)
    lines = big.read_text(encoding="utf-8-sig").splitlines()
    lines[9_000 - 1] = lines[8_999 - 1]
    lines[9_001 - 1] = lines[9_001 - 1].replace("2026", "2O26", 1)  # the bad line comes right after
    big.write_text("\n".join(lines) + "\n", encoding="utf-8-sig")
    db = Database(url)
    try:
        with pytest.raises(DataImportError, match="as line 8999;") as caught:
            pos_import.load(db, big)
        assert caught.value.line == 9_000
    finally:
        db.dispose()


@pytest.mark.parametrize("url_fixture", ENGINES)
def test_blank_lines_and_quoted_line_breaks_keep_the_line_numbers(request, url_fixture, tmp_path):
    path = tmp_path / "odd.csv"
    text = ('日付,店舗,商品名,カテゴリ,単価,数量,売上金額\n2026-07-01,D店,"麦茶\n500ml",飲料,100,2,200\n\n'
            '2026/7/1, D店 ,緑茶,飲料,"1,000",1,1000\n2026-07-02,D店,緑茶,飲料,100,2,201\n'
            '2026-07-02,D店,"お茶""濃い"", 2L",飲料,300,1,300\n')
    path.write_text(text, encoding="utf-8-sig")
    db = Database(request.getfixturevalue(url_fixture))
    try:
        with pytest.raises(DataImportError) as caught:
            pos_import.load(db, path, batch_rows=2)
        assert (caught.value.line, caught.value.column) == (6, "売上金額")
        path.write_text(path.read_text(encoding="utf-8-sig").replace(",201\n", ",200\n"), encoding="utf-8-sig")
        assert pos_import.load(db, path, batch_rows=2) == 4
        table = _table(db)
        assert ("D店", "2026-07-01", "緑茶", "飲料", 1000, 1, 1000) in table
        assert ("D店", "2026-07-01", "麦茶\n500ml", "飲料", 100, 2, 200) in table
        assert ("D店", "2026-07-02", 'お茶"濃い", 2L', "飲料", 300, 1, 300) in table
    finally:
        db.dispose()


@pytest.mark.parametrize("url_fixture", ENGINES)
def test_a_big_import_leaves_the_indexes_and_their_statistics(request, url_fixture, tmp_path, export):
    url = request.getfixturevalue(url_fixture)
    big = _big_export(tmp_path / "big.csv", stores=12)
    db = Database(url)
    try:
        pos_import.load(db, export)
        pos_import.load(db, big)  # most of the table rewritten: SQLite builds its indexes again
        with db.read() as conn:
            names = {i["name"] for i in sa.inspect(conn).get_indexes("pos_sales")}
            if db.is_sqlite:
                analysed = conn.scalar(sa.text("SELECT COUNT(*) FROM sqlite_stat1 WHERE tbl = 'pos_sales'"))
                plan = " ".join(str(r[-1]) for r in conn.execute(sa.text(
                    "EXPLAIN QUERY PLAN SELECT product, SUM(amount) FROM pos_sales "
                    "WHERE sale_date BETWEEN '2026-08-24' AND '2026-08-30' GROUP BY product")))
                assert "ix_pos_sales_date_covering" in plan
            else:
                analysed = conn.scalar(sa.text("SELECT COUNT(*) FROM pg_stats WHERE tablename = 'pos_sales'"))
        assert names == {str(i.name) for i in tables.pos_sales.indexes}
        assert analysed
    finally:
        db.dispose()


def _rollup_state(db, name="pos_daily_product"):
    """Whether the demo's rollup may be read, how far it is from its table, its rows and triggers."""
    declared = {name: load_catalog("pos").spec.rollups[name]}
    with db.read() as conn:
        rows = conn.execute(sa.text(f"SELECT * FROM {name} ORDER BY sale_date, product")).all()
        return (name in rollups.current(conn, declared), rollups.differences(conn, name, declared[name]),
                [tuple(map(str, r)) for r in rows])


@pytest.mark.parametrize("url_fixture", ENGINES)
def test_the_rollup_is_current_and_exact_after_an_import_a_re_import_and_a_failed_one(request, url_fixture,
                                                                                    tmp_path, export):
    big = _big_export(tmp_path / "big.csv", stores=12)
    bad = _big_export(tmp_path / "bad.csv", stores=10)
    _corrupt(bad, 5_003, 5, "x")
    db = Database(request.getfixturevalue(url_fixture))
    try:
        pos_import.load(db, export)
        with db.write() as conn:
            rollups.build(conn, "pos_daily_product", load_catalog("pos").spec.rollups["pos_daily_product"])
        for path in (big, export, big):  # most days rewritten, then some of them, then most again
            pos_import.load(db, path)
            current, differences, rows = _rollup_state(db)
            assert (current, differences) == (True, 0)
            assert rows
        with pytest.raises(DataImportError):
            pos_import.load(db, bad)
        assert _rollup_state(db) == (True, 0, rows)
        with db.write() as conn:  # and its triggers still keep it current
            conn.execute(sa.text("DELETE FROM pos_sales WHERE sale_date = (SELECT MAX(sale_date) FROM pos_sales)"))
        assert _rollup_state(db)[:2] == (True, 0)
    finally:
        db.dispose()


def test_an_import_into_a_new_database_fills_its_rollup(tmp_path, export):
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    db = Database(url)
    try:
        with db.write() as conn:
            tables.metadata.create_all(conn, tables=[tables.pos_sales])
            rollups.build(conn, "pos_daily_product", load_catalog("pos").spec.rollups["pos_daily_product"])
        assert pos_import.load(db, export) == 1240  # into the empty table: every group is summed anew
        current, differences, rows = _rollup_state(db)
        assert (current, differences) == (True, 0) and len(rows) == len({(r["sale_date"], r["product"])
                                                                          for r in pos.rows()})
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


@pytest.mark.parametrize("url_fixture", ENGINES)
def test_a_table_made_by_an_older_version_keeps_its_own_indexes(request, url_fixture, tmp_path, export):
    big = _big_export(tmp_path / "big.csv", stores=12)
    db = Database(request.getfixturevalue(url_fixture))
    try:
        with db.write() as conn:
            tables.metadata.create_all(conn, tables=[tables.pos_sales])
            conn.exec_driver_sql("DROP INDEX ix_pos_sales_date_covering")
            conn.exec_driver_sql("CREATE INDEX ix_pos_sales_date_product ON pos_sales (sale_date, product)")
        for path in (export, big, big):  # into the empty table, then rewriting most of it, twice
            pos_import.load(db, path)
        with db.read() as conn:
            names = {i["name"] for i in sa.inspect(conn).get_indexes("pos_sales")}
        assert names == {"ix_pos_sales_date_product", "ix_pos_sales_category", "ix_pos_sales_product"}
        assert len(_table(db)) == 12_000 + 1240 - 20 * 50  # D店's 50 days of the big file replaced its own
    finally:
        db.dispose()


def test_db_import_reads_the_pos_export_by_its_table_name(sqlite_url, export):
    from click.testing import CliRunner

    from concierge.cli import main

    result = CliRunner().invoke(main, ["db", "import", "pos_sales", str(export), "--database", sqlite_url])
    assert result.exit_code == 0, result.output
    assert "loaded 1240 rows" in result.output
    db = Database(sqlite_url)
    with db.read() as conn:
        assert conn.execute(sa.text("SELECT COUNT(*) FROM pos_sales")).scalar() == 1240
    db.dispose()


# --- the fast path: a file DuckDB's check passes goes to the database's own loader -------------------

def _reordered(path, order):
    """The same export with its columns in `order` (headers)."""
    lines = [line.split(",") for line in path.read_text(encoding="utf-8-sig").splitlines()]
    at = [lines[0].index(h) for h in order]
    path.write_text("".join(",".join(cells[i] for i in at) + "\n" for cells in lines), encoding="utf-8-sig")
    return path


@pytest.mark.parametrize("url_fixture", ENGINES)
def test_a_clean_file_loads_the_same_rows_by_the_fast_path_as_line_by_line(request, url_fixture, tmp_path,
                                                                          export, monkeypatch):
    from concierge.demo.pos import csv_check

    big = _reordered(_big_export(tmp_path / "big.csv", stores=12), ["店舗", "売上金額", "日付", "商品名", "数量",
                                                                    "カテゴリ", "単価"])
    columns = csv_check.header_columns(big, pos_import.COLUMNS)
    assert columns is not None
    assert csv_check.clean_rows(big, [pos_import.HEADERS[c] for c in columns], columns) == 12_000
    tables_by_path = []
    for fast in (True, False):
        monkeypatch.setattr(csv_check, "available", lambda fast=fast: fast)
        db = Database(request.getfixturevalue(url_fixture))
        try:
            assert pos_import.load(db, export) == 1240
            assert pos_import.load(db, big) == 12_000  # over the demo rows: D店's days replaced
            tables_by_path.append(_table(db))
        finally:
            with db.write() as conn:
                conn.exec_driver_sql("DROP TABLE pos_sales")
            db.dispose()
    assert tables_by_path[0] == tables_by_path[1]
    assert len(tables_by_path[0]) == 12_000 + 1240 - 20 * 50


@pytest.mark.parametrize("url_fixture", ENGINES)
@pytest.mark.parametrize("stored", [False, True], ids=["empty table", "over stored rows"])
def test_a_clean_file_repeating_a_key_loads_nothing_and_names_both_lines(request, url_fixture, tmp_path,
                                                                        export, stored):
    big = _big_export(tmp_path / "big.csv", stores=10)
    lines = big.read_text(encoding="utf-8-sig").splitlines()
    lines[7_000 - 1] = lines[120 - 1]  # every cell passes the check; only the table's key refuses it
    big.write_text("\n".join(lines) + "\n", encoding="utf-8-sig")
    db = Database(request.getfixturevalue(url_fixture))
    try:
        if stored:
            pos_import.load(db, export)
        before = _table(db) if stored else []
        with pytest.raises(DataImportError, match="as line 120;") as caught:
            pos_import.load(db, big)
        assert (caught.value.line, caught.value.column) == (7_000, "商品名")
        assert not sa.inspect(db.engine).has_table("pos_sales") or _table(db) == before
    finally:
        db.dispose()


@pytest.mark.parametrize("url_fixture", ENGINES)
@pytest.mark.parametrize(("cell", "value", "header", "words"), [
    (5, "99999", "売上金額", "is not 単価"),  # every cell a number: only the sum says the line is wrong
    (1, "9001号店 ", "店舗", None),  # a space: not the file's own text, read line by line and loaded
    (4, "1,000", "単価", None),
])
def test_a_line_the_fast_check_refuses_is_read_line_by_line(request, url_fixture, tmp_path, cell, value,
                                                             header, words):
    big = _big_export(tmp_path / "big.csv", stores=10)
    lines = big.read_text(encoding="utf-8-sig").splitlines()
    cells = lines[6_001 - 1].split(",")
    cells[cell] = f'"{value}"' if "," in value else value
    if header == "単価":  # 1,000 x the quantity: a good line, its price written with a separator
        cells[6] = str(1000 * int(cells[5]))
    lines[6_001 - 1] = ",".join(cells)
    big.write_text("\n".join(lines) + "\n", encoding="utf-8-sig")
    db = Database(request.getfixturevalue(url_fixture))
    try:
        if words is None:
            assert pos_import.load(db, big) == 10_000
            assert value.strip().replace(",", "") in {str(v) for row in _table(db) for v in row}
        else:
            with pytest.raises(DataImportError, match=words) as caught:
                pos_import.load(db, big)
            assert (caught.value.line, caught.value.column) == (6_001, header)
            assert not sa.inspect(db.engine).has_table("pos_sales") or _table(db) == []
    finally:
        db.dispose()


@pytest.mark.parametrize("url_fixture", ENGINES)
def test_a_load_the_check_refuses_midway_is_rolled_back_and_read_line_by_line(request, url_fixture, tmp_path,
                                                                             monkeypatch):
    from concierge.demo.pos import csv_check

    big = _big_export(tmp_path / "big.csv", stores=10)
    db = Database(request.getfixturevalue(url_fixture))
    try:
        assert pos_import.load(db, big) == 10_000
        expected = _table(db)
        monkeypatch.setattr(csv_check, "clean_rows", lambda *_: None)  # refused at once, while the file goes in
        monkeypatch.setattr(pos_import, "FILE_CHUNK", 4096)
        monkeypatch.setattr(pos_import, "BATCH_ROWS", 100)
        assert pos_import.load(db, big) == 10_000
        assert _table(db) == expected
    finally:
        db.dispose()
