"""One tool result in sentences: the tool's answer templates when it declares them, else a generic
restatement of its arguments, the count, a labelled table and the totals (docs/catalog.md)."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from concierge.catalog.model import CountExtract, Tool
from concierge.planner.answer import sentences
from concierge.planner.answer.scene import ROWS_IN_SENTENCE, Scene, label, periods
from concierge.planner.answer.sentences import GROUP_VALUE
from concierge.planner.answer.template import compiled, fill, required
from concierge.planner.answer.texts import phrase
from concierge.planner.answer.values import number, written
from concierge.sources.result import Confirmation, Failure, Refusal, Rows, ToolResult

_IDENTIFIER = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")

def render(result: ToolResult, lang: str, tool: Tool | None, *, counting: bool = False,
           today: date | None = None, counter: str | None = None, measure: str | None = None,
           interim: bool = False, grouped: bool = False) -> str:
    """A result in the user's language. `counting`: the request asks how many, so a read of rows says
    the count of every matching row (and the totals), not the rows; `counter` is the Japanese counter the
    question counted with (何枚: 枚), which a drafted tool's answer counts with too; `measure` the one column
    of its figures the request names (売上: the money), which a drafted summary's totals state alone; `interim`:
    a write that another of the request follows, whose row (a running total) is left out where its template
    says it in a segment; `grouped`: the request says a summary's grouping (月別), whose groups then follow."""
    today = today or date.today()
    args = {k: v for k, v in result.args.items() if v is not None}
    if isinstance(result, Refusal | Failure):
        return _failure(result, tool, lang, today)
    if isinstance(result, Confirmation):
        fields = dict(result.preview)
        scene = Scene(tool, lang, today, {**args, **fields}, rows=[fields], row_count=1)
        return _templated(scene, "confirm") or phrase(lang, "pending", what=_fields(fields, tool, lang))
    rows, totals = result.shown_rows(), result.shown_totals()
    scene = Scene(tool, lang, today, args, rows, result.row_count, totals, result.summary, measure=measure,
                  grouped=grouped)
    if tool is not None and tool.mode == "write":
        if interim and _first_in_segments(tool, "done", lang):
            scene = Scene(tool, lang, today, args, [], result.row_count, totals, result.summary, measure=measure)
        return _templated(scene, "done") or phrase(lang, "written", what=_rows_inline(rows, tool, lang))
    return _read(result, scene, counting, counter)


def several(results: list[ToolResult], lang: str, tool: Tool | None, *, today: date | None = None) -> str | None:
    """Writes of one tool that one request made, in one sentence: the tool's `several` template with `{each}`
    every write through `each`, the rest read from the last (唐揚げ弁当を2つ、のり弁当を1つ承りました。ただいまの
    合計は1,830円です。); None when the tool declares no such templates or a result is not a written row."""
    answer = tool.answer if tool is not None else None
    written = [r for r in results if isinstance(r, Rows)]
    if answer is None or answer.each is None or answer.several is None or len(results) < 2 \
            or len(written) < len(results):
        return None
    today = today or date.today()
    scenes = [Scene(tool, lang, today, {k: v for k, v in r.args.items() if v is not None}, r.rows, r.row_count)
              for r in written]
    joined = phrase(lang, "list").join(fill(answer.each.get(lang), s.resolve).strip() for s in scenes)
    last = scenes[-1]
    filled = fill(answer.several.get(lang), lambda n, f: joined if n == "each" else last.resolve(n, f)).strip()
    return filled[:1].upper() + filled[1:] if lang == "en" else filled


def _read(result: Rows, scene: Scene, counting: bool, counter: str | None = None) -> str:
    """A read's rows in sentences; `scene` holds them (and the totals) as shown, amounts of money as `Money`."""
    lang, tool, rows = scene.lang, scene.tool, scene.rows
    if not rows and result.row_count == 0:
        return _templated(scene, "empty") or _generic_none(scene)
    status = "one" if result.row_count == 1 and _has(tool, "one") else "ok"
    sentence = _templated(scene, status)
    if sentence is not None:
        lines = [sentence]
        said_whole = status == "one"  # the one row is in the sentence: a table would repeat it
        if not said_whole and scene.listed_rows() is None and (_mentions(tool, status, "rows") or not result.summary):
            lines.append(table(result.columns or list(rows[0]), rows, tool, lang, sentence))
            lines += [phrase(lang, "truncated", n=len(rows))] if result.truncated else []
        return "\n".join(lines)
    return _generic(result, scene, counting, counter)


def _generic(result: Rows, scene: Scene, counting: bool, counter: str | None = None) -> str:
    lang, tool, rows = scene.lang, scene.tool, scene.rows
    if tool is not None and tool.answer is None:  # a drafted tool: sentences from its arguments and figures
        sentence, tabled = sentences.head(scene, counting and _counts_rows(tool, result), counter)
        if not tabled:
            return sentence
        lines = [sentence, table(result.columns or list(rows[0]), rows, tool, lang, sentence)]
        lines += [phrase(lang, "truncated", n=len(rows))] if result.truncated else []
        added = sentences.sums(scene) if not rows or GROUP_VALUE not in rows[0] else None
        return "\n".join(lines + ([added] if added else []))
    what = restate(scene)
    n = number(result.row_count)
    if counting and _counts_rows(tool, result):
        head = phrase(lang, "counted", what=what, n=n) if what else phrase(lang, "counted_all", n=n)
        return "\n".join([head, *_totals(scene.totals, tool, lang)])
    one = "_one" if result.row_count == 1 else ""
    head = phrase(lang, "found" + one, what=what, n=n) if what else phrase(lang, "found_all" + one, n=n)
    columns = result.columns or list(rows[0])
    lines = [head, *_summary(result.summary, lang), table(columns, rows, tool, lang, head)]
    lines += [phrase(lang, "truncated", n=len(rows))] if result.truncated else []
    return "\n".join(lines + _totals(scene.totals, tool, lang))


def _generic_none(scene: Scene) -> str:
    if scene.tool is not None and scene.tool.answer is None:
        return sentences.none(scene)
    what = restate(scene)
    return phrase(scene.lang, "none", what=what) if what else phrase(scene.lang, "none_all")


def _failure(result: Refusal | Failure, tool: Tool | None, lang: str, today: date) -> str:
    why = _plain_names(result.text(lang).removeprefix(f"{result.tool}: "), tool, lang).rstrip("。. ")
    scene = Scene(tool, lang, today, {k: v for k, v in result.args.items() if v is not None}, message=why,
                  rows=list(result.any_rows()), row_count=result.any_row_count())  # what a failed check offers
    status = "refused" if result.status == "refused" else "error"
    text = _templated(scene, status)
    if text is None:
        what = restate(scene)
        text = phrase(lang, "failed", what=what, why=why) if what else phrase(lang, "failed_all", why=why)
    valid = (result.valid if isinstance(result, Refusal) else None) or {}
    hints = []
    if (valid.get("min") or valid.get("max")) and str(valid.get("min")) not in text:
        hints.append(phrase(lang, "range", low=valid.get("min") or "…", high=valid.get("max") or "…"))
    if valid.get("values"):
        hints.append(phrase(lang, "values", v=phrase(lang, "list").join(map(str, valid["values"]))))
    return ("" if lang == "ja" else " ").join([text, *hints])


def restate(scene: Scene) -> str:
    """How the call was understood, in words: each argument said (defaults aside) with its label, the
    period in words and dates."""
    tool, lang, args = scene.tool, scene.lang, scene.args
    said = {k: v for k, v in args.items() if tool is None or (k in tool.params and tool.params[k].default != v)}
    parts: list[str] = []
    if tool is not None:
        spoken_periods = periods(tool, args, scene.today, lang)
        dated = {n for pair in tool.ordered for n in pair} if tool.ordered else \
            {n for n, p in tool.params.items() if p.type == "date"} if spoken_periods else set()
        said = {k: v for k, v in said.items() if k not in dated}
        for which, words in spoken_periods.items():
            name = phrase(lang, "period" if which == "current" else "period_previous")
            parts.append(phrase(lang, "pair", label=name, value=words))
    parts = [phrase(lang, "pair", label=label(tool, k, lang), value=_said_value(tool, v, lang))
             for k, v in said.items()] + parts
    return phrase(lang, "list").join(parts)


def _said_value(tool: Tool | None, value: Any, lang: str) -> str:
    """An argument in words: a number with separators; a value naming a column (group by count_of_orders)
    by the column's label, an identifier-like value with spaces for underscores."""
    if isinstance(value, str) and _IDENTIFIER.fullmatch(value):
        return label(tool, value, lang)
    return number(value)


def table(columns: list[str], rows: list[dict[str, Any]], tool: Tool | None, lang: str, said: str = "") -> str:
    """Rows as a table with labelled columns; a column whose one value the sentence already says is left out."""
    if len(rows) > 1:
        columns = [c for c in columns
                   if len({str(r.get(c)) for r in rows}) > 1 or not _said_in(_cell(rows[0].get(c)), said)]
    columns = columns or list(rows[0])
    worded = _worded(tool, lang)
    lines = ["| " + " | ".join(label(tool, c, lang) for c in columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_cell(r.get(c), worded.get(c)) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def _said_in(cell: str, said: str) -> bool:
    """Whether a cell's text is said whole in a sentence: a count of 2 is not said by the 2 of 11/23〜11/29."""
    at = said.find(cell)
    while cell and at >= 0:
        before, after = said[at - 1:at], said[at + len(cell):at + len(cell) + 1]
        starts = not cell[:1].isdigit() or not (before.isdigit() or before in _IN_NUMBERS)
        ends = not cell[-1:].isdigit() or not (after.isdigit() or after in _IN_NUMBERS)
        if starts and ends:
            return True
        at = said.find(cell, at + 1)
    return False


_IN_NUMBERS = frozenset(",./:")


def _worded(tool: Tool | None, lang: str) -> dict[str, str]:
    """The columns that the tool's `row` template says in words by their value ({sold_out:?1=売り切れ|*=}), and
    the format that does: a table shows the words too, never a bare 0 or 1."""
    row = tool.answer.row if tool is not None and tool.answer is not None else None
    if row is None:
        return {}
    placed = [p for _, parts in compiled(row.get(lang)) for p in parts if len(p) == 3]
    return {p[1]: p[2] for p in placed if p[2].startswith("?")}


def _cell(value: Any, choice: str | None = None) -> str:
    if choice is not None:
        return (written(value, choice, "", date.min) or "").strip(" （）()")
    if value is None:
        return ""
    if type(value) is int:
        return f"{value:,}"
    text = number(value)
    return text.replace("|", "/").replace("\n", " ") if "|" in text or "\n" in text else text


def _templated(scene: Scene, status: str) -> str | None:
    tool = scene.tool
    text = getattr(tool.answer, status, None) if tool is not None and tool.answer is not None else None
    if text is None:
        return None
    needs_rows = required(text.get(scene.lang), "rows")
    scene.needs_rows(needs_rows)
    if needs_rows and scene.rows and scene.listed_rows() is None:
        return None  # too many rows for its sentence (弁当は…です): said as a count and a list, never as 「はです」
    filled = fill(text.get(scene.lang), scene.resolve).strip()
    return filled[:1].upper() + filled[1:] if scene.lang == "en" else filled


def _first_in_segments(tool: Tool, status: str, lang: str) -> bool:
    """Whether every `first.` placeholder of a template is inside a segment (left out with no row)."""
    text = getattr(tool.answer, status, None) if tool.answer is not None else None
    if text is None:
        return False
    return not any(p[0] == "value" and p[1].startswith("first.")
                   for segment, parts in compiled(text.get(lang)) if not segment for p in parts)


def _has(tool: Tool | None, status: str) -> bool:
    return tool is not None and tool.answer is not None and getattr(tool.answer, status) is not None


def _mentions(tool: Tool | None, status: str, name: str) -> bool:
    text = getattr(tool.answer, status, None) if tool is not None and tool.answer is not None else None
    return text is not None and "{" + name + "}" in text.ja + text.en


def _counts_rows(tool: Tool | None, result: Rows) -> bool:
    """Whether a row count answers "how many": a read of rows, not groups (a tool that takes a top-N
    count ranks groups) nor a comparison."""
    return (tool is None or tool.mode == "read") and not result.summary \
        and not (tool and any(isinstance(p.extract, CountExtract) for p in tool.params.values()))


def _totals(totals: dict[str, Any], tool: Tool | None, lang: str) -> list[str]:
    if not totals:
        return []
    what = phrase(lang, "list").join(phrase(lang, "pair", label=label(tool, k, lang), value=number(v))
                                     for k, v in totals.items())
    return [phrase(lang, "total", what=what)]


def _summary(summary: dict[str, Any] | None, lang: str) -> list[str]:
    if not summary:
        return []
    pct = summary.get("change_pct")
    change = f"{phrase(lang, 'change')} {number(summary.get('change'), signed=True)}"
    if pct is not None:
        change += f"（{pct:+}%）" if lang == "ja" else f" ({pct:+}%)"
    lines = [phrase(lang, "list").join([f"{phrase(lang, 'current')} {number(summary.get('current_total'))}",
                                        f"{phrase(lang, 'previous')} {number(summary.get('previous_total'))}",
                                        change]) + phrase(lang, "sentence_end")]
    for key, words in (("top_decreases", "down"), ("top_increases", "up")):
        items = summary.get(key) or []
        if items:
            named = phrase(lang, "list").join(
                f"{next(iter(i.values()))} {number(i.get('change'), signed=True)}" for i in items)
            lines.append(f"{phrase(lang, words)}: {named}" + phrase(lang, "sentence_end"))
    return lines


def _row_inline(row: dict[str, Any], columns: list[str], tool: Tool | None, lang: str) -> str:
    return phrase(lang, "list").join(phrase(lang, "pair", label=label(tool, c, lang), value=_cell(row.get(c)))
                                     for c in columns if row.get(c) is not None)


def _rows_inline(rows: list[dict[str, Any]], tool: Tool | None, lang: str) -> str:
    return " / ".join(_row_inline(r, list(r), tool, lang) for r in rows)


def _fields(fields: dict[str, Any], tool: Tool | None, lang: str) -> str:
    return _row_inline(fields, list(fields), tool, lang)


def _plain_names(text: str, tool: Tool | None, lang: str) -> str:
    """A message with the tool's parameter names said in words (code_customer -> 顧客コード)."""
    if tool is None:
        return text
    for name in sorted(tool.params, key=len, reverse=True):  # whole identifiers: "power" is not in "powered"
        said = label(tool, name, lang).replace("\\", "\\\\")
        text = re.sub(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", said, text)
    return text


__all__ = ["ROWS_IN_SENTENCE", "render", "restate", "several", "table"]
