"""A hair salon's appointments, a schema written for this test: each row is one visit, with the menu done, what it
cost and how it stands (完了, キャンセル, 無断キャンセル). No table lists the menu with its prices.

- 「カットはいくら？」 asks what a cut costs: the price its rows have, never what every cut ever booked adds up to
  (the sum of a unit price is a wrong figure); where the rows differ, the least and the most;
- 「先月の予約は何件？」, 「先月の料金の合計」 ask every row, as said, and the answer says that the cancelled and the
  no-show ones are among them: a total that holds them is never left to be read as what came in;
- a list of rows (田村 由美さんの予約を見せて) whose total adds up the cancelled with the done says so after the total;
  one whose rows are all done says nothing of statuses;
- 「先月の売上は？」 is the money of the visits done (planner/statuses.py), as before."""

from __future__ import annotations

from datetime import date

import pytest
from drafted import ask, figures, schema_fixture

TODAY = date(2026, 12, 5)
NOVEMBER = "visit_date BETWEEN '2026-11-01' AND '2026-11-30'"
# (menu, price, status, day of November); one visit in October
VISITS = [("カット", 4500, "完了", 2), ("カット", 4500, "キャンセル", 5), ("カット", 4500, "完了", 9),
          ("カット", 4500, "無断キャンセル", 12), ("パーマ", 9000, "完了", 3), ("パーマ", 9500, "完了", 16),
          ("パーマ", 8800, "キャンセル", 20), ("カラー", 7000, "完了", 7), ("カラー", 7000, "完了", 21)]


def _statements() -> list[str]:
    visits = [f"({n}, {1 + n % 2}, '2026-11-{day:02d}', '{menu}', {price}, '{status}')"
              for n, (menu, price, status, day) in enumerate(VISITS, 1)]
    visits.append(f"({len(VISITS) + 1}, 1, '2026-10-28', 'カット', 4500, '完了')")
    return [
        "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL)",
        "CREATE TABLE appointments (appointment_id INTEGER PRIMARY KEY,"
        " customer_id INTEGER NOT NULL REFERENCES customers(customer_id), visit_date DATE NOT NULL,"
        " menu VARCHAR(20) NOT NULL, price INTEGER NOT NULL, status VARCHAR(20) NOT NULL)",
        "INSERT INTO customers VALUES (1, '田村 由美'), (2, '小林 直子')",
        "INSERT INTO appointments VALUES " + ", ".join(visits),
    ]


salon = schema_fixture("salon", _statements, TODAY)


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["カットはいくら？", "カットの料金はいくら？", "カットの値段は？",
                                  "カットの価格はいくら？"])
async def test_the_price_of_a_thing_is_what_one_costs_never_their_sum(salon, said):
    total = salon.scalar("SELECT SUM(price) FROM appointments WHERE menu = 'カット'")
    turn = await ask(salon.agent, salon.pipeline, said)
    assert [c.status for c in turn.calls] == ["ok"], turn.answer
    stated = figures(turn.answer)
    assert 4500 in stated and total not in stated, turn.answer


@pytest.mark.anyio
async def test_prices_that_differ_are_said_as_the_least_and_the_most(salon):
    total = salon.scalar("SELECT SUM(price) FROM appointments WHERE menu = 'パーマ'")
    turn = await ask(salon.agent, salon.pipeline, "パーマはいくら？")
    stated = figures(turn.answer)
    assert {8800, 9500} <= stated and total not in stated, turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["先月の予約は何件？", "先月の料金の合計", "How many appointments last month?"])
async def test_every_row_counted_says_the_cancelled_are_among_them(salon, said):
    count = salon.scalar(f"SELECT COUNT(*) FROM appointments WHERE {NOVEMBER}")
    total = salon.scalar(f"SELECT SUM(price) FROM appointments WHERE {NOVEMBER}")
    turn = await ask(salon.agent, salon.pipeline, said)
    assert [c.status for c in turn.calls] == ["ok"], turn.answer
    assert count in figures(turn.answer) and (total in figures(turn.answer) or "料金" not in said), turn.answer
    assert "キャンセル" in turn.answer and "無断キャンセル" in turn.answer, turn.answer


@pytest.mark.anyio
async def test_sales_are_the_visits_done(salon):
    done = salon.scalar(f"SELECT SUM(price) FROM appointments WHERE {NOVEMBER} AND status = '完了'")
    every = salon.scalar(f"SELECT SUM(price) FROM appointments WHERE {NOVEMBER}")
    turn = await ask(salon.agent, salon.pipeline, "先月の売上は？")
    assert done in figures(turn.answer) and every not in figures(turn.answer), turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["田村 由美さんの予約を見せて", "先月のカットの予約を一覧で"])
async def test_a_list_whose_total_holds_the_cancelled_says_so(salon, said):
    turn = await ask(salon.agent, salon.pipeline, said)
    assert [c.status for c in turn.calls] == ["ok"], turn.answer
    assert "キャンセル、無断キャンセルのものも含めた数字です" in turn.answer, turn.answer


@pytest.mark.anyio
async def test_a_list_of_rows_all_done_says_nothing_of_statuses(salon):
    total = salon.scalar("SELECT SUM(price) FROM appointments WHERE menu = 'カラー'")
    turn = await ask(salon.agent, salon.pipeline, "カラーの予約を見せて")
    assert total in figures(turn.answer) and "含めた" not in turn.answer, turn.answer
