"""A cycle shop's customers and their bikes, a schema made here: the customers' own table finds them by part of
their name, and the bikes' table names their owner by a value read from the data (the customer's name, joined).
Questions as staff type them, the figures by plain SQL.

- 「佐藤 花子さんの電話番号は？」, 「高橋 誠の電話番号」, "What is the phone number of customer 佐藤 花子?": a person
  of the data is found in the customers' table, whose rows have the phone asked; never her bikes (a table with no
  phone), nor, for a customer with no bike, 「自転車はありません」.
- 「佐藤 花子さんの自転車は？」: her bikes still.
- "How many cross bikes do we have?": the kind the data writes クロスバイク, read from its English words and said
  so; never every bike.
- "show the bikes waiting for repair": a state no parameter filters by is said unapplied, never every bike counted.
"""

from __future__ import annotations

from datetime import date

import pytest
from drafted import Drafted, ask, schema_fixture

from concierge.language.english import talk_words
from concierge.planner import loose

TODAY = date(2026, 12, 3)
CUSTOMERS = [(1, "佐藤 健", "横浜"), (2, "鈴木 花子", "川崎"), (3, "高橋 誠", "横浜"), (4, "田中 美咲", "東京"),
             (5, "佐藤 花子", "東京"), (6, "鈴木 健", "横浜")]
BIKES = [(1, 1, "Giant", "ロードバイク"), (2, 5, "Trek", "クロスバイク"), (3, 5, "Yamaha", "電動アシスト"),
         (4, 2, "Bridgestone", "ママチャリ"), (5, 6, "Giant", "クロスバイク"), (6, 1, "Trek", "ロードバイク"),
         (7, 4, "Panasonic", "電動アシスト"), (8, 6, "Bridgestone", "ママチャリ"), (9, 2, "Giant", "ロードバイク"),
         (10, 4, "Trek", "クロスバイク"), (11, 1, "Bridgestone", "ママチャリ"), (12, 6, "Giant", "ロードバイク")]
# 高橋 誠 (3) has no bike; 佐藤 花子 (5) has a Trek and a Yamaha


def _statements() -> list[str]:
    out = [
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, phone TEXT, city TEXT)",
        "CREATE TABLE bikes (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),"
        " brand TEXT, kind TEXT)",
    ]
    out += [f"INSERT INTO customers VALUES ({i}, '{n}', '090-{1000 + i * 7}-{2000 + i * 13}', '{c}')"
            for i, n, c in CUSTOMERS]
    out += [f"INSERT INTO bikes VALUES ({i}, {c}, '{b}', '{k}')" for i, c, b, k in BIKES]
    return out


shop = schema_fixture("cycle_customers", _statements, TODAY)


def _phone(shop: Drafted, name: str) -> str:
    return str(shop.scalar(f"SELECT phone FROM customers WHERE name = '{name}'"))


@pytest.mark.anyio
@pytest.mark.parametrize(("said", "name"), [
    ("佐藤 花子さんの電話番号は？", "佐藤 花子"), ("顧客の佐藤 花子さんの電話番号を教えて", "佐藤 花子"),
    ("高橋 誠の電話番号", "高橋 誠"), ("What is the phone number of customer 佐藤 花子?", "佐藤 花子")])
async def test_a_customers_phone_is_read_from_the_customers(shop, said, name):
    turn = await ask(shop.agent, shop.pipeline, said)
    assert _phone(shop, name) in turn.answer, turn.answer
    others = [n for _, n, _ in CUSTOMERS if n != name]
    assert not any(_phone(shop, n) in turn.answer for n in others), turn.answer  # hers alone
    assert "ありません" not in turn.answer and "no " not in turn.answer.lower(), turn.answer


@pytest.mark.anyio
async def test_a_customers_bikes_are_still_her_bikes(shop):
    turn = await ask(shop.agent, shop.pipeline, "佐藤 花子さんの自転車は？")
    assert "Trek" in turn.answer and "Yamaha" in turn.answer and "Giant" not in turn.answer, turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize(("said", "kind"), [("How many cross bikes do we have?", "クロスバイク"),
                                            ("how many road bikes", "ロードバイク")])
async def test_english_words_name_a_kind_the_data_writes_in_katakana(shop, said, kind):
    count = int(shop.scalar(f"SELECT COUNT(*) FROM bikes WHERE kind = '{kind}'"))
    every = int(shop.scalar("SELECT COUNT(*) FROM bikes"))
    turn = await ask(shop.agent, shop.pipeline, said)
    assert kind in turn.answer and str(count) in turn.answer, turn.answer  # said how it was read, and its count
    assert str(every) not in turn.answer, turn.answer  # never every bike


@pytest.mark.anyio
async def test_a_state_said_in_english_that_nothing_filters_gives_no_figure_for_every_bike(shop):
    every = int(shop.scalar("SELECT COUNT(*) FROM bikes"))
    turn = await ask(shop.agent, shop.pipeline, "show the bikes waiting for repair")
    assert "waiting" in turn.answer and str(every) not in turn.answer, turn.answer


@pytest.mark.anyio
async def test_words_of_talking_are_never_read_in_katakana(shop, monkeypatch):
    """hey, actually, swap: words of talking, never a kind of bike the data writes in katakana; only the words
    that may name one are read by the model (each costs it a millisecond the first time)."""
    read: list[str] = []
    real = loose.katakana
    monkeypatch.setattr(loose, "katakana", lambda word: read.append(word) or real(word))
    turn = await ask(shop.agent, shop.pipeline, "hey actually forget that, just tell me how many road bikes pls")
    count = int(shop.scalar("SELECT COUNT(*) FROM bikes WHERE kind = 'ロードバイク'"))
    assert "ロードバイク" in turn.answer and str(count) in turn.answer, turn.answer
    assert read and not set(read) & talk_words(), read
