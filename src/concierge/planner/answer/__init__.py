"""The answer, in the user's language, built only from the tool results of the turn.

Each request of the message is answered in turn: what was not understood or cannot be done
(`problems`), how loosely read words were taken (「『ハンバーグ』はハンバーグ弁当として扱いました。」),
names looked up, a condition checked, then each result in sentences (`render`: the tool's answer
templates, else a generic restatement and a labelled table). Figures are quoted from what the tool
computed (`row_count`, `totals`, `summary`), never recomputed. Tool names, raw column names and
result ids stay out of the text: the ids are in the structured results and the trace.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import date

from concierge.catalog.model import Tool
from concierge.planner.answer.problems import NO_TOOL, problem_text
from concierge.planner.answer.results import render, several, table
from concierge.planner.answer.scene import label
from concierge.planner.answer.sentences import statuses_said
from concierge.planner.answer.texts import PHRASES, phrase
from concierge.planner.answer.values import number
from concierge.planner.conditions import measured
from concierge.planner.counting import COUNTING
from concierge.planner.plan import Plan, Request
from concierge.planner.progress import BLOCKED, DONE, SKIPPED, State, succeeded
from concierge.planner.statuses import Counted
from concierge.sources.result import Rows

__all__ = ["compose", "render", "table"]



class _Turn:
    """What one answer is composed from, and which results it has shown already."""

    def __init__(self, plan: Plan, states: list[State], lang: str, tools: dict[str, Tool], today: date,
                 clocks: dict[str, date]):
        self.plan, self.states, self.lang, self.tools = plan, states, lang, tools
        self.today, self.clocks = today, clocks
        self.shown: set[int] = set()

    def render(self, index: int, counting: bool = False, counter: str | None = None,
               measures: dict[str, str] | None = None, grouped: Collection[str] = ()) -> list[str]:
        step = self.plan.steps[index]
        today = self.clocks.get(step.tool, self.today)
        return [render(r, self.lang, self.tools.get(r.tool), counting=counting, today=today, counter=counter,
                       measure=(measures or {}).get(r.tool), interim=self._interim(index), grouped=r.tool in grouped)
                for r in self.states[index].results]

    def _interim(self, index: int) -> bool:
        """Whether a write that succeeded is followed by one made only after it (a swap's new item, then the old
        line out): what it reads of the state after it (the running total) is not the last word."""
        return any(s.after == index and succeeded(self.states[j]) for j, s in enumerate(self.plan.steps))


def compose(plan: Plan, states: list[State], lang: str, tools: dict[str, Tool], capabilities: list[str],
            today: date | None = None, clocks: dict[str, date] | None = None) -> str:
    """The answer to a finished plan. `today` is the configured clock (periods are said relative to it),
    `clocks` a tool's own clock where its catalog keeps another one."""
    turn = _Turn(plan, states, lang, tools, today or date.today(), clocks or {})
    parts: list[str] = []
    for request in plan.requests:
        parts += _request(request, turn)
    if all(p.kind in NO_TOOL for r in plan.requests for p in r.problems) \
            and not any(r.steps for r in plan.requests) and capabilities:
        parts.append(phrase(lang, "can", what=" / ".join(capabilities)))
    return "\n\n".join(dict.fromkeys(p for p in parts if p))  # a note two requests share is said once


def _request(request: Request, turn: _Turn) -> list[str]:
    lang = turn.lang
    out = [problem_text(p, lang, turn.tools) for p in request.problems]
    out += [phrase(lang, "understood", said=said, value=value) for said, value in request.understood]
    for name, index in request.lookups:
        if index in request.steps or index in turn.shown or turn.states[index].status != DONE:
            continue
        turn.shown.add(index)
        out.append(_lookup(name, index, turn))
    if request.gate is not None and request.steps:
        out.append(_gate(request, turn))
    asked = COUNTING.search(request.text)  # how many: a read tool's row count, in a sentence, not its rows
    counting, counter = asked is not None, asked["counter"] if asked else None
    together = _written_together(request, turn)
    for index in request.steps:
        state = turn.states[index]
        if state.status == BLOCKED and state.reason == "at_limit":  # もっと明るく at 100%: nothing written
            tool = turn.tools[turn.plan.steps[index].tool]
            out.append(phrase(lang, "at_limit", label=label(tool, state.values[0], lang), value=state.values[1]))
        elif index in together:
            out.append(together[index])
        elif turn.states[index].status == DONE and index not in turn.shown:
            turn.shown.add(index)
            out += turn.render(index, counting, counter, request.measures, request.grouped)
    shown = {turn.plan.steps[i].tool for i in request.steps if turn.states[i].status == DONE}
    mark = _said_all(turn.lang)  # a list's total says which statuses it holds (sentences.sums): not said again
    return out + [_counted(c, turn) for c in request.counted if c.tool in shown
                  and not (c.value is None and not c.grouped and not c.each and any(mark in line for line in out))]


def _said_all(lang: str) -> str:
    """The words every "these figures include …" sentence has (status_all), whatever its statuses."""
    template = PHRASES.get(lang, PHRASES["en"])["status_all"]
    return max(template.split("{")[0], template.rsplit("}", 1)[-1], key=len)


def _counted(counted: Counted, turn: _Turn) -> str:
    """Which statuses a call counted (planner/statuses.py), in a sentence."""
    tool, lang = turn.tools[counted.tool], turn.lang
    name = label(tool, counted.param, lang)
    if counted.each:
        return statuses_said(lang, "status_each", name, counted.others, phrase(lang, "list").join(counted.each))
    if counted.value is None:
        return statuses_said(lang, "status_by" if counted.grouped else "status_all", name, counted.others)
    return statuses_said(lang, "status_only", name, counted.others, counted.value)


def _written_together(request: Request, turn: _Turn) -> dict[int, str]:
    """Several writes of one tool that the request made, said in one sentence at the first of them (the
    tool's `several` template); the ones that failed are said after it, each on its own."""
    by_tool: dict[str, list[int]] = {}
    for index in request.steps:
        state = turn.states[index]
        if state.status == DONE and index not in turn.shown and all(r.ok for r in state.results):
            by_tool.setdefault(turn.plan.steps[index].tool, []).append(index)
    out = {}
    for name, indexes in by_tool.items():
        results = [r for i in indexes for r in turn.states[i].results]
        today = turn.clocks.get(name, turn.today)
        sentence = several(results, turn.lang, turn.tools.get(name), today=today)
        if sentence is not None:
            out[indexes[0]] = sentence
            turn.shown.update(indexes)
    return out


def _lookup(name: str, index: int, turn: _Turn) -> str:
    """A name looked up for a later call: said when it found none, several, or its call could not run."""
    lang = turn.lang
    result = turn.states[index].results[0]
    users = [i for i, s in enumerate(turn.plan.steps) if any(ref.step == index for ref in s.refs.values())]
    if not isinstance(result, Rows):
        return "\n".join(turn.render(index))
    if not result.rows:
        return phrase(lang, "not_found", name=name)
    if any(turn.states[i].reason == "ambiguous" for i in users):
        column = next((ref.column for i in users for ref in turn.plan.steps[i].refs.values() if ref.step == index),
                      "")
        which = phrase(lang, "which", name=name, what=label(turn.tools.get(result.tool), column, lang))
        return "\n".join([*turn.render(index), which])
    if all(turn.states[i].status == DONE for i in users):
        return ""  # the answer of the call it served names what was found
    return "\n".join(turn.render(index))


def _gate(request: Request, turn: _Turn) -> str:
    lang = turn.lang
    assert request.gate is not None
    condition = request.gate.condition
    first = turn.states[request.steps[0]]
    checks = [r for i in request.gate.checks for r in turn.states[i].results]
    figures = [measured(condition, r) for r in checks]
    shown = phrase(lang, "list").join(phrase(lang, f"measure_{condition.measure}", n=number(f))
                                      for f in figures if f is not None)
    cond = condition.text.rstrip("、, ")
    if first.status == SKIPPED and first.reason == "condition":
        return phrase(lang, "not_held", cond=cond, measured=shown)
    if first.status == SKIPPED:
        return phrase(lang, "unknown", cond=cond)
    return phrase(lang, "held", cond=cond, measured=shown)
