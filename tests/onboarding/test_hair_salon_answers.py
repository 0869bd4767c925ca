"""A hair salon, a schema written apart from the planner by a reviewer who had not read it: clients (names mostly in
kanji, two in romaji; wards typed both ways, 渋谷区 and Shibuya), stylists, a menu with list prices (Japanese and
English names) and appointments (an amount charged, a status, payment). Questions as staff type them; the figures
by plain SQL.

- 「渋谷のお客さん何人」: the ward is typed 渋谷区 for some clients and Shibuya for another; both are read and
  counted apart, each said; never the clients of one spelling alone as the answer.
- 「ヘッドスパの値段」, 「カットの値段は？」: the price on the menu; never the appointments of that menu added up.
- "upcoming reservations": a state no parameter filters by is said unapplied, never every appointment.
- 「先月の売上は？」: the money of the visits done; a no-show and a booking still to come brought none in, are left
  out and said so; the count of appointments still counts them all. 「佐藤さんは何回来た？」 counts the visits that
  happened, not the one booked for next week.
- 「カットいくら」: いくら glued to the menu's name is the question's word, never part of a name asked about.
- 「先月のno-showは何件」, "no-show appointments last month": a status spelt with a hyphen (no and show are words of
  questions) or in Latin letters inside Japanese is the status, never dropped for every appointment.
"""

from __future__ import annotations

from datetime import date

import pytest
from drafted import ask, figures, schema_fixture

TODAY = date(2026, 12, 5)
CLIENTS = [(1, "田中 太郎", "渋谷区"), (2, "田中 花子", "新宿区"), (3, "佐藤 美咲", "Shibuya"),
           (4, "鈴木 一郎", "世田谷区"), (5, "Ken Watanabe", "Shinjuku"), (6, "高橋 由美", "渋谷区"),
           (7, "伊藤 健太", "目黒区"), (8, "Yuki Yamamoto", "Setagaya"), (9, "中村 さくら", "新宿区"),
           (10, "小林 翔", "Meguro")]
MENU = [(1, "カット", "cut", 4400), (2, "カラー", "color", 6600), (3, "パーマ", "perm", 8800),
        (4, "トリートメント", "care", 3300), (5, "Head Spa", "care", 3850), (6, "Kids Cut", "cut", 2750),
        (7, "縮毛矯正", "perm", 15400), (8, "Blow Dry", "other", 2200)]
# (id, date, client, stylist, menu, amount, status)
APPOINTMENTS = [(1, "2026-10-03", 1, 1, 1, 4400, "done"), (2, "2026-10-07", 3, 2, 2, 5940, "done"),
                (3, "2026-10-12", 5, 3, 1, 4400, "done"), (4, "2026-11-02", 1, 2, 2, 6600, "done"),
                (5, "2026-11-08", 3, 3, 1, 3960, "done"), (6, "2026-11-10", 8, 3, 5, 3850, "no-show"),
                (7, "2026-11-15", 6, 2, 2, 6600, "done"), (8, "2026-12-03", 1, 4, 5, 3850, "done"),
                (9, "2026-12-08", 2, 1, 2, 6600, "booked"), (10, "2026-12-12", 3, 3, 4, 3300, "booked")]


def _statements() -> list[str]:
    out = [
        "CREATE TABLE clients (client_id INTEGER PRIMARY KEY, name TEXT NOT NULL, area TEXT)",
        "CREATE TABLE stylists (stylist_id INTEGER PRIMARY KEY, name TEXT NOT NULL)",
        "CREATE TABLE menu (menu_id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT, price INTEGER NOT NULL)",
        "CREATE TABLE appointments (appt_id INTEGER PRIMARY KEY, visit_date DATE NOT NULL,"
        " client_id INTEGER NOT NULL REFERENCES clients(client_id),"
        " stylist_id INTEGER NOT NULL REFERENCES stylists(stylist_id),"
        " menu_id INTEGER NOT NULL REFERENCES menu(menu_id), amount INTEGER NOT NULL, status TEXT NOT NULL)",
    ]
    out += [f"INSERT INTO clients VALUES ({i}, '{n}', '{a}')" for i, n, a in CLIENTS]
    out += [f"INSERT INTO stylists VALUES ({i}, '{n}')" for i, n in [(1, "山田 美穂"), (2, "森 亮"), (3, "木村 彩"),
                                                                     (4, "井上 拓也")]]
    out += [f"INSERT INTO menu VALUES ({i}, '{n}', '{c}', {p})" for i, n, c, p in MENU]
    out += [f"INSERT INTO appointments VALUES ({i}, '{d}', {c}, {s}, {m}, {a}, '{st}')"
            for i, d, c, s, m, a, st in APPOINTMENTS]
    return out


salon = schema_fixture("hair_salon", _statements, TODAY)


@pytest.mark.anyio
async def test_a_ward_typed_two_ways_is_counted_both_ways(salon):
    kanji = int(salon.scalar("SELECT COUNT(*) FROM clients WHERE area = '渋谷区'"))
    latin = int(salon.scalar("SELECT COUNT(*) FROM clients WHERE area = 'Shibuya'"))
    turn = await ask(salon.agent, salon.pipeline, "渋谷のお客さん何人")
    assert {kanji, latin} <= figures(turn.answer), turn.answer
    assert "渋谷区" in turn.answer and "Shibuya" in turn.answer, turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize(("said", "item"), [("ヘッドスパの値段", "Head Spa"), ("カットの値段は？", "カット")])
async def test_the_price_of_a_menu_item_is_read_from_the_menu(salon, said, item):
    price = int(salon.scalar(f"SELECT price FROM menu WHERE name = '{item}'"))
    charged = int(salon.scalar(f"SELECT SUM(a.amount) FROM appointments a JOIN menu m ON m.menu_id = a.menu_id"
                               f" WHERE m.name = '{item}'"))
    turn = await ask(salon.agent, salon.pipeline, said)
    assert price in figures(turn.answer), turn.answer
    assert charged not in figures(turn.answer), turn.answer


@pytest.mark.anyio
async def test_upcoming_is_said_unapplied_never_every_appointment(salon):
    turn = await ask(salon.agent, salon.pipeline, "upcoming reservations")
    assert "upcoming" in turn.answer and len(APPOINTMENTS) not in figures(turn.answer), turn.answer
    assert not any(d in turn.answer for _, d, *_ in APPOINTMENTS), turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["先月の売上は？", "Sales last month?"])
async def test_sales_add_up_the_visits_done_and_say_what_was_left_out(salon, said):
    period = "visit_date BETWEEN '2026-11-01' AND '2026-11-30'"
    done = int(salon.scalar(f"SELECT SUM(amount) FROM appointments WHERE {period} AND status = 'done'"))
    every = int(salon.scalar(f"SELECT SUM(amount) FROM appointments WHERE {period}"))
    turn = await ask(salon.agent, salon.pipeline, said)
    assert done in figures(turn.answer) and every not in figures(turn.answer), turn.answer
    assert "no-show" in turn.answer and "booked" in turn.answer, turn.answer


@pytest.mark.anyio
async def test_a_count_of_appointments_still_counts_every_status(salon):
    every = int(salon.scalar("SELECT COUNT(*) FROM appointments"
                             " WHERE visit_date BETWEEN '2026-11-01' AND '2026-11-30'"))
    turn = await ask(salon.agent, salon.pipeline, "先月の予約は何件？")
    assert every in figures(turn.answer), turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["先月のno-showは何件", "no-show appointments last month", "先月のno-showの売上"])
async def test_a_status_spelt_with_a_hyphen_is_read_as_the_status(salon, said):
    period = "visit_date BETWEEN '2026-11-01' AND '2026-11-30'"
    [(count, amount)] = salon.rows(f"SELECT COUNT(*), SUM(amount) FROM appointments WHERE {period}"
                                   " AND status = 'no-show'")
    [(every, every_amount)] = salon.rows(f"SELECT COUNT(*), SUM(amount) FROM appointments WHERE {period}")
    turn = await ask(salon.agent, salon.pipeline, said)
    assert "no-show" in turn.answer, turn.answer
    assert (count if "件" in said else amount) in figures(turn.answer), turn.answer
    assert every not in figures(turn.answer) and every_amount not in figures(turn.answer), turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["佐藤さんは何回来た？", "How many times did Yuki Yamamoto come in?"])
async def test_visits_that_happened_leave_out_bookings_and_no_shows(salon, said):
    client = "佐藤 美咲" if "佐藤" in said else "Yuki Yamamoto"
    came = int(salon.scalar("SELECT COUNT(*) FROM appointments a JOIN clients c ON c.client_id = a.client_id"
                            f" WHERE c.name = '{client}' AND a.status = 'done'"))
    every = int(salon.scalar("SELECT COUNT(*) FROM appointments a JOIN clients c ON c.client_id = a.client_id"
                             f" WHERE c.name = '{client}'"))
    assert came != every
    turn = await ask(salon.agent, salon.pipeline, said)
    assert (came in figures(turn.answer) if came else "no appointments" in turn.answer), turn.answer
    assert every not in figures(turn.answer), turn.answer


@pytest.mark.anyio
async def test_a_price_asked_with_ikura_glued_to_the_name(salon):
    price = int(salon.scalar("SELECT price FROM menu WHERE name = 'パーマ'"))
    turn = await ask(salon.agent, salon.pipeline, "パーマいくら")
    assert price in figures(turn.answer), turn.answer
