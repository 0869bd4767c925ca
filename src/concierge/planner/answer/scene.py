"""What a template can say about one tool result: its arguments, period, count, totals, summary, rows.

`Scene.resolve` is the meaning of each placeholder name (docs/catalog.md, "Answer templates"); figures
are quoted from the result (`row_count`, `totals`, `summary`), never recomputed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from concierge.catalog.model import DateExtract, Text, Tool
from concierge.language import spoken
from concierge.planner import words
from concierge.planner.answer.template import fill
from concierge.planner.answer.texts import phrase
from concierge.planner.answer.values import as_date, number, written

ROWS_IN_SENTENCE = 5  # more rows than this are shown as a table, not listed in the sentence
# where the sentence cannot do without its rows (弁当は{rows}です), up to this many are said in it; more are a table
# that a screen shows and a phone says in short (language/spoken.listing)
ROWS_SAID_WHOLE = 12


@dataclass
class Scene:
    """One result as the answer sees it."""

    tool: Tool | None
    lang: str
    today: date
    args: dict[str, Any]
    rows: list[dict[str, Any]] = field(default_factory=list)
    row_count: int = 0
    totals: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, Any] | None = None
    message: str | None = None
    measure: str | None = None  # the one figure the request names (a result column), for a drafted summary
    _periods: dict[str, str] | None = field(default=None, repr=False)
    _listed: tuple[str | None] | None = field(default=None, repr=False)
    every_row: bool = False  # the sentence needs its rows (弁当は{rows}です): all of them, however many
    grouped: bool = False  # the request says a summary's grouping (月別): its groups follow, the default one too

    def resolve(self, name: str, fmt: str) -> str | None:
        head, _, rest = name.partition(".")
        if head == "period":
            if self._periods is None:
                self._periods = periods(self.tool, self.args, self.today, self.lang)
            return self._periods.get(rest or "current")
        if head == "count":
            return written(self.row_count, fmt, self.lang, self.today)
        if head == "rows":
            return self.listed_rows()
        if head == "message":
            return self.message
        if head == "total" and rest:
            return written(self.totals.get(rest), fmt, self.lang, self.today)
        if head == "summary" and rest:
            return self._summary(rest, fmt)
        if head == "first" and rest:
            return written(self.rows[0].get(rest), fmt, self.lang, self.today) if self.rows else None
        return written(self.args.get(name), fmt, self.lang, self.today)

    def needs_rows(self, needed: bool) -> None:
        """The sentence about to be said cannot leave its rows out (弁当は{rows}です)."""
        if needed != self.every_row:
            self.every_row, self._listed = needed, None

    def listed_rows(self) -> str | None:
        """The rows through the `row` template, joined; None when there is none or too many for a sentence."""
        if self._listed is None:
            row = self._template("row")
            limit = ROWS_SAID_WHOLE if self.every_row else ROWS_IN_SENTENCE
            many = not self.rows or len(self.rows) > limit or self.row_count > len(self.rows)
            self._listed = (None if row is None or many
                            else phrase(self.lang, "list").join(self._one(row, r) for r in self.rows),)
        return self._listed[0]

    def _summary(self, key: str, fmt: str) -> str | None:
        value = (self.summary or {}).get(key)
        if not isinstance(value, list):
            return written(value, fmt, self.lang, self.today)
        if not value:
            return None
        item = self._template("item")
        return phrase(self.lang, "list").join(self._one(item, i) if item else _default_item(i) for i in value)

    def _one(self, template: str, values: dict[str, Any]) -> str:
        return fill(template, lambda n, f: written(values.get(n), f, self.lang, self.today))

    def _template(self, status: str) -> str | None:
        answer = self.tool.answer if self.tool is not None else None
        text: Text | None = getattr(answer, status, None) if answer is not None else None
        return text.get(self.lang) if text is not None else None


def _default_item(item: dict[str, Any]) -> str:
    key = next(iter(item.values()), "")
    return f"{key} {number(item.get('change'), signed=True)}"


def periods(tool: Tool | None, args: dict[str, Any], today: date, lang: str) -> dict[str, str]:
    """The periods of a call in words and dates: `current` (the first ordered pair, or a single day
    parameter) and `previous` (the pair its catalog marks as the previous period, else the second pair)."""
    if tool is None:
        return {}
    out: dict[str, str] = {}
    pairs = list(tool.ordered)
    for first, last in pairs:
        start, end = as_date(args.get(first)), as_date(args.get(last))
        if start is None or end is None:
            continue
        x = tool.params[first].extract
        which = "previous" if (isinstance(x, DateExtract) and x.period == "previous") or "current" in out \
            else "current"
        out.setdefault(which, spoken.period(start, end, today, lang))
    if not pairs:
        days = [as_date(args.get(n)) for n, p in tool.params.items() if p.type == "date"]
        found = [d for d in days if d is not None]
        if len(found) == 1:
            out["current"] = spoken.period(found[0], found[0], today, lang)
    return out


def label(tool: Tool | None, name: str, lang: str) -> str:
    """A column's or parameter's name in words: its `result.labels`, else its description's first words,
    else the name with underscores as spaces."""
    if tool is not None:
        if name in tool.result.labels:
            return tool.result.labels[name].get(lang)
        if name in tool.params:
            return description_label(tool.params[name].description.get(lang))
    return name.replace("_", " ").strip()


def role(tool: Tool, pname: str, lang: str) -> str:
    """Who a parameter's people are, its label without the word for a name (スタッフの名前: スタッフ)."""
    said = label(tool, pname, lang)
    for after in sorted(words.said("nouns", "name_after"), key=len, reverse=True):
        if said.endswith(after) and len(said) > len(after):
            return said[: -len(after)].strip()
    return said


def description_label(description: str) -> str:
    """The first words of a description: up to a bracket, a comma, an example or a format (YYYY-MM-DD),
    without a leading article (the sentences put their own: "the item's name", "a product's name")."""
    words = re.split(r"[(（,、]|\s+Y{4}-|\s+(?:such as|e\.g\.|like)\s", description, maxsplit=1)[0].strip()
    return re.sub(r"^(?:the|a|an)\s+", "", words, flags=re.IGNORECASE)
