"""Scoring one turn against its case: the calls requested, the answer's text, and, for a failed turn,
whether it stated a wrong figure (docs/eval-format.md, "Scoring").

Values and answers are compared after Unicode NFKC, without white space, lower-cased; an answer's
commas between digits are dropped (`2,180円` contains `2180`). An expected string that is a number
is found only as a whole number: `12` is not in `120` or `12,000`, but is in `12.00` (`answer_has`).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def norm(value: Any) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", str(value))).lower()


def same_value(expected: Any, got: Any) -> bool:
    if isinstance(expected, int | float) or isinstance(got, int | float):
        try:
            return Decimal(norm(expected)) == Decimal(norm(got))
        except InvalidOperation:
            return False
    return norm(expected) == norm(got)


def call_matches(expected: dict[str, Any], got: dict[str, Any]) -> bool:
    if expected.get("tool") != got.get("tool"):
        return False
    args = {k: v for k, v in (got.get("args") or {}).items() if v is not None}
    want = {k: v for k, v in (expected.get("args") or {}).items() if v is not None}
    may_add = expected.get("may_add") or {}
    for key, value in want.items():
        if key not in args or not same_value(value, args[key]):
            return False
    for key, value in args.items():
        if key in want:
            continue
        if key not in may_add or (may_add[key] != "*" and not same_value(may_add[key], value)):
            return False
    return True


def calls_match(expected: list[dict], got: list[dict], ordered: bool) -> bool:
    if len(expected) != len(got):
        return False
    if ordered:
        return all(call_matches(e, g) for e, g in zip(expected, got, strict=True))
    return _pairing(expected, got, set())


def _pairing(expected: list[dict], got: list[dict], used: set[int]) -> bool:
    if not expected:
        return True
    for i, call in enumerate(got):
        if i not in used and call_matches(expected[0], call) and _pairing(expected[1:], got, used | {i}):
            return True
    return False


def call_differences(expected: list[dict], got: list[dict], ordered: bool) -> list[str]:
    left, extra = list(expected), []
    for call in got:
        match = next((e for e in left if call_matches(e, call)), None)
        if match is None:
            extra.append(call)
        else:
            left.remove(match)
    out = [f"missing call {_show(e)}" for e in left] + [f"unexpected call {_show(c)}" for c in extra]
    return out or (["calls in another order"] if ordered else ["calls differ"])


def _show(call: dict[str, Any]) -> str:
    return f"{call.get('tool')}{json.dumps(call.get('args') or {}, ensure_ascii=False, sort_keys=True)}"


def answer_norm(text: str) -> str:
    return re.sub(r"(?<=\d),(?=\d)", "", norm(text))


def answer_has(answer: str, expected: str) -> bool:
    """Whether `answer` contains `expected` (both normalised). A number is found only as a whole number,
    with or without thousands separators: 2180 is in "2,180円" but not in "12,180"; a decimal may go on
    with zeros (81.2 is in 81.20), an integer with .00; a number with a leading zero is a code, found as is."""
    want = answer_norm(expected)
    if not _NUMBER.fullmatch(want) or re.match(r"-?0\d", want):
        return want in answer_norm(answer)
    whole, _, fraction = want.lstrip("-").partition(".")
    groups = [whole[max(0, i - 3):i] for i in range(len(whole), 0, -3)][::-1]
    body = ("-" if want.startswith("-") else "") + ",?".join(groups) + (rf"\.{fraction}" if fraction else "")
    tail = r"0*(?!\d)" if fraction else r"(?!\d)(?!\.\d*[1-9])(?!,\d{3}(?!\d))"
    text = unicodedata.normalize("NFKC", answer).lower()
    return re.search(rf"(?<![\d.])(?<!\d,){body}{tail}", text) is not None


def score_turn(turn: dict[str, Any], calls: list[dict], answer: str) -> list[str]:
    """What differs from the expectation (empty when the turn passes). A turn without `calls` or
    `calls_any` is scored on its answer alone."""
    differences: list[str] = []
    ordered = bool(turn.get("ordered", False))
    options = turn["calls_any"] if "calls_any" in turn else [turn["calls"]] if "calls" in turn else None
    if options is not None and not any(calls_match(option, calls, ordered) for option in options):
        closest = min(options, key=lambda o: len(call_differences(o, calls, ordered)))
        differences += call_differences(closest, calls, ordered)
    differences += [f"answer lacks {s!r}" for s in turn.get("answer_contains", []) if not answer_has(answer, s)]
    differences += [f"answer contains {s!r}" for s in turn.get("answer_lacks", []) if answer_has(answer, s)]
    return differences


# --- what a failed answer said ---------------------------------------------------------------------
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?"
_NOT_FIGURES = re.compile("|".join([
    r"\br_[0-9a-f]{4,}\b",  # a result id
    r"\d{4}-\d{1,2}(?:-\d{1,2})?(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?",  # 2025-03, 2025-03-04 14:00:00
    r"\d{4}/\d{1,2}(?:/\d{1,2})?", r"(?<!\d)\d{1,2}/\d{1,2}(?!\d)",  # 2025/3/4, 3/4
    r"\d{1,2}:\d{2}(?::\d{2})?",  # a time of day
    r"(?:\d{4}年)?\d{1,2}月(?:\d{1,2}日)?|\d{4}年|\d{1,2}日",  # 2025年3月1日, 3月, 2025年, 15日
    rf"\b{_MONTH}\s+\d{{1,2}}(?:\s*[–-]\s*\d{{1,2}})?(?:,?\s+\d{{4}})?\b", rf"\b{_MONTH}\s+\d{{4}}\b",
    r"^\s*\d{1,2}[.)]\s",  # a numbered list's marker
    r"[A-Za-z_][A-Za-z0-9_-]*\d[A-Za-z0-9_-]*|\d+[A-Za-z_-][A-Za-z0-9_-]*",  # a code: C-0005, S2025..., 3f2a
    r"(?<![\d.,])0\d+",  # a code of digits with a leading zero: 0009
]), re.IGNORECASE | re.MULTILINE)
_FIGURE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


def figures(text: str) -> set[Decimal]:
    """The numbers `text` states as figures: not its dates, times of day, codes, result ids or list markers."""
    plain = _NOT_FIGURES.sub(" ", unicodedata.normalize("NFKC", text))
    return {abs(Decimal(m.replace(",", ""))) for m in _FIGURE.findall(plain)}


def stated_wrong_figure(answer: str, expected: Iterable[str], said: Iterable[str]) -> bool:
    """Whether an answer states a wrong figure: a number (`figures`) that is not one of the `expected`
    strings' numbers and not a number the person said (`said`, the case's messages so far).

    This tells a failed answer that misleads (a total over the wrong rows, a count of everything) from one
    that answered nothing usable (a refusal, a question back, a list without the figure asked for): the first is the
    failure a person would act on.
    """
    allowed = set().union(*(figures(e) for e in expected), *(figures(s) for s in said))
    return bool(figures(answer) - allowed)
