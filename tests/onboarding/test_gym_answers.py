"""A gym's training sessions, a schema written for this test: trainers, members, and sessions that are completed,
cancelled or no_show, each with its price. "session" is a word the glossary now knows (セッション): staff ask about
セッション in Japanese, and the figures are the data's, by plain SQL.

- 「先月のセッション数は？」, 「先月キャンセルされたセッションは何件？」: the sessions of last month, all of them or the
  cancelled ones; never "I cannot answer", never a question about which ID is meant.
- 「先月一番セッションが多いトレーナーは？」: the trainer with the most sessions.
- 「山田 花子さんは先月何回来た？」: the sessions she came to (completed), never her membership filtered by last month.
- 「先月のセッションの価格の合計」: a session's price is what that session cost (the table counts no pieces: each
  row is one), so the prices add up; a unit price of a line with a quantity never does.
"""

from __future__ import annotations

from datetime import date

import pytest
from drafted import ask, figures, schema_fixture

TODAY = date(2026, 12, 5)
TRAINERS = [(1, "田中 翔"), (2, "Emily Clark"), (3, "森 由美")]
MEMBERS = [(1, "山田 花子", "2026-06-01"), (2, "佐々木 健", "2026-09-02"), (3, "Lee Min", "2026-11-03")]
# (id, member, trainer, date, status, price)
SESSIONS = [(1, 1, 1, "2026-11-02", "completed", 6000), (2, 1, 1, "2026-11-04", "completed", 6000),
            (3, 1, 2, "2026-11-06", "cancelled", 2000), (4, 2, 1, "2026-11-09", "completed", 2000),
            (5, 2, 1, "2026-11-12", "no_show", 6000), (6, 3, 2, "2026-11-15", "completed", 2000),
            (7, 1, 3, "2026-11-20", "completed", 6000), (8, 3, 1, "2026-11-25", "cancelled", 2000),
            (9, 1, 1, "2026-10-30", "completed", 6000), (10, 2, 2, "2026-12-01", "completed", 2000)]
NOVEMBER = "session_date BETWEEN '2026-11-01' AND '2026-11-30'"


def _statements() -> list[str]:
    return [
        "CREATE TABLE trainers (trainer_id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL)",
        "CREATE TABLE members (member_id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL, joined_on DATE NOT NULL)",
        "CREATE TABLE sessions (session_id INTEGER PRIMARY KEY,"
        " member_id INTEGER NOT NULL REFERENCES members(member_id),"
        " trainer_id INTEGER NOT NULL REFERENCES trainers(trainer_id), session_date DATE NOT NULL,"
        " status VARCHAR(20) NOT NULL, price INTEGER NOT NULL)",
        *(f"INSERT INTO trainers VALUES ({i}, '{n}')" for i, n in TRAINERS),
        *(f"INSERT INTO members VALUES ({i}, '{n}', '{d}')" for i, n, d in MEMBERS),
        *(f"INSERT INTO sessions VALUES ({i}, {m}, {t}, '{d}', '{s}', {p})" for i, m, t, d, s, p in SESSIONS),
    ]


gym = schema_fixture("gym", _statements, TODAY)


@pytest.mark.anyio
@pytest.mark.parametrize(("said", "where"), [("先月のセッション数は？", ""),
                                             ("先月キャンセルされたセッションは何件？", "AND status = 'cancelled'")])
async def test_sessions_of_last_month_are_counted(gym, said, where):
    count = gym.scalar(f"SELECT COUNT(*) FROM sessions WHERE {NOVEMBER} {where}")
    every = gym.scalar(f"SELECT COUNT(*) FROM sessions WHERE {NOVEMBER}")
    turn = await ask(gym.agent, gym.pipeline, said)
    assert [c.name for c in turn.calls] == ["sessions"], turn.answer
    assert count in figures(turn.answer.splitlines()[0]) and "セッション" in turn.answer, turn.answer
    assert where == "" or every not in figures(turn.answer.splitlines()[0]), turn.answer


@pytest.mark.anyio
async def test_the_trainer_with_the_most_sessions(gym):
    (name, most), = gym.rows(f"SELECT t.name, COUNT(*) FROM sessions s JOIN trainers t ON t.trainer_id = s.trainer_id "
                             f"WHERE {NOVEMBER} GROUP BY t.name ORDER BY 2 DESC LIMIT 1")
    turn = await ask(gym.agent, gym.pipeline, "先月一番セッションが多いトレーナーは？")
    assert f"{name}（{most}件）" in turn.answer, turn.answer


@pytest.mark.anyio
async def test_how_often_a_member_came_counts_her_completed_sessions(gym):
    came = gym.scalar(f"SELECT COUNT(*) FROM sessions s JOIN members m ON m.member_id = s.member_id "
                      f"WHERE m.name = '山田 花子' AND status = 'completed' AND {NOVEMBER}")
    turn = await ask(gym.agent, gym.pipeline, "山田 花子さんは先月何回来た？")
    assert [c.name for c in turn.calls] == ["sessions"], turn.answer
    assert came in figures(turn.answer.splitlines()[0]), turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["先月のセッションの価格の合計", "What was the total price of sessions last month?"])
async def test_the_prices_of_sessions_add_up(gym, said):
    total = gym.scalar(f"SELECT SUM(price) FROM sessions WHERE {NOVEMBER}")
    turn = await ask(gym.agent, gym.pipeline, said)
    assert [c.status for c in turn.calls] == ["ok"], turn.answer
    assert total in figures(turn.answer), turn.answer


def test_a_unit_price_beside_a_quantity_is_no_sum(tmp_path):
    from drafted import Drafted

    made = Drafted(f"sqlite:///{tmp_path / 'lines.db'}", [
        "CREATE TABLE order_lines (line_id INTEGER PRIMARY KEY, ordered_on DATE NOT NULL, item VARCHAR(20),"
        " quantity INTEGER NOT NULL, price INTEGER NOT NULL)",
        "INSERT INTO order_lines VALUES (1, '2026-11-02', 'pen', 3, 100), (2, '2026-11-03', 'pad', 2, 300)"],
        tmp_path, "lines", today=TODAY)
    try:
        totals = made.tool("order_lines")["result"].get("totals", {})
        assert "price" not in totals  # 3 pens at 100 are 300, never 100 + 300 as if prices were amounts
    finally:
        made.pipeline.close()
