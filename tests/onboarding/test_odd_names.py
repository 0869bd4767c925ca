"""`concierge init` on a table whose names are anything a database allows, on SQLite and PostgreSQL.

The red team's findings: a column named ``%(x)s`` failed init on PostgreSQL (its name escaped for the driver
twice), and a column with a space, a quote or a colon drafted labels the loader refused, so every command
failed until the file was edited. Here: init, the catalog loads, `catalog check` passes, and the drafted
tools answer through the pipeline, filtered and grouped by those columns."""

from __future__ import annotations

from datetime import date

import pytest
import sqlalchemy as sa
from cli_runner import run_cli

from concierge.catalog.loader import load_catalog
from concierge.catalog.model import SQL_PARAM
from concierge.demo.bootstrap import open_pipeline
from concierge.onboarding.columns import Dialect
from concierge.onboarding.draft import draft_catalog
from concierge.onboarding.introspect import introspect
from concierge.storage import users
from concierge.storage.database import Database

TABLE = "odd things"
# every kind of name: a driver's placeholder, a space, a quote, a colon after a letter, double quotes, Japanese,
# a reserved word, a colon that begins a word (a :parameter to catalog SQL)
ODD = ["%(x)s", "a b", "it's", "a:b", '"q"', "名前", "select", "x :y"]
# the name of each in the result (what answers and the loader read), and of the parameter that filters by it:
# a Japanese name in romaji
RESULT = {"%(x)s": "x_s", "a b": "a_b", "it's": "it_s", "a:b": "a_b_2", '"q"': "q", "名前": "namae",
          "select": "select", "x :y": "x_y"}
PARAM = dict(RESULT)
ROWS = 40


def _values(i: int) -> dict:
    return {"id": i, **{name: f"{RESULT[name]}-{i % (n + 2)}" for n, name in enumerate(ODD)},
            "name": f"Name {i}", "amount": 10 * i, "made:on": date(2025, 1, i % 28 + 1)}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def odd_url(request) -> str:
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    table = sa.Table(TABLE, sa.MetaData(), sa.Column("id", sa.Integer, primary_key=True),
                     *(sa.Column(name, sa.Text) for name in ODD), sa.Column("name", sa.Text),
                     sa.Column("amount", sa.Integer), sa.Column("made:on", sa.Date))
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            table.create(conn)
            conn.execute(table.insert(), [_values(i) for i in range(1, ROWS + 1)])
    finally:
        engine.dispose()
    return url


def _count(url: str, column: str, value: str) -> int:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.scalar(sa.select(sa.func.count()).select_from(sa.table(TABLE))
                               .where(sa.column(column) == value)) or 0
    finally:
        engine.dispose()


def test_init_drafts_tools_that_load_check_and_answer_on_a_table_of_odd_names(odd_url, tmp_path):
    desk = tmp_path / "desk"
    made = run_cli("init", "--database", odd_url, "--dir", str(desk), "--name", "odd")
    assert made.exit_code == 0, made.output
    assert f"Found 1 table(s) and 0 view(s), {ROWS} rows" in made.output
    file = desk / "catalogs" / "odd.yaml"
    catalog = load_catalog(str(file))
    sqlite = odd_url.startswith("sqlite")
    writable = [n for n in ODD if not (sqlite and n == "x :y")]  # SQLite SQL cannot name it: left out, and said
    assert ("#   odd things.x :y\n" in file.read_text(encoding="utf-8")) == sqlite
    tool = catalog.tools["odd_things"]
    assert {RESULT[n] for n in writable} <= set(tool.result.labels)
    assert tool.result.labels["namae"].ja == "名前" and tool.result.labels["x_s"].en == "x s"
    assert set(SQL_PARAM.findall(tool.sql)) == set(tool.params), "a name in the SQL was read as a parameter"

    checked = run_cli("catalog", "check", str(file), "--database", odd_url)
    assert checked.exit_code == 0, checked.output
    assert "2 tools checked: 0 problems" in checked.output

    pipeline = open_pipeline([str(file)], odd_url)
    try:
        users.add(pipeline.db, "boss", "admin")
        boss = pipeline.user("boss")
        for name in writable:  # each odd column filters, as its enum
            value = f"{RESULT[name]}-1"
            found = pipeline.invoke("odd_things", {PARAM[name]: value}, boss)
            assert found.status == "ok", (name, found.message)
            assert found.row_count == _count(odd_url, name, value) > 0, name
            assert {r[RESULT[name]] for r in found.rows} == {value}
        assert set(found.rows[0]) == {"id", "name", "amount", "made_on", *(RESULT[n] for n in writable)}
        summary = pipeline.invoke("odd_things_summary", {"group_by": "it_s", "made_on_from": "2025-01-01"}, boss)
        assert summary.status == "ok", summary.message
        assert {r["group_value"]: r["amount"] for r in summary.rows} == {
            f"it_s-{k}": sum(10 * i for i in range(1, ROWS + 1) if i % 4 == k) for k in range(4)}
    finally:
        pipeline.close()


@pytest.mark.parametrize("url_fixture", ["sqlite_url", pytest.param("pg_url", marks=pytest.mark.postgres)])
def test_every_name_is_quoted_as_its_database_reads_it_and_never_as_a_parameter(request, url_fixture):
    engine = sa.create_engine(request.getfixturevalue(url_fixture))
    sql = Dialect(engine.dialect.name)
    try:
        with engine.connect() as conn:
            for name in [*ODD, "%", "a%%b", "back\\slash", ":start", "a\\:b", "Group", "order", "café", "ｶﾀｶﾅ"]:
                if not sql.writable(name):  # only SQLite, only a colon that begins a word
                    assert sql.sqlite and ":" in name, name
                    with pytest.raises(ValueError, match="cannot be named"):
                        sql.q(name)
                    continue
                quoted = sql.q(name)
                assert SQL_PARAM.findall(quoted) == [], name
                found = conn.execute(sa.text(f"SELECT t.{quoted} FROM (SELECT 1 AS {quoted}) AS t"))
                assert list(found.keys()) == [name] and found.scalar() == 1
    finally:
        engine.dispose()


def test_on_sqlite_a_name_read_as_a_parameter_is_left_out_and_the_draft_says_so(sqlite_url, tmp_path):
    engine = sa.create_engine(sqlite_url)
    with engine.begin() as conn:
        conn.execute(sa.text('CREATE TABLE "t \\:old" (id INTEGER PRIMARY KEY, name TEXT)'))
        conn.execute(sa.text('CREATE TABLE notes (id INTEGER PRIMARY KEY, "x \\:y" TEXT, old_id INTEGER '
                             'REFERENCES "t \\:old"(id), body TEXT)'))
        conn.execute(sa.text("INSERT INTO notes (id, body) VALUES (1, 'first')"))
    engine.dispose()
    db = Database(sqlite_url)
    try:
        draft = draft_catalog(introspect(db), "odd")
    finally:
        db.dispose()
    assert draft.left_out == ("t :old", "notes.x :y")
    assert "#   t :old\n#   notes.x :y\n" in draft.text
    file = tmp_path / "odd.yaml"
    file.write_text(draft.text, encoding="utf-8")
    catalog = load_catalog(str(file))
    assert set(catalog.tools) == {"notes"} and "old_id" not in catalog.tools["notes"].params  # its key went too
    assert set(catalog.tools["notes"].result.labels) == {"id", "old_id", "body"}
