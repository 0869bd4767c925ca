"""`concierge eval` over the home cases: each case on the SwitchBot SIMULATOR as it starts (the demo's backend)."""

from __future__ import annotations

from pathlib import Path

import anyio
from cli_runner import run_cli

from concierge import evaluation

CASES = Path(__file__).with_name("home_cases.jsonl")


def test_the_offline_planner_passes_every_home_case():
    report = anyio.run(evaluation.run, CASES)
    assert len(report.cases) >= 20
    assert [c.line() for c in report.cases if not c.passed] == [] and report.ungrounded == 0


def test_the_command_runs_the_home_cases_on_the_simulator(tmp_path):
    one = tmp_path / "one.jsonl"
    one.write_text(CASES.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    result = run_cli("eval", str(one))
    assert result.exit_code == 0 and "1 passed, 0 failed" in result.output
