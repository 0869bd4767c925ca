"""Case sets written apart from the planner, as callers, families and front desks speak: the restaurant's callers
(tests/restaurant/callers_cases.jsonl), their edits of an order (edits_cases.jsonl), a red team's edits meant to
make a wrong write (attack_cases.jsonl) and regular callers written later (regulars_cases.jsonl); the home's family
(tests/home/family_cases.jsonl), a household written later against its declared levels and colours
(household_cases.jsonl) and an evening's settings of several devices (evening_cases.jsonl); and two businesses'
own settings folders that no product code knows: a small inn (tests/planner/inn/) and a bakery taking pre-orders
with its own tool names (tests/planner/bakery/). Not every turn passes yet; each set has a floor of turns passed,
so that what one change made right no later change makes wrong."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from concierge import evaluation
from concierge.settings import load_settings

HERE = Path(__file__).parent
FLOORS = {  # turns passed of the set, as measured when it last moved (the note of the change says how many in all)
    HERE.parent / "restaurant" / "callers_cases.jsonl": 106,
    HERE.parent / "restaurant" / "edits_cases.jsonl": 115,
    HERE.parent / "restaurant" / "attack_cases.jsonl": 176,  # a red team's edits meant to trip it
    HERE.parent / "home" / "family_cases.jsonl": 112,
    HERE.parent / "home" / "household_cases.jsonl": 77,
    HERE.parent / "restaurant" / "regulars_cases.jsonl": 97,  # regular callers, written apart later
    HERE.parent / "home" / "evening_cases.jsonl": 67,  # settings said to several devices in one breath
}
FOLDER_FLOORS = {"inn": 70, "bakery": 89}


@pytest.mark.parametrize("cases", list(FLOORS), ids=lambda p: p.name)
def test_a_held_out_set_keeps_the_turns_it_passes(cases):
    report = anyio.run(evaluation.run, cases)
    passed = sum(t.passed for c in report.cases for t in c.turns)
    assert passed >= FLOORS[cases], [c.line() for c in report.cases if not c.passed]


@pytest.mark.parametrize("business", list(FOLDER_FLOORS))
def test_a_business_that_no_code_knows_is_served_through_its_own_catalog(business, tmp_path):
    folder = tmp_path / business
    shutil.copytree(HERE / business, folder, ignore=shutil.ignore_patterns("*.db", "*.db-*"))
    subprocess.run([sys.executable, "make_db.py"], cwd=folder, check=True, capture_output=True)
    settings = load_settings(environ={}, cwd=folder)
    report = anyio.run(lambda: evaluation.run(folder / "cases.jsonl", settings=settings))
    passed = sum(t.passed for c in report.cases for t in c.turns)
    assert passed >= FOLDER_FLOORS[business], [c.line() for c in report.cases if not c.passed]
