"""A pet-grooming shop, a schema written for this test: money comes from two kinds of rows, its grooming visits
(done, cancelled or booked) and the goods it sells. 「先月の売上はいくら？」 is asked about (which data?), and the
answer that names one (訪問, visits, the goods) completes the question as it was asked: last month's money of those
rows, never every visit ever made. Visits that came in (来店件数, 来店は何件) are those done, as 何回来店した counts
them."""

from __future__ import annotations

from datetime import date

import pytest
from drafted import ask, figures, schema_fixture

TODAY = date(2026, 12, 5)
GROOMERS = [(1, "佐藤 美咲"), (2, "田中 健太")]
# (groomer, month, day, price, status)
VISITS = [(1, 10, 3, 8000, "完了"), (2, 10, 12, 6000, "完了"), (1, 11, 2, 9000, "完了"), (2, 11, 9, 5000, "キャンセル"),
          (1, 11, 15, 7000, "完了"), (2, 11, 20, 6500, "完了"), (1, 12, 8, 8000, "予約")]
# (groomer, month, day, product, quantity, unit price)
GOODS = [(1, 10, 5, "シャンプー", 2, 1500), (2, 11, 6, "おやつ", 3, 800), (1, 11, 18, "シャンプー", 1, 1500)]


def _statements() -> list[str]:
    visits = [f"({n}, {g}, '2026-{m:02d}-{d:02d}', {price}, '{status}')" for n, (g, m, d, price, status)
              in enumerate(VISITS, 1)]
    goods = [f"({n}, {g}, '2026-{m:02d}-{d:02d}', '{product}', {q}, {unit})" for n, (g, m, d, product, q, unit)
             in enumerate(GOODS, 1)]
    return [
        "CREATE TABLE groomers (id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL)",
        "CREATE TABLE visits (id INTEGER PRIMARY KEY, groomer_id INTEGER NOT NULL REFERENCES groomers(id),"
        " visit_date DATE NOT NULL, price INTEGER NOT NULL, status VARCHAR(20) NOT NULL)",
        "CREATE TABLE product_sales (id INTEGER PRIMARY KEY, groomer_id INTEGER NOT NULL REFERENCES groomers(id),"
        " sold_on DATE NOT NULL, product VARCHAR(40) NOT NULL, quantity INTEGER NOT NULL, unit_price INTEGER NOT NULL)",
        "INSERT INTO groomers VALUES " + ", ".join(f"({i}, '{n}')" for i, n in GROOMERS),
        "INSERT INTO visits VALUES " + ", ".join(visits),
        "INSERT INTO product_sales VALUES " + ", ".join(goods),
    ]


grooming = schema_fixture("grooming", _statements, TODAY)
NOVEMBER = "BETWEEN '2026-11-01' AND '2026-11-30'"


@pytest.mark.anyio
@pytest.mark.parametrize(("said", "reply"), [("先月の売上はいくら？", "訪問"), ("先月の売上はいくら？", "訪問のほう"),
                                             ("What was the total revenue last month?", "visits")])
async def test_the_data_chosen_completes_the_question_as_asked(grooming, said, reply):
    done = grooming.scalar(f"SELECT SUM(price) FROM visits WHERE status = '完了' AND visit_date {NOVEMBER}")
    every = grooming.scalar("SELECT SUM(price) FROM visits")
    asked = await ask(grooming.agent, grooming.pipeline, said)
    assert asked.calls == [], asked.answer
    turn = await ask(grooming.agent, grooming.pipeline, reply, asked.session_id)
    assert [c.status for c in turn.calls] == ["ok"] and turn.calls[0].name.startswith("visits"), turn.answer
    assert done in figures(turn.answer) and every not in figures(turn.answer), turn.answer


@pytest.mark.anyio
async def test_the_groomer_with_the_most_sales_of_the_data_chosen(grooming):
    (best, money), = grooming.rows("SELECT g.name, SUM(v.price) FROM visits v JOIN groomers g ON g.id = v.groomer_id"
                                   " WHERE v.status = '完了' GROUP BY g.name ORDER BY 2 DESC LIMIT 1")
    asked = await ask(grooming.agent, grooming.pipeline, "一番売上が多いトリマーは？")
    turn = await ask(grooming.agent, grooming.pipeline, "訪問", asked.session_id)
    assert best in turn.answer and money in figures(turn.answer), turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["先月の来店件数は？", "先月の来店は何件？"])
async def test_visits_that_came_in_are_those_done(grooming, said):
    done = grooming.scalar(f"SELECT COUNT(*) FROM visits WHERE status = '完了' AND visit_date {NOVEMBER}")
    every = grooming.scalar(f"SELECT COUNT(*) FROM visits WHERE visit_date {NOVEMBER}")
    turn = await ask(grooming.agent, grooming.pipeline, said)
    assert done in figures(turn.answer) and every not in figures(turn.answer), turn.answer
