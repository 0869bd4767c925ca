"""From one message to a plan: the requests it makes, and the tool calls that answer them.

A request is a clause of the message, or several joined (the details after 「販売登録して。」
belong to it). Each request gets its tools (`choose`) and, for each tool, its arguments
from the values said. A required value that was not said is found, in order: through
the parameter's declared lookup when a name was said (佐藤太郎さん -> get_customers ->
the code), from an earlier request of the same message (…そして今月のこのお客様の…),
from the previous turns (that customer), else the request asks for it. Several values
of one parameter (0009と0010) make one call each. A condition clause makes its request
a check, and the calls of the request it governs wait for that check to hold.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from concierge.catalog.model import (
    AmountExtract,
    CodeExtract,
    CountExtract,
    DateExtract,
    EnumExtract,
    ItemsExtract,
    NameExtract,
    Param,
    Tool,
)
from concierge.language.dates import DateRange, find_dates, resolve
from concierge.planner.choose import choose, keyword_parts, keyword_tools, refusal
from concierge.planner.conditions import Condition
from concierge.planner.lexicon import Lexicon
from concierge.planner.segments import clauses
from concierge.planner.slots import Slots, count, english_items, read

MAX_CALLS_PER_REQUEST = 10
_SMALL_TALK = re.compile(r"(?P<thanks>ありがと|感謝|(?<![a-z])thank|(?<![a-z])thx)"
                         r"|(?P<greeting>こんにちは|こんばんは|おはよう|はじめまして|(?<![a-z])(?:hello|hi|hey)(?![a-z]))",
                         re.IGNORECASE)
_BARE_AMOUNT = re.compile(r"(?:(?<![a-z])(?:for|at|price(?:\s+of)?|total(?:\s+of)?)\s+|金額は?|価格は?)(\d[\d,]*)"
                          r"|(?<![\d,])(\d[\d,]*)\s*で(?=売|販売|買)", re.IGNORECASE)


@dataclass(frozen=True)
class Ref:
    """A value to be read from the rows of an earlier step (a code found by its name)."""

    step: int
    column: str


@dataclass(frozen=True)
class Gate:
    """The calls wait for the check steps, and run only if the condition holds on their results."""

    checks: tuple[int, ...]
    condition: Condition


@dataclass
class Step:
    tool: str
    args: dict[str, Any]
    refs: dict[str, Ref] = field(default_factory=dict)
    gate: Gate | None = None


@dataclass(frozen=True)
class Problem:
    """Why a request makes no call: refused_sql, refused_change, unrelated (greeting, thanks),
    forbidden, missing, ambiguous (which earlier customer?), unchecked (its condition could not be checked)."""

    kind: str
    tool: str | None = None
    params: tuple[str, ...] = ()


@dataclass
class Request:
    text: str
    tools: tuple[str, ...] = ()
    steps: list[int] = field(default_factory=list)
    lookups: list[tuple[str, int]] = field(default_factory=list)  # (name said, lookup step)
    condition: Condition | None = None  # this request checks the condition of the next one
    gate: Gate | None = None
    problems: list[Problem] = field(default_factory=list)
    values: dict[str, list[Any]] = field(default_factory=dict)  # parameter -> values it used (for later ones)


@dataclass
class Plan:
    requests: list[Request] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)

    def add(self, step: Step) -> int:
        for i, known in enumerate(self.steps):
            if known == step:
                return i
        self.steps.append(step)
        return len(self.steps) - 1


@dataclass
class Memory:
    """What earlier turns settled: the values of referable parameters, and the last call."""

    values: dict[str, list[Any]] = field(default_factory=dict)
    last_call: tuple[str, dict[str, Any]] | None = None


@dataclass
class Context:
    lexicon: Lexicon
    offered: set[str]
    today: date
    enum_values: dict[str, list[str]]
    memory: Memory = field(default_factory=Memory)
    clocks: dict[str, date] = field(default_factory=dict)  # a tool whose catalog keeps another clock
    read: dict[str, Slots] = field(default_factory=dict)  # each text is read once per plan


@dataclass
class _Draft:
    texts: list[str]
    condition: Condition | None = None
    sibling: bool = False  # cut from the clause before at と / and: shares its codes and names


def build(text: str, ctx: Context) -> Plan:
    plan = Plan()
    drafts = _drafts(text, ctx)
    for i, draft in enumerate(drafts):
        slots = _read("。".join(draft.texts), ctx)
        if draft.sibling and not (slots.codes or slots.names):
            said = _read("。".join(drafts[i - 1].texts), ctx)
            slots = replace(slots, codes=said.codes, names=said.names)
        request = Request(slots.text, condition=draft.condition)
        previous = plan.requests[-1] if plan.requests else None
        if previous is not None and previous.condition is not None:
            request.gate = Gate(tuple(previous.steps), previous.condition)
            if not previous.steps:
                request.problems.append(Problem("unchecked"))
        ahead = _read("。".join(drafts[i + 1].texts), ctx) if draft.condition and i + 1 < len(drafts) else None
        plan.requests.append(request)
        if not request.problems:
            _plan_request(plan, request, slots, ctx, ahead, first=i == 0)
    return plan


def _read(text: str, ctx: Context) -> Slots:
    if text not in ctx.read:
        ctx.read[text] = read(text, ctx.today, ctx.lexicon, ctx.enum_values)
    return ctx.read[text]


def _drafts(text: str, ctx: Context) -> list[_Draft]:
    """Clauses joined into requests: a clause with no keyword belongs to the request before it."""
    out: list[_Draft] = []
    waiting: list[str] = []
    for clause in clauses(text):
        said = text[clause.start : clause.end]
        if clause.condition is not None:
            out.append(_Draft([*waiting, said], clause.condition))
        elif _asks(_read(said, ctx), ctx):
            parts = _parts(said, ctx)
            out.append(_Draft([*waiting, parts[0]]))
            out += [_Draft([part], sibling=True) for part in parts[1:]]
        elif out and out[-1].condition is None:
            out[-1].texts.append(said)
            continue
        elif out:
            out.append(_Draft([said]))
        else:
            waiting.append(said)
            continue
        waiting = []
    if waiting:
        out.append(_Draft(waiting))
    return out


def _parts(said: str, ctx: Context) -> list[str]:
    """A clause that asks different tools for things joined by と / and, cut into one clause each."""
    parts = keyword_parts(_read(said, ctx), ctx.lexicon, ctx.offered)
    cuts = [part.start for previous, part in zip(parts, parts[1:], strict=False) if part.tool != previous.tool]
    bounds = [0, *cuts, len(said)]
    pieces = [said[a:b].strip(" 、,と") for a, b in zip(bounds, bounds[1:], strict=False)]
    return [p for p in pieces if p] or [said]


def _asks(slots: Slots, ctx: Context) -> bool:
    return bool(keyword_tools(slots, ctx.lexicon, ctx.offered)) or refusal(slots, ctx.lexicon) is not None


def _plan_request(plan: Plan, request: Request, slots: Slots, ctx: Context, ahead: Slots | None,
                  first: bool) -> None:
    last = ctx.memory.last_call
    choice = choose(slots, ctx.lexicon, ctx.offered, last[0] if last and first else None)
    if choice.refused:
        request.problems.append(Problem(f"refused_{choice.refused}"))
        return
    if not choice.tools:
        small_talk = _SMALL_TALK.search(slots.text)
        request.problems.append(Problem((small_talk.lastgroup if small_talk else None) or "unrelated"))
        return
    request.tools = choice.tools
    for name in choice.tools:
        tool = ctx.lexicon.tools[name]
        if name not in ctx.offered or (request.condition and tool.mode != "read"):
            request.problems.append(Problem("forbidden", name))
            continue
        base = last[1] if choice.follow_up and last else {}
        problem = _plan_call(plan, request, tool, slots, ctx, ahead, base)
        if problem:
            request.problems.append(problem)


def _plan_call(plan: Plan, request: Request, tool: Tool, slots: Slots, ctx: Context, ahead: Slots | None,
               base: dict[str, Any]) -> Problem | None:
    dated = [n for n, p in tool.params.items() if isinstance(p.extract, DateExtract)]
    today = ctx.clocks.get(tool.name, ctx.today)
    if today != ctx.today:
        slots = replace(slots, dates=find_dates(slots.text, today))
    periods = _dates(tool, slots, today) or [{n: base[n] for n in dated if base.get(n) is not None}]
    values = _values_said(tool, slots, ctx, base, dated)
    missing = []
    named = _named_lookup(tool, slots, values)
    for pname, param in tool.params.items():
        if pname in values or pname in periods[0] or param.extract is None:
            continue
        refers = isinstance(param.extract, CodeExtract) and bool(param.extract.refer)
        in_focus = refers and not base and not any(values.values()) and not periods[0]  # 電話番号は？
        if not (param.required or pname in slots.referred or (slots.pronoun and refers) or in_focus
                or pname == named):
            continue
        found = _find(plan, request, tool, pname, param, slots, ctx, ahead)
        if isinstance(found, Problem) and in_focus and not param.required:
            continue
        if isinstance(found, Problem):
            return found
        if found:
            values[pname] = found
        elif param.required:
            missing.append(pname)
    if missing:
        return Problem("missing", tool.name, tuple(missing))
    request.values.update(values)
    request.values.update({k: [v] for k, v in periods[0].items()})
    _add_steps(plan, request, tool, values, periods)
    return None


def _values_said(tool: Tool, slots: Slots, ctx: Context, base: dict[str, Any], dated: list[str]
                 ) -> dict[str, list[Any]]:
    """Each parameter's values said in the request (dates apart), else the value of the call followed up."""
    values: dict[str, list[Any]] = {}
    for pname, param in tool.params.items():
        said = [] if pname in dated else _said(tool, pname, param, slots, ctx)
        if said:
            values[pname] = said
        elif base.get(pname) is not None and pname not in dated:
            values[pname] = [base[pname]]
    return values


def _add_steps(plan: Plan, request: Request, tool: Tool, values: dict[str, list[Any]],
               periods: list[dict[str, str]]) -> None:
    """One call per combination of the values and periods said (at most MAX_CALLS_PER_REQUEST)."""
    names = list(values)
    combos = itertools.product(itertools.product(*values.values()), periods)
    for combo, period in itertools.islice(combos, MAX_CALLS_PER_REQUEST):
        chosen = dict(zip(names, combo, strict=True))
        args = {k: v for k, v in chosen.items() if not isinstance(v, Ref)}
        refs = {k: v for k, v in chosen.items() if isinstance(v, Ref)}
        ordered = {k: ({**args, **period})[k] for k in tool.params if k in args or k in period}
        request.steps.append(plan.add(Step(tool.name, ordered, refs, request.gate)))


def _named_lookup(tool: Tool, slots: Slots, values: dict[str, list[Any]]) -> str | None:
    """A name said to a tool that takes no name (orders of Chika Smith): the first optional code
    parameter with a lookup finds the code from it, as a required one would."""
    if not slots.names or any(isinstance(p.extract, NameExtract) for p in tool.params.values()):
        return None
    return next((n for n, p in tool.params.items() if isinstance(p.extract, CodeExtract) and p.extract.lookup
                 and not p.required and n not in values), None)


def _find(plan: Plan, request: Request, tool: Tool, pname: str, param: Param, slots: Slots, ctx: Context,
          ahead: Slots | None) -> list[Any] | Problem:
    """A value not said in this request: looked up by name, carried from before, or remembered."""
    x = param.extract
    if isinstance(x, CodeExtract) and x.lookup and slots.names and x.lookup.tool in ctx.offered:
        refs = []
        for name, _ in slots.names:
            step = plan.add(Step(x.lookup.tool, {x.lookup.arg: name}))
            request.lookups.append((name, step))
            refs.append(Ref(step, x.lookup.column))
        return refs
    for earlier in reversed(plan.requests[:-1]):
        if earlier.values.get(pname):
            return earlier.values[pname]
    if ahead is not None:
        said = _said(tool, pname, param, ahead, ctx)
        if said:
            return said
    remembered = ctx.memory.values.get(pname) or []
    if len(remembered) > 1:
        return Problem("ambiguous", tool.name, (pname,))
    return remembered


def _said(tool: Tool, pname: str, param: Param, slots: Slots, ctx: Context) -> list[Any]:
    """The values of one parameter said in the request (several only where each makes a call)."""
    x = param.extract
    if isinstance(x, CodeExtract):
        return list(dict.fromkeys(c.value for c in slots.codes if re.fullmatch(param.pattern or "", c.value)))
    if isinstance(x, NameExtract):
        return list(dict.fromkeys(n for n, _ in slots.names))
    if isinstance(x, EnumExtract):
        return slots.enum_values(ctx.lexicon.enum_of[(tool.name, pname)].key)
    if isinstance(x, AmountExtract):
        if slots.amounts:
            return [slots.amounts[0][0]]
        m = _BARE_AMOUNT.search(slots.read_text)
        return [int((m.group(1) or m.group(2)).replace(",", ""))] if m and param.required else []
    if isinstance(x, ItemsExtract):
        goods = slots.items[0][0] if slots.items else english_items(slots)
        return [goods] if goods else []
    if isinstance(x, CountExtract):
        n = count(slots, ctx.lexicon, tool.name, pname)
        return [n] if n is not None else []
    return []


def _dates(tool: Tool, slots: Slots, today: date) -> list[dict[str, str]]:
    """Date arguments, one set per period said: a day, a period (先週, 4月10日から4月20日, 先月と今月),
    or a current and a previous period (two said: the later one is current; one said: the one
    before it is the previous)."""
    params = {(p.extract.part, p.extract.period): name for name, p in tool.params.items()
              if isinstance(p.extract, DateExtract)}
    if not params or not slots.dates:
        return []
    day = next((d.range.start for d in slots.dates if d.range.start == d.range.end), None)
    fixed = {params[("day", "current")]: day.isoformat()} if ("day", "current") in params and day else {}
    if not any(part in ("start", "end") for part, _ in params):
        return [fixed] if fixed else []
    if any(period == "previous" for _, period in params):
        ranges = [d.range for d in slots.dates[:2]]
        current = max(ranges, key=lambda r: r.start)
        previous = min(ranges, key=lambda r: r.start) if len(ranges) == 2 and ranges[0] != ranges[1] else None
        choices = [{"current": current, "previous": previous or current.previous()}]
    else:
        choices = [{"current": span} for span in _periods(slots, today)]
    out = []
    for periods in choices:
        args = dict(fixed)
        for (part, period), name in params.items():
            span = periods.get(period)
            if span is not None and part in ("start", "end"):
                args[name] = (span.start if part == "start" else span.end).isoformat()
        out.append(args)
    return out


def _periods(slots: Slots, today: date) -> list[DateRange]:
    """Each period said, periods joined as one (先月と今月) counted once: 先週と先月 are two."""
    out: list[DateRange] = []
    for match in slots.dates:
        if any(span.start <= match.range.start and match.range.end <= span.end for span in out):
            continue
        joined = resolve(slots.text[match.start_index :], today) if match.kind != "span" else None
        out.append(joined or match.range)
    return out
