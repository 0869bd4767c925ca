"""Where a turn stands, read from the conversation the loop sends with every request.

The planner keeps no state between requests: each time it rebuilds the plan from the
turn's message, matches the plan's calls against the calls already made in this turn
(same tool, same arguments, in order), and so knows which results are in and which
calls come next. A write that waited for the user's confirmation counts as made once
its confirmed call (the loop's, right after it) has a result. Earlier turns give the
`Memory`: the last values of the parameters a request may point back at (そのお客様),
and the last call, which a follow-up (「0010は？」) repeats with new values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from concierge.agent.providers.interface import Message
from concierge.catalog.model import Tool
from concierge.planner import levels
from concierge.planner.conditions import holds
from concierge.planner.lines import Held
from concierge.planner.plan import MAX_CALLS_PER_REQUEST, Memory, Plan, Step
from concierge.sources.result import Failure, Rows, ToolResult

DONE, READY, WAITING, SKIPPED, BLOCKED = "done", "ready", "waiting", "skipped", "blocked"


@dataclass
class Made:
    """A call the model asked for in this conversation, and its result once it came."""

    name: str
    args: dict[str, Any]
    result: ToolResult | None = None


@dataclass
class State:
    status: str
    results: list[ToolResult] = field(default_factory=list)
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # still to make
    reason: str | None = None  # skipped: condition | unknown; blocked: not_found | ambiguous | failed | at_limit
    values: list[Any] = field(default_factory=list)  # blocked as ambiguous: the candidates; at_limit: param, level


def turn_start(messages: list[Message]) -> int:
    """The index of the user message this turn answers (a confirmation continues the turn before it)."""
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    if not users:
        return -1
    # two writes in one turn: two confirmations; a reply that had the card's question asked again (いいです) is no
    # turn of its own either
    asked = [i for i in users if not (messages[i].confirms or messages[i].repeats)]
    return asked[-1] if asked else users[0]


def calls_made(messages: list[Message]) -> list[Made]:
    made: dict[str, Made] = {}
    for m in messages:
        if m.role == "assistant":
            for call in m.tool_calls:
                made[call.id] = Made(call.name, dict(call.args) if isinstance(call.args, dict) else {})
        elif m.role == "tool" and m.tool_call_id in made:
            made[m.tool_call_id].result = m.result
    return list(made.values())


def memory(earlier: list[Message], tools: dict[str, Tool], referable: set[str], held: Held | None = None) -> Memory:
    mem = Memory(held=held, last_lines=_last_lines(earlier, held), chosen_all=_commanded(earlier, tools))
    asked = turn_start(earlier)
    mem.said = (earlier[asked].text or "") if asked >= 0 else ""
    last_turn = calls_made(earlier[asked:]) if asked >= 0 else []
    mem.previewed, mem.instead = _previewed(last_turn, tools), _instead(last_turn, tools)
    made = calls_made(earlier)
    mem.level_of = levels.known([(c.name, c.args, c.result.rows) for c in made if isinstance(c.result, Rows)], tools)
    for call in made:
        result = call.result
        if result is not None and result.status in ("refused", "error") and call.name in tools \
                and tools[call.name].mode == "write" and not tools[call.name].confirm:
            mem.last_command, mem.command_refused = (call.name, dict(call.args)), True  # 22時 refused: じゃあ9時で
        if result is not None and result.status == "error" and call.name in tools:
            _choose(mem, tools[call.name], call.args)  # 玄関の電気つけて, offline: ついてる？ asks of it
        if not isinstance(result, Rows) or call.name not in tools:
            continue
        rows = result.rows
        for pname in referable:
            if call.args.get(pname) is not None:
                mem.values[pname] = [call.args[pname]]
            elif rows and any(pname in row for row in rows):
                mem.values[pname] = list(dict.fromkeys(r[pname] for r in rows if r.get(pname) is not None))
        _choose(mem, tools[call.name], call.args)
        said = {k: v for k, v in (result.args or call.args).items() if k in call.args and v is not None}
        mem.shown = _shown(mem.shown, held, tools[call.name], call.args, rows)
        if tools[call.name].mode == "read":
            mem.last_call = (call.name, said)
        elif not tools[call.name].confirm:
            mem.last_command, mem.command_refused = (call.name, said), False
    return mem


def _previewed(last_turn: list[Made], tools: dict[str, Tool]) -> tuple[str, dict[str, Any]] | None:
    """The write the turn before ended on, shown for a yes that has not come: its call and values."""
    last = last_turn[-1] if last_turn else None
    if last is None or last.result is None or last.result.status != "confirm" or last.name not in tools:
        return None
    return last.name, dict(last.result.args or last.args)


def _instead(last_turn: list[Made], tools: dict[str, Tool]) -> tuple[str, dict[str, Any], tuple[str, ...]] | None:
    """The write the turn before ended on, refused, and the names its result offered in its place."""
    last = last_turn[-1] if last_turn else None
    if last is None or last.result is None or last.result.status not in ("error", "refused") \
            or last.name not in tools or tools[last.name].mode != "write" or not isinstance(last.result, Failure):
        return None
    offered = tuple(dict.fromkeys(str(r["name"]) for r in last.result.rows if r.get("name") is not None))
    return (last.name, dict(last.result.args or last.args), offered) if offered else None


def _data_args(tool: Tool, args: dict[str, Any]) -> dict[str, Any]:
    """The values of the data a call took (the light), by parameter."""
    return {pname: args[pname] for pname, param in tool.params.items()
            if param.enum is not None and param.enum.values is None and args.get(pname) is not None}


def _choose(mem: Memory, tool: Tool, args: dict[str, Any]) -> None:
    """The values of the data a call took are the conversation's focus."""
    mem.chosen.update(_data_args(tool, args))


def _commanded(earlier: list[Message], tools: dict[str, Tool]) -> dict[str, list[Any]]:
    """The values of the data the last turn that made commands gave them (both lights switched on): what "them"
    points back at."""
    last: dict[str, list[Any]] = {}
    turn: dict[str, list[Any]] = {}
    for m in earlier:
        if m.role == "user" and not m.confirms:
            turn = {}
        for call in m.tool_calls if m.role == "assistant" else ():
            tool = tools.get(call.name)
            if tool is None or tool.mode != "write" or tool.confirm or not isinstance(call.args, dict):
                continue
            for pname, value in _data_args(tool, call.args).items():
                turn[pname] = list(dict.fromkeys([*turn.get(pname, []), value]))
            last = turn
    return last


def _last_lines(earlier: list[Message], held: Held | None) -> tuple[Any, ...]:
    """The lines the last turn that added or changed lines named, in order (クロワッサン3つとメロンパン3つ: both;
    then 「やっぱ2つで」 is asked which)."""
    if held is None:
        return ()
    last: list[Any] = []
    turn: list[Any] = []
    for m in earlier:
        if m.role == "user" and not m.confirms:
            turn = []
        for call in m.tool_calls if m.role == "assistant" else ():
            if call.name in (held.add, held.change) and isinstance(call.args, dict) and call.args.get(held.key):
                turn.append(call.args[held.key])
                last = turn
    return tuple(dict.fromkeys(last))


def _shown(before: tuple[Any, ...], held: Held | None, tool: Tool, args: dict[str, Any],
           rows: list[dict[str, Any]]) -> tuple[Any, ...]:
    """The values of the lines' key the reads since the last write showed: a read of one (the seafood bowl's
    price) adds it; a write starts again."""
    if held is None:
        return ()
    if tool.mode == "write":
        return ()
    named = [args[held.key]] if args.get(held.key) is not None else []
    found = named or list(dict.fromkeys(r.get(held.key) for r in rows if r.get(held.key) is not None))
    return tuple(dict.fromkeys([*before, *found])) if len(found) == 1 else before


def advance(plan: Plan, made: list[Made], tools: dict[str, Tool]) -> tuple[list[tuple[str, dict]], list[State]]:
    """The calls to make next (none when the plan is complete), and the state of every step."""
    used: set[int] = set()
    states: list[State] = []
    batch: list[tuple[str, dict]] = []
    write_open = False  # a write not finished yet: nothing planned after it runs before it
    for step in plan.steps:
        state = _state(step, states, made, used, tools)
        write = tools[step.tool].mode == "write"
        if state.status == READY:
            unsettled = any(s.status in (READY, WAITING) for s in states)
            if write_open or (write and (batch or unsettled)):
                state = State(WAITING)
            else:
                batch += state.calls[:1] if write else state.calls
        if write and state.status in (READY, WAITING):
            write_open = True
        states.append(state)
    return batch, states


def _state(step: Step, states: list[State], made: list[Made], used: set[int], tools: dict[str, Tool]) -> State:
    held_back = _after(step, states) or _gated(step, states)
    if held_back is not None:
        return held_back
    arg_sets = [dict(step.args)]
    for pname, ref in step.refs.items():
        source = states[ref.step]
        if source.status in (READY, WAITING):
            return State(WAITING)
        first = source.results[0] if source.status == DONE and source.results else None
        if not isinstance(first, Rows):
            return State(BLOCKED, reason="failed")
        rows = first.rows
        values = list(dict.fromkeys(r[ref.column] for r in rows if r.get(ref.column) is not None))
        if ref.by:  # one step brighter than the light is now; at the end of its range, nothing is written
            param = tools[step.tool].params[pname]
            moved = [m for v in values if (m := levels.moved(v, ref.by)) is not None]
            if moved and not all(levels.within(m, param) for m in moved):
                return State(BLOCKED, reason="at_limit", values=[pname, *values])
            values = moved
        if not values:
            return State(BLOCKED, reason="not_found")
        if len(values) > 1 and tools[step.tool].mode == "write":
            return State(BLOCKED, reason="ambiguous", values=values)
        arg_sets = [{**a, pname: v} for a in arg_sets for v in values][:MAX_CALLS_PER_REQUEST]
    results, missing = [], []
    for args in arg_sets:
        result = _match(step.tool, args, made, used)
        if result is None:
            missing.append((step.tool, args))
        else:
            results.append(result)
    if missing:
        return State(READY, results=results, calls=missing)
    return State(DONE, results=results)


def _gated(step: Step, states: list[State]) -> State | None:
    """A step of a request that a condition governs: waiting for its checks, skipped when it does not hold."""
    if step.gate is None:
        return None
    checks = [states[i] for i in step.gate.checks]
    if any(c.status in (READY, WAITING) for c in checks):
        return State(WAITING)
    verdict = holds(step.gate.condition, [r for c in checks for r in c.results])
    return None if verdict else State(SKIPPED, reason="unknown" if verdict is None else "condition")


def _after(step: Step, states: list[State]) -> State | None:
    """A step made only once another succeeded (a swap's old line goes once the new item is in): waiting for it,
    skipped when it did not succeed, else None."""
    if step.after is None:
        return None
    if states[step.after].status in (READY, WAITING):
        return State(WAITING)
    return None if succeeded(states[step.after]) else State(SKIPPED, reason="failed")


def succeeded(state: State) -> bool:
    return state.status == DONE and all(r.ok for r in state.results)


def _match(name: str, args: dict[str, Any], made: list[Made], used: set[int]) -> ToolResult | None:
    wanted = {k: v for k, v in args.items() if v is not None}
    for i, call in enumerate(made):
        if i in used or call.name != name or {k: v for k, v in call.args.items() if v is not None} != wanted:
            continue
        used.add(i)
        result = call.result or Failure(tool=name, message="no result")
        if result.waits_for_confirmation:  # the loop's confirmed call follows it
            for j in range(i + 1, len(made)):
                later = made[j]
                if j not in used and later.name == name and later.result and not later.result.waits_for_confirmation:
                    used.add(j)
                    return later.result
        return result
    return None
