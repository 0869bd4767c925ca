"""A plant nursery's sales, a schema made here for what no allow-list of nouns names: its lines point at plants
(not "products"), branches and members. Questions as its staff type them, the figures by plain SQL written from
the question.

- 「先週から売上が落ちた支店は？」, "Which branches sold less than last week?" and 「先週から売上が落ちた植物は？」 are
  comparisons of each branch's or plant's line totals, last week against the week before: the draft compares by
  every row a sale names, whatever the noun, and by what is sold (a row with a price) where the request names none
  it knows (植物: the draft calls the plants プラント).
- 「駅前店の先月の売上は？」 names the branches' comparison by its topic (支店) but asks for one month: the month's
  figure, never a comparison.
- 「ハーブの先月の売上」 is the sales of the plants of that family: a column of the row a sale names is a filter of
  the sales too.
- 「ラベンダーは先月何鉢売れた？」 is the pots sold: a column of few small counts named by what goods are counted in
  is a quantity, never a code, and 何鉢 asks for it.
- 「郊外店じゃなくて本店の先月の売上」 is the main store's figure: a value said in the negative is not what a question
  is about; 「郊外店じゃない売上は？」 cannot be applied, and is said so with no figure.
"""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from drafted import Drafted, ask, assert_compared, figures, schema_fixture

TODAY = date(2026, 12, 5)  # a Saturday: last week is 23 to 29 November, the week before 16 to 22 November
LAST_WEEK, WEEK_BEFORE = ("2026-11-23", "2026-11-29"), ("2026-11-16", "2026-11-22")
NOVEMBER = "s.sold_on BETWEEN '2026-11-01' AND '2026-11-30'"
BRANCHES = [(1, "本店"), (2, "駅前店"), (3, "郊外店")]
PLANTS = [("P01", "ラベンダー", "ハーブ", 600), ("P02", "ローズマリー", "ハーブ", 500),
          ("P03", "パキラ", "観葉植物", 2800), ("P04", "モンステラ", "観葉植物", 3500),
          ("P05", "サボテン", "多肉植物", 900), ("P06", "バジル", "ハーブ", 300)]


def _statements() -> list[str]:
    out = [
        "CREATE TABLE branches (branch_id INTEGER PRIMARY KEY, branch_name VARCHAR(20) NOT NULL)",
        "CREATE TABLE plants (plant_code VARCHAR(8) PRIMARY KEY, plant_name VARCHAR(40) NOT NULL,"
        " family VARCHAR(20) NOT NULL, list_price INTEGER NOT NULL)",
        "CREATE TABLE sales (sale_id INTEGER PRIMARY KEY, sold_on DATE NOT NULL,"
        " branch_id INTEGER NOT NULL REFERENCES branches(branch_id),"
        " plant_code VARCHAR(8) NOT NULL REFERENCES plants(plant_code), pots INTEGER NOT NULL,"
        " line_total INTEGER NOT NULL)",
    ]
    out += [f"INSERT INTO branches VALUES ({i}, '{n}')" for i, n in BRANCHES]
    out += [f"INSERT INTO plants VALUES ('{c}', '{n}', '{f}', {p})" for c, n, f, p in PLANTS]
    sale = 1
    for day in range(35):  # 1 November to 5 December 2026, a pattern of its own for each branch and plant
        when = date(2026, 11, 1) + timedelta(days=day)
        for branch, _ in BRANCHES:
            for n, (code, _, _, price) in enumerate(PLANTS):
                if (day * 3 + branch * 5 + n * 7) % 4 == 0 or (n == branch and day < 22):
                    pots = 1 + (day * (n + 1) + branch) % 5
                    out.append(f"INSERT INTO sales VALUES ({sale}, '{when.isoformat()}', {branch}, '{code}', {pots},"
                               f" {pots * price})")
                    sale += 1
    return out


nursery = schema_fixture("nursery", _statements, TODAY)


def _total(nursery: Drafted, where: str) -> int:
    return int(nursery.scalar(f"SELECT COALESCE(SUM(s.line_total), 0) FROM sales s WHERE {where}"))


def _changes(nursery: Drafted, join: str, name: str) -> dict[str, int]:
    """Each row's line totals last week less those of the week before, by plain SQL."""
    (a, b), (c, d) = LAST_WEEK, WEEK_BEFORE
    rows = nursery.rows(
        f"SELECT {name}, SUM(CASE WHEN s.sold_on BETWEEN '{a}' AND '{b}' THEN s.line_total ELSE 0 END)"
        f" - SUM(CASE WHEN s.sold_on BETWEEN '{c}' AND '{d}' THEN s.line_total ELSE 0 END)"
        f" FROM sales s {join} WHERE s.sold_on BETWEEN '{c}' AND '{b}' GROUP BY {name}")
    return {n: int(change) for n, change in rows}


@pytest.mark.anyio
@pytest.mark.parametrize(("say", "join", "name"), [
    ("先週から売上が落ちた支店は？", "JOIN branches x ON x.branch_id = s.branch_id", "x.branch_name"),
    ("先週から売上が落ちた植物は？", "JOIN plants x ON x.plant_code = s.plant_code", "x.plant_name"),
    ("Which branches sold less than last week?", "JOIN branches x ON x.branch_id = s.branch_id", "x.branch_name"),
    ("which plants sold less than last week", "JOIN plants x ON x.plant_code = s.plant_code", "x.plant_name"),
])
async def test_what_fell_since_last_week_is_each_branchs_or_plants_change(nursery, say, join, name):
    changes = _changes(nursery, join, name)
    turn = await ask(nursery.agent, nursery.pipeline, say)
    assert_compared(turn, changes, LAST_WEEK, WEEK_BEFORE)


@pytest.mark.anyio
async def test_one_branchs_month_is_its_figure_never_a_comparison(nursery):
    turn = await ask(nursery.agent, nursery.pipeline, "駅前店の先月の売上は？")
    assert all("compare" not in c.name for c in turn.calls), turn.calls
    assert _total(nursery, f"s.branch_id = 2 AND {NOVEMBER}") in figures(turn.answer), turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize("family", ["ハーブ", "観葉植物"])
async def test_a_family_of_plants_is_the_sales_of_its_plants(nursery, family):
    herbs = _total(nursery, f"s.plant_code IN (SELECT plant_code FROM plants WHERE family = '{family}') AND {NOVEMBER}")
    turn = await ask(nursery.agent, nursery.pipeline, f"{family}の先月の売上")
    assert [c.args.get("plant_family") for c in turn.calls] == [family], turn.calls
    assert herbs in figures(turn.answer), turn.answer


@pytest.mark.anyio
async def test_how_many_pots_sold_is_the_pots_summed_not_the_lines(nursery):
    where = f"s.plant_code = 'P01' AND {NOVEMBER}"
    pots = int(nursery.scalar(f"SELECT SUM(s.pots) FROM sales s WHERE {where}"))
    lines = int(nursery.scalar(f"SELECT COUNT(*) FROM sales s WHERE {where}"))
    assert pots != lines
    turn = await ask(nursery.agent, nursery.pipeline, "ラベンダーは先月何鉢売れた？")
    assert pots in figures(turn.answer), turn.answer


@pytest.mark.anyio
async def test_a_branch_said_in_the_negative_is_not_the_one_asked_about(nursery):
    main, suburb = (_total(nursery, f"s.branch_id = {b} AND {NOVEMBER}") for b in (1, 3))
    turn = await ask(nursery.agent, nursery.pipeline, "郊外店じゃなくて本店の先月の売上")
    assert main in figures(turn.answer) and suburb not in figures(turn.answer), turn.answer
    assert [c.args.get("branch") for c in turn.calls] == ["本店"], turn.calls

    alone = await ask(nursery.agent, nursery.pipeline, "郊外店じゃない売上は？")
    assert alone.calls == [] and not figures(alone.answer), alone.answer
    assert "お出ししていません" in alone.answer, alone.answer
