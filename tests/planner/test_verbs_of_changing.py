"""A verb of changing goes to the catalog's tool that does it, however it is typed: the inn's own settings folder
(tests/planner/inn, no product code knows it) corrects a receipt of its shop when staff say so in kanji, in kana, or
with the keyword cut by the count (入庫数を10本に直して); the generic "nothing can be changed here" is for catalogs
with no such tool."""

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
CASES = [
    ("want", [{"say": "入庫数を直したい", "calls": [], "answer_contains": ["品目", "入庫数"],
               "answer_lacks": ["変更・取り消しできません"]}]),
    ("kana", [{"say": "えっと 入浴剤 入庫数まちがえてた 25個が正しい",
               "calls": [{"tool": "correct_receipt", "args": {"item": "入浴剤", "quantity": 25}}],
               "answer_contains": ["25個"]}]),
    ("cut", [{"say": "地酒の入庫数を10本に直して",
              "calls": [{"tool": "correct_receipt", "args": {"item": "地酒", "quantity": 10}}],
              "answer_contains": ["10本"]}]),
]


@pytest.fixture(scope="module")
def inn(tmp_path_factory):
    folder = tmp_path_factory.mktemp("inn") / "inn"
    shutil.copytree(INN, folder, ignore=shutil.ignore_patterns("*.db", "*.db-*"))
    subprocess.run([sys.executable, "make_db.py"], cwd=folder, check=True, capture_output=True)
    return folder


@pytest.mark.parametrize(("name", "turns"), CASES, ids=[c[0] for c in CASES])
def test_a_correction_said_by_staff_goes_to_the_tool_that_makes_it(inn, name, turns):
    cases = inn / f"{name}.jsonl"
    cases.write_text(json.dumps({"id": name, "domain": "inn", "today": "2026-11-27", "turns": turns}, ensure_ascii=False) + "\n",
                     encoding="utf-8")
    report = anyio.run(lambda: evaluation.run(cases, settings=load_settings(environ={}, cwd=inn)))
    assert all(c.passed for c in report.cases), [c.line() for c in report.cases]
