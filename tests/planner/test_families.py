"""The request families of issue 12, replayed end to end, and answers free of tool internals.

`families.jsonl` holds cases in the eval format (docs/eval-format.md), ids `fam-<family>-NN`:
words the data does not have or has in another form (drop), values stated by the user (values),
least/worst/dropped/grew (direction), requests no tool can serve (scope), follow-ups (followup),
spans and parts of periods (dates) and answers in sentences (sentences). Their figures were
computed from the demo data. Every answer of every case file, the published dev cases too,
must read as a sentence for people: no tool name, no result id, no raw parameter or column name.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import anyio
import pytest

from concierge import evaluation
from concierge.catalog.loader import load_catalog

HERE = Path(__file__).resolve().parent
FAMILIES = HERE / "families.jsonl"
# Sets written apart from the first, in staff's own styles: mixed, then farm and store staff.
STAFF = [HERE / "staff_cases.jsonl", HERE / "farm_more.jsonl", HERE / "pos_more.jsonl"]
CASE_FILES = [HERE / "dev_cases.jsonl", HERE / "cases.jsonl", FAMILIES, *STAFF]
DEMOS = ("farm", "pos")
RESULT_ID = "[r_"
_ALIAS = re.compile(r"\bAS\s+([A-Za-z_][A-Za-z0-9_]*)", re.IGNORECASE)


@pytest.fixture(scope="module")
def reports() -> dict[str, evaluation.Report]:
    """Each case file replayed once by the offline planner, by file name."""
    return {path.name: anyio.run(evaluation.run, path) for path in CASE_FILES}


def family(case_id: str) -> str:
    """`fam-drop-03` -> `drop`."""
    return case_id.split("-")[1]


def internal_words() -> set[str]:
    """What a person should never read in an answer: the demo catalogs' tool names, and their
    parameter and result column names that are identifiers (with `_`: `code_customer`, `cur_amount`).

    Plain words such as `price` or `date` are left out: an English sentence may use them.
    """
    words: set[str] = set()
    for demo in DEMOS:
        for name, tool in load_catalog(demo).tools.items():
            columns = _ALIAS.findall(tool.sql + (tool.preview_sql or ""))
            words |= {name} | {w for w in [*tool.params, *columns] if "_" in w.strip("_")}
    return words


def test_the_case_file_covers_every_family():
    cases = evaluation.load_cases(FAMILIES)
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids)) >= 70
    assert all(re.fullmatch(r"fam-[a-z]+-\d{2}", i) for i in ids)
    counts = Counter(family(i) for i in ids)
    assert set(counts) == {"drop", "values", "direction", "scope", "followup", "dates", "sentences"}
    assert min(counts.values()) >= 6


def test_the_offline_planner_passes_every_family_case(reports):
    report = reports[FAMILIES.name]
    failed = [c for c in report.cases if not c.passed]
    if failed:
        by_family = Counter(family(c.id) for c in failed)
        summary = ", ".join(f"{name} {count}" for name, count in sorted(by_family.items()))
        pytest.fail(f"{len(failed)} of {len(report.cases)} cases fail ({summary}):\n"
                    + "\n".join(c.line() for c in failed), pytrace=False)
    assert report.ungrounded == 0


@pytest.mark.parametrize("file", [path.name for path in STAFF])
def test_the_offline_planner_passes_the_staff_cases(reports, file):
    report = reports[file]
    failed = [c.line() for c in report.cases if not c.passed]
    assert failed == [] and len(report.cases) >= 40 and report.ungrounded == 0


def test_no_answer_shows_a_tool_name_a_result_id_or_a_raw_name(reports):
    words = internal_words()
    assert {"get_sales", "sales_ranking", "code_customer", "cur_start", "name_customer"} <= words
    shown = []
    for file, report in reports.items():
        for case in report.cases:
            for number, turn in enumerate(case.turns, 1):
                answer = turn.answer.lower()
                found = sorted(w for w in words if re.search(rf"(?<![a-z0-9_]){w}(?![a-z0-9_])", answer))
                found += [RESULT_ID] if RESULT_ID in answer else []
                if found:
                    shown.append(f"{file} {case.id} turn {number}: {', '.join(found)}")
    if shown:
        pytest.fail(f"{len(shown)} answers show tool internals:\n" + "\n".join(shown), pytrace=False)
