"""Conditional requests: "if this month's count is still 0, register ..." (今月の販売件数がまだ0件の場合、…).

`parse` reads the comparison in the condition clause: a count of rows (N件, N sales, no
sales, ない) or an amount (N円, N yen), with its operator (以下, 未満, 以上, より多い,
fewer than, at least ...). `holds` decides it on the result of the check call, from
what the tool computed (`totals.count`, or the first summed column), never by
recounting rows.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from concierge.language.patterns import Pattern
from concierge.language.tokens import Token, Utterance, tokenise
from concierge.planner import words
from concierge.planner.lexicon import spelt
from concierge.sources.result import Rows, ToolResult

OPS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}
SYMBOL = {"==": "=", "<": "<", "<=": "≤", ">": ">", ">=": "≥"}



def _spaces_after(text: str, end: int) -> int:
    return len(text) - len(text[end:].lstrip())


class JapaneseMarker:
    """The words that end a Japanese condition clause (…の場合、 …なければ), found where whole tokens say them."""

    def search(self, clause: str) -> words.Found | None:
        said = tokenise(clause)
        for token in said.tokens:
            end = spelt(said, clause, token.start, words.said("if", "ja"))
            if end is not None:
                after = spelt(said, clause, end, words.said("if", "after")) if said.starts_at(end) else None
                return words.Found(clause, token.start, _spaces_after(clause, _after_comma(said, after or end)))
        return None


def _after_comma(said: Utterance, end: int) -> int:
    follows = said.starting(end, len(said.text))
    comma = said.tokens[follows.start] if follows else None
    return comma.end if comma is not None and comma.surface in words.said("if_said", "commas") else end


class EnglishMarker:
    """The words that begin an English condition (if, only if; after what is done: but only if), said as words
    with spaces after them."""

    def __init__(self, lead: str, key: str, infix: bool):
        self.pattern = Pattern.parse([{"form": words.said("if", lead), "op": "?"}] * (2 if infix else 1)
                                     + [{"form": words.said("if", key)}])
        self.infix = infix

    def search(self, clause: str) -> words.Found | None:
        said = tokenise(clause)
        for m in self.pattern.finditer(said):
            if self._fits(clause, m.start, m.end):
                return words.Found(clause, len(clause[:m.start].rstrip()) if self.infix else m.start,
                             _spaces_after(clause, m.end))
        return None

    def match(self, clause: str) -> words.Found | None:
        said = tokenise(clause)
        m = self.pattern.at(said, 0) if said.tokens else None
        if m is None or not self._fits(clause, m.start, m.end):
            return None
        return words.Found(clause, 0, _spaces_after(clause, m.end))

    def _fits(self, clause: str, start: int, end: int) -> bool:
        spaced_before = not self.infix or clause[start - 1:start].isspace()
        return spaced_before and clause[end:end + 1].isspace()


JA_MARKER = JapaneseMarker()
EN_PREFIX = EnglishMarker("en_lead", "en", infix=False)
EN_INFIX = EnglishMarker("en_infix_lead", "en_infix", infix=True)


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
        found = _compare(text, measure)
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


def _compare(text: str, measure: str) -> tuple[str, int] | None:
    """The operator said around the first figure (fewer than 5 sales, 30件以上) and its value."""
    said = tokenise(text)
    units = frozenset(w.lower() for w in words.said("compare", f"{measure}_units"))
    for i, token in enumerate(said.tokens):
        first = number_before(said, i) if token.surface.lower() in units else None
        if first is not None:
            value = int(text[said.tokens[first].start:said.tokens[i - 1].end].replace(",", ""))
            return _operator(said, first, i + 1) or "==", value
    return None


def number_before(said: Utterance, unit: int) -> int | None:
    """The first token of the number said right before token `unit` (digits, commas between: 1,000), if one is."""
    first = unit
    while first > 0 and of_number(said.tokens[first - 1]) and (
            first == unit or said.tokens[first - 1].end == said.tokens[first].start):
        first -= 1
    while first < unit and not said.tokens[first].surface[:1].isdigit():
        first += 1
    if first == unit or (first > 0 and said.tokens[first - 1].end == said.tokens[first].start
                         and said.tokens[first - 1].surface[-1:] in ".,"):
        return None
    return first


def of_number(token: Token) -> bool:
    return token.surface.replace(",", "").isdigit() or token.surface == ","


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
