"""A cycle hire's rentals, a schema written for this test: each rental's customer stays at a hotel. The summary of
the rentals groups by the customer's hotel (drafted as 顧客のホテル, customer_hotel), and staff say only ホテル:
「先週のレンタル 泊まってるホテルごとに何件？」 is the rentals of last week grouped by hotel, never their total said
as if grouped, since the hotel is the only grouping whose name ends so."""

from __future__ import annotations

from datetime import date

import pytest
from drafted import ask, schema_fixture

TODAY = date(2026, 12, 5)
HOTELS = ["ホテル湖畔", "鎌倉ゲストハウス", "旅館みどり"]


def _statements() -> list[str]:
    customers = [f"({i}, '客{i}', '{HOTELS[i % 3]}')" for i in range(1, 10)]
    rentals = [f"({n}, {1 + n % 9}, '2026-11-{1 + n:02d}', {2 + n % 3}, {500 * (2 + n % 3)})" for n in range(1, 28)]
    return [
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL, hotel VARCHAR(40))",
        "CREATE TABLE rentals (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),"
        " rented_on DATE NOT NULL, hours INTEGER NOT NULL, total_charge INTEGER NOT NULL)",
        "INSERT INTO customers VALUES " + ", ".join(customers),
        "INSERT INTO rentals VALUES " + ", ".join(rentals),
    ]


hire = schema_fixture("cycle_hire", _statements, TODAY)


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["先週のレンタル 泊まってるホテルごとに何件？", "先週のレンタルをホテル別に"])
async def test_rentals_are_grouped_by_the_hotel_of_their_customer(hire, said):
    counts = hire.rows("SELECT c.hotel, COUNT(*) FROM rentals r JOIN customers c ON c.id = r.customer_id"
                       " WHERE r.rented_on BETWEEN '2026-11-23' AND '2026-11-29' GROUP BY c.hotel")
    turn = await ask(hire.agent, hire.pipeline, said)
    assert [c.args.get("group_by") for c in turn.calls] == ["customer_hotel"], (turn.answer, turn.calls)
    for hotel, n in counts:
        assert (f"| {hotel} | {n} |" if "何件" in said else f"| {hotel} |") in turn.answer, turn.answer
