"""`concierge db import TABLE FILE`: a CSV into a company's own table, all or nothing, on SQLite and PostgreSQL."""

from __future__ import annotations

from decimal import Decimal

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from concierge.cli import main
from concierge.storage.database import Database

TABLE = """CREATE TABLE bike_orders (
    order_no VARCHAR(10) PRIMARY KEY, customer VARCHAR(40) NOT NULL, ordered_on DATE NOT NULL,
    amount NUMERIC(10, 0) NOT NULL, quantity INTEGER NOT NULL, paid BOOLEAN, note VARCHAR(80))"""
GOOD = ("order_no,customer,ordered_on,amount,quantity,paid\n"
        "0007,𠮷田 自転車店,2026-11-02,\"128,000\",2,true\n"
        "0012,山﨑さん,2026-11-03,45800,1,\n")


@pytest.fixture(params=["sqlite", "postgresql"])
def shop(request, tmp_path):
    url = f"sqlite:///{tmp_path / 'shop.db'}" if request.param == "sqlite" else request.getfixturevalue("pg_url")
    db = Database(url)
    with db.write() as conn:
        conn.exec_driver_sql(TABLE)
    yield url, db
    db.dispose()


def _import(url: str, *args: str):
    return CliRunner().invoke(main, ["db", "import", *args, "--database", url])


def _rows(db: Database) -> list[tuple]:
    with db.read() as conn:
        return [tuple(r) for r in conn.execute(sa.text(
            "SELECT order_no, customer, ordered_on, amount, quantity, paid, note FROM bike_orders ORDER BY order_no"))]


def test_a_csv_of_the_tables_columns_is_loaded_with_codes_amounts_and_names_kept(shop, tmp_path):
    url, db = shop
    path = tmp_path / "orders.csv"
    path.write_text(GOOD, encoding="utf-8")
    result = _import(url, "bike_orders", str(path))
    assert result.exit_code == 0, result.output
    assert "loaded 2 rows" in result.output
    rows = _rows(db)
    assert [(r[0], r[1], str(r[2]), Decimal(r[3]), r[4], r[6]) for r in rows] == [
        ("0007", "𠮷田 自転車店", "2026-11-02", Decimal(128000), 2, None),
        ("0012", "山﨑さん", "2026-11-03", Decimal(45800), 1, None)]
    assert bool(rows[0][5]) is True and rows[1][5] is None


def test_a_bad_cell_names_its_line_and_column_and_nothing_is_loaded(shop, tmp_path):
    url, db = shop
    path = tmp_path / "orders.csv"
    path.write_text(GOOD + "0013,佐藤,2026-11-31,1000,1,false\n", encoding="utf-8")
    result = _import(url, "bike_orders", str(path))
    assert result.exit_code != 0
    assert "line 4, column ordered_on: '2026-11-31' is not a date YYYY-MM-DD; nothing was loaded" in result.output
    assert _rows(db) == []


def test_a_header_that_is_not_the_tables_lists_its_columns(shop, tmp_path):
    url, db = shop
    path = tmp_path / "orders.csv"
    path.write_text("order_no,client\n0001,x\n", encoding="utf-8")
    result = _import(url, "bike_orders", str(path))
    assert result.exit_code != 0
    assert "line 1, column client: is not a column of bike_orders (its columns: order_no, customer" in result.output
    result = _import(url, "bike_order", str(path))
    assert "there is no table 'bike_order' in this database; its tables: bike_orders" in result.output


def test_replace_swaps_the_rows_in_one_transaction(shop, tmp_path):
    url, db = shop
    path = tmp_path / "orders.csv"
    path.write_text(GOOD, encoding="utf-8")
    assert _import(url, "bike_orders", str(path)).exit_code == 0
    again = _import(url, "bike_orders", str(path))  # the same keys again: refused, nothing doubled
    assert again.exit_code != 0 and "between lines 2 and 3 a row breaks a rule of bike_orders" in again.output
    assert "load with --replace" in again.output and "Traceback" not in again.output
    assert len(_rows(db)) == 2
    path.write_text("order_no,customer,ordered_on,amount,quantity\n0099,林,2026-12-01,500,1\n", encoding="utf-8")
    assert _import(url, "bike_orders", str(path), "--replace").exit_code == 0
    assert [r[0] for r in _rows(db)] == ["0099"]
