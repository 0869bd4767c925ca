"""The date a verb names: "orders shipped last month" filters the shipped date, not the order date, on a
drafted schema (orders with an order date and a shipped date left empty until shipping; rentals with a rental
date and a return date), on SQLite and PostgreSQL. Each figure is compared with plain SQL on that date; a
period said with no date's word stays on the table's first date, and the shipped condition is not also set."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from drafted import BACKENDS, TODAY, Drafted


def _schema() -> list[str]:
    out = [
        "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, order_date DATE NOT NULL, shipped_date DATE,"
        " freight NUMERIC(8, 2) NOT NULL)",
        "CREATE TABLE rentals (rental_id INTEGER PRIMARY KEY, rental_date DATE NOT NULL, return_date DATE)",
    ]
    start = date(2025, 3, 1)
    for i in range(1, 61):
        ordered = start + timedelta(days=(i * 37) % 95)
        shipped = "NULL" if i % 6 == 0 else f"'{ordered + timedelta(days=i % 19)}'"
        out.append(f"INSERT INTO orders VALUES ({i}, '{ordered}', {shipped}, {i % 9}.50)")
        rented = start + timedelta(days=(i * 23) % 90)
        back = "NULL" if i % 7 == 0 else f"'{rented + timedelta(days=3 + i % 24)}'"
        out.append(f"INSERT INTO rentals VALUES ({i}, '{rented}', {back})")
    return out


@pytest.fixture(params=BACKENDS)
def shop(request, tmp_path):
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    made = Drafted(url, _schema(), tmp_path, "dates")
    yield made
    made.pipeline.close()


async def _ask(shop: Drafted, question: str):
    return await shop.agent.ask(question, shop.pipeline.user("boss"))


def _in(column: str, first: str, last: str) -> str:
    return f"{column} BETWEEN '{first}' AND '{last}'"


LAST_MONTH = ("2025-05-01", "2025-05-31")
assert TODAY.month == 6


def test_every_date_after_the_first_is_said_with_its_words(shop):
    orders = shop.params("orders")
    assert "words" not in orders["order_date_from"]["extract"]
    words = orders["shipped_date_from"]["extract"]["words"]
    assert {"shipped", "ship", "出荷"} <= set(words) and orders["shipped_date_to"]["extract"]["words"] == words
    assert {"return", "returned"} <= set(shop.params("rentals")["return_date_from"]["extract"]["words"])


@pytest.mark.anyio
@pytest.mark.parametrize("question", ["How many orders shipped last month?", "先月出荷された注文は何件？"])
async def test_a_period_said_with_a_verb_filters_that_date(shop, question):
    turn = await _ask(shop, question)
    assert len(turn.calls) == 1, turn.answer
    args = dict(turn.calls[0].args)
    assert args.get("shipped_date_from") == LAST_MONTH[0] and args.get("shipped_date_to") == LAST_MONTH[1]
    assert "order_date_from" not in args and "shipped" not in args
    want = shop.scalar(f"SELECT COUNT(*) FROM orders WHERE {_in('shipped_date', *LAST_MONTH)}")
    assert want != shop.scalar(f"SELECT COUNT(*) FROM orders WHERE {_in('order_date', *LAST_MONTH)}")
    assert str(want) in turn.answer, turn.answer


@pytest.mark.anyio
async def test_a_period_said_alone_filters_the_first_date(shop):
    turn = await _ask(shop, "How many orders last month?")
    args = dict(turn.calls[0].args)
    assert args.get("order_date_from") == LAST_MONTH[0] and "shipped_date_from" not in args
    assert str(shop.scalar(f"SELECT COUNT(*) FROM orders WHERE {_in('order_date', *LAST_MONTH)}")) in turn.answer


@pytest.mark.anyio
async def test_a_return_is_dated_by_its_return_date(shop):
    turn = await _ask(shop, "How many rentals were returned in May 2025?")
    args = dict(turn.calls[0].args)
    assert args.get("return_date_from") == LAST_MONTH[0] and "rental_date_from" not in args, turn.answer
    want = shop.scalar(f"SELECT COUNT(*) FROM rentals WHERE {_in('return_date', *LAST_MONTH)}")
    assert want != shop.scalar(f"SELECT COUNT(*) FROM rentals WHERE {_in('rental_date', *LAST_MONTH)}")
    assert str(want) in turn.answer, turn.answer
