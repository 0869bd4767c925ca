"""Why a request made no call, as a short sentence or question in the user's language.

A value that matches nothing or several things is asked about with the candidates read from the data;
an impossible value is refused with the reason and what to check; a request no tool answers says what
cannot be done (the caller adds what can).
"""

from __future__ import annotations

import re

from concierge.catalog.model import Tool
from concierge.planner import words
from concierge.planner.answer.scene import label, role
from concierge.planner.answer.sentences import filter_labels, group_labels
from concierge.planner.answer.texts import phrase
from concierge.planner.nouns import noun
from concierge.planner.plan import Problem

_ASKS = words.said_pattern("clauses", "asks")
# Kinds whose request needs no tool at all: the answer adds what the catalogs can do.
NO_TOOL = ("unrelated", "greeting", "thanks", "refused_sql", "refused_change", "out_of_scope", "cannot_change",
           "unknown_rows", "excluded")


def problem_text(problem: Problem, lang: str, tools: dict[str, Tool]) -> str:
    """The problem as a sentence (or a question) in the language."""
    if problem.kind == "values_counted":  # 電気は何個ある？: the lights there are, counted
        return phrase(lang, "values_counted", said=problem.said, n=len(problem.candidates),
                      values=phrase(lang, "list").join(problem.candidates))
    return _text(problem, lang, tools).strip()


def _text(problem: Problem, lang: str, tools: dict[str, Tool]) -> str:
    tool = tools.get(problem.tool or "")
    kind = problem.kind
    if kind == "too_many":  # the reason says how many, and what to do
        return _reason(problem, lang)
    if kind == "forbidden" and tool:
        return phrase(lang, "forbidden", what=first_sentence(tool.description.get(lang)))
    if kind in ("missing", "ambiguous") and tool:
        return _needed(problem, lang, tool)
    if kind in ("not_taken", "unreferenced", "negated", "not_placed", "unplaced", "not_computed", "unknown_rows"):
        return phrase(lang, kind, said=problem.said)
    if (kind == "not_applied" and tool) or kind == "excluded":
        return _not_applied(problem, lang, tool)
    if kind in ("ungrouped", "not_grouped"):
        return _ungrouped(problem, lang, tool)
    if kind in ("at_limit", "none_such") and tool:  # もっと明るく at 100%: already at the end of the range;
        # エアコンとテレビ消して, with no air conditioner: the TV switched off, and none such said
        return phrase(lang, kind, label=label(tool, problem.params[0], lang), value=problem.said, said=problem.said)
    if kind == "which_tool" or (kind == "which_param" and tool):
        return _which(problem, lang, tools)
    if kind in ("unknown_value", "which_value", "which_reading", "impossible_value", "which_row", "which_person"):
        return _value(problem, lang, tool)
    if kind in ("out_of_scope", "cannot_change"):
        reason = _reason(problem, lang) or phrase(lang, f"{kind}_default")
        return phrase(lang, kind, reason=_sentence(reason, lang))
    if kind in ("forbidden", "missing", "ambiguous"):  # no tool to name: say it plainly
        return phrase(lang, "unrelated")
    return phrase(lang, kind)


def _needed(problem: Problem, lang: str, tool: Tool) -> str:
    """The values a call needs that the request did not say, or did not say of which value."""
    labels = [label(tool, p, lang) for p in problem.params]
    if problem.kind == "ambiguous" and problem.candidates:  # 唐揚げ弁当とのり弁当を2つ: which takes the 2?
        return phrase(lang, "unpaired", what=phrase(lang, "list").join(labels),
                      values=phrase(lang, "list").join(problem.candidates))
    if problem.kind == "missing" and not problem.candidates and tool.answer and tool.answer.ask \
            and set(problem.params) >= {n for n, p in tool.params.items() if p.required}:  # 注文したい: 何にしますか？
        return tool.answer.ask.get(lang)
    if problem.kind == "missing" and problem.candidates and problem.reason:  # ガトーショコラをひとつ: which size?
        return phrase(lang, "missing_needed", said=problem.said, reason=_reason(problem, lang).rstrip("。."),
                      values=phrase(lang, "list").join(problem.candidates))
    if problem.kind == "missing" and problem.candidates:  # 電気消して: which light?
        return phrase(lang, "missing_which", what=labels[0], values=phrase(lang, "list").join(problem.candidates))
    form = _form(tool, problem, lang) if problem.kind == "missing" else None
    if form:  # 色を300:0:0に: the colour, in the form its description gives (赤:緑:青、各 0〜255)
        return phrase(lang, "missing_form", what=labels[0], form=form)
    return phrase(lang, problem.kind, what=phrase(lang, "list").join(labels))


def _form(tool: Tool, problem: Problem, lang: str) -> str | None:
    """The form a single missing value of a fixed shape (`pattern`) is written in, where the request said its label
    (色を300:0:0に): its description's bracket."""
    if not problem.said or len(problem.params) != 1 or tool.params[problem.params[0]].pattern is None:
        return None
    described = tool.params[problem.params[0]].description.get(lang)
    for opening, closing in (("（", "）"), ("(", ")")):
        start = described.find(opening)
        end = described.find(closing, start + 1)
        if 0 <= start < end:
            return described[start + 1:end].strip() or None
    return None


def _which(problem: Problem, lang: str, tools: dict[str, Tool]) -> str:
    """Which data (売上: the books' or the café's), or which of a tool's parameters a value is said of."""
    if problem.kind == "which_tool":
        options = phrase(lang, "or").join(noun(tools[t]).said(lang) for t in problem.candidates if t in tools)
        return phrase(lang, "which_tool", options=options)
    tool = tools[problem.tool or ""]
    options = phrase(lang, "or").join(label(tool, p, lang) for p in problem.params)
    return phrase(lang, "which_param", said=problem.said, options=options)


def _not_applied(problem: Problem, lang: str, tool: Tool | None) -> str:
    """What the request said that the tool cannot filter by, that no figure was given for all rows instead,
    and what the rows can be narrowed down by."""
    if problem.kind == "excluded" or tool is None:
        return _excluded(problem, lang, tool)
    said = phrase(lang, "list").join(problem.candidates or (problem.said,))
    filters = filter_labels(tool, lang)
    what = noun(tool).said(lang)
    if not filters:
        return phrase(lang, "not_applied_none", said=said, noun=what)
    return phrase(lang, "not_applied", said=said, noun=what, filters=phrase(lang, "list").join(filters))


def _excluded(problem: Problem, lang: str, tool: Tool | None) -> str:
    """返品以外: a filter takes one value, never all but one; said with the filter's label where the tool has it."""
    if tool is None or not problem.params:
        return phrase(lang, "excluded_none", said=problem.said)
    return phrase(lang, "excluded", said=problem.said, label=label(tool, problem.params[0], lang))


def _ungrouped(problem: Problem, lang: str, tool: Tool | None) -> str:
    """A ranking of an entity, or a grouping (整備士ごとの件数), that no summary groups by: said so, with what the rows
    can be added up by."""
    groups = group_labels(tool, lang) if tool is not None else []
    kind = problem.kind
    if not groups or tool is None:
        return phrase(lang, f"{kind}_none", said=problem.said, noun=noun(tool).said(lang) if tool else "")
    return phrase(lang, kind, said=problem.said, noun=noun(tool).said(lang), groups=phrase(lang, "list").join(groups))


def _whose(problem: Problem, lang: str, tool: Tool) -> str:
    """Which of several people of different parameters (佐藤 健一（スタッフ）、佐藤 花子（顧客）)."""
    named = [f"{value}（{role(tool, p, lang)}）" if lang == "ja" else f"{value} ({role(tool, p, lang)})"
             for p, value in zip(problem.params, problem.candidates, strict=True)]
    return phrase(lang, "which_person", said=problem.said, values=phrase(lang, "list").join(named))


def _value(problem: Problem, lang: str, tool: Tool | None) -> str:
    if problem.kind == "which_person" and tool:
        return _whose(problem, lang, tool)
    name = label(tool, problem.params[0], lang) if tool and problem.params else phrase(lang, "value")
    values = phrase(lang, "list").join(problem.candidates)
    if problem.kind == "which_value":
        return phrase(lang, "which_value", said=problem.said, label=name, values=values)
    if problem.kind == "which_row" and tool:  # 佐藤 of two customers: which, by its key
        return phrase(lang, "which_row", said=problem.said, label=label(tool, problem.params[1], lang), by=name,
                      values=values)
    if problem.kind == "which_reading":  # the value, or the word as the question uses it
        return phrase(lang, "which_reading", said=problem.said, label=name, values=values, word=problem.said.lower())
    if problem.kind == "unknown_value":
        text = phrase(lang, "unknown_value", said=problem.said, label=name)
        return f"{text} {phrase(lang, 'every' if problem.every else 'near', values=values)}" if values else text
    reason = _reason(problem, lang) or phrase(lang, "impossible_default", said=problem.said)
    if _ASKS.search(reason):  # the reason already says what to do
        return reason
    return phrase(lang, "impossible_value", reason=_sentence(reason, lang), label=name)


def _reason(problem: Problem, lang: str) -> str:
    reasons = dict(problem.reason)
    return reasons.get(lang) or reasons.get("en") or ""


def _sentence(text: str, lang: str) -> str:
    """A reason ending as a sentence, so that what follows starts a new one."""
    text = text.strip()
    if lang == "ja":
        return text if text.endswith(("。", "？", "！")) else text + "。"
    return (text if text.endswith((".", "?", "!")) else text + ".") + " "


def first_sentence(text: str) -> str:
    return re.split(r"(?<=。)|(?<=\.)\s", text, maxsplit=1)[0].rstrip("。.")
