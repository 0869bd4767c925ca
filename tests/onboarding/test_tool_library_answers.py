"""A neighbourhood tool library, a schema written for this test: members borrow tools, and a loan records when it
was lent and returned, its state (貸出中, 返却済, 延滞) and the late fee charged, returned loans included.

Staff call the loans 貸出 and the fee 延滞料金. The draft names them so (the glossary: loan, late fee), so that
「先月の貸出は何件？」 counts every loan of last month, never only those still out (貸出中, the state whose name
begins with the word), and 「先月の延滞料金の合計」 adds up the late fees of every loan, never those of the loans
in the 延滞 state alone.
"""

from __future__ import annotations

from datetime import date

import pytest
from drafted import ask, figures, schema_fixture

TODAY = date(2026, 12, 5)
STATES = ["返却済", "貸出中", "延滞", "返却済", "返却済"]


def _statements() -> list[str]:
    loans = []
    for n in range(1, 31):
        state = STATES[n % len(STATES)]
        lent = f"2026-{10 + n % 2:02d}-{1 + n % 27:02d}"
        returned = f"'2026-{10 + n % 2:02d}-{2 + n % 27:02d}'" if state == "返却済" else "NULL"
        fee = 0 if state == "貸出中" else (300 if state == "延滞" else 100 * (n % 3))  # late, returned since
        loans.append(f"({n}, {1 + n % 7}, {1 + n % 4}, '{lent}', {returned}, '{state}', {fee})")
    return [
        "CREATE TABLE members (id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL, joined_on DATE)",
        "CREATE TABLE tools (id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL, kind VARCHAR(20))",
        "CREATE TABLE loans (id INTEGER PRIMARY KEY, tool_id INTEGER NOT NULL REFERENCES tools(id),"
        " member_id INTEGER NOT NULL REFERENCES members(id), lent_on DATE NOT NULL, returned_on DATE,"
        " status VARCHAR(20) NOT NULL, late_fee INTEGER NOT NULL)",
        "INSERT INTO members VALUES (1, '井上 直樹', '2025-04-01'), (2, '岡田 里奈', '2025-09-12'),"
        " (3, '村上 拓也', '2026-11-03'), (4, '井上 彩', '2026-02-20')",
        "INSERT INTO tools VALUES (1, '電動ドリル', '電動工具'), (2, '丸ノコ', '電動工具'), (3, '脚立', 'はしご'),"
        " (4, '高圧洗浄機', '清掃'), (5, 'インパクトドライバー', '電動工具'), (6, 'サンダー', '電動工具'),"
        " (7, '草刈機', '園芸')",
        "INSERT INTO loans VALUES " + ", ".join(loans),
    ]


library = schema_fixture("tool_library", _statements, TODAY)
IN_NOVEMBER = "lent_on BETWEEN '2026-11-01' AND '2026-11-30'"


def test_the_loans_and_the_late_fee_are_named_as_staff_say_them(library):
    assert "貸出" in library.keywords("loans"), library.keywords("loans")
    labels = {label["ja"] for label in library.tool("loans_summary")["result"]["labels"].values()}
    assert "延滞料金" in labels, labels


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["先月の貸出は何件？", "先月の貸出件数"])
async def test_the_loans_counted_are_every_loan_of_the_month(library, said):
    every = library.scalar(f"SELECT COUNT(*) FROM loans WHERE {IN_NOVEMBER}")
    out = library.scalar(f"SELECT COUNT(*) FROM loans WHERE {IN_NOVEMBER} AND status = '貸出中'")
    assert every != out
    turn = await ask(library.agent, library.pipeline, said)
    assert every in figures(turn.answer) and out not in figures(turn.answer), turn.answer


@pytest.mark.anyio
async def test_the_late_fees_added_up_are_those_of_every_loan(library):
    every = library.scalar(f"SELECT SUM(late_fee) FROM loans WHERE {IN_NOVEMBER}")
    overdue = library.scalar(f"SELECT SUM(late_fee) FROM loans WHERE {IN_NOVEMBER} AND status = '延滞'")
    assert every != overdue
    turn = await ask(library.agent, library.pipeline, "先月の延滞料金の合計")
    assert every in figures(turn.answer) and overdue not in figures(turn.answer), turn.answer
