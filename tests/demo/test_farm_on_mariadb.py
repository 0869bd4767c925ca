"""The farm demo on MariaDB as a company sets it up: `concierge db init`, a question, a confirmed write with its
audit line beside the data; the POS demo's rollups are refused with what to do."""

from __future__ import annotations

from datetime import date

import pytest
import sqlalchemy as sa
from cli_runner import run_cli

from concierge.demo.bootstrap import open_pipeline
from concierge.storage.database import Database

pytestmark = pytest.mark.mysql
FARM_TODAY = date(2025, 5, 15)


def test_db_init_ask_and_a_confirmed_write_on_mariadb(mysql_url):
    url = mysql_url.replace("mysql+pymysql://", "mysql://")  # as a company writes it
    created = run_cli("db", "init", "--catalog", "farm", "--database", url)
    assert created.exit_code == 0, created.output
    checked = run_cli("catalog", "check", "farm", "--database", url)
    assert checked.exit_code == 0 and "3 tools checked: 0 problems" in checked.output, checked.output
    pipeline = open_pipeline(["farm"], url, today=FARM_TODAY)
    try:
        admin = pipeline.user("admin")
        with pipeline.db.read() as conn:
            name = conn.scalar(sa.text("SELECT name FROM farm_customers WHERE code = '0001'"))
        found = pipeline.invoke("get_customers", {"name_str_customer": name[1:3]}, admin)  # LIKE ... ESCAPE '\'
        assert found.status == "ok" and "0001" in [r["code_customer"] for r in found.rows], found.message
        sale = {"code_customer": "0001", "products": "𠮷田の南瓜🎃 4個", "price": 600, "date_sales_str": "2025-05-14"}
        preview = pipeline.invoke("add_sale", sale, admin)
        assert preview.status == "confirm" and preview.preview["name_customer"] == name
        done = pipeline.invoke("add_sale", sale, admin, confirmation=preview.confirmation_token)
        assert done.status == "ok", done.message
        again = pipeline.invoke("add_sale", sale, admin, confirmation=preview.confirmation_token)
        assert again.status == "refused"  # the token is spent: nothing is written twice
        with pipeline.db.read() as conn:
            stored = conn.execute(sa.text("SELECT sales_number, products, price FROM farm_sales "
                                          "WHERE products = :p"), {"p": sale["products"]}).all()
            lines = conn.scalars(sa.text("SELECT decision FROM concierge_audit WHERE result_id = :r"),
                                 {"r": done.result_id}).all()
        assert [tuple(r) for r in stored] == [(done.rows[0]["code_sales"], sale["products"], 600)]
        assert lines == ["ok"]
        asked = pipeline.invoke("get_sales", {"code_customer": "0001", "code_sales": done.rows[0]["code_sales"]},
                                admin)
        assert asked.status == "ok" and [r["products"] for r in asked.rows] == [sale["products"]]
    finally:
        pipeline.close()


def test_rollups_are_refused_on_mariadb_with_what_to_do(mysql_url):
    result = run_cli("db", "init", "--catalog", "pos", "--database", mysql_url)
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines()[-1] == (
        "error: rollup pos_daily_product: concierge keeps rollups current with triggers on SQLite and PostgreSQL "
        "only, not on MySQL/MariaDB; remove pos_daily_product from the catalog's `rollups:` (its tools then read "
        "pos_sales itself, with the same answers), or keep this data on PostgreSQL")
    db = Database(mysql_url)
    try:
        with db.read() as conn:
            assert not sa.inspect(conn).has_table("pos_daily_product")
    finally:
        db.dispose()
