"""`concierge eval` over the restaurant cases: whole phone orders in Japanese and English, and each rule."""

from __future__ import annotations

from pathlib import Path

import anyio

from concierge import evaluation

CASES = Path(__file__).with_name("restaurant_cases.jsonl")


def test_the_offline_planner_passes_every_restaurant_case():
    report = anyio.run(evaluation.run, CASES)
    assert len(report.cases) >= 20
    assert [c.line() for c in report.cases if not c.passed] == [] and report.ungrounded == 0
