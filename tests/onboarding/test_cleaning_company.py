"""A house-cleaning company, a schema written for this test: its customers, its staff (with their hourly wage), and
its jobs, each done, cancelled or booked (完了, キャンセル, 予約), with what it cost.

- 「10月と11月の売上を比べて」 compares the sales of the jobs done, as 「10月の売上合計」 adds them up: a
  comparison that adds in the cancelled and the booked ones states figures broader than the question, and
  contradicts the total the same person was given for one of its months;
- a member of staff named (山本 翔さんの11月の件数は？) is looked for among the staff, never searched for among the
  customers (where nobody is found, and 0 would be the answer); a customer named is still a customer;
- 時給 is the hourly wage;
- エアコンクリーニングは何台？ counts the units cleaned (the jobs' quantity), 何件 the jobs; how many times a
  customer came (利用回数, 何回利用した, 一番利用回数が多いお客さん) counts their jobs, never the one row of the
  customer, and a period said
  with a customer (佐藤 健太さんの11月の予約) is of their jobs, never of the day they joined;
- 作業 is a word for the jobs, and いくら使った what a customer spent: the money of their jobs done.
"""

from __future__ import annotations

from datetime import date

import pytest
from drafted import ask, figures, schema_fixture

TODAY = date(2026, 12, 5)
SERVICES = [(1, "定期清掃"), (2, "エアコンクリーニング"), (3, "水回りクリーニング")]
CUSTOMERS = [(1, "佐藤 健太", "北区", "2026-11-04"), (2, "佐藤 美咲", "南区", "2025-03-15"),
             (3, "鈴木 一郎", "北区", "2026-09-30")]
STAFF = [(1, "山本 翔", 1500), (2, "小林 大輔", 1400)]
# (service, customer, staff, month, day, amount, status)
JOBS = [(1, 1, 1, 10, 3, 9000, "完了"), (2, 2, 2, 10, 8, 24000, "完了"), (3, 3, 1, 10, 15, 15000, "完了"),
        (3, 1, 2, 10, 22, 30000, "キャンセル"), (1, 2, 1, 11, 2, 12000, "完了"), (2, 3, 1, 11, 9, 36000, "完了"),
        (2, 1, 2, 11, 12, 12000, "キャンセル"), (3, 2, 1, 11, 20, 15000, "予約"), (1, 3, 2, 11, 27, 6000, "完了"),
        (1, 3, 1, 10, 29, 3000, "完了")]


def _statements() -> list[str]:
    jobs = [f"({n}, {service}, {customer}, {staff}, '2026-{month:02d}-{day:02d}', {amount // 3000}, {amount},"
            f" '{status}')"
            for n, (service, customer, staff, month, day, amount, status) in enumerate(JOBS, 1)]
    return [
        "CREATE TABLE services (service_id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL)",
        "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL, area VARCHAR(20),"
        " joined_on DATE NOT NULL)",
        "CREATE TABLE staff (staff_id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL, hourly_wage INTEGER NOT NULL)",
        "CREATE TABLE jobs (job_id INTEGER PRIMARY KEY, service_id INTEGER NOT NULL REFERENCES services(service_id),"
        " customer_id INTEGER NOT NULL REFERENCES customers(customer_id),"
        " staff_id INTEGER NOT NULL REFERENCES staff(staff_id),"
        " job_date DATE NOT NULL, quantity INTEGER NOT NULL, amount INTEGER NOT NULL, status VARCHAR(20) NOT NULL)",
        "INSERT INTO services VALUES " + ", ".join(f"({i}, '{n}')" for i, n in SERVICES),
        "INSERT INTO customers VALUES " + ", ".join(f"({i}, '{n}', '{a}', '{d}')" for i, n, a, d in CUSTOMERS),
        "INSERT INTO staff VALUES " + ", ".join(f"({i}, '{n}', {w})" for i, n, w in STAFF),
        "INSERT INTO jobs VALUES " + ", ".join(jobs),
    ]


cleaning = schema_fixture("cleaning", _statements, TODAY)


def _sales(cleaning, month: int, *, done: bool) -> int:
    only = " AND status = '完了'" if done else ""
    return cleaning.scalar(f"SELECT SUM(amount) FROM jobs WHERE job_date BETWEEN '2026-{month:02d}-01' AND "
                           f"'2026-{month:02d}-{31 if month == 10 else 30}'{only}")


def test_the_drafted_comparison_takes_the_status_of_the_rows(cleaning):
    compared = [n for n in cleaning.raw["tools"] if "_compare" in n]
    assert compared and all("status" in cleaning.params(n) for n in compared), compared


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["10月と11月の売上を比べて", "Compare sales in November with October"])
async def test_a_comparison_of_sales_adds_up_the_jobs_done(cleaning, said):
    turn = await ask(cleaning.agent, cleaning.pipeline, said)
    assert [c.status for c in turn.calls] == ["ok"] and "_compare" in turn.calls[0].name, turn.answer
    stated = figures(turn.answer)
    november, october = _sales(cleaning, 11, done=True), _sales(cleaning, 10, done=True)
    assert {november, october, abs(november - october)} <= stated, turn.answer
    assert _sales(cleaning, 11, done=False) not in stated and _sales(cleaning, 10, done=False) not in stated
    assert "キャンセル" in turn.answer or "cancel" in turn.answer.lower(), turn.answer


@pytest.mark.anyio
async def test_the_comparison_agrees_with_the_total_of_one_month(cleaning):
    total = await ask(cleaning.agent, cleaning.pipeline, "10月の売上合計")
    compared = await ask(cleaning.agent, cleaning.pipeline, "10月と11月の売上を比べて")
    october = _sales(cleaning, 10, done=True)
    assert october in figures(total.answer) and october in figures(compared.answer), (total.answer, compared.answer)


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["山本 翔さんの11月の件数は？", "山本 翔の11月の作業件数は？"])
async def test_a_member_of_staff_named_is_looked_for_among_the_staff(cleaning, said):
    jobs = cleaning.scalar("SELECT COUNT(*) FROM jobs j JOIN staff s ON s.staff_id = j.staff_id"
                           " WHERE s.name = '山本 翔' AND j.job_date BETWEEN '2026-11-01' AND '2026-11-30'")
    turn = await ask(cleaning.agent, cleaning.pipeline, said)
    assert [c.status for c in turn.calls] == ["ok"] and turn.calls[0].name.startswith("jobs"), turn.answer
    assert jobs in figures(turn.answer) and "ありません" not in turn.answer, turn.answer


@pytest.mark.anyio
async def test_the_hourly_wage_of_a_member_of_staff(cleaning):
    turn = await ask(cleaning.agent, cleaning.pipeline, "小林 大輔さんの時給は？")
    assert [c.name for c in turn.calls] == ["staff"] and 1400 in figures(turn.answer), turn.answer


@pytest.mark.anyio
async def test_a_customer_named_is_still_a_customer(cleaning):
    turn = await ask(cleaning.agent, cleaning.pipeline, "佐藤 健太さんの地域は？")
    assert [c.name for c in turn.calls] == ["customers"] and "北区" in turn.answer, turn.answer


@pytest.mark.anyio
async def test_work_is_a_word_for_the_jobs(cleaning):
    jobs = cleaning.scalar("SELECT COUNT(*) FROM jobs WHERE job_date BETWEEN '2026-11-01' AND '2026-11-30'")
    turn = await ask(cleaning.agent, cleaning.pipeline, "11月の作業は何件？")
    assert [c.name for c in turn.calls] == ["jobs"] and jobs in figures(turn.answer), turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["鈴木さんは11月にいくら使いましたか", "鈴木 一郎さんは11月にいくら使った？"])
async def test_what_a_customer_spent_is_the_money_of_their_jobs_done(cleaning, said):
    spent = cleaning.scalar("SELECT SUM(amount) FROM jobs WHERE customer_id = 3 AND status = '完了'"
                            " AND job_date BETWEEN '2026-11-01' AND '2026-11-30'")
    turn = await ask(cleaning.agent, cleaning.pipeline, said)
    assert [c.status for c in turn.calls] == ["ok"] and spent in figures(turn.answer), turn.answer


@pytest.mark.anyio
async def test_units_counted_in_a_counter_of_goods_are_the_quantity_of_the_jobs(cleaning):
    units, jobs = cleaning.rows("SELECT SUM(quantity), COUNT(*) FROM jobs WHERE service_id = 2")[0]
    assert units != jobs
    by_units = await ask(cleaning.agent, cleaning.pipeline, "エアコンクリーニングは何台やった？")
    assert units in figures(by_units.answer), by_units.answer
    by_jobs = await ask(cleaning.agent, cleaning.pipeline, "エアコンクリーニングは何件？")
    assert jobs in figures(by_jobs.answer) and units not in figures(by_jobs.answer), by_jobs.answer


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["佐藤 美咲さんの利用回数は？", "佐藤 美咲さんは何回利用した？"])
async def test_how_many_times_a_customer_came_counts_their_jobs(cleaning, said):
    every, done = cleaning.rows("SELECT COUNT(*), SUM(CASE WHEN status = '完了' THEN 1 ELSE 0 END) FROM jobs"
                                " WHERE customer_id = 2")[0]
    turn = await ask(cleaning.agent, cleaning.pipeline, said)
    assert [c.status for c in turn.calls] == ["ok"] and turn.calls[0].name.startswith("jobs"), turn.answer
    assert {every, done} & figures(turn.answer), turn.answer


@pytest.mark.anyio
async def test_a_period_said_with_a_customer_is_of_their_jobs_not_of_the_day_they_joined(cleaning):
    turn = await ask(cleaning.agent, cleaning.pipeline, "佐藤 健太さんの11月の予約は？")  # he joined on 11-04
    assert [c.status for c in turn.calls] == ["ok"] and turn.calls[0].name.startswith("jobs"), turn.answer
    assert "12,000" in turn.answer, turn.answer  # his one job of November


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["一番利用回数が多いお客さんは？", "利用回数が一番多い顧客は？"])
async def test_the_customer_who_came_most_often_is_ranked_by_their_jobs(cleaning, said):
    (most, jobs), = cleaning.rows("SELECT c.name, COUNT(*) FROM jobs j JOIN customers c"
                                  " ON c.customer_id = j.customer_id GROUP BY c.name ORDER BY 2 DESC LIMIT 1")
    turn = await ask(cleaning.agent, cleaning.pipeline, said)
    assert [c.status for c in turn.calls] == ["ok"], turn.answer
    assert most in turn.answer and jobs in figures(turn.answer), turn.answer
