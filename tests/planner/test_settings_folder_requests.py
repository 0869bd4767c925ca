"""Kinds of request on two businesses' own settings folders that no product code knows (tests/planner/inn and
tests/planner/bakery), each said as staff or a caller says it:

- a verb of changing goes to the catalog's tool that does it, however it is typed: in kanji, in kana
  (まちがえてた), or with the keyword cut by the count (入庫数を10本に直して); the generic "nothing can be changed
  here" is for catalogs with no such tool;
- a word naming several of many items (食パン of 角食パン, 山型食パン) is asked about with those items;
- goods and the day and time they are picked up, said in one breath with no comma, are both taken; a bare hour
  on a later day is a shop's hour (明日8時半: 08:30, tomorrow at 6: 18:00), and a product said where no call takes
  it is named, with nothing written.
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

HERE = Path(__file__).parent
CASES = [
    ("inn", "want", "2026-11-27", [{"say": "入庫数を直したい", "calls": [], "answer_contains": ["品目", "入庫数"],
                                     "answer_lacks": ["変更・取り消しできません"]}]),
    ("inn", "kana", "2026-11-27", [{"say": "えっと 入浴剤 入庫数まちがえてた 25個が正しい",
                                     "calls": [{"tool": "correct_receipt", "args": {"item": "入浴剤", "quantity": 25}}],
                                     "answer_contains": ["25個"]}]),
    ("inn", "code-then-noun", "2026-11-27", [{"say": "R-5023 人数ふたりに変更", "calls": [
        {"tool": "change_people", "args": {"reservation": "R-5023", "people": 2}}], "answer_contains": ["2名"]}]),
    ("inn", "cut", "2026-11-27", [{"say": "地酒の入庫数を10本に直して",
                                    "calls": [{"tool": "correct_receipt", "args": {"item": "地酒", "quantity": 10}}],
                                    "answer_contains": ["10本"]}]),
    ("bakery", "loaf", "2026-12-17", [{"say": "食パン1斤ください", "calls": [],
                                       "answer_contains": ["角食パン", "山型食パン"], "answer_lacks": ["メロンパン"]}]),
    ("bakery", "breath", "2026-12-18", [{"say": "クロワッサン4つ 明日8時半に取りに行きます", "calls": [
        {"tool": "put_in_basket", "args": {"product": "クロワッサン", "qty": 4}},
        {"tool": "pickup_at", "args": {"day": "2026-12-19", "at": "08:30"}}], "answer_contains": ["08:30"]}]),
    ("bakery", "six", "2026-12-18", [
        {"say": "クロワッサン2つ", "calls": [{"tool": "put_in_basket", "args": {"product": "クロワッサン", "qty": 2}}]},
        {"say": "tomorrow at 6", "calls": [{"tool": "pickup_at", "args": {"day": "2026-12-19", "at": "18:00"}}]}]),
    ("bakery", "unplaced", "2026-12-18", [{"say": "明日8時半に取りに行きます メロンパンも", "calls": [],
                                           "answer_contains": ["メロンパン"], "answer_lacks": ["08:30"]}]),
    ("bakery", "asked", "2026-12-18", [  # the day said with the pickup that was asked about holds for its time
        {"say": "明日の朝取りに行きたいんですけど クロワッサン4つ お願いできますか",
         "calls": [{"tool": "put_in_basket", "args": {"product": "クロワッサン", "qty": 4}}]},
        {"say": "えっと 8時半くらいで",
         "calls": [{"tool": "pickup_at", "args": {"day": "2026-12-19", "at": "08:30"}}]}]),
]


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    made = {}
    for business in ("inn", "bakery"):
        folder = tmp_path_factory.mktemp(business) / business
        shutil.copytree(HERE / business, folder, ignore=shutil.ignore_patterns("*.db", "*.db-*"))
        subprocess.run([sys.executable, "make_db.py"], cwd=folder, check=True, capture_output=True)
        made[business] = folder
    return made


@pytest.mark.parametrize(("business", "name", "today", "turns"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_a_request_is_understood_on_a_catalog_no_code_knows(folders, business, name, today, turns):
    folder = folders[business]
    cases = folder / f"{name}.jsonl"
    case = {"id": name, "domain": business, "today": today, "turns": turns}
    cases.write_text(json.dumps(case, ensure_ascii=False) + "\n", encoding="utf-8")
    report = anyio.run(lambda: evaluation.run(cases, settings=load_settings(environ={}, cwd=folder)))
    assert all(c.passed for c in report.cases), [c.line() for c in report.cases]
