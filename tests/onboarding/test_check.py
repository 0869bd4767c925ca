"""`concierge catalog check` against a live database, on SQLite and PostgreSQL: each kind of mistake is
reported with its file and key, a sound catalog and the demos pass, and nothing is ever written."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import sqlalchemy as sa
from cli_runner import run_cli

from concierge.storage.database import Database

SCHEMA = [
    """CREATE TABLE shop_customers (id INTEGER PRIMARY KEY, code VARCHAR(4) NOT NULL UNIQUE,
       name VARCHAR(100) NOT NULL, status VARCHAR(10) NOT NULL, joined DATE NOT NULL)""",
    """CREATE TABLE shop_orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES shop_customers(id),
       amount INTEGER NOT NULL CHECK (amount >= 0), note VARCHAR(200) NOT NULL, ordered_on DATE NOT NULL)""",
    "CREATE TABLE shop_tags (tag VARCHAR(20))",
    """INSERT INTO shop_customers VALUES (1, '0001', 'Sato', 'active', '2024-01-05'),
       (2, '0002', 'Smith', 'closed', '2024-03-01')""",
    "INSERT INTO shop_orders VALUES (1, 1, 500, 'first', '2024-02-01'), (2, 2, 700, 'second', '2024-03-02')",
]
HEAD = """
catalog: {name}
description: {{ja: 店, en: a shop}}
roles:
  admin: {{all_rows: true}}
  staff: {{all_rows: true}}
"""
TEXT = "description: {ja: 説明, en: a description}"


def _tool(name: str, body: str) -> str:
    body = textwrap.indent(textwrap.dedent(body).strip(), "    ")
    return f"  {name}:\n    {TEXT}\n    roles: [admin]\n{body}\n"


GOOD = HEAD.format(name="good") + """review: [tools.find_customers.description]
tools:
""" + _tool("find_customers", """
    params:
      code: {type: string, nullable: true, pattern: '^\\d{4}$', description: {ja: コード, en: code}}
      name: {type: string, nullable: true, match: contains, description: {ja: 名前, en: name}}
      status:
        type: enum
        nullable: true
        enum: {query: "SELECT DISTINCT status FROM shop_customers ORDER BY 1"}
        description: {ja: 状態, en: status}
      since:
        type: date
        nullable: true
        bounds: {query: "SELECT MIN(joined), MAX(joined) FROM shop_customers"}
        description: {ja: 以降, en: since}
    sql: |
      SELECT c.id, c.code, c.name, c.status, c.joined FROM shop_customers c
      WHERE (:code IS NULL OR c.code = :code) AND (:name IS NULL OR LOWER(c.name) LIKE LOWER(:name) ESCAPE '\\')
        AND (:status IS NULL OR c.status = :status) AND (:since IS NULL OR c.joined >= :since)
      ORDER BY c.id
""") + _tool("add_order", """
    mode: write
    params:
      customer: {type: integer, required: true, min: 1, description: {ja: 顧客, en: customer}}
      amount: {type: integer, required: true, min: 0, description: {ja: 金額, en: amount}}
      note: {type: string, required: true, min_length: 1, description: {ja: メモ, en: note}}
      day: {type: date, default: today, description: {ja: 日, en: day}}
    checks:
      - sql: "SELECT 1 FROM shop_customers WHERE id = :customer"
        message: {ja: 顧客がいません, en: no such customer}
    sql: |
      INSERT INTO shop_orders (id, customer_id, amount, note, ordered_on)
      VALUES (1000, :customer, :amount, :note, :day)
""")

BAD = HEAD.format(name="bad") + "tools:\n" + _tool("no_column", """
    sql: SELECT id, nickname FROM shop_customers
""") + _tool("type_mismatch", """
    params:
      since: {type: integer, nullable: true, description: {ja: 以降, en: since}}
    sql: "SELECT id FROM shop_customers c WHERE (:since IS NULL OR c.joined >= :since)"
""") + _tool("code_as_number", """
    params:
      code: {type: integer, nullable: true, description: {ja: コード, en: code}}
    sql: "SELECT id FROM shop_customers WHERE (:code IS NULL OR code = :code)"
""") + _tool("failing_enum", """
    params:
      state:
        type: enum
        nullable: true
        enum: {query: "SELECT DISTINCT state FROM shop_customers"}
        description: {ja: 状態, en: state}
    sql: "SELECT id FROM shop_customers WHERE (:state IS NULL OR status = :state)"
""") + _tool("empty_enum", """
    params:
      tag:
        type: enum
        nullable: true
        enum: {query: "SELECT DISTINCT tag FROM shop_tags"}
        description: {ja: タグ, en: tag}
    sql: "SELECT tag FROM shop_tags WHERE (:tag IS NULL OR tag = :tag)"
""") + _tool("write_not_null", """
    mode: write
    params:
      amount: {type: integer, required: true, min: 0, description: {ja: 金額, en: amount}}
    sql: "INSERT INTO shop_orders (id, customer_id, amount, ordered_on) VALUES (1001, 1, :amount, :_today)"
""") + _tool("write_foreign_key", """
    mode: write
    params:
      customer: {type: integer, required: true, min: 9000, description: {ja: 顧客, en: customer}}
    sql: "INSERT INTO shop_orders (id, customer_id, amount, note, ordered_on) VALUES (1002, :customer, 1, 'x', :_today)"
""") + _tool("write_check", """
    mode: write
    params:
      amount: {type: integer, required: true, min: -5, max: -1, description: {ja: 金額, en: amount}}
    sql: "INSERT INTO shop_orders (id, customer_id, amount, note, ordered_on) VALUES (1003, 1, :amount, 'x', :_today)"
""")

ROLES = HEAD.format(name="roles") + "tools:\n" + _tool("for_managers", "sql: SELECT id FROM shop_customers").replace(
    "roles: [admin]", "roles: [admin, manager]")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def shop(request, tmp_path) -> tuple[str, Path]:
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        for statement in SCHEMA:
            conn.exec_driver_sql(statement)
    engine.dispose()
    for name, text in (("good", GOOD), ("bad", BAD), ("roles", ROLES)):
        (tmp_path / f"{name}.yaml").write_text(text, encoding="utf-8")
    return url, tmp_path


def check(*args: str) -> tuple[int, list[str]]:
    result = run_cli(*["catalog", "check", *args])
    return result.exit_code, result.output.splitlines()


def counts(url: str, tables: list[str]) -> dict[str, int]:
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        found = {t: conn.scalar(sa.text(f"SELECT COUNT(*) FROM {t}")) for t in tables}
    engine.dispose()
    return found


def test_a_sound_catalog_passes_and_lists_its_drafted_texts(shop):
    url, folder = shop
    good = str(folder / "good.yaml")
    code, lines = check(good, "--database", url)
    assert code == 0, lines
    assert lines == [
        f"{good}: tools.find_customers.description: drafted text to review",
        "drafted texts: read and correct each, then remove its key from the review: list of its catalog "
        "(they do not fail the check)",
        "1 catalog, 2 tools checked: 0 problems, 1 drafted text to review",
    ]
    assert counts(url, ["shop_orders"]) == {"shop_orders": 2}, "the write was tried, and rolled back"


def test_each_mistake_is_reported_with_its_file_and_key(shop):
    url, folder = shop
    bad = str(folder / "bad.yaml")
    before = counts(url, ["shop_customers", "shop_orders", "shop_tags"])
    code, lines = check(bad, "--database", url)
    assert code == 1
    out = "\n".join(lines)

    def reported(key: str, *words: str) -> None:
        line = next((x for x in lines if x.startswith(f"{bad}: {key}: ")), None)
        assert line is not None, f"nothing about {key} in:\n{out}"
        for word in words:
            assert word.lower() in line.lower(), line

    reported("tools.no_column.sql", "does not prepare", "nickname")
    reported("tools.type_mismatch.params.since", "an integer parameter", "shop_customers.joined", "date column",
             "declare type: date")
    reported("tools.code_as_number.params.code", "an integer parameter", "shop_customers.code", "text column",
             "declare type: string")
    reported("tools.failing_enum.params.state.enum.query", "the query fails", "state")
    reported("tools.empty_enum.params.tag.enum.query", "returns no values")
    reported("tools.write_not_null.sql", "violates a constraint", "note")
    reported("tools.write_foreign_key.sql", "violates a constraint", "customer=9000")
    reported("tools.write_check.sql", "violates a constraint", "amount=-5")
    assert lines[-1].startswith("1 catalog, 8 tools checked: ") and "0 drafted texts to review" in lines[-1]
    problems = int(lines[-1].split(": ")[1].split()[0])
    assert problems == len(lines) - 1 >= 8
    assert counts(url, ["shop_customers", "shop_orders", "shop_tags"]) == before, "nothing is written"


def test_an_undeclared_role_is_reported_and_other_catalogs_still_checked(shop):
    url, folder = shop
    roles, good = str(folder / "roles.yaml"), str(folder / "good.yaml")
    code, lines = check(roles, good, "--database", url)
    assert code == 1
    assert any(x.startswith(f"{roles}: tools.for_managers.roles: unknown role 'manager'") for x in lines), lines
    assert lines[-1] == "2 catalogs, 2 tools checked: 1 problem, 1 drafted text to review"


def test_the_demo_catalogs_pass_and_nothing_is_written(db_url):
    tables = ["farm_customers", "farm_sales", "pos_sales"]
    before = counts(db_url, tables)
    code, lines = check("farm", "pos", "--database", db_url)
    assert (code, lines) == (0, ["2 catalogs, 6 tools checked: 0 problems, 0 drafted texts to review"])
    assert counts(db_url, tables) == before


def test_a_demo_catalog_without_its_tables_says_how_to_install_them(sqlite_url):
    Database(sqlite_url).dispose()
    code, lines = check("farm", "--database", sqlite_url)
    assert code == 1
    assert lines[0].endswith(": demo: the tables of the farm demo are not in this database; "
                             "install them with: concierge db init --catalog farm --database URL")


def test_without_files_the_settings_catalogs_are_checked(shop, monkeypatch):
    url, folder = shop
    (folder / "concierge.toml").write_text(f'database = "{url}"\ncatalogs = ["good.yaml"]\n', encoding="utf-8")
    monkeypatch.chdir(folder)
    monkeypatch.delenv("CONCIERGE_DATABASE")  # the environment would override the settings file
    code, lines = check()
    assert code == 0, lines
    assert lines[-1] == "1 catalog, 2 tools checked: 0 problems, 1 drafted text to review"

