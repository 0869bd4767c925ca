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

from concierge.sources.result import Rows, ToolResult

OPS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}
SYMBOL = {"==": "=", "<": "<", "<=": "≤", ">": ">", ">=": "≥"}

_JA_OPS = [("以下", "<="), ("以上", ">="), ("未満", "<"), ("より少な", "<"), ("を下回", "<"),
           ("より多", ">"), ("を超え", ">"), ("超", ">"), ("を上回", ">")]
_EN_BEFORE = [("fewer than", "<"), ("less than", "<"), ("under", "<"), ("below", "<"),
              ("more than", ">"), ("over", ">"), ("above", ">"), ("at least", ">="), ("at most", "<="),
              ("no more than", "<="), ("no fewer than", ">=")]
_EN_AFTER = [("or more", ">="), ("or fewer", "<="), ("or less", "<=")]
_NUMBER = r"(?<![\d,.])(\d[\d,]*)"

# Japanese markers end a condition clause: …の場合、 …なら、 …なければ、
JA_MARKER = re.compile(r"(?:の場合|場合|ならば|なら|だったら|であれば|でしたら|(?<=な)ければ|(?<=無)ければ"
                       r"|ときは|時は)(?:は|には|に)?\s*[、,]?\s*")
EN_PREFIX = re.compile(r"^\s*(?:only\s+)?(?:if|when)\s+", re.IGNORECASE)
EN_INFIX = re.compile(r"\s+(?:but\s+)?(?:only\s+)?if\s+", re.IGNORECASE)

_NONE_JA = re.compile(r"(?:一件も|1件も|1つも|何も)?(?:ない|無い|なし|無し|ありません|ゼロ|なければ|無ければ)")
_NONE_EN = re.compile(r"\b(?:no|zero|not\s+any)\s+(?:sales?|purchases?|orders?|records?|rows?|entries)\b"
                      r"|\b(?:has|have|did)\s*n[o']t\s+(?:bought|purchased|had|ordered|any)\b|\bnothing\b",
                      re.IGNORECASE)
_SOME_JA = re.compile(r"(?:ある|あれば|あった)")
_COUNT_UNIT = r"\s*(?:件|個|回|sales?\b|purchases?\b|orders?\b|records?\b|rows?\b|times?\b)"
_AMOUNT_UNIT = r"\s*(?:円|yen\b|jpy\b)"


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
    measures: tuple[tuple[Literal["count", "amount"], str], ...] = (("amount", _AMOUNT_UNIT), ("count", _COUNT_UNIT))
    for measure, unit in measures:
        found = _compare(text, unit)
        if found:
            op, value = found
            return Condition(measure, op, value, text)
    if _NONE_JA.search(text) or _NONE_EN.search(text):
        return Condition("count", "==", 0, text)
    if _SOME_JA.search(text):
        return Condition("count", ">=", 1, text)
    return None


def _compare(text: str, unit: str) -> tuple[str, int] | None:
    for m in re.finditer(_NUMBER + unit, text, re.IGNORECASE):
        value = int(m.group(1).replace(",", ""))
        before, after = text[: m.start()].lower(), text[m.end():].lower()
        for word, op in _EN_BEFORE:
            if re.search(rf"\b{word}\s*$", before):
                return op, value
        for word, op in _EN_AFTER + _JA_OPS:
            if after.lstrip().startswith(word):
                return op, value
        return "==", value
    return None


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
