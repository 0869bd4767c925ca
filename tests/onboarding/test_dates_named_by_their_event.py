"""A shoe-repair counter's tickets, a schema written for this test (after a review's runs on a bicycle shop and a
dry cleaner): each ticket has the day it was received, the day the work was finished and the day the customer
picked the shoes up, and a status whose values are also those events' words (受付, 完了, 受取済).

A date is called by its event (received_on -> 受付日, picked_up_on -> 受取日, created_at -> 登録日時), never by a
guess at the English word's sound (レシーブ日, クリート日時) nor by its raw name in a description. A status said as done
with a period is that date's event: 今月受付したチケット counts the tickets received this month, whatever became of them
since, not only those still at 受付; 先月受け取られたチケット those picked up last month, not those received then.
The status said as a state is still the status (受付のチケット, 受付中のチケット)."""

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


def _statements() -> list[str]:
    rows = ", ".join(
        f"({n}, '{received}', {_day(finished)}, {_day(picked)}, '{status}', {fee}, '{received} 10:00:00')"
        for n, (received, finished, picked, status, fee) in enumerate(TICKETS, 1))
    return [
        "CREATE TABLE tickets (ticket_id INTEGER PRIMARY KEY, received_on DATE NOT NULL, completed_on DATE,"
        " picked_up_on DATE, status VARCHAR(20) NOT NULL, fee INTEGER NOT NULL, created_at TIMESTAMP NOT NULL)",
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
@pytest.mark.parametrize("said", ["受付のチケットは何件", "受付中のチケットは何件？"])
async def test_the_status_said_as_a_state_is_still_the_status(counter, said):
    waiting = counter.scalar("SELECT COUNT(*) FROM tickets WHERE status = '受付'")
    turn = await ask(counter.agent, counter.pipeline, said)
    assert [c.args.get("status") for c in turn.calls] == ["受付"], turn.answer
    assert waiting in figures(turn.answer), turn.answer
