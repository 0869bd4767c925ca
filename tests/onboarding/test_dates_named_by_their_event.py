"""A shoe-repair counter's tickets, a schema written for this test (after a review's runs on a bicycle shop and a
dry cleaner): each ticket has the day it was received, the day the work was finished and the day the customer
picked the shoes up, and a status whose values are also those events' words (受付, 完了, 受取済).

A date is called by its event (received_on -> 受付日, picked_up_on -> 受取日, created_at -> 登録日時), never by a
guess at the English word's sound (レシーブ日, クリート日時) nor by its raw name in a description. A status said as done
with a period is that date's event: 今月受付したチケット counts the tickets received this month, whatever became of them
since, not only those still at 受付; 先月受け取られたチケット those picked up last month, not those received then.
The status said as a state is still the status where the word before it says so (状態が受付のチケット); 受付 being
also the role of the staff who take tickets in, 受付のチケット alone is asked about, never read as both."""

from __future__ import annotations

from datetime import date

import pytest
from drafted import ask, figures, schema_fixture

TODAY = date(2026, 12, 5)
# (received, finished, picked up, status, fee)
TICKETS = [("2026-11-03", "2026-11-06", "2026-11-08", "受取済", 1800),
           ("2026-11-10", "2026-11-14", "2026-12-01", "受取済", 2400),
           ("2026-11-20", "2026-11-25", None, "完了", 3000), ("2026-11-28", None, None, "受付", 1200),
           ("2026-12-01", None, None, "受付", 1500), ("2026-12-02", "2026-12-04", None, "完了", 2200),
           ("2026-12-03", "2026-12-04", "2026-12-05", "受取済", 900),
           ("2026-10-30", "2026-11-02", "2026-11-04", "受取済", 2000), ("2026-11-15", None, None, "キャンセル", 0)]


# who took each ticket in: 森 (a 職人 who also minds the counter) took most, and no one is called 一番たく
STAFF = [(1, "森", "職人"), (2, "今井", "受付"), (3, "松田", "受付")]
TAKEN_BY = [1, 1, 2, 1, 3, 1, 2, 1, 3]


def _statements() -> list[str]:
    rows = ", ".join(
        f"({n}, '{received}', {_day(finished)}, {_day(picked)}, '{status}', {fee}, '{received} 10:00:00', {staff})"
        for n, ((received, finished, picked, status, fee), staff) in enumerate(zip(TICKETS, TAKEN_BY, strict=True), 1))
    return [
        "CREATE TABLE staff (staff_id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL, role VARCHAR(20) NOT NULL)",
        "CREATE TABLE tickets (ticket_id INTEGER PRIMARY KEY, received_on DATE NOT NULL, completed_on DATE,"
        " picked_up_on DATE, status VARCHAR(20) NOT NULL, fee INTEGER NOT NULL, created_at TIMESTAMP NOT NULL,"
        " staff_id INTEGER NOT NULL REFERENCES staff(staff_id))",
        "INSERT INTO staff VALUES " + ", ".join(f"({i}, '{n}', '{r}')" for i, n, r in STAFF),
        f"INSERT INTO tickets VALUES {rows}",
    ]


def _day(day: str | None) -> str:
    return f"'{day}'" if day else "NULL"


counter = schema_fixture("counter", _statements, TODAY)


def test_a_date_is_called_by_its_event(counter):
    labels = counter.tool("tickets")["result"]["labels"]
    assert {k: labels[k]["ja"] for k in ("received_on", "completed_on", "picked_up_on", "created_at")} == {
        "received_on": "受付日", "completed_on": "完了日", "picked_up_on": "受取日", "created_at": "登録日時"}
    described = [p["description"]["ja"] for p in counter.params("tickets").values()]
    assert "受付日の開始日" in described and "受取日の終了日（この日を含む）" in described, described
    assert not [d for d in described if "_on" in d or "_at" in d], described


@pytest.mark.anyio
@pytest.mark.parametrize(("said", "where"), [
    ("今月受付したチケットは何件", "received_on >= '2026-12-01'"),
    ("今月受付されたチケットは何件？", "received_on >= '2026-12-01'"),
    ("先月受付したチケットは？", "received_on BETWEEN '2026-11-01' AND '2026-11-30'"),
    ("先月受け取られたチケットは何件", "picked_up_on BETWEEN '2026-11-01' AND '2026-11-30'"),
    ("先月受け取り済みになったチケットは何件", "picked_up_on BETWEEN '2026-11-01' AND '2026-11-30'"),
    ("先月完了したチケットは何件", "completed_on BETWEEN '2026-11-01' AND '2026-11-30'")])
async def test_a_status_said_as_done_with_a_period_is_the_date_of_that_event(counter, said, where):
    truth = counter.scalar(f"SELECT COUNT(*) FROM tickets WHERE {where}")
    turn = await ask(counter.agent, counter.pipeline, said)
    assert [c.status for c in turn.calls] == ["ok"], turn.answer
    assert not any(c.args.get("status") for c in turn.calls), turn.calls
    assert truth in figures(turn.answer), turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize(("said", "param", "where"), [
    ("状態が受付のチケットは何件", "status", "status = '受付'"),
    ("スタッフの役割が受付のチケットは何件？", "staff_role",
     "staff_id IN (SELECT staff_id FROM staff WHERE role = '受付')")])
async def test_the_value_said_as_a_state_is_that_of_the_word_said_before_it(counter, said, param, where):
    truth = counter.scalar(f"SELECT COUNT(*) FROM tickets WHERE {where}")
    turn = await ask(counter.agent, counter.pipeline, said)
    assert [{k: v for k, v in c.args.items() if v} for c in turn.calls] == [{param: "受付"}], turn.answer
    assert truth in figures(turn.answer), turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["受付のチケットは何件", "受付中のチケットは何件？"])
async def test_a_word_that_is_the_value_of_two_filters_is_asked_about(counter, said):
    """受付 is a ticket's status and the role of the staff who took it: which is asked, never both applied."""
    turn = await ask(counter.agent, counter.pipeline, said)
    assert turn.calls == [] and "状態" in turn.answer and "役割" in turn.answer, turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["一番たくさん受付したスタッフは誰", "いちばんたくさん受付したスタッフは誰？"])
async def test_who_received_the_most_is_counted_on_every_ticket_not_on_a_role(counter, said):
    (name, most), = counter.rows("SELECT s.name, COUNT(*) FROM tickets t JOIN staff s ON s.staff_id = t.staff_id"
                                 " GROUP BY s.name ORDER BY 2 DESC LIMIT 1")
    turn = await ask(counter.agent, counter.pipeline, said)
    assert [c.status for c in turn.calls] == ["ok"] and not any(c.args.get("staff_role") for c in turn.calls), \
        turn.answer
    assert name in turn.answer and most in figures(turn.answer) and "一番たく" not in turn.answer, turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize(("said", "words"), [("1か月以上過ぎたチケットは何件", "1か月"),
                                             ("2週間以上過ぎたチケットは？", "2週間")])
async def test_a_length_of_time_no_filter_takes_is_said_unapplied_never_dropped(counter, said, words):
    turn = await ask(counter.agent, counter.pipeline, said)
    assert turn.calls == [] and len(TICKETS) not in figures(turn.answer), turn.answer
    assert words in turn.answer, turn.answer
