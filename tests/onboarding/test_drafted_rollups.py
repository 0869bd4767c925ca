"""A wine merchant's sales lines, 128,000 of them: `concierge init` drafts a summary table (rollup) beside the
table, by day, colour and product (the wine), and its summary and comparison tools read it once
`concierge db refresh` has built it.
The figures are those plain SQL gives over the table, whatever the tool read: a question the summary table can
answer (the top wines of last month, of the red ones, the wines that sold less than the week before), one it
cannot (the forty shops ranked), and one asked after another system wrote a sale straight into the table.
A database user who does not own the table gets no summary table and is told why."""

from __future__ import annotations

import uuid
from datetime import date

import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from drafted import BACKENDS, Drafted, figures
from pg_databases import sqlite_or_postgres

from concierge.cli import main
from concierge.demo.bootstrap import open_pipeline
from concierge.onboarding.check import check_catalogs
from concierge.onboarding.draft import draft_catalog
from concierge.onboarding.introspect import introspect
from concierge.sources.sql import executor
from concierge.storage import rollups
from concierge.storage.database import Database

TODAY = date(2026, 2, 4)  # a Wednesday: last week is 26 January to 1 February, the week before 19 to 25 January
DAYS, SHOPS = 400, 40  # 2025-01-01 .. 2026-02-04; forty shops are too many to keep apart in a summary
WINES = [("Chablis", "white", 3200), ("Sancerre", "white", 2900), ("Rioja", "red", 2400), ("Barolo", "red", 6100),
         ("Chianti", "red", 1900), ("Malbec", "red", 1700), ("Provence", "rose", 2100), ("Tavel", "rose", 2300)]
ROWS = DAYS * SHOPS * len(WINES)


def _statements(backend: str) -> list[str]:
    day = "date('2025-01-01', '+' || (i / 320) || ' days')" if backend == "sqlite" else \
        "DATE '2025-01-01' + (i / 320)"
    wine = "CASE i % 8 " + " ".join(f"WHEN {n} THEN '{w}'" for n, (w, _, _) in enumerate(WINES)) + " END"
    colour = "CASE i % 8 " + " ".join(f"WHEN {n} THEN '{c}'" for n, (_, c, _) in enumerate(WINES)) + " END"
    price = "CASE i % 8 " + " ".join(f"WHEN {n} THEN {p}" for n, (_, _, p) in enumerate(WINES)) + " END"
    bottles = "(1 + (i * 7 + i / 320) % 5)"
    return [
        "CREATE TABLE wine_sales (sale_id INTEGER PRIMARY KEY, sold_on DATE NOT NULL, shop VARCHAR(20) NOT NULL,"
        " product VARCHAR(20) NOT NULL, colour VARCHAR(10) NOT NULL, bottles INTEGER NOT NULL,"
        " amount INTEGER NOT NULL)",
        f"INSERT INTO wine_sales WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < {ROWS - 1})"
        f" SELECT i + 1, {day}, 'Shop ' || ((i / 8) % {SHOPS} + 1), {wine}, {colour}, {bottles},"
        f" {bottles} * {price} FROM n",
        "CREATE INDEX ix_wine_sales_sold_on ON wine_sales (sold_on)",
        "CREATE INDEX ix_wine_sales_product ON wine_sales (product, sold_on)",
    ]


@pytest.fixture(params=BACKENDS, scope="module")
def wines(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("wines")
    with sqlite_or_postgres(request.param, request, folder, "wines") as url:
        made = Drafted(url, _statements(request.param), folder, "wines", today=TODAY)
        yield made
        made.pipeline.close()


@pytest.fixture(autouse=True)
def _look_for_new_rollups_at_once(monkeypatch):
    """A rollup built while the pipeline runs is looked for every 30 s; here at every call."""
    monkeypatch.setattr(executor, "ROLLUP_LOOK_S", 0.0)


def _refresh(wines: Drafted) -> None:
    """What `concierge db refresh` does with the draft's rollups."""
    engine = sa.create_engine(wines.url)
    try:
        with engine.begin() as conn:
            rollups.build_all(conn, wines.pipeline.catalogs[0].spec.rollups)
    finally:
        engine.dispose()


def _unbuild(wines: Drafted) -> None:
    """The database as before any `concierge db refresh`: no summary table, no trigger, no record."""
    name = "concierge_daily_wine_sales"
    engine = sa.create_engine(wines.url)
    try:
        with engine.begin() as conn:
            on = " ON wine_sales" if conn.dialect.name == "postgresql" else ""
            for trigger in rollups.trigger_names(name, conn.dialect.name):
                conn.execute(sa.text(f"DROP TRIGGER IF EXISTS {trigger}{on}"))
            conn.execute(sa.text(f"DROP TABLE IF EXISTS {name}"))
            if sa.inspect(conn).has_table(rollups.RECORDS):
                conn.execute(sa.text(f"DELETE FROM {rollups.RECORDS} WHERE name = :name"), {"name": name})
    finally:
        engine.dispose()
    wines.pipeline.sql.refresh()


def _read(wines: Drafted, tool: str, args: dict) -> str:
    """The statement the tool runs for these arguments now: its own or its rollup's."""
    spec = wines.pipeline.catalogs[0].tools[tool]
    return "rollup" if wines.pipeline.sql.statement(spec, {**_defaults(spec), **args}) != spec.sql else "table"


def _defaults(spec) -> dict:
    return {name: p.default for name, p in spec.params.items()}


def test_the_draft_keeps_a_summary_by_day_colour_and_wine_not_by_shop(wines):
    assert wines.raw["rollups"] == {"concierge_daily_wine_sales": {
        "table": "wine_sales", "group_by": ["sold_on", "colour", "product"], "sums": ["amount", "bottles"]}}
    summary = wines.tool("wine_sales_summary")["rollup"]
    assert summary["table"] == "concierge_daily_wine_sales"
    assert summary["only"] == {"group_by": ["product", "colour", "day", "month"]}  # not shop: forty are below the grain
    assert wines.tool("wine_sales_compare")["rollup"]["table"] == "concierge_daily_wine_sales"


def test_the_values_the_guard_reads_are_the_tables_read_from_its_index(wines):
    product = wines.params("wine_sales_summary")["product"]["enum"]["query"]
    assert product.startswith("WITH RECURSIVE")  # one probe per wine, not 128,000 rows read
    assert "DISTINCT" in wines.params("wine_sales_summary")["colour"]["enum"]["query"]  # no index begins with it
    facts = wines.pipeline.sql.facts(wines.pipeline.catalogs[0])
    assert facts.enum_values[product] == sorted(w for w, _, _ in WINES)
    assert wines.call("wine_sales_summary", {"product": "Merlot"}).message == (
        "wine_sales_summary: product 'Merlot' is not a valid value; valid: Barolo, Chablis, Chianti, Malbec, "
        "Provence, Rioja, Sancerre, Tavel")


LAST_MONTH = {"sold_on_from": "2026-01-01", "sold_on_to": "2026-01-31"}


def _top(wines: Drafted, where: str, by: str = "product", n: int = 3) -> list[tuple[str, int]]:
    """The groups in the first `n` places, biggest first: those tied at the last place all kept."""
    rows = wines.rows(f"SELECT {by}, SUM(amount) FROM wine_sales WHERE sold_on BETWEEN '2026-01-01' AND '2026-01-31'"
                      f" {where} GROUP BY {by} ORDER BY 2 DESC, 1")
    totals = [int(total) for _, total in rows]
    return [(name, int(total)) for name, total in rows if sum(t > int(total) for t in totals) < n]


def _summary(wines: Drafted, args: dict) -> list[tuple[str, int]]:
    result = wines.invoke("wine_sales_summary", {**LAST_MONTH, "rank_by": "amount", "top_n": 3, **args})
    return [(r["group_value"], int(r["amount"])) for r in result.rows]


def test_before_the_refresh_and_after_it_the_figures_are_the_tables_own(wines):
    _unbuild(wines)
    for built in (False, True):
        if built:
            _refresh(wines)
        assert _read(wines, "wine_sales_summary", {**LAST_MONTH, "group_by": "product"}) == \
            ("rollup" if built else "table")
        assert _summary(wines, {"group_by": "product"}) == _top(wines, "")
        assert _summary(wines, {"group_by": "product", "colour": "red"}) == _top(wines, "AND colour = 'red'")
        assert _summary(wines, {"group_by": "shop"}) == _top(wines, "", by="shop")  # below the grain: the table
    assert _read(wines, "wine_sales_summary", {**LAST_MONTH, "group_by": "shop"}) == "table"


def test_a_pipeline_told_to_read_the_tables_never_reads_a_rollup_built_later(wines, tmp_path):
    _unbuild(wines)
    catalog = tmp_path / "wines.yaml"
    catalog.write_text(wines.draft.text, encoding="utf-8")
    tables = open_pipeline([str(catalog)], wines.url, today=TODAY, use_rollups=False)
    try:
        spec = tables.catalogs[0].tools["wine_sales_summary"]
        args = {**_defaults(spec), **LAST_MONTH, "group_by": "product"}
        assert tables.sql.statement(spec, args) == spec.sql
        _refresh(wines)
        assert tables.sql.statement(spec, args) == spec.sql  # looked for at every call here: still the table
    finally:
        tables.close()


def _changes(wines: Drafted) -> dict[str, int]:
    rows = wines.rows("SELECT product,"
                      " SUM(CASE WHEN sold_on BETWEEN '2026-01-26' AND '2026-02-01' THEN amount ELSE 0 END)"
                      " - SUM(CASE WHEN sold_on BETWEEN '2026-01-19' AND '2026-01-25' THEN amount ELSE 0 END)"
                      " FROM wine_sales WHERE sold_on BETWEEN '2026-01-19' AND '2026-02-01' GROUP BY product")
    return {product: int(change) for product, change in rows}


@pytest.mark.anyio
async def test_a_sale_written_by_another_system_is_in_the_next_answer(wines):
    _refresh(wines)
    before = _changes(wines)
    engine = sa.create_engine(wines.url)
    try:
        with engine.begin() as conn:  # the till writes, not concierge
            conn.execute(sa.text("INSERT INTO wine_sales VALUES (:id, :day, 'Shop 1', 'Barolo', 'red', 40, 244000)"),
                         {"id": ROWS + 1, "day": date(2026, 1, 30)})
    finally:
        engine.dispose()
    after = _changes(wines)
    assert after["Barolo"] == before["Barolo"] + 244000
    turn = await wines.agent.ask("先週から売上が落ちた商品は？", wines.pipeline.user("boss"))
    (call,) = turn.calls
    assert call.name == "wine_sales_compare", turn.answer
    assert _read(wines, "wine_sales_compare", call.args) == "rollup"
    result = wines.invoke("wine_sales_compare", call.args)
    assert {r["item"]: int(r["change"]) for r in result.rows} == after
    falls = sorted((c, w) for w, c in after.items() if c < 0)[:3]
    assert {abs(c) for c, _ in falls} <= figures(turn.answer), turn.answer


def test_catalog_check_says_whether_the_summary_table_is_current(wines, tmp_path):
    catalog = tmp_path / "wines.yaml"
    catalog.write_text(wines.draft.text, encoding="utf-8")
    _unbuild(wines)
    db = Database(wines.url)
    try:
        (note,) = [n for n in check_catalogs([str(catalog)], db, today=TODAY).notes if n.key.startswith("rollups")]
        assert note.message == ("not built or not current: wine_sales_summary, wine_sales_compare read wine_sales "
                                "itself on every call; build it with: concierge db refresh")
        _refresh(wines)
        report = check_catalogs([str(catalog)], db, today=TODAY)
        assert [n for n in report.notes if n.key.startswith("rollups")] == []  # current: nothing to do
        assert report.ok, report.problems
    finally:
        db.dispose()


def test_init_says_it_drafted_the_summary_table_and_how_to_build_it(tmp_path):
    url = f"sqlite:///{tmp_path / 'cellar.db'}"
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            for statement in _statements("sqlite"):
                conn.execute(sa.text(statement))
    finally:
        engine.dispose()
    out = CliRunner().invoke(main, ["init", "--database", url, "--dir", str(tmp_path / "cellar")])
    assert out.exit_code == 0, out.output
    assert (f"Drafted a summary table for wine_sales ({ROWS:,} rows): concierge_daily_wine_sales, by sold_on, colour, "
            "product, at most 9,600 rows.") in out.output
    assert "  concierge db refresh " in out.output


@pytest.mark.postgres
def test_a_user_who_does_not_own_the_table_gets_no_summary_table_and_is_told_why(pg_server, tmp_path):
    from pg_databases import fresh_database

    reader = f"wine_reader_{uuid.uuid4().hex[:8]}"
    with fresh_database(pg_server, prefix="wines_ro") as url:
        engine = sa.create_engine(url)
        try:
            with engine.begin() as conn:
                for statement in _statements("postgres"):
                    conn.execute(sa.text(statement))
                conn.execute(sa.text(f"CREATE ROLE {reader} LOGIN"))
                conn.execute(sa.text(f"GRANT SELECT ON wine_sales TO {reader}"))
            as_reader = sa.make_url(url).set(username=reader, password=None).render_as_string(hide_password=False)
            db = Database(as_reader)
            try:
                schema = introspect(db)
            finally:
                db.dispose()
            assert schema.summarisable == frozenset()
            assert draft_catalog(schema, "wines").rollups == ()
            out = CliRunner().invoke(main, ["init", "--database", as_reader, "--dir", str(tmp_path / "ro")])
            assert out.exit_code == 0, out.output
            assert (f"wine_sales has {ROWS:,} rows, and this database user may not create a table and triggers "
                    "beside it, so its summaries read the whole table on every call. Run `concierge init` as the "
                    "owner of wine_sales") in out.output
            assert "concierge db refresh" not in out.output
        finally:
            with engine.begin() as conn:
                conn.execute(sa.text(f"REVOKE ALL ON wine_sales FROM {reader}"))
            engine.dispose()
    admin = sa.create_engine(sa.make_url(url).set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f"DROP ROLE IF EXISTS {reader}"))
    finally:
        admin.dispose()
