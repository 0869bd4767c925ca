"""The answer, in the user's language, built only from the tool results of the turn.

Rows become a table; counts, totals and changes are quoted from what the tool computed
(`row_count`, `totals`, `summary`), never recomputed; every result is cited by its id.
A refused call is explained with the valid values or range the guard gave; a request
that made no call says why (no such tool, not permitted, something missing).
"""

from __future__ import annotations

import re
from typing import Any

from concierge.catalog.model import CountExtract, Tool
from concierge.pipeline.result import Data, Failure, Preview, ToolResult
from concierge.planner.conditions import measured
from concierge.planner.plan import Plan, Problem, Request
from concierge.planner.progress import DONE, SKIPPED, State

_T = {
    "ja": {
        "rows": "{n}件",
        "count": "全部で{n}件です。",
        "none": "該当するデータはありません（0件）。",
        "total": "合計",
        "truncated": "（先頭の{n}件のみ表示）",
        "written": "登録しました。",
        "pending": "確認待ちです（まだ書き込んでいません）。",
        "failed": "実行できませんでした",
        "range": "指定できる範囲: {low} 〜 {high}",
        "values": "指定できる値: {v}",
        "current": "今期合計",
        "previous": "前期合計",
        "change": "増減",
        "down": "減少の大きい順",
        "up": "増加の大きい順",
        "refused_sql": "SQL を実行することはできません。宣言されたツールだけを使います。",
        "refused_change": "データの削除や変更はできません（そのためのツールはありません）。",
        "unrelated": "その内容にはお答えできません。",
        "greeting": "こんにちは。",
        "thanks": "どういたしまして。",
        "forbidden": "「{what}」は、このユーザーの権限では実行できません。",
        "missing": "{tool} を実行するには次の情報が必要です: {what}。",
        "ambiguous": "どれを指しているか特定できません。{what}を指定してください。",
        "unchecked": "条件を確認できなかったため、実行していません。",
        "can": "できること: {what}",
        "looked_up": "「{name}」: {values}",
        "not_found": "「{name}」に一致するものは見つかりませんでした。",
        "which": "「{name}」に一致するものが複数あります。どれか指定してください（まだ何も書き込んでいません）。",
        "held": "条件（{cond}）を満たしたため実行しました: {measured}。",
        "not_held": "条件（{cond}）を満たさないため、実行していません: {measured}。",
        "unknown": "条件（{cond}）を確認できなかったため、実行していません。",
        "measure_count": "{n}件",
        "measure_amount": "{n}",
    },
    "en": {
        "rows": "{n} row(s)",
        "count": "{n} in all.",
        "none": "No matching data (0 rows).",
        "total": "Totals",
        "truncated": "(showing the first {n})",
        "written": "Registered.",
        "pending": "Waiting for confirmation (nothing written yet).",
        "failed": "could not run",
        "range": "valid range: {low} to {high}",
        "values": "valid values: {v}",
        "current": "current total",
        "previous": "previous total",
        "change": "change",
        "down": "largest decreases",
        "up": "largest increases",
        "refused_sql": "I cannot run SQL; I only use the declared tools.",
        "refused_change": "I cannot delete or change data (no tool does that).",
        "unrelated": "I cannot help with that.",
        "greeting": "Hello!",
        "thanks": "You are welcome.",
        "forbidden": "Your role is not permitted to do this: {what}.",
        "missing": "To run {tool} I need: {what}.",
        "ambiguous": "I cannot tell which one you mean. Please give the {what}.",
        "unchecked": "I could not check the condition, so I did nothing.",
        "can": "What I can do: {what}",
        "looked_up": '"{name}": {values}',
        "not_found": 'Nothing matches "{name}".',
        "which": 'Several match "{name}"; please say which one (nothing is written yet).',
        "held": "The condition ({cond}) holds, so I went ahead: {measured}.",
        "not_held": "The condition ({cond}) does not hold, so I did nothing: {measured}.",
        "unknown": "I could not check the condition ({cond}), so I did nothing.",
        "measure_count": "{n} row(s)",
        "measure_amount": "{n}",
    },
}


_NO_TOOL = ("unrelated", "greeting", "thanks", "refused_sql", "refused_change")
# A request that asks how many: a read tool's answer is its row count, said in a sentence, not its rows.
_COUNTING = re.compile(r"(?<![a-z])(?:how\s+many|(?:number|count)\s+of\s+(?:the\s+|our\s+)?[a-z]+s)(?![a-z])"
                       r"|何人|何件|何個|何名|何社|何店|いくつ|件数|人数|総数|の数(?!量)|数は", re.IGNORECASE)


def compose(plan: Plan, states: list[State], lang: str, tools: dict[str, Tool], capabilities: list[str]) -> str:
    t = _T[lang]
    parts: list[str] = []
    shown: set[int] = set()
    for request in plan.requests:
        parts += _request(request, plan, states, lang, tools, shown)
    if all(p.kind in _NO_TOOL for r in plan.requests for p in r.problems) \
            and not any(r.steps for r in plan.requests) and capabilities:
        parts.append(t["can"].format(what=" / ".join(capabilities)))
    return "\n\n".join(p for p in parts if p)


def _request(request: Request, plan: Plan, states: list[State], lang: str, tools: dict[str, Tool],
             shown: set[int]) -> list[str]:
    out = [_problem(p, lang, tools) for p in request.problems]
    for name, index in request.lookups:
        state = states[index]
        if index in request.steps or index in shown or state.status != DONE:
            continue
        shown.add(index)
        out.append(_lookup(name, index, plan, states, lang))
    if request.gate is not None and request.steps:
        out.append(_gate(request, states, lang))
    counting = bool(_COUNTING.search(request.text))
    for index in request.steps:
        state = states[index]
        if state.status == DONE and index not in shown:
            shown.add(index)
            out += [render(r, lang, tools.get(r.tool), counting=counting) for r in state.results]
    return out


def _counts_rows(tool: Tool | None, result: ToolResult) -> bool:
    """Whether a result's row count answers "how many": a read of rows, not groups (a tool that takes
    a top-N count ranks groups) nor a comparison."""
    return (tool is not None and tool.mode == "read" and not result.summary
            and not any(isinstance(p.extract, CountExtract) for p in tool.params.values()))


def _problem(problem: Problem, lang: str, tools: dict[str, Tool]) -> str:
    t = _T[lang]
    tool = tools.get(problem.tool or "")
    if problem.kind == "forbidden" and tool:
        return t["forbidden"].format(what=_first_sentence(tool.description.get(lang)))
    if problem.kind in ("missing", "ambiguous") and tool:
        labels = [_label(tool.params[p].description.get(lang)) for p in problem.params]
        return t[problem.kind].format(tool=tool.name, what=", ".join(labels))
    return t[problem.kind]


def _lookup(name: str, index: int, plan: Plan, states: list[State], lang: str) -> str:
    t = _T[lang]
    result = states[index].results[0]
    if not result.ok:
        return render(result, lang, None)
    cite = f" [{result.result_id}]"
    rows = result.rows
    if not rows:
        return t["not_found"].format(name=name) + cite
    columns = _lookup_columns(plan, index, result)
    if any(states[i].reason == "ambiguous" for i, s in enumerate(plan.steps)
           if any(ref.step == index for ref in s.refs.values())):
        return t["which"].format(name=name) + cite + "\n" + table(result.columns or list(rows[0]), rows)
    values = "; ".join(", ".join(f"{c} {row.get(c)}" for c in columns) for row in rows)
    return t["looked_up"].format(name=name, values=values) + cite


def _lookup_columns(plan: Plan, index: int, result: ToolResult) -> list[str]:
    columns = [ref.column for s in plan.steps for ref in s.refs.values() if ref.step == index]
    return list(dict.fromkeys(columns)) or result.columns[:1]


def _gate(request: Request, states: list[State], lang: str) -> str:
    t = _T[lang]
    assert request.gate is not None
    condition = request.gate.condition
    first = states[request.steps[0]]
    checks = [r for i in request.gate.checks for r in states[i].results]
    figures = [measured(condition, r) for r in checks]
    shown = ", ".join(t[f"measure_{condition.measure}"].format(n=_number(f)) for f in figures if f is not None)
    cond = condition.text.rstrip("、, ")
    if first.status == SKIPPED and first.reason == "condition":
        return t["not_held"].format(cond=cond, measured=shown)
    if first.status == SKIPPED:
        return t["unknown"].format(cond=cond)
    return t["held"].format(cond=cond, measured=shown)


def render(result: ToolResult, lang: str, tool: Tool | None, *, counting: bool = False) -> str:
    """One tool result as text: what was called, its rows, totals and summary, or why it failed; for a
    request that asks how many, the count of every matching row in a sentence instead of the rows."""
    t = _T[lang]
    head = f"{result.tool}{_args(result, tool)} [{result.result_id}]"
    view = result.view()
    if isinstance(view, Failure):
        lines = [f"{head}: {t['failed']}: {view.text(lang)}"]
        valid = view.valid or {}
        if valid.get("min") or valid.get("max"):
            lines.append(t["range"].format(low=valid.get("min") or "…", high=valid.get("max") or "…"))
        if valid.get("values"):
            lines.append(t["values"].format(v=", ".join(map(str, valid["values"]))))
        return "\n".join(lines)
    if isinstance(view, Preview):
        return "\n".join([f"{head}: {t['pending']}", *(f"- {k}: {v}" for k, v in view.fields.items())])
    rows = view.rows
    if tool is not None and tool.mode == "write":
        return "\n".join([f"{head}: {t['written']}", *(f"- {k}: {v}" for row in rows for k, v in row.items())])
    if not rows:
        return f"{head}: {t['none']}"
    if counting and _counts_rows(tool, result):
        return "\n".join([f"{head}: {t['count'].format(n=_number(view.row_count))}", *_totals(view, t)])
    lines = [f"{head}: {t['rows'].format(n=view.row_count)}"]
    lines += _summary(view.summary, lang)
    lines.append(table(view.columns or list(rows[0]), rows))
    if view.truncated:
        lines.append(t["truncated"].format(n=len(rows)))
    return "\n".join(lines + _totals(view, t))


def _totals(view: Data, t: dict[str, str]) -> list[str]:
    totals = view.totals
    return [f"{t['total']}: " + ", ".join(f"{k} {_number(v)}" for k, v in totals.items())] if totals else []


def _summary(summary: dict[str, Any] | None, lang: str) -> list[str]:
    if not summary:
        return []
    t = _T[lang]
    pct = summary.get("change_pct")
    change = f"{t['change']} {_number(summary.get('change'), signed=True)}"
    if pct is not None:
        change += f" ({pct:+}%)"
    lines = [f"{t['current']} {_number(summary.get('current_total'))} / "
             f"{t['previous']} {_number(summary.get('previous_total'))} / {change}"]
    for key, label in (("top_decreases", "down"), ("top_increases", "up")):
        items = summary.get(key) or []
        if items:
            named = ", ".join(f"{next(iter(i.values()))} {_number(i.get('change'), signed=True)}" for i in items)
            lines.append(f"{t[label]}: {named}")
    return lines


def table(columns: list[str], rows: list[dict[str, Any]]) -> str:
    def cell(value: Any) -> str:
        return "" if value is None else str(value).replace("|", "/").replace("\n", " ")

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(r.get(c)) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def _args(result: ToolResult, tool: Tool | None) -> str:
    args = {k: v for k, v in result.args.items() if v is not None}
    if tool is not None:
        for first, last in tool.ordered:
            if first in args and last in args:
                end = args.pop(last)
                args[first] = args[first] if end == args[first] else f"{args[first]}〜{end}"
        args = {k: v for k, v in args.items() if k in tool.params and tool.params[k].default != v}
    return "(" + ", ".join(str(v) for v in args.values()) + ")" if args else ""


def _number(value: Any, signed: bool = False) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    return f"{value:+,}" if signed else f"{value:,}"


def _first_sentence(text: str) -> str:
    return re.split(r"(?<=。)|(?<=\.)\s", text, maxsplit=1)[0].rstrip("。.")


def _label(description: str) -> str:
    return re.split(r"[(（,、]", description, maxsplit=1)[0].strip()
