"""Conditional requests: "if this month's count is still 0, register ..." (今月の販売件数がまだ0件の場合、…).

`parse` reads the comparison in the condition clause: a count of rows (N件, N sales, no
sales, ない) or an amount (N円, N yen), with its operator (以下, 未満, 以上, より多い,
fewer than, at least ...). `holds` decides it on the result of the check call, from
what the tool computed (`totals.count`, or the first summed column), never by
recounting rows.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from concierge.language.tokens import Utterance, tokenise
from concierge.planner import words
from concierge.sources.result import Rows, ToolResult

OPS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}
SYMBOL = {"==": "=", "<": "<", "<=": "≤", ">": ">", ">=": "≥"}

_NUMBER = r"(?<![\d,.])(\d[\d,]*)"


def _alternatives(words: tuple[str, ...]) -> str:
    """Words as one alternation, the longest first; a word in Latin letters only whole."""
    return "|".join(rf"{re.escape(w)}(?![a-z])" if w.isascii() else re.escape(w)
                    for w in sorted(words, key=len, reverse=True))


# Japanese markers end a condition clause: …の場合、 …なら、 …なければ、
JA_MARKER = re.compile(rf"(?:{_alternatives(words.said('if', 'ja'))})(?:{_alternatives(words.said('if', 'after'))})?"
                       r"\s*[、,]?\s*")
EN_PREFIX = re.compile(rf"^\s*(?:(?:{_alternatives(words.said('if', 'en_lead'))})\s+)?"
                       rf"(?:{_alternatives(words.said('if', 'en'))})\s+", re.IGNORECASE)
EN_INFIX = re.compile(rf"\s+(?:(?:{_alternatives(words.said('if', 'en_infix_lead'))})\s+){{0,2}}"
                      rf"(?:{_alternatives(words.said('if', 'en_infix'))})\s+", re.IGNORECASE)
_FIGURES = {measure: re.compile(rf"{_NUMBER}\s*(?:{_alternatives(words.said('compare', f'{measure}_units'))})",
                                re.IGNORECASE) for measure in ("amount", "count")}


@dataclass(frozen=True)
class Condition:
    measure: Literal["count", "amount"]
    op: str
    value: int
    text: str  # the clause as said

    def describe(self, actual: Any) -> str:
        return f"{actual} {SYMBOL[self.op]} {self.value}"


def parse(clause: str) -> Condition | None:
    """The comparison a condition clause states, or None when it states none."""
    text = clause.strip()
    measures: tuple[Literal["count", "amount"], ...] = ("amount", "count")
    for measure in measures:
        found = _compare(text, _FIGURES[measure])
        if found:
            op, value = found
            return Condition(measure, op, value, text)
    if _says(text, "none"):
        return Condition("count", "==", 0, text)
    if _says(text, "some"):
        return Condition("count", ">=", 1, text)
    return None


def _says(text: str, key: str) -> bool:
    """Whether the clause says there are none (ない, no sales) or some (あれば): `[compare] none` or `some`."""
    said = tokenise(text)
    return any(p.search(said) for p in words.token_patterns("compare", key))


def _compare(text: str, figure: re.Pattern[str]) -> tuple[str, int] | None:
    """The operator said around the first figure (fewer than 5 sales, 30件以上) and its value."""
    m = figure.search(text)
    if m is None:
        return None
    said = tokenise(text)
    before, after = said.starting(0, m.start()), said.starting(m.end(), len(text))
    return _operator(said, before.stop, after.start) or "==", int(m.group(1).replace(",", ""))


def _operator(said: Utterance, before: int, after: int) -> str | None:
    """The operator of the words that end at token `before` (at least) or begin at token `after` (以上)."""
    for pattern, op in words.phrases("compare", "before"):
        first = before - len(pattern.slots)
        found = pattern.at(said, first) if first >= 0 else None
        if found is not None and found.last == before:
            return op
    return next((op for pattern, op in words.phrases("compare", "after") if pattern.at(said, after)), None)


def measured(condition: Condition, result: ToolResult) -> Any:
    """The figure the condition is about, as the tool computed it (None if it computed none)."""
    totals = result.totals if isinstance(result, Rows) else {}
    if condition.measure == "count":
        return totals.get("count", result.any_row_count())
    return next((v for k, v in totals.items() if k != "count" and isinstance(v, int | float)), None)


def holds(condition: Condition, results: list[ToolResult]) -> bool | None:
    """Whether the condition holds for every check result; None when it cannot be told."""
    values = [measured(condition, r) if r.ok else None for r in results]
    if not values or any(v is None for v in values):
        return None
    return all(OPS[condition.op](v, condition.value) for v in values)
