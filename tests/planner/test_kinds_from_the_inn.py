"""Kinds of request the inn's front desk (tests/planner/inn/, a business no product code knows) was answered
wrongly, said here in other words than its held-out cases, on its own folder and catalog:

- a change named by a guest who has several bookings asks which; the key of one of them, said next, makes the
  change asked for, never a lookup of the booking (田中一郎さんの予約 人数を1名に -> R-5021のほうで);
- a count corrected, said in place of one said in the negative, is the one written, with its unit or without
  (24本じゃなくて12本, should be 12 not 24); the one said in the negative alone is asked for;
- a value of the data written in digits, said after the noun that names it (room 302), is that value: never a
  number no parameter takes, answered with nothing;
- a guest's family name with 様 (伊藤様の予約) is the name looked up, never a room asked for; said in English as
  whose at the start of the request (Watanabe's bookings), it is the name too, never every booking listed.
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

INN = Path(__file__).parent / "inn"
TODAY = "2026-11-27"


@pytest.fixture(scope="module")
def inn(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("inn") / "inn"
    shutil.copytree(INN, folder, ignore=shutil.ignore_patterns("*.db", "*.db-*", "cases.jsonl"))
    subprocess.run([sys.executable, "make_db.py"], cwd=folder, check=True, capture_output=True)
    return folder


def _failures(folder: Path, *cases: dict) -> list[str]:
    """What went wrong in each conversation said to the inn: its lines, none where every turn passed."""
    path = folder / "cases.jsonl"
    lines = [{"id": f"c{i}", "domain": "inn", "today": TODAY, **case} for i, case in enumerate(cases)]
    path.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in lines), encoding="utf-8")
    settings = load_settings(environ={}, cwd=folder)
    report = anyio.run(lambda: evaluation.run(path, settings=settings))
    return [c.line() for c in report.cases if not c.passed]


def _turn(say: str, calls: list[dict], contains: list[str] = (), lacks: list[str] = ()) -> dict:
    return {"say": say, "calls": calls, "answer_contains": list(contains), "answer_lacks": list(lacks)}


def test_the_booking_picked_after_a_name_of_several_gets_the_change_asked(inn):
    lookup = {"tool": "reservations", "args": {"guest": "田中一郎"}}
    asked_ja = _turn("田中一郎様の予約、人数を2名に変えて", [lookup], ["R-5009", "R-5021"], ["変更しました"])
    asked_en = _turn("change Ichiro Tanaka's booking to 2 people", [{**lookup, "args": {"guest": "Ichiro Tanaka"}}],
                     ["R-5009", "R-5021"], ["is now for"])
    change = {"tool": "change_people", "args": {"reservation": "R-5009", "people": 2}}
    assert _failures(
        inn,
        {"turns": [asked_ja, _turn("R-5009です", [change], ["R-5009", "2名に変更しました"])]},
        {"turns": [asked_en, _turn("booking R-5009", [change], ["R-5009 is now for 2 people"])]},
        {"turns": [asked_ja, _turn("R-5021の予約を見せて", [{"tool": "reservations", "args": {"res_no": "R-5021"}}],
                                   ["R-5021", "2名"], ["変更しました"])]},
    ) == []


def test_a_count_said_in_place_of_another_is_the_one_written(inn):
    def receipt(item: str, quantity: int) -> dict:
        return {"tool": "correct_receipt", "args": {"item": item, "received_on": "2026-11-26", "quantity": quantity}}

    assert _failures(
        inn,
        {"turns": [_turn("昨日入った温泉まんじゅう、20箱じゃなくて18箱", [receipt("温泉まんじゅう", 18)],
                         ["18箱に直しました", "38箱"])]},
        {"turns": [_turn("the green tea from yesterday should be 30 not 24", [receipt("緑茶", 30)],
                         ["is now 30", "42 in stock"])]},
        {"turns": [_turn("入浴剤の入庫 30じゃなくて", [], ["入庫数を教えてください"], ["直しました"])]},
    ) == []


def test_a_value_written_in_digits_said_after_its_noun_is_that_value(inn):
    def room(tool: str, number: str) -> dict:
        return {"tool": tool, "args": {"room": number}}

    assert _failures(
        inn,
        {"turns": [_turn("how much is room 302 a night", [room("rooms", "302")], ["38,000"])]},
        {"turns": [_turn("bookings in room 203", [room("reservations", "203")], ["R-5005", "R-5015", "R-5021"])]},
        {"turns": [{**_turn("who is staying in room 201 tonight", [room("in_house", "201")], ["Makoto Ito", "R-5006"]),
                    "calls": [{**room("in_house", "201"), "may_add": {"night": TODAY}}]}]},
    ) == []


def test_a_family_name_said_with_an_honorific_or_as_whose_is_the_guest_looked_up(inn):
    def guest(name: str) -> dict:
        return {"tool": "reservations", "args": {"guest": name}}

    assert _failures(
        inn,
        {"turns": [_turn("伊藤様の予約を見せて", [guest("伊藤")], ["R-5006", "R-5020"], ["部屋"])]},
        {"turns": [_turn("高橋様の予約", [guest("高橋")], ["R-5017"])]},
        {"turns": [_turn("Watanabe's bookings", [guest("Watanabe")], ["R-5012", "R-5026"], ["R-5004"])]},
        {"turns": [_turn("Kobayashi's booking, cancel it", [guest("Kobayashi")], ["R-5004", "which one"],
                         ["is cancelled"])]},
    ) == []
