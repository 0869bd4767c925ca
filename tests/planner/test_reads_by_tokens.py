"""The planner reads a request word by word: its rules are token patterns over the `Utterance` that
`language.tokens.tokenise` gives (language/patterns.py), with their words in data files. A character regex is
left only where it reads something other than a request (a catalog's text, an answer, a template), where the
analyser cannot serve (dates and times: docs/planner.md), where it tells scripts apart inside a word, or where it
only finds where a word may be and the tokens decide. No rule reads the request by its characters alone.

This ledger counts the regex calls left in each module and why. It only goes down: a module that reads more
by characters than its entry allows fails here, and so does one that reads less (lower its entry, so that the
next change cannot take the room back). Every module with a regex call needs an entry."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "concierge"
CALLS = frozenset({"compile", "search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split"})
FACTORIES = frozenset({"alternation"})  # a word list as a regex (words.WordList finds its words in the tokens)

CATALOG = "reads a catalog's text (descriptions, declared patterns, tool names, SQL), not a request"
ANSWER = "reads an answer, a template or a result, not a request"
DATES = "dates and times of day, kept by decision (docs/planner.md, 'Dates')"
TOKENISER = "the token layer itself: cuts Latin text into words, tells scripts apart"
VALUES = "finds catalog values by characters inside words, for typos and clipped names (からべん)"
WORD_LISTS = ("finds where a listed word may be by its characters, then keeps it only where a word of the request "
              "begins (words.WordList): the tokens decide")
KEYWORDS = ("finds a catalog's keywords as its author wrote them: stems and parts of compounds (the 取りに行 of "
            "取りに行きたい, the 色 of 水色), which whole words would miss")
SCRIPT = "tells the script of a character inside a word (\\p{Han}, \\p{Katakana}), not where words are"
SPELLING = "folds one word's romaji spellings (toukyou, Tookyoo, Tokyo) to how it sounds, not where words are"
OWN = "reads a value the planner wrote itself (a command's goods, かぼちゃ4個; a call's arguments), not the request"
MISCUT = ("finds where a listed word may be by its characters inside kana the analyser cuts as no word "
          "(と|めちゃ|って), then keeps it only where the tokens read the text without it as a verb: the tokens decide")

LEDGER: dict[str, dict[str, int]] = {  # module: {why: how many}
    "language/dates.py": {DATES: 17},
    "language/detect.py": {TOKENISER: 2},
    "language/katakana.py": {TOKENISER: 1},
    "language/other_forms.py": {CATALOG: 3},
    "language/readings.py": {CATALOG: 4, SPELLING: 1},
    "language/replies.py": {ANSWER: 1},
    "language/times.py": {DATES: 5},
    "language/tokens.py": {TOKENISER: 3},
    "planner/answer/problems.py": {ANSWER: 1},
    "planner/answer/results.py": {ANSWER: 2},
    "planner/answer/scene.py": {ANSWER: 2},
    "planner/answer/template.py": {ANSWER: 1},
    "planner/answer/values.py": {ANSWER: 1},
    "planner/focus.py": {OWN: 1},
    "planner/fuzzy.py": {VALUES: 5, SCRIPT: 1},
    "planner/negated.py": {SCRIPT: 1},
    "planner/nouns.py": {CATALOG: 5},
    "planner/statuses.py": {CATALOG: 1},
    "planner/plan.py": {OWN: 2},
    "planner/ranking.py": {CATALOG: 1, SCRIPT: 1},
    "planner/leftover.py": {SCRIPT: 1},
    "planner/text.py": {KEYWORDS: 3},
    "planner/words/__init__.py": {WORD_LISTS: 3},
    "language/plain.py": {SCRIPT: 1, MISCUT: 1},
    "planner/lexicon.py": {CATALOG: 11, SCRIPT: 2},
    "planner/loose.py": {SCRIPT: 6},
    "planner/slots.py": {SCRIPT: 4, CATALOG: 2},
}


def regex_calls(path: Path) -> int:
    """Calls of `re.<x>(...)` or `regex.<x>(...)` in a module, and of a word list's regex (`words.alternation`)."""
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
    found, allowed = COUNTED.get(module, 0), sum(LEDGER.get(module, {}).values())
    assert found <= allowed, (
        f"{module} has {found} regex calls, its ledger allows {allowed}: read the request with token patterns "
        f"(language/patterns.py, words in planner/words/questions.toml); a regex may read only what is not a "
        f"request, and then its entry here says so")
    assert found == allowed, f"{module} reads by characters less than before: lower its entry to {found}"
