"""A car rental shop, a schema written apart from the planner (by a reviewer who had not read it): customers (names
in Japanese, a ward each), cars (model in English, class in Japanese, a daily rate) and rentals (an amount charged,
a status in English, payment in Japanese). Questions as staff type them; the figures by plain SQL.

- "daily rate of the Prius", 「プリウスの日額は？」: the rate of that car, from the cars; never the rentals of the Prius
  grouped by day ("daily" inside the label "daily rate" is no grouping), never what the rentals add up to.
- "which customers live in Meguro": a ward said in romaji is the ward the data writes in kanji; who they live there.
- "how much did Hanako Tanaka spend last month": given name first, in romaji, is 田中 花子; "Tanaka" alone is
  asked about (two customers are 田中), never both added up.
- "which cars are out right now": a state no parameter filters by is said unapplied; never every car.
"""

from __future__ import annotations

from datetime import date

import pytest
from drafted import ask, figures, schema_fixture

TODAY = date(2026, 12, 5)
CUSTOMERS = [(1, "田中 太郎", "世田谷区"), (2, "田中 花子", "渋谷区"), (3, "佐藤 健", "世田谷区"),
             (4, "鈴木 一郎", "目黒区"), (5, "高橋 美咲", "世田谷区"), (6, "伊藤 翔", "渋谷区"),
             (7, "渡辺 真理", "品川区"), (8, "山本 大輔", "目黒区")]
CARS = [(1, "Prius", "ハイブリッド", 7000), (2, "Aqua", "コンパクト", 5000), (3, "Alphard", "ミニバン", 15000),
        (4, "Note", "コンパクト", 5500), (5, "Serena", "ミニバン", 11000), (6, "Harrier", "SUV", 12000)]
# (id, customer, car, start, days, amount, status, payment)
RENTALS = [(1, 1, 1, "2026-10-03", 3, 21000, "returned", "支払済"),
           (2, 3, 3, "2026-10-10", 2, 30000, "returned", "支払済"),
           (3, 2, 4, "2026-10-24", 3, 16500, "returned", "支払済"),
           (4, 1, 3, "2026-11-02", 2, 30000, "returned", "支払済"),
           (5, 4, 1, "2026-11-05", 5, 32000, "returned", "未払い"),
           (6, 2, 1, "2026-11-12", 2, 14000, "returned", "支払済"),
           (7, 6, 6, "2026-11-14", 2, 24000, "returned", "未払い"),
           (8, 8, 1, "2026-11-21", 3, 21000, "returned", "未払い"),
           (9, 1, 2, "2026-11-28", 2, 10000, "returned", "未払い"),
           (10, 2, 5, "2026-12-03", 4, 44000, "renting", "未払い"),
           (11, 7, 1, "2026-12-04", 2, 14000, "renting", "未払い"),
           (12, 3, 4, "2026-12-12", 2, 11000, "reserved", "未払い")]


def _statements() -> list[str]:
    out = [
        "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL)",
        "CREATE TABLE cars (car_id INTEGER PRIMARY KEY, model TEXT NOT NULL, car_class TEXT NOT NULL,"
        " daily_rate INTEGER NOT NULL)",
        "CREATE TABLE rentals (rental_id INTEGER PRIMARY KEY,"
        " customer_id INTEGER NOT NULL REFERENCES customers(customer_id),"
        " car_id INTEGER NOT NULL REFERENCES cars(car_id), start_date DATE NOT NULL, days INTEGER NOT NULL,"
        " amount INTEGER NOT NULL, status TEXT NOT NULL, payment TEXT NOT NULL)",
    ]
    out += [f"INSERT INTO customers VALUES ({i}, '{n}', '{c}')" for i, n, c in CUSTOMERS]
    out += [f"INSERT INTO cars VALUES ({i}, '{m}', '{k}', {r})" for i, m, k, r in CARS]
    out += [f"INSERT INTO rentals VALUES ({i}, {c}, {car}, '{d}', {n}, {a}, '{s}', '{p}')"
            for i, c, car, d, n, a, s, p in RENTALS]
    return out


shop = schema_fixture("car_rental", _statements, TODAY)


@pytest.mark.anyio
@pytest.mark.parametrize(("said", "model"), [("daily rate of the Prius", "Prius"),
                                             ("what's the daily rate for the Alphard", "Alphard"),
                                             ("プリウスの日額は？", "Prius")])
async def test_a_cars_daily_rate_is_read_from_the_cars(shop, said, model):
    rate = int(shop.scalar(f"SELECT daily_rate FROM cars WHERE model = '{model}'"))
    rented = int(shop.scalar(f"SELECT SUM(r.amount) FROM rentals r JOIN cars c ON c.car_id = r.car_id"
                             f" WHERE c.model = '{model}'"))
    turn = await ask(shop.agent, shop.pipeline, said)
    assert rate in figures(turn.answer), turn.answer
    assert rented not in figures(turn.answer), turn.answer


@pytest.mark.anyio
async def test_a_ward_said_in_romaji_finds_who_lives_there(shop):
    turn = await ask(shop.agent, shop.pipeline, "which customers live in Meguro")
    living = [r[0] for r in shop.rows("SELECT name FROM customers WHERE city = '目黒区'")]
    assert living and all(n in turn.answer for n in living), turn.answer
    assert "田中 太郎" not in turn.answer, turn.answer


@pytest.mark.anyio
async def test_a_name_in_romaji_given_name_first_is_the_one_customer(shop):
    spent = int(shop.scalar("SELECT SUM(r.amount) FROM rentals r JOIN customers c ON c.customer_id = r.customer_id"
                            " WHERE c.name = '田中 花子' AND r.start_date BETWEEN '2026-11-01' AND '2026-11-30'"))
    turn = await ask(shop.agent, shop.pipeline, "how much did Hanako Tanaka spend last month")
    assert spent in figures(turn.answer) and "田中 花子" in turn.answer, turn.answer
    turn = await ask(shop.agent, shop.pipeline, "total rentals for Tanaka last month")
    assert "田中 太郎" in turn.answer and "田中 花子" in turn.answer and not figures(turn.answer), turn.answer


@pytest.mark.anyio
async def test_a_state_nothing_filters_is_said_unapplied_never_every_car(shop):
    every = int(shop.scalar("SELECT COUNT(*) FROM cars"))
    turn = await ask(shop.agent, shop.pipeline, "which cars are out right now")
    assert "are out" in turn.answer and every not in figures(turn.answer), turn.answer
    assert not any(m in turn.answer for _, m, _, _ in CARS), turn.answer
