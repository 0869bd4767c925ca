"""Kinds of request the bakery's held-out cases showed (tests/planner/bakery), asked here in other words and of
other goods and days: what the customer gets is the call made (or none) and the answer.

- an item put in without what the write's check refuses it without (a whole cake with no size) is asked about,
  naming the sizes, and nothing is sent; the next turn's size puts it in;
- a price asked with the words of the order's total (いくらになります) said of an item and its size is the item's
  price, and a follow-up naming another size keeps the item;
- a kind said in place of an item (サンドイッチ2つ, a cake, two sandwiches) asks which, naming the goods of the kind;
- a weekday named alone to the hours (土曜は何時まで) is the coming one;
- after a pickup day was refused, another day said alone (じゃあ木曜で, 水曜の同じ時間で) asks for it again, the
  time kept.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from concierge import evaluation
from concierge.settings import load_settings

BAKERY = Path(__file__).parent / "bakery"


@pytest.fixture(scope="module")
def bakery(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kinds") / "bakery"
    shutil.copytree(BAKERY, folder, ignore=shutil.ignore_patterns("*.db", "*.db-*", "cases.jsonl"))
    subprocess.run([sys.executable, "make_db.py"], cwd=folder, check=True, capture_output=True)
    return folder


def _talk(folder: Path, *said: str) -> list:
    """The turns of one conversation with the bakery (today 2026-12-18, a Friday, 10:00): each one's calls and
    answer."""
    case = {"id": "kinds", "domain": "bakery", "today": "2026-12-18",
            "turns": [{"say": s, "calls": []} for s in said]}
    path = folder / f"talk-{abs(hash(said))}.jsonl"
    path.write_text(json.dumps(case, ensure_ascii=False) + "\n", encoding="utf-8")
    settings = load_settings(environ={}, cwd=folder)
    report = anyio.run(lambda: evaluation.run(path, settings=settings))
    return report.cases[0].turns


def test_a_price_asked_with_the_words_of_the_total_is_the_items_price_and_another_size_keeps_the_item(bakery):
    asked, other = _talk(bakery, "ガトーショコラって 5号だといくらになります？", "6号は？")
    assert asked.calls == [{"tool": "find_bread", "args": {"product": "ガトーショコラ", "size": "5号"}}]
    assert "3,400" in asked.answer
    assert other.calls == [{"tool": "find_bread", "args": {"product": "ガトーショコラ", "size": "6号"}}]
    assert "4,200" in other.answer


@pytest.mark.parametrize(("said", "named"), [
    ("サンドイッチ2つください", ["たまごサンド", "ハムチーズサンド", "カツサンド", "フルーツサンド"]),
    ("ケーキをひとつお願いします", ["いちごショート", "チーズケーキ"]),
    ("I'd like two sandwiches", ["たまごサンド", "ハムチーズサンド", "カツサンド", "フルーツサンド"]),
])
def test_a_kind_said_in_place_of_an_item_asks_which_naming_the_goods_of_the_kind(bakery, said, named):
    turn, = _talk(bakery, said)
    assert turn.calls == []
    assert all(n in turn.answer for n in named), turn.answer


def test_the_item_chosen_from_those_named_is_put_in_with_the_count_said_first(bakery):
    asked, chosen = _talk(bakery, "サンドイッチ2つください", "カツサンドで")
    assert asked.calls == [] and "カツサンド" in asked.answer
    assert chosen.calls == [{"tool": "put_in_basket", "args": {"product": "カツサンド", "qty": 2}}]
    assert "1,120" in chosen.answer


@pytest.mark.parametrize(("said", "day", "told"), [
    ("土曜は何時までやってますか", "2026-12-19", "18:00"),
    ("月曜日ってお休みでしたっけ", "2026-12-21", "08:00"),
    ("火曜は開いてますか", "2026-12-22", "定休日"),
])
def test_a_weekday_named_alone_to_the_hours_is_the_coming_one(bakery, said, day, told):
    turn, = _talk(bakery, said)
    assert turn.calls == [{"tool": "shop_hours", "args": {"day": day}}]
    assert told in turn.answer


@pytest.mark.parametrize(("again", "day"), [("じゃあ木曜で", "2026-12-24"), ("じゃあ水曜の同じ時間で", "2026-12-23")])
def test_another_day_said_after_a_closed_day_was_refused_asks_for_that_day_at_the_same_time(bakery, again, day):
    *_, refused, retried = _talk(bakery, "クロワッサン2つください", "火曜の11時に取りに行きます", again)
    assert refused.calls == [{"tool": "pickup_at", "args": {"day": "2026-12-22", "at": "11:00"}}]
    assert retried.calls == [{"tool": "pickup_at", "args": {"day": day, "at": "11:00"}}]
    assert "11:00" in retried.answer


def test_an_item_its_write_refuses_without_a_choice_is_asked_about_naming_the_choices(bakery):
    asked, chosen = _talk(bakery, "いちごのデコレーションケーキをひとつお願いします", "6号で")
    assert asked.calls == []
    assert all(size in asked.answer for size in ("4号", "5号", "6号")), asked.answer
    assert chosen.calls == [{"tool": "put_in_basket",
                             "args": {"product": "いちごのデコレーションケーキ", "qty": 1, "style": "6号"}}]
    assert "4,500" in chosen.answer


def test_a_choice_asked_about_in_english_and_one_the_write_takes_without_it(bakery):
    cake, = _talk(bakery, "I'd like a chocolate cake")
    assert cake.calls == [] and "5号" in cake.answer
    loaf, = _talk(bakery, "角食パンを1斤ください")
    assert loaf.calls == [{"tool": "put_in_basket", "args": {"product": "角食パン", "qty": 1}}]
