"""The planner reads a request word by word: its rules are token patterns over the `Utterance` that
`language.tokens.tokenise` gives (language/patterns.py), with their words in data files. A character regex is
left only where it reads something other than a request (a catalog's text, an answer, a template), where the
analyser cannot serve (dates and times: docs/planner.md), or where a rule has not been rewritten yet.

This ledger counts the regex calls left in each module and why. It only goes down: a module that reads more
by characters than its entry allows fails here, and so does one that reads less (lower its entry, so that the
next change cannot take the room back). Every module with a regex call needs an entry."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "concierge"
CALLS = frozenset({"compile", "search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split"})
FACTORIES = frozenset({"said_pattern", "said_alternation", "alternation", "joiners"})  # regexes of word lists

CATALOG = "reads a catalog's text (descriptions, declared patterns, tool names, SQL), not a request"
ANSWER = "reads an answer, a template or a result, not a request"
DATES = "dates and times of day, kept by decision (docs/planner.md, 'Dates')"
TOKENISER = "the token layer itself: cuts Latin text into words, tells scripts apart"
VALUES = "finds catalog values by characters inside words, for typos and clipped names (からべん)"
KEYWORDS = ("finds a catalog's keywords as its author wrote them: stems and parts of compounds (the 取りに行 of "
            "取りに行きたい, the 色 of 水色), which whole words would miss")
TO_DO = "reads the request by characters: still to rewrite as token patterns"

LEDGER: dict[str, tuple[int, str]] = {
    "language/dates.py": (17, DATES),
    "language/detect.py": (2, TOKENISER),
    "language/katakana.py": (1, TOKENISER),
    "language/other_forms.py": (3, CATALOG),
    "language/readings.py": (4, CATALOG),
    "language/replies.py": (1, ANSWER),
    "language/times.py": (5, DATES),
    "language/tokens.py": (2, TOKENISER),
    "planner/answer/problems.py": (2, ANSWER),
    "planner/answer/results.py": (2, ANSWER),
    "planner/answer/scene.py": (2, ANSWER),
    "planner/answer/template.py": (1, ANSWER),
    "planner/answer/values.py": (1, ANSWER),
    "planner/fuzzy.py": (5, VALUES),
    "planner/text.py": (3, KEYWORDS),
    "language/numerals.py": (4, TO_DO),
    "language/plain.py": (2, TO_DO),
    "planner/lexicon.py": (18, TO_DO),
    "planner/loose.py": (8, TO_DO),
    "planner/plan.py": (8, TO_DO),
    "planner/lines.py": (7, TO_DO),
    "planner/slots.py": (7, TO_DO),
    "planner/words/__init__.py": (6, TO_DO),
    "planner/choose.py": (5, TO_DO),
    "planner/conditions.py": (4, TO_DO),
    "planner/nouns.py": (4, TO_DO),
    "planner/frame.py": (3, TO_DO),
    "planner/scope.py": (3, TO_DO),
    "planner/segments.py": (3, TO_DO),
    "planner/writes.py": (3, TO_DO),
    "planner/kept.py": (2, TO_DO),
    "planner/leftover.py": (2, TO_DO),
    "planner/ranking.py": (2, TO_DO),
    "planner/verbs.py": (2, TO_DO),
    "planner/__init__.py": (1, TO_DO),
    "planner/date_pairs.py": (1, TO_DO),
    "planner/focus.py": (1, TO_DO),
    "planner/levels.py": (1, TO_DO),
    "planner/measure.py": (1, TO_DO),
    "planner/negated.py": (1, TO_DO),
    "planner/not_meant.py": (1, TO_DO),
    "planner/sold.py": (1, TO_DO),
}


def regex_calls(path: Path) -> int:
    """Calls of `re.<x>(...)` or `regex.<x>(...)` in a module, and of the word lists' regexes (`words.pattern`)."""
    return sum(1 for node in ast.walk(ast.parse(path.read_text("utf-8"))) if isinstance(node, ast.Call)
               and (_regex_call(node.func) or _factory_call(node.func)))


def _regex_call(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and func.value.id in ("re", "regex") and func.attr in CALLS)


def _factory_call(func: ast.expr) -> bool:
    return ((isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "words"
             and func.attr in FACTORIES) or (isinstance(func, ast.Name) and func.id in FACTORIES))


def _counted() -> dict[str, int]:
    found = {}
    for folder in ("planner", "language"):
        for path in sorted((SRC / folder).rglob("*.py")):
            n = regex_calls(path)
            if n:
                found[path.relative_to(SRC).as_posix()] = n
    return found


COUNTED = _counted()


@pytest.mark.parametrize("module", sorted(set(COUNTED) | set(LEDGER)))
def test_a_module_reads_by_characters_no_more_than_its_ledger_says(module):
    found = COUNTED.get(module, 0)
    allowed, why = LEDGER.get(module, (0, ""))
    assert found <= allowed, (
        f"{module} has {found} regex calls, its ledger allows {allowed}: read the request with token patterns "
        f"(language/patterns.py, words in planner/words/questions.toml); a regex may read only what is not a "
        f"request, and then its entry here says so")
    assert found == allowed, f"{module} reads by characters less than before: lower its entry to {found} ({why})"

