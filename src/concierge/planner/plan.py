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

import functools
import itertools
import json
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from concierge.catalog.model import (
    AmountExtract,
    CodeExtract,
    CountExtract,
    Current,
    DateExtract,
    EnumExtract,
    ItemsExtract,
    NameExtract,
    Param,
    TimeExtract,
    Tool,
)
from concierge.language.dates import DateRange, find_dates, resolve
from concierge.language.replies import reply
from concierge.language.tokens import Utterance, tokenise
from concierge.pipeline.guard import ascii_digits
from concierge.planner import (
    budget,
    comparisons,
    computed,
    date_pairs,
    elsewhere,
    focus,
    headcount,
    leftover,
    levels,
    measure,
    not_meant,
    people_tables,
    ranking,
    settings_said,
    sold,
    statuses,
    whose,
    words,
    writes,
)
from concierge.planner.choose import (
    JOINER,
    Choice,
    beyond_filler,
    choose,
    coverage,
    keyword_parts,
    keyword_tools,
    recorded_write,
    refusal,
    says_only_values,
    topics,
    unmet,
    unmet_params,
)
from concierge.planner.conditions import Condition, number_before, of_number
from concierge.planner.counting import counts_rows_of, how_many
from concierge.planner.excluded import counted_in, excluded, said_excluded
from concierge.planner.lexicon import (
    KEYWORD,
    TOPIC,
    Lexicon,
    code_pattern,
    finds_by_name,
    reads_data,
    spelt,
    takes,
    takes_code,
    takes_key,
)
from concierge.planner.lines import Ask, Edit, Held, Swap, adds, edit, pointed
from concierge.planner.loose import said_as_person
from concierge.planner.negated import hypothetical, may_be_hypothetical, negated
from concierge.planner.nouns import belongs_to, noun
from concierge.planner.scope import out_of_scope
from concierge.planner.segments import clauses
from concierge.planner.slots import Code, Slots, count, english_items, read
from concierge.planner.text import MASK, fold, mask, normalise
from concierge.planner.unplaced import unplaced
from concierge.sources.sql.executor import Needed

MAX_CALLS_PER_REQUEST = 10  # more, and the request makes none but says so (a value is never dropped unsaid)
MAX_REQUESTS_PER_MESSAGE = 10  # more, and the message is answered only with how many it may ask at once
def _small_talk(said: Utterance) -> str | None:
    """"thanks" or "greeting" for the first thanks or greeting said (ありがとう, thanks, こんにちは, hi), else None: an
    English greeting a word of its own, any other the start of one (thanks, ありがとう)."""
    low = said.text.lower()
    for token in said.tokens:
        for kind in ("thanks", "greeting"):
            if any(spelt(said, low, token.start, words.words("small_talk", f"{kind}_{lang}"),
                         whole=kind == "greeting" and lang == "en") is not None for lang in ("ja", "en")):
                return kind
    return None


def _bare_amount(slots: Slots) -> int | None:
    """An amount said with no unit (for 500, price of 1200, 金額は500, 500で売った), the first one said."""
    said = tokenise(slots.text)
    found = [*_amounts_after_words(said), *_amounts_with(said)]
    unmasked = [(start, value) for start, end, value in found if MASK not in slots.read_text[start:end]]
    return int(min(unmasked)[1].replace(",", "")) if unmasked else None


def _amounts_after_words(said: Utterance) -> Iterator[tuple[int, int, str]]:
    """The numbers said right after `[clauses] amount_before_en` (for 500, with a space) or `amount_before_ja`
    (金額は500): (start, end, the number)."""
    low = said.text.lower()
    for token in said.tokens:
        for lang in ("en", "ja"):
            end = spelt(said, low, token.start, words.said("clauses", f"amount_before_{lang}"))
            number = _number_after(said, end, spaced=lang == "en") if end is not None else None
            if number is not None:
                yield token.start, number[0] + len(number[1]), number[1]


def _number_after(said: Utterance, end: int, spaced: bool) -> tuple[int, str] | None:
    """The number said right after `end`, a space between where `spaced` (none where not): (its start, as said)."""
    after = said.starting(end, len(said.text))
    if not after:
        return None
    start = said.tokens[after.start].start
    if said.text[end:start].strip() or (start > end) != spaced:
        return None
    value = _number_from(said, after.start)
    return (start, value) if value is not None else None


def _number_from(said: Utterance, first: int) -> str | None:
    """The number (digits, commas between) said from token `first` on, as said; None where none begins there."""
    last = first
    while last < len(said.tokens) and of_number(said.tokens[last]) and (
            last == first or said.tokens[last - 1].end == said.tokens[last].start):
        last += 1
    if last == first or not said.tokens[first].surface[:1].isdigit():
        return None
    return said.text[said.tokens[first].start:said.tokens[last - 1].end]


def _amounts_with(said: Utterance) -> Iterator[tuple[int, int, str]]:
    """The numbers said with で before a verb of selling or buying (500で売った): (start, end, the number)."""
    verbs = words.words("clauses", "amount_with")
    for i, token in enumerate(said.tokens[1:-1], start=1):
        if token.surface == "で" and said.tokens[i + 1].surface.startswith(verbs):
            first = number_before(said, i)
            if first is not None:
                yield said.tokens[first].start, token.end, said.text[said.tokens[first].start:said.tokens[i - 1].end]


@dataclass(frozen=True)
class Ref:
    """A value to be read from the rows of an earlier step (a code found by its name)."""

    step: int
    column: str
    by: int = 0  # added to the value read: one step brighter than the light is now


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
    after: int | None = None  # a step that must have succeeded first (a swap's new item, before the old line goes)


@dataclass(frozen=True)
class Problem:
    """Why a request (or part of it) makes no call.

    kinds: refused_sql, refused_change, unrelated (greeting, thanks), forbidden, not_placed (a number said to change a
    write shown for a yes that none of its values took), missing, ambiguous (which
    earlier customer?), unchecked (its condition could not be checked); unknown_value (a word that looks like
    a value matches nothing: `said`, `params`; none_such: so said in a list with a value made, エアコンとテレビ),
    which_value (it matches several: `said`, `candidates`),
    which_reading (a value of the data that is also a word of the question, 商品ランキングの売上: `said`, the value
    in `candidates`), which_row (a name several rows have, 佐藤 of two customers: `said`, their keys in
    `candidates`, the key's parameter first in `params`),
    impossible_value (a value said cannot be taken as given: `said`, `reason`), out_of_scope (a forecast,
    advice, a general question: `reason`), cannot_change (a correction of registered data no tool makes),
    not_taken (a labelled value, such as 顧客コード0009, that the chosen tool takes no parameter for: `said`),
    not_computed (a figure worked out from others, キャンセル率 or 平均単価, that no tool gives: `said`),
    ungrouped (a ranking of an entity, いちばん多い国, that no summary groups by: `said`), not_grouped (a grouping
    said, 整備士ごとの修理件数, that no summary of the rows makes: `said`, the summary as `tool` where there is one),
    too_many (more calls than one request makes, or more requests than one message: `reason`)."""

    kind: str
    tool: str | None = None
    params: tuple[str, ...] = ()
    said: str = ""  # the words of the request the problem is about
    candidates: tuple[str, ...] = ()  # values read from the data that the words could mean
    every: bool = False  # the candidates are every value there is (お風呂の電気: the lights there are)
    reason: tuple[tuple[str, str], ...] = ()  # (language, text): why, in each language


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
    understood: list[tuple[str, str]] = field(default_factory=list)  # (words said, value used) when not verbatim
    measures: dict[str, str] = field(default_factory=dict)  # tool -> the one figure of its result the request names
    grouped: set[str] = field(default_factory=set)  # summaries whose grouping the request says (月別), the default too
    counted: list[statuses.Counted] = field(default_factory=list)  # the statuses its money adds up


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
    last_command: tuple[str, dict[str, Any]] | None = None  # the last write that ran with no confirmation
    command_refused: bool = False  # and the guard refused it: its values said again are asked again
    previewed: tuple[str, dict[str, Any]] | None = None  # the write the turn before showed for a yes (700円にして)
    chosen: dict[str, Any] = field(default_factory=dict)  # enum parameter -> the value its last call used
    chosen_all: dict[str, list[Any]] = field(default_factory=dict)  # and the values the last turn's commands used
    said: str = ""  # the previous turn's request: the figure it named holds for a follow-up (2011年は？)
    held: Held | None = None  # the lines of the state as the turn began (the order), and the tools that edit them
    shown: tuple[Any, ...] = ()  # the values of the held lines' key that reads showed since the last write
    last_lines: tuple[Any, ...] = ()  # the lines the last turn that added or changed lines named
    level_of: dict[levels.Key, Any] = field(default_factory=dict)  # the last level known of each device (levels.py)
    # the write the turn before was refused, with what its result offered instead (Lサイズ for a large cola): a yes
    # takes the one offered
    instead: tuple[str, dict[str, Any], tuple[str, ...]] | None = None


@dataclass
class Context:
    lexicon: Lexicon
    offered: set[str]
    today: date
    # the values read from the data: the pipeline's own (`GuardContext`), never changed by a plan
    enum_values: Mapping[str, list[str]]
    memory: Memory = field(default_factory=Memory)
    enum_synonyms: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    enum_shared: Mapping[str, Mapping[str, list[str]]] = field(default_factory=dict)  # a name several rows have: keys
    enum_fits: Mapping[str, Mapping[str, list[str]]] = field(default_factory=dict)  # a value: those of another it takes
    needs: Mapping[str, Mapping[str, Needed]] = field(default_factory=dict)  # a value: what its write is refused
    clocks: dict[str, date] = field(default_factory=dict)  # a tool whose catalog keeps another clock
    now: str | None = None  # the time of day (HH:MM) a time said is read against (7時, 1時間後)
    read: dict[str, Slots] = field(default_factory=dict)  # each text is read once per plan
    edits: dict[str, Edit] = field(default_factory=dict)  # and its edit of the order's lines worked out once
    facts_key: tuple = ()  # the values read from the data, as the key of a plan kept (planner/__init__.py)


@dataclass
class _Draft:
    texts: list[str]
    condition: Condition | None = None
    sibling: bool = False  # cut from the clause before at と / and: shares its codes and names


def build(text: str, ctx: Context) -> Plan:
    plan = Plan()
    taken = _offer_taken(text, ctx)
    if taken is not None:
        return taken
    if ctx.memory.previewed is not None and focus.adds_another(text):  # and also 0017: not a change of the card
        ctx = replace(ctx, memory=replace(ctx.memory, previewed=None))
    text = pointed(text, ctx.memory.held, ctx.memory.shown)  # one of each: the items just looked up
    text = _moved_again(text, ctx) or text
    drafts = _drafts(text, ctx)
    if len(drafts) > MAX_REQUESTS_PER_MESSAGE:
        return _too_many_requests(text, len(drafts))
    read_by_request: list[Slots] = []
    for i, draft in enumerate(drafts):
        budget.check()
        slots = _read("。".join(draft.texts), ctx)
        read_by_request.append(slots)
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
    return _declined(_taken_back(_placed(plan, text, read_by_request, ctx), text, ctx.memory.held), ctx.memory.held)


_COMMAS = frozenset(words.said("clause_cuts", "comma"))
_APART_CHARS = 80  # settings said in one breath (キッチン50、テレビは5) are short; a long text is read whole


def _moved_again(text: str, ctx: Context) -> str | None:
    """The request before, where this one only asks for more of what it did and it moved a level (もうちょい after
    リビングもう少し暗くして: its light another step down, from the level it set); None otherwise."""
    last, before = ctx.memory.last_command, ctx.memory.said
    if last is None or last[0] not in ctx.offered or not before or fold(normalise(beyond_filler(text))) not in _more():
        return None
    tool = ctx.lexicon.tools[last[0]]
    said = _read(before, ctx)
    moves = levels.moves(tool, said.cue_text) and keyword_tools(said, ctx.lexicon, ctx.offered) == [tool.name]
    return before if moves else None


@functools.cache
def _more() -> frozenset[str]:
    """The words of `[more_of_the_same]`, as a request made only of one reads (folded, fillers aside)."""
    return frozenset(fold(normalise(beyond_filler(w))) for w in words.words("more_of_the_same", "words"))


def _offer_taken(text: str, ctx: Context) -> Plan | None:
    """はい / yes please to a write refused with something offered instead (売り切れ: 親子丼はいかが): the refused call
    with the one offered; with several offered, which is asked. Never taken for a yes to anything else."""
    instead = ctx.memory.instead
    if instead is None or reply(text) != "yes":
        return None
    name, args, offered = instead
    tool = ctx.lexicon.tools.get(name)
    param = next((p for p in (tool.params if tool else {}) if (group := ctx.lexicon.enum_of.get((name, p)))
                  and set(offered) <= set(ctx.enum_values.get(group.key, ()))), None)
    if tool is None or param is None or name not in ctx.offered:
        return None
    request = Request(text, tools=(name,))
    plan = Plan([request])
    if len(offered) == 1:
        request.steps.append(plan.add(Step(name, {**args, param: offered[0]})))
    else:
        request.problems.append(Problem("missing", name, (param,), candidates=offered))
    return plan


def _placed(plan: Plan, text: str, read: list[Slots], ctx: Context) -> Plan:
    """The plan, or none of its calls when a request for a write says a value that no call takes: which is said
    (planner/unplaced.py), never dropped in silence."""
    requests = [(slots, [(plan.steps[i].tool, plan.steps[i].args) for i in r.steps])
                for slots, r in zip(read, plan.requests, strict=True) if r.steps and not r.problems]
    left = unplaced(requests, [(s.tool, s.args) for s in plan.steps], ctx.lexicon, ctx.offered)
    if left is None:
        return plan
    problem = Problem("unknown_value", left.tool, (left.param,), said=left.said) if left.tool and left.param \
        else Problem("unplaced", said=left.said)
    return Plan([Request(text, problems=[problem])])


def _taken_back(plan: Plan, text: str, held: Held | None) -> Plan:
    """A message that puts a line in and takes it out again (味噌汁 もうひとつ…いや やっぱいらないです): the caller
    took back what they said, and which of it holds is not known. No write is made; they are asked again."""
    if held is None or held.remove is None:
        return plan
    added = {s.args.get(held.key) for s in plan.steps if s.tool == held.add}
    removed = {s.args.get(held.key) for s in plan.steps if s.tool == held.remove}
    if not (added & removed - {None}):
        return plan
    return Plan([Request(text, problems=[Problem("negated", said=text)])])


def _declined(plan: Plan, held: Held | None) -> Plan:
    """A message that puts a line in and says of another, not held, that it is not wanted (みそ汁はいらないです
    唐揚げ弁当だけ): that line is declined, never taken out of the order, nor said back."""
    if held is None or held.remove is None or not any(s.tool == held.add for s in plan.steps):
        return plan
    names = {str(n) for n in held.names()}
    dropped = {i for i, s in enumerate(plan.steps) if s.tool == held.remove and str(s.args.get(held.key)) not in names}
    pointing = {s.after for s in plan.steps} | {r.step for s in plan.steps for r in s.refs.values()} \
        | {c for r in plan.requests if r.gate for c in r.gate.checks}
    if not dropped or dropped & pointing:
        return plan
    kept = [i for i in range(len(plan.steps)) if i not in dropped]
    index = {old: new for new, old in enumerate(kept)}
    declined = {str(plan.steps[i].args.get(held.key)) for i in dropped}
    steps = [replace(s, after=None if s.after is None else index[s.after], gate=_moved(s.gate, index),
                     refs={k: replace(r, step=index[r.step]) for k, r in s.refs.items()})
             for s in (plan.steps[i] for i in kept)]
    for r in plan.requests:
        r.steps = [index[i] for i in r.steps if i in index]
        r.understood = [(said, value) for said, value in r.understood if value not in declined]
        r.gate = _moved(r.gate, index)
    return Plan(plan.requests, steps)


def _moved(gate: Gate | None, index: dict[int, int]) -> Gate | None:
    """The gate with its checks' steps at their new places."""
    return None if gate is None else replace(gate, checks=tuple(index[c] for c in gate.checks))


def _too_many_requests(text: str, said: int) -> Plan:
    """The plan of a message that asks for more than MAX_REQUESTS_PER_MESSAGE things: none of them, and why."""
    most = MAX_REQUESTS_PER_MESSAGE
    return Plan([Request(text, problems=[Problem("too_many", reason=(
        ("ja", f"このメッセージには{said}件のご依頼があり、一度にお答えできるのは{most}件までです。"
               f"{most}件以内ずつに分けてお送りください。"),
        ("en", f"This message asks for {said} things, and I can answer at most {most} in one message. "
               f"Please split it into messages of {most} requests or fewer.")))])])


def _read(text: str, ctx: Context) -> Slots:
    if text not in ctx.read:
        ctx.read[text] = read(text, ctx.today, ctx.lexicon, ctx.enum_values, _focus(ctx), ctx.enum_synonyms,
                              ctx.now)
    return ctx.read[text]


def _focus(ctx: Context) -> DateRange | None:
    """The period of the previous turn's call, which その前の週 / the week after move from."""
    last = ctx.memory.last_call
    if last is None or last[0] not in ctx.lexicon.tools:
        return None
    tool = ctx.lexicon.tools[last[0]]
    said = {(p.extract.part, p.extract.period): last[1].get(n) for n, p in tool.params.items()
            if isinstance(p.extract, DateExtract) and last[1].get(n)}
    start = said.get(("start", "current")) or said.get(("day", "current"))
    end = said.get(("end", "current")) or said.get(("day", "current"))
    try:
        return DateRange(date.fromisoformat(str(start)), date.fromisoformat(str(end))) if start and end else None
    except ValueError:
        return None


def _drafts(text: str, ctx: Context) -> list[_Draft]:
    """Clauses joined into requests: a clause with no keyword belongs to the request before it."""
    out: list[_Draft] = []
    waiting: list[str] = []
    for clause in clauses(text):
        budget.check()
        said = text[clause.start : clause.end]
        if clause.condition is not None:
            out.append(_Draft([*waiting, said], clause.condition))
        elif _beyond_tools(_read(said, ctx), ctx) is not None and out:  # あと来月の予測も: declined on its own
            out.append(_Draft([*waiting, said]))
        elif _asks(_read(said, ctx), ctx):
            if waiting and _records_another_write(waiting, said, ctx):  # one nori bento. Pickup at 6:30 pm
                out.append(_Draft(waiting))
                waiting = []
            parts = _parts(said, ctx)
            out.append(_Draft([*waiting, parts[0]]))
            out += [_Draft([part], sibling=True) for part in parts[1:]]
        elif out and out[-1].condition is None:
            out[-1].texts = _corrected(out[-1].texts, said, ctx) or [*out[-1].texts, said]
            continue
        elif out:
            out.append(_Draft([said]))
        else:
            pieces = _at_commas(said)
            apart = 1 < len(pieces) <= MAX_REQUESTS_PER_MESSAGE and _writes_apart(pieces, ctx)
            waiting += pieces if apart else [said]
            continue
        waiting = []
    # キッチン50、テレビは5: the light's brightness, the TV's channel
    if 1 < len(waiting) <= MAX_REQUESTS_PER_MESSAGE and _writes_apart(waiting, ctx):
        return [*out, *(_Draft([said]) for said in waiting)]
    if waiting:  # no keyword: 唐揚げ弁当3つ 7時半 is the bentos, and the time they are picked up at
        last = waiting[-1]
        cut = _time_apart(last, _read(last, ctx), [], ctx)
        out += [_Draft([*waiting[:-1], last[:cut].strip()]), _Draft([last[cut:]])] if cut else [_Draft(waiting)]
    return out


def _at_commas(said: str) -> list[str]:
    """The clause cut where a comma is said (キッチン50|テレビは5); whole where it would make too many requests."""
    if sum(said.count(c) for c in _COMMAS) >= MAX_REQUESTS_PER_MESSAGE:
        return [said]
    utterance = tokenise(said)
    cuts = [t for t in utterance.tokens if t.surface in _COMMAS]
    bounds = [0, *(c for t in cuts for c in (t.start, t.end)), len(said)]
    pieces = [said[a:b].strip() for a, b in zip(bounds[::2], bounds[1::2], strict=True)]
    return [p for p in pieces if p]


def _writes_apart(clauses: list[str], ctx: Context) -> bool:
    """Whether clauses with no keyword each record a write of their own, and not all the same one: requests apart
    (唐揚げ弁当3つ、のり弁2つ is one order)."""
    if sum(map(len, clauses)) > _APART_CHARS:
        return False
    recorded = set()
    for said in clauses:
        write = recorded_write(_read(said, ctx), ctx.lexicon, ctx.offered)
        if write is None:
            return False
        recorded.add(write)
    return len(recorded) > 1


def _corrected(texts: list[str], said: str, ctx: Context) -> list[str] | None:
    """The request before with its value replaced, where a clause only corrects it (寝室消して。あ、やっぱキッチン:
    the kitchen light, not the bedroom's and the kitchen's); None when the clause is no such correction."""
    now = _read(said, ctx)
    if not words.pattern("lines", "correcting").search(now.cue_text):
        return None
    groups = {k for h in now.enums for k, _ in h.value if k not in ctx.lexicon.static_values}
    if len(groups) != 1 or len(now.enums) != 1:
        return None
    before = "。".join(texts)
    (group,) = groups
    old = [h for h in _read(before, ctx).enums if any(k == group for k, _ in h.value)]
    if len(old) != 1:
        return None
    new = now.enums[0]
    return [before[:old[0].start] + said[new.start:new.end] + before[old[0].end:]]


def _records_another_write(waiting: list[str], said: str, ctx: Context) -> bool:
    """Whether the clauses before a keyword ask for a write of their own, by what they record, that the
    keyword's tools are not: then they are a request of their own, never dropped into the keyword's."""
    recorded = recorded_write(_read("。".join(waiting), ctx), ctx.lexicon, ctx.offered)
    return recorded is not None and recorded not in keyword_tools(_read(said, ctx), ctx.lexicon, ctx.offered)


def _parts(said: str, ctx: Context) -> list[str]:
    """A clause that asks different tools for things joined by と / and, cut into one clause each; the words
    before the first keyword that record another write are a clause of their own (two gyudon and a coke | and
    I'll pick it up at 7:15)."""
    slots = _read(said, ctx)
    parts = keyword_parts(slots, ctx.lexicon, ctx.offered)
    held = ctx.memory.held
    if held is not None and held.rows and all(ctx.lexicon.tools[p.tool].mode == "write" for p in parts) \
            and _edit(slots, ctx):
        return [said]  # みっつのうち ひとつを 鮭弁当にして: an edit of the order, read whole
    cuts = [part.start for previous, part in zip(parts, parts[1:], strict=False) if part.tool != previous.tool]
    lead = _lead_write(said, slots, parts[0].tool, ctx) if parts else None
    cuts = [lead, *cuts] if lead else cuts
    timed = _time_apart(said, slots, [p.tool for p in parts], ctx)
    cuts = sorted({*cuts, timed}) if timed else cuts
    bounds = [0, *cuts, len(said)]
    pieces = [said[a:b].strip(" 、,と") for a, b in zip(bounds, bounds[1:], strict=False)]
    return [p for p in pieces if p] or [said]


def _lead_write(said: str, slots: Slots, tool: str, ctx: Context) -> int | None:
    """Where the words before a tool's first keyword end, when they record a write the tool is not and takes none
    of: joined to it by と / and (two gyudon and a coke, and I'll pick it up at 7:15), or said right before it
    and the time it takes (two beef bowls pick up at 7, 生姜焼き弁当ふたつ 6時半に取りに行きます); else None."""
    first = next((h for h in ctx.lexicon.cues.find(slots.cue_text) if (tool, KEYWORD) in h.value), None)
    if first is None:
        return None
    joins = list(JOINER.finditer(said, 0, first.start))
    cuts = [_said_before(said, slots, first.start), joins[-1].start() if joins else None]
    return next((cut for cut in sorted({c for c in cuts if c}, reverse=True)
                 if _others_before(slots, cut, ctx.lexicon.tools[tool]) and _records_apart(said[:cut], tool, ctx)),
                None)


def _others_before(slots: Slots, cut: int, tool: Tool) -> bool:
    """Whether values the tool does not take are said before `cut` (goods before a pickup time's keyword)."""
    groups = {p.enum.key for p in tool.params.values() if p.enum is not None}
    kinds = {type(p.extract) for p in tool.params.values()}
    spans = [(h.start, h.end) for h in slots.enums if not {k for k, _ in h.value} & groups]
    spans += [] if ItemsExtract in kinds else [s for _, s in slots.items]
    spans += [] if AmountExtract in kinds else [s for _, s in slots.amounts]
    return any(end <= cut for _, end in spans)


def _time_apart(said: str, slots: Slots, tools: list[str], ctx: Context) -> int | None:
    """Where a time of day said last begins, when the request's tools take none and the one write that takes a time
    is another (鮭弁当ひとつ|7時で: the bento, and the time it is picked up at); else None."""
    timed = _the_timed_write(ctx)
    if not slots.times or timed is None:
        return None
    recorded = recorded_write(slots, ctx.lexicon, ctx.offered) if not tools else None  # 唐揚げ弁当3つ 7時半
    tools = tools or ([recorded] if recorded else [])
    if not tools or any(takes(ctx.lexicon.tools[t], TimeExtract) for t in tools):
        return None
    _, (start, end) = slots.times[-1]
    start += len(said[start:end]) - len(said[start:end].lstrip())
    after = _read(said[end:], ctx) if said[end:].strip() else None
    if after is not None and (after.enums or after.items or after.amounts):
        return None
    return start if _records_apart(said[:start], timed, ctx) else None


def _records_apart(lead: str, tool: str, ctx: Context) -> bool:
    """Whether words before a tool's keyword record a write of their own that the tool is not and takes none of
    (唐揚げ弁当を3つに、のり弁当を2つに変更して: the change takes them)."""
    if not lead.strip():
        return False
    slots = _read(lead, ctx)
    recorded = recorded_write(slots, ctx.lexicon, ctx.offered)
    return recorded is not None and recorded != tool and not coverage(slots, ctx.lexicon, tool)[0]


def _said_before(said: str, slots: Slots, keyword: int) -> int | None:
    """Where a keyword's request begins when nothing joins it to the words before: at the time and the day said
    right before the keyword (明日8時半に|取りに行きます), else at the keyword; only between two words."""
    spans = [s for _, s in slots.times] + [(d.start_index, d.end_index) for d in slots.dates]
    cut = keyword
    for start, end in sorted(spans, reverse=True):  # 7|時に is one time; 明日 8時半 one moment
        if start < cut and (end >= cut or not said[end:cut].strip(" にのでをは")):
            cut = start + len(said[start:end]) - len(said[start:end].lstrip())
    words = tokenise(said)
    return cut if cut > 0 and (said[cut - 1].isspace() or words.starts_at(cut)) else None


def only_values(text: str, ctx: Context) -> bool:
    """Whether the text only says values (0016です, 麦茶で, 先月は？): an answer, or a follow-up."""
    slots = _read(text, ctx)
    return not _asks(slots, ctx) and says_only_values(slots)


def _asks(slots: Slots, ctx: Context) -> bool:
    return bool(keyword_tools(slots, ctx.lexicon, ctx.offered)) or refusal(slots, ctx.lexicon) is not None


def _plan_request(plan: Plan, request: Request, slots: Slots, ctx: Context, ahead: Slots | None,
                  first: bool) -> None:
    beyond = _beyond_tools(slots, ctx)
    if beyond is not None and beyond.kind == "cannot_change" and _amended(slots, ctx) is not None:
        beyond = None  # change the date to yesterday, said to the write shown for a yes: a change of it
    # a command said in the negative is looked for only where a write may follow: lines held, or a write chosen
    negation = negated(slots, ctx.lexicon, ctx.offered) if ctx.memory.held is not None else None
    if beyond is None and negation is None and _edits_lines(plan, request, slots, ctx):
        return  # all of them large: the lines held, not a person pointed at
    beyond = beyond or _unreferenced(slots, ctx)
    if beyond is not None:
        request.problems.append(beyond)
        return
    choice = _choice(slots, ctx, first)
    if choice.said is not None:  # 600円じゃなくて700円で: the values are those said in place of others
        slots = _read(choice.said, ctx)
    if choice.tools and all(ctx.lexicon.tools[t].mode == "write" for t in choice.tools) \
            and (words.pattern("lines", "how_much").search(slots.cue_text)  # 1つ何個入ってます？: a question
                 or _asks_setting(slots.text, choice.tools, ctx)):
        reads = {t for t in ctx.offered if t in ctx.lexicon.tools and ctx.lexicon.tools[t].mode == "read"}
        again = choose(slots, ctx.lexicon, reads, None, reads=True)
        choice = replace(again, tools=tuple(t for t in again.tools if t in reads))
    if any(ctx.lexicon.tools[t].mode == "write" for t in choice.tools):
        if ctx.memory.held is None:  # not looked for yet
            negation = negated(slots, ctx.lexicon, ctx.offered)
        if negation is not None:  # 取り消さないで: nothing written, asked again
            request.problems.append(Problem("negated", said=negation))
            return
    unsettled = _unsettled(choice) or _values_counted(slots, ctx, choice)
    if unsettled is not None:
        request.problems.append(unsettled)
        return
    if not choice.tools:
        request.problems.append(_none_chosen(slots, ctx))
        return
    request.tools = choice.tools
    twofold = _twofold(slots, ctx, choice.tools)
    if twofold is not None:
        request.problems.append(twofold)
        return
    _plan_tools(plan, request, slots, ctx, ahead, choice, first)


def _none_chosen(slots: Slots, ctx: Context) -> Problem:
    """Why no tool answers: small talk; a part said to be left out (先月の予約は何件 キャンセル抜きで), where the words
    left nothing to choose by; rows no catalog knows counted (先月の貸切件数); else a request of nothing here."""
    talk = _small_talk(tokenise(slots.text))
    if talk is not None:
        return Problem(talk)
    left_out = said_excluded(slots.text)
    if left_out is not None:
        return Problem("excluded", said=left_out)
    unknown = leftover.rows_unknown(slots, ctx.lexicon)
    if unknown:
        return Problem("unknown_rows", said=unknown[0].text)
    return Problem("unrelated")


def _values_counted(slots: Slots, ctx: Context, choice: Choice) -> Problem | None:
    """電気は何個ある？: how many of the things a topic's tools act on there are (the lights, read from the data), where
    the tools chosen (the list of every device) take none of them: answered by counting those values."""
    if not choice.tools or how_many(slots.text) is None \
            or any(ctx.lexicon.tools[t].mode != "read" for t in choice.tools):
        return None
    hits = [h for h in ctx.lexicon.cues.find(slots.cue_text)
            if any(k == TOPIC and t not in choice.tools and t in ctx.offered for t, k in h.value)]
    acted_on = {(ctx.lexicon.enum_of[(t, n)].key, slots.text[h.start:h.end], t, n)
                for h in hits for t, k in h.value if k == TOPIC
                for n, p in ctx.lexicon.tools[t].params.items() if p.required and reads_data(p)}
    groups = {g for g, *_ in acted_on}
    taken = {ctx.lexicon.enum_of[(t, n)].key for t in choice.tools for n in ctx.lexicon.tools[t].params
             if (t, n) in ctx.lexicon.enum_of}
    if len(groups) != 1 or groups & taken or slots.enum_values(next(iter(groups))):
        return None
    group, said, tool, pname = min(acted_on)
    values = tuple(ctx.enum_values.get(group, []))
    return Problem("values_counted", tool, (pname,), said=said, candidates=values, every=True) if values else None


def _settings_said(plan: Plan, request: Request, slots: Slots, ctx: Context) -> bool:
    """Settings said to devices in one breath, each with the devices said before it (planner/settings_said.py)."""
    said = settings_said.calls(slots, ctx.lexicon, ctx.offered, lambda t: _read(t, ctx)) \
        if ctx.memory.held is None else None
    if not said or len(said) > MAX_CALLS_PER_REQUEST:
        return False
    negation = negated(slots, ctx.lexicon, ctx.offered) or settings_said.negative(slots)
    if negation is not None:  # リビングを赤で寝室を青にしないで: nothing written, asked again
        request.problems.append(Problem("negated", said=negation))
        return True
    request.tools = tuple(dict.fromkeys(name for name, _ in said))
    values = {k: list(dict.fromkeys(a[k] for _, a in said if k in a)) for k in {k for _, a in said for k in a}}
    _note_understood(request, slots, values)
    request.values.update(values)
    request.steps += [plan.add(Step(name, args, gate=request.gate)) for name, args in said]
    return True


def _unsettled(choice: Choice) -> Problem | None:
    """A request refused (SQL, a change no tool makes), or one several reads fit alike (売上: of which rows?)."""
    if choice.refused:
        return Problem(f"refused_{choice.refused}")
    if choice.tied and len(choice.tools) == 1 and choice.tools[0] not in choice.tied:
        return Problem("which_tool", choice.tools[0], candidates=(choice.tools[0], *choice.tied))
    return None


def _asks_setting(text: str, tools: tuple[str, ...], ctx: Context) -> bool:
    """リビングの明るさは？: a write's keyword, then only a topic question to the end: what the setting is now."""
    said = tokenise(text)
    ends = [m for p in words.token_patterns("lines", "topic_question") for m in p.finditer(said)
            if m.last == len(said.tokens)]
    if not ends:
        return False
    before = fold(text[:ends[0].start].rstrip())
    keywords = {fold(k) for t in tools if (intents := ctx.lexicon.tools[t].intents) for k in intents.keywords}
    return any(before.endswith(k) for k in keywords if k)


def _plan_tools(plan: Plan, request: Request, slots: Slots, ctx: Context, ahead: Slots | None, choice: Choice,
                first: bool) -> None:
    if _settings_said(plan, request, slots, ctx):
        return
    made = len(plan.steps)
    for name in choice.tools:
        _plan_tool(plan, request, name, slots, ctx, ahead, choice, first)
    if ctx.memory.previewed is not None and choice.again == ctx.memory.previewed:
        _every_number_used(plan, request, slots, made)


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _numbers_said(text: str) -> list[int]:
    """The numbers said in digits: each run of digits in a word is one (a comma cuts 1,000 in two)."""
    return [int("".join(run)) for token in tokenise(text).tokens
            for digits, run in itertools.groupby(ascii_digits(token.surface), str.isdecimal) if digits]


def _every_number_used(plan: Plan, request: Request, slots: Slots, made: int) -> None:
    """A card changed by numbers said (個数5で価格750円) is shown again only when every number said is among its
    values (a day's only where a day was said): else no new card, and the answer says which number could not be
    placed, never a card with it dropped."""
    said = _numbers_said(slots.text)
    values = [v for step in plan.steps[made:] for v in step.args.values()
              if slots.dates or not (isinstance(v, str) and _ISO_DAY.fullmatch(v))]
    kept = {int(n) for n in re.findall(r"\d+", json.dumps(values, default=str, ensure_ascii=False))}
    unused = [n for n in said if n not in kept]
    if not unused or len(plan.steps) == made:
        return
    del plan.steps[made:]
    request.steps = [i for i in request.steps if i < made]
    request.problems.append(Problem("not_placed", request.tools[0] if request.tools else None, said=str(unused[0])))


def _plan_tool(plan: Plan, request: Request, name: str, slots: Slots, ctx: Context, ahead: Slots | None,
               choice: Choice, first: bool) -> None:
    tool = ctx.lexicon.tools[name]
    slots = counted_in(slots) if tool.mode == "read" else slots  # キャンセルも入れて: every row, no filter
    if name not in ctx.offered or (request.condition and tool.mode != "read"):
        request.problems.append(Problem("forbidden", name))
        return
    ranked = ranking.retarget(tool, slots, ctx.lexicon, ctx.offered)
    if isinstance(ranked, ranking.Ungrouped):
        request.problems.append(Problem("ungrouped", tool.name, said=ranked.said))
        return
    tool = ranked.tool if ranked is not None else tool
    lines = sold.lines_sold(tool, slots, ctx.lexicon, ctx.offered) \
        or sold.times_counted(tool, slots, ctx.lexicon, ctx.offered) if ranked is None else None
    if lines is not None and lines.tied:  # 田中さんの担当件数: of the visits, or of the goods sold?
        request.problems.append(Problem("which_tool", lines.tool.name, candidates=(lines.tool.name, *lines.tied)))
        return
    tool = lines.tool if lines is not None else tool
    heads = headcount.people_counted(tool, slots, ctx.lexicon, ctx.offered) if ranked is None and lines is None \
        else None
    tool = heads.tool if heads is not None else tool
    worked_out = computed.asked(tool, slots) if tool.mode == "read" else None
    if worked_out is not None:  # 先月のキャンセル率: never the count of the cancelled lessons
        request.problems.append(Problem("not_computed", tool.name, said=worked_out))
        return
    answering = _answering(tool, slots, ctx, figure=ranked is None and lines is None and heads is None)
    if isinstance(answering, Problem):
        request.problems.append(answering)
        return
    chosen, tool = tool, answering[0]
    left_out = excluded(tool, slots, ctx.lexicon) if tool.mode == "read" and _figure_asked(tool, slots) else None
    if left_out is not None:  # 返品以外: never the figure of the returns alone, nor of every row
        request.problems.append(Problem("excluded", tool.name, (left_out.param,) if left_out.param else (),
                                        said=left_out.said))
        return
    base = _base(tool, chosen if answering[1] else tool, slots, ctx, choice.follow_up, first, choice.again)
    if isinstance(base, Problem):
        request.problems.append(base)
        return
    fixed = ranked.args if ranked is not None and ranked.tool.name == tool.name else \
        lines.args if lines is not None and lines.tool.name == tool.name else \
        heads.args if heads is not None and heads.tool.name == tool.name else {}
    problem = _plan_call(plan, request, tool, slots, ctx, ahead, base, fixed)
    if lines is not None and lines.tool.name == tool.name:  # how many were sold: the quantity
        request.measures[tool.name] = measure.column(tool, lines.figure)
    if heads is not None and heads.tool.name == tool.name:  # how many people: the groups
        request.measures[tool.name] = measure.HEADS_OF + heads.group
    if ranking.GROUP in tool.params and _grouping_said(tool, slots, ctx):
        request.grouped.add(tool.name)
    if problem:
        request.problems.append(problem)


def _figure_asked(tool: Tool, slots: Slots) -> bool:
    """Whether the request asks a figure (how many, a sum, money, a ranking, a grouping), not rows to read: a figure
    with a part left out is refused; a list (唐揚げ弁当以外で何がありますか) shows its rows, that one among them."""
    text = slots.cue_text
    return how_many(text) is not None or measure.named(tool, text) is not None \
        or measure.says_kind(tokenise(slots.text), "money") or ranking.GROUP in tool.params \
        or ranking.said_superlative(text)


def _grouping_said(tool: Tool, slots: Slots, ctx: Context) -> bool:
    """Whether the request says the summary's grouping in words (月別, by month), the default one too: its groups
    are the answer, not only their totals."""
    key = ctx.lexicon.enum_of[(tool.name, ranking.GROUP)].key
    return any(k == key for h in slots.enums for k, _ in h.value)


def _edit(slots: Slots, ctx: Context) -> Edit:
    """The request's edit of the order's lines (planner/lines.py), worked out once per text and plan."""
    if slots.text not in ctx.edits:
        mem = ctx.memory
        held = replace(mem.held, fits=ctx.enum_fits) if mem.held is not None else None
        ctx.edits[slots.text] = edit(slots, ctx.lexicon, ctx.offered, held, mem.last_lines, mem.last_call)
    return ctx.edits[slots.text]


def _edits_lines(plan: Plan, request: Request, slots: Slots, ctx: Context) -> bool:
    """Whether the request edits the lines the conversation holds (それ2つに, コーラをオレンジジュースに変えて):
    then its calls are planned (planner/lines.py)."""
    edited = _edit(slots, ctx)
    if isinstance(edited, Ask):  # お茶 ひとつ減らして with both teas ordered: which tea; やっぱ2つで: which line
        request.tools = (edited.tool,)
        request.problems.append(Problem("which_value" if edited.said else "missing", edited.tool, (edited.param,),
                                        said=edited.said, candidates=edited.candidates))
        return True
    if not edited:
        return False
    calls = [(name, _fitted(ctx.lexicon.tools[name], slots, ctx, args))
             for name, args in (edited.calls if isinstance(edited, Swap) else edited)]
    request.tools = tuple(dict.fromkeys(name for name, _ in calls))
    _note_understood(request, slots, {k: [v] for _, args in calls for k, v in args.items()})
    first: int | None = None
    for name, args in calls:
        after = first if isinstance(edited, Swap) else None  # a swap's old line out once the new item is in
        step = plan.add(Step(name, args, gate=request.gate, after=after))
        first = step if first is None else first
        request.steps.append(step)
    return True


def _choice(slots: Slots, ctx: Context, first: bool) -> Choice:
    """The tools the request asks for; of those, how many … with no keyword: the previous call's."""
    last, held = ctx.memory.last_call, ctx.memory.held
    if held is not None and (adds(slots, ctx.lexicon, ctx.offered, held, ctx.memory.last_command)
                             or _another_line(slots, ctx, held)):
        return Choice((held.add,))
    last_command = ctx.memory.last_command
    refused = ctx.clocks.get(last_command[0], ctx.today) if last_command and ctx.memory.command_refused else None
    followed = (_amended(slots, ctx) or focus.again(slots, ctx.lexicon, ctx.offered, last_command, refused)) \
        if first else None
    if followed is not None:
        return followed
    choice = choose(slots, ctx.lexicon, ctx.offered, last[0] if last and first else None)
    if not choice.tools and first and last is not None and last[0] in ctx.offered \
            and words.pattern("among", "words").search(slots.cue_text):
        return replace(choice, tools=(last[0],))
    if not choice.refused and (timed := _timed_write(slots, ctx)) is not None and timed not in choice.tools \
            and all(ctx.lexicon.tools[t].mode == "write" and not takes(ctx.lexicon.tools[t], TimeExtract)
                    for t in choice.tools):
        return replace(choice, tools=(timed,))  # 7時で, 7時半に変えて, said to an order: the time it is picked up at
    return _withheld(slots, ctx, choice, last[0] if last and first else None) or _for_later(slots, ctx, choice) \
        or choice


def _for_later(slots: Slots, ctx: Context, choice: Choice) -> Choice | None:
    """The write the request before asked for a case to come, where nothing was done and this one says its command
    and no device: ok just turn it off now, after "if I'm not home by 10 turn off the TV", switches the TV off."""
    if not ctx.memory.said or not choice.tools or topics(ctx.lexicon, slots.cue_text) \
            or any(ctx.lexicon.tools[t].mode != "write" for t in choice.tools):
        return None
    if not may_be_hypothetical(ctx.memory.said):
        return None  # read only where it may say one
    before = _read(ctx.memory.said, ctx)
    if hypothetical(before) is None:
        return None
    then = choose(before, ctx.lexicon, ctx.offered, None).tools
    if len(then) != 1 or then[0] in choice.tools or ctx.lexicon.tools[then[0]].mode != "write" \
            or unmet_params(slots, ctx.lexicon, then[0]) != unmet_params(before, ctx.lexicon, then[0]):
        return None
    return Choice(then)


def _timed_write(slots: Slots, ctx: Context) -> str | None:
    """The one write offered that takes a time of day, where a request names no tool and says a time and nothing
    else (7時で; pick up at 7 said to an order); else None."""
    if not slots.times or slots.enums or slots.codes or slots.names or slots.amounts or slots.items or slots.unknown:
        return None
    return _the_timed_write(ctx)


def _the_timed_write(ctx: Context) -> str | None:
    """The one write offered that takes a time of day (a pickup time), else None."""
    timed = [name for name in sorted(ctx.offered) if name in ctx.lexicon.tools
             and ctx.lexicon.tools[name].mode == "write" and takes(ctx.lexicon.tools[name], TimeExtract)]
    return timed[0] if len(timed) == 1 else None


def _another_line(slots: Slots, ctx: Context, held: Held) -> bool:
    """Whether the request names items, or a kind of them, with a word of another and nothing else (はい、あと味噌汁も;
    and a miso soup too; どんぶりもう1個): a new line of the order, never a question about the item."""
    if held.add not in ctx.offered or keyword_tools(slots, ctx.lexicon, ctx.offered) \
            or not words.pattern("lines", "new").search(slots.cue_text) \
            or words.pattern("lines", "asking").search(slots.cue_text):
        return False
    group = ctx.lexicon.enum_of[(held.add, held.key)].key
    return bool(slots.enum_values(group)) \
        or _fitting_said(slots, ctx.enum_fits, list(ctx.enum_values.get(group, []))) is not None  # お弁当もう1つ


def _amended(slots: Slots, ctx: Context) -> Choice | None:
    """The write shown for a yes, changed by what this turn says (focus.amended), read from the values it gives
    in place of others: 「600円じゃなくて700円で」 and "700 yen, not 600" give 700, 「はい、でも5個に」 gives 5個. A
    request for one more (あと0017にも, and also 0017) changes nothing: it is not the card's."""
    if ctx.memory.previewed is None:
        return None
    said = focus.instead_text(slots.text)
    if focus.adds_another(said):
        return None
    changed = focus.amended(_read(said, ctx) if said != slots.text else slots, ctx.lexicon, ctx.offered,
                            ctx.memory.previewed)
    return replace(changed, said=said) if changed is not None and said != slots.text else changed


def _withheld(slots: Slots, ctx: Context, choice: Choice, previous: str | None) -> Choice | None:
    """The tools the request asks for where none is the user's, though one the user has would take it: 先週から売上が
    落ちた商品は？ of a sales rep is the POS comparison they may not use (said so), never the farm's sales of a customer
    asked for. None where the user has every tool, or the request is theirs."""
    every = {name for name in ctx.lexicon.tools if name not in ctx.offered}
    if not every:
        return None
    wide = choose(slots, ctx.lexicon, ctx.offered | every, previous)
    if wide.tools and not any(t in ctx.offered for t in (*wide.tools, *wide.tied)) \
            and not set(wide.tools) & set(choice.tools):  # one of two alike is the user's: that one
        return wide
    return None


def _answering(tool: Tool, slots: Slots, ctx: Context, figure: bool) -> tuple[Tool, bool] | Problem:
    """The tool that takes everything the request says (and has the figure it names, where `figure`), and
    whether it moved for the figure; else the problem that says what could not be applied."""
    figured = _figure_tool(tool, slots, ctx) if figure else tool
    if isinstance(figured, Problem):
        return figured
    found, unused = _taking_all(figured, slots, ctx)
    return unused if unused is not None else (found, figured is not tool)


def _figure_tool(tool: Tool, slots: Slots, ctx: Context) -> Tool | Problem:
    """The summary that has the figure named, where the tool lacks it (planner/elsewhere.py); the problem that
    says the figure could not be given where no summary takes the request."""
    moved = elsewhere.figure_tool(tool, slots, ctx.lexicon, ctx.offered)
    if moved is None:
        return tool
    if moved.tool is None:
        return Problem("not_applied", tool.name, said=moved.said, candidates=(moved.said,))
    return moved.tool


def _base(tool: Tool, chosen: Tool, slots: Slots, ctx: Context, follow_up: bool, first: bool,
          again: tuple[str, dict] | None = None) -> dict[str, Any] | Problem:
    """The previous call's arguments this call keeps: those a follow-up keeps, those a call moved to another tool
    of the same rows keeps, and, after そのうち / of those, all of them."""
    if again is not None and again[0] == tool.name:
        return _line_meant(tool, slots, ctx, dict(again[1]))
    last = ctx.memory.last_call
    moved = tool is not chosen or (ranking.GROUP in tool.params and last is not None and last[0] != tool.name)
    base = _carried_to(tool, chosen, slots, last, first, ctx.lexicon.tools) if moved else \
        _carried(tool, slots, last, follow_up, first)
    narrowed = _among(tool, slots, last, first)
    return narrowed if isinstance(narrowed, Problem) else _line_meant(tool, slots, ctx, {**base, **narrowed})


def _line_meant(tool: Tool, slots: Slots, ctx: Context, base: dict[str, Any]) -> dict[str, Any] | Problem:
    """One more (もう一つ, one more bento) said of no line, where the order holds some: the line in focus that the
    words said fit (お弁当 of 鮭弁当 and 牛丼: the 鮭弁当, where the catalog's `fits_query` says which
    category each item is of); of several, which is asked with them; never the last line put in guessed."""
    held = ctx.memory.held
    if held is None or tool.name != held.add or not held.rows \
            or slots.enum_values(ctx.lexicon.enum_of[(tool.name, held.key)].key):
        return base
    if held.key not in base and (slots.unknown or not words.pattern("lines", "new").search(slots.cue_text)):
        return base  # one more, of no line the last call put in: what else is said is asked about
    names = held.names()
    meant = [n for n in ctx.memory.last_lines if n in names] or names
    fitting = _fitting_said(slots, ctx.enum_fits, names)
    if fitting is not None:
        meant = [n for n in meant if n in fitting] or fitting
    if len(meant) == 1:
        return {**base, held.key: meant[0]}
    if not meant:  # あと飲み物ひとつ with no drink held: which drink, never one more bowl
        group = ctx.lexicon.enum_of[(tool.name, held.key)].key
        meant = _fitting_said(slots, ctx.enum_fits, list(ctx.enum_values.get(group, []))) or []
    return Problem("missing", tool.name, (held.key,),
                   candidates=tuple(str(n) for n in meant) if len(meant) <= MAX_CHOICES else ())


def _fitting_said(slots: Slots, enum_fits: Mapping[str, Mapping[str, list[str]]], names: list[Any]) -> list[Any] | None:
    """Those of `names` (lines held, or items) that take every value said of an enum whose `fits_query` reads
    them (お弁当: the items of the category 弁当); None where no such value is said."""
    fitting: list[Any] | None = None
    for hit in slots.enums:
        for group, value in hit.value:
            fits = enum_fits.get(group)
            if fits is not None and any(str(n) in fits for n in names):
                taking = [n for n in names if value in fits.get(str(n), ())]
                fitting = taking if fitting is None else [n for n in fitting if n in taking]
    return fitting


def _taking_all(tool: Tool, slots: Slots, ctx: Context) -> tuple[Tool, Problem | None]:
    """A read tool that uses everything the request says (planner/leftover.py): the tool chosen, else another
    read tool of its catalog that the request names too and that takes it all (how many tracks of the Rock genre:
    the summary that filters by genre); else the problem that says what could not be applied, and no call. A tool
    that takes nothing and gives no figures (handover: お店の人に代わって) has nothing to apply words to."""
    if tool.mode != "read" or not (tool.params or tool.result.labels):
        return tool, None
    for name, span in slots.names or slots.unknown:
        params = whose.fills(tool, slots, span, ctx.offered)
        if len(params) > 1:  # the album's title, or the artist's name?
            return tool, Problem("which_param", tool.name, tuple(params), said=name)
    unused = leftover.left(tool, slots, ctx.lexicon, ctx.offered)
    if _loose_params(tool, ctx):  # a word that looks like one of its values is asked about (_unclear)
        unused = [u for u in unused if u.kind != "unknown"]
    if not unused:
        return tool, None
    hits = ctx.lexicon.cues.find(slots.cue_text)
    named = [t for h in hits for t, _ in sorted(h.value)]
    # and the tools about the same rows: a keyword of theirs holds the chosen tool's keyword said (請求書の合計)
    said = {h.phrase for h in hits if (tool.name, KEYWORD) in h.value}
    named += [t for phrase, value in ctx.lexicon.cues.values.items() for t, _ in sorted(value)
              if any(s in phrase and s != phrase for s in said)]
    counted = counts_rows_of(tool, slots.cue_text)  # how many visits: never the customers registered in May
    for name in dict.fromkeys(named):
        other = ctx.lexicon.tools[name]
        if name != tool.name and name in ctx.offered and other.mode == "read" and other.catalog == tool.catalog \
                and not comparisons.unasked(other, slots) \
                and _rows_said(other, tool, slots) and (not counted or ranking.about(other, tool)) \
                and not unmet(slots, ctx.lexicon, name) and not leftover.left(other, slots, ctx.lexicon, ctx.offered):
            return other, None
    if unused[0].kind == "group":  # 整備士ごとの修理件数: never the total of every repair, said as if grouped
        summaries = ranking.summaries(ctx.lexicon, tool.catalog, ctx.offered)
        by = next((t for t in summaries if ranking.about(t, tool)), tool)
        return tool, Problem("not_grouped", by.name, said=unused[0].text)
    return tool, Problem("not_applied", tool.name, said=unused[0].text, candidates=tuple(s.text for s in unused))


def _unreferenced(slots: Slots, ctx: Context) -> Problem | None:
    """その人の売上 with no one said before in the conversation: asked who is meant, never answered for everyone."""
    apart = words.pattern("distributive", "part").sub(lambda m: "\0" * len(m[0]), slots.cue_text)  # one of them
    pointed = words.pattern("references", "person").search(apart)
    if pointed is None or ctx.memory.last_call is not None or slots.names or slots.codes or slots.keys \
            or not ctx.lexicon.refer:  # a catalog of no one to point at: pick them up at 5:40 is the order
        return None
    return Problem("unreferenced", said=slots.cue_text[pointed.start():pointed.end()])


def _rows_said(other: Tool, tool: Tool, slots: Slots) -> bool:
    """Whether a tool a call may move to answers about rows the request speaks of: the chosen tool's own (the
    summary of the same rows), or rows it names by their noun (AC/DCのアルバム); never rows a phrase of
    grouping alone names ("extras by type" is no question about rooms)."""
    if ranking.about(other, tool) or belongs_to(other, tool):  # the lines of the order said (受注番号1024)
        return True
    n = noun(other)
    text = slots.cue_text
    return any(w and w in text for w in (fold(n.ja), n.many.lower(), n.one.lower()))


def _twofold(slots: Slots, ctx: Context, chosen: tuple[str, ...]) -> Problem | None:
    """A value of the data that is also a word of the question, where the sentence leaves open which it is
    (商品ランキングの売上): asked, naming both readings, when a tool of the chosen ones' catalogs takes it."""
    catalogs = {ctx.lexicon.tools[t].catalog for t in chosen}
    for word in slots.twofold:
        takers = sorted((t not in chosen, t, p) for t, p in ctx.lexicon.enums[word.group].members
                        if t in ctx.offered and ctx.lexicon.tools[t].catalog in catalogs)
        if takers:
            _, tool, pname = takers[0]
            return Problem("which_reading", tool, (pname,), said=word.said, candidates=(word.value,))
    return None


_BEYOND = {"correction": "cannot_change", "delete": "refused_change"}


def _beyond_tools(slots: Slots, ctx: Context) -> Problem | None:
    """A forecast, advice, a correction of registered data or a general question: no tool is called,
    unless a tool's own keyword says those words (a catalog with a cancel tool cancels)."""
    if refusal(slots, ctx.lexicon) == "sql":
        return None
    # A plain read of a future period (9月の売上) goes to its tool: the guard says which dates have data.
    loosely = {fold(said) for said, _ in slots.understood}  # a word read loosely may be the question's own word
    values = [(h.start, h.end) for h in slots.enums if h.phrase not in loosely] + [s for _, s in slots.names]
    found = out_of_scope(mask(slots.text, values + list(slots.alone)), ctx.today, future=False)
    if found is None:
        return None
    hits = [h for h in ctx.lexicon.cues.find(slots.cue_text)
            if any(kind == KEYWORD and name in ctx.offered for name, kind in h.value)]
    writes = [h for h in hits if any(ctx.lexicon.tools[name].mode == "write" for name, _ in h.value)]
    if found.kind != "forecast" and (any(h.start <= found.start and found.end <= h.end for h in hits) or any(
            h.start <= found.start < h.end for h in writes)):  # 入庫数を直|したい: the tool that does it
        return None
    return Problem(_BEYOND.get(found.kind, "out_of_scope"), said=slots.text[found.start:found.end],
                   reason=tuple((lang, found.reason(lang)) for lang in ("ja", "en")))


def _carried(tool: Tool, slots: Slots, last: tuple[str, dict[str, Any]] | None, follow_up: bool, first: bool
             ) -> dict[str, Any]:
    """The previous call's arguments a follow-up keeps: all of them for a request that only changes values
    (0010は？); for one that names the same tool again without a period (上位3つだけ), all but who it is about
    when this request says someone."""
    if last is None or not first:
        return {}
    if follow_up:
        return dict(last[1])
    if last[0] != tool.name or slots.dates:
        return {}
    who = (CodeExtract, NameExtract)
    says_who = bool(slots.codes or slots.names)
    # 丼は何がありますか after 唐揚げ弁当はありますか: a value of the data said names what this one is about
    says_what = bool(_groups_said_to(tool, slots))
    return {k: v for k, v in last[1].items()
            if not (says_who and k in tool.params and isinstance(tool.params[k].extract, who))
            and not (says_what and k in tool.params and reads_data(tool.params[k]))}


def _carried_to(tool: Tool, chosen: Tool, slots: Slots, last: tuple[str, dict[str, Any]] | None, first: bool,
                ctx_tools: dict[str, Tool]) -> dict[str, Any]:
    """What a call moved to another tool keeps of the previous call: its arguments, where the previous call was
    that tool, a tool of the same rows (the bills, then their summary) or the one the request named (customer 12,
    then 支払い合計は？), and the moved tool takes them."""
    if last is None or not first or last[0] not in ctx_tools or not (
            last[0] == chosen.name or ranking.about(tool, ctx_tools[last[0]])):
        return {}
    kept = _carried(tool, slots, (tool.name, last[1]), False, first)
    return {k: v for k, v in kept.items() if k in tool.params}


def _among(tool: Tool, slots: Slots, last: tuple[str, dict[str, Any]] | None, first: bool
           ) -> dict[str, Any] | Problem:
    """そのうち / of those: every argument of the previous call holds, under the new one said; one the tool cannot
    take is said, and no call is made (a figure of rows the previous answer did not hold is no answer)."""
    among = words.pattern("among", "words").search(slots.cue_text) if first and tool.mode == "read" else None
    if among is None:
        return {}
    if last is None:  # the turn before found no rows: "of those" narrows nothing, and is said
        return Problem("not_applied", tool.name, said=slots.cue_text[among.start():among.end()])
    lost = [k for k, v in last[1].items() if v is not None and k not in tool.params]
    if lost:
        return Problem("not_applied", tool.name, said=str(last[1][lost[0]]),
                       candidates=tuple(str(last[1][k]) for k in lost))
    return {k: v for k, v in last[1].items() if v is not None}


MAX_CHOICES = 8  # a missing value of fewer is asked for with every one named (which light: the living room's …)


def _label_said(tool: Tool, missing: list[str], slots: Slots, ctx: Context) -> str:
    """The label of the one code missing, where the request says it (色を300:0:0に: a colour not of its form)."""
    x = tool.params[missing[0]].extract if len(missing) == 1 else None
    if not isinstance(x, CodeExtract) or not x.labels:
        return ""
    own = {fold(normalise(w)) for w in x.labels}
    return next((h.phrase for h in ctx.lexicon.code_labels.find(slots.cue_text) if h.phrase in own), "")


def _choices(tool: Tool, missing: list[str], ctx: Context, slots: Slots | None = None) -> tuple[str, ...]:
    """The values a missing parameter read from the data can take, where it is the one missing and they are few;
    of many, those whose name holds a word the request said (食パン1斤: 角食パン, 山型食パン), where they are few."""
    if len(missing) != 1 or not reads_data(tool.params[missing[0]]):
        return ()
    values = ctx.enum_values.get(ctx.lexicon.enum_of[(tool.name, missing[0])].key, [])
    fitting = _fitting_said(slots, ctx.enum_fits, list(values)) if slots is not None else None
    if fitting:  # お弁当ひとつ: which bento
        values = fitting
    elif len(values) > MAX_CHOICES and slots is not None:
        group = ctx.lexicon.enum_of[(tool.name, missing[0])].key
        values = _named_by(values, _names(group, ctx), _kind_words(slots, ctx))
    return tuple(values) if 1 < len(values) <= MAX_CHOICES else ()


def _needed(tool: Tool, values: dict[str, list[Any]], ctx: Context) -> Problem | None:
    """A value its write's checks refuse without another that is not said (ガトーショコラをひとつ: a whole cake needs
    a size): which is asked, naming those the check offers; never sent to be refused."""
    needs = ctx.needs.get(tool.name, {})
    for said in (v for vs in values.values() for v in vs if isinstance(v, str) and v in needs):
        needed = needs[said]
        if not values.get(needed.param) and needed.check < len(tool.checks):
            message = tool.checks[needed.check].message
            return Problem("missing", tool.name, (needed.param,), said=said,
                           candidates=needed.offered if len(needed.offered) <= MAX_CHOICES else (),
                           reason=(("ja", message.ja), ("en", message.en)))
    return None


def _kind_words(slots: Slots, ctx: Context) -> set[str]:
    """The words a request says in place of a value (folded): the values said and the other names of each (サンド
    of the shelf サンドイッチ), the words that look like a value, and the nouns no value was read in (ケーキ)."""
    said = {fold(h.phrase) for h in slots.enums} | {fold(w) for w, _ in slots.unknown}
    for h in slots.enums:
        for group, value in h.value:
            said |= {fold(n) for n, v in _names(group, ctx) if v == value}
    read = [(h.start, h.end) for h in slots.enums]
    said |= {fold(t.surface) for t in tokenise(slots.text).tokens
             if t.is_noun and not t.is_numeral and not any(a < t.end and t.start < b for a, b in read)}
    return {w for w in said if len(w) > 1}


def _names(group: str, ctx: Context) -> list[tuple[str, str]]:
    """Every name of the group's values, with the value it names: the value, its synonyms declared and read."""
    declared = ctx.lexicon.enums[group].synonyms if group in ctx.lexicon.enums else {}
    return [*((v, v) for v in ctx.enum_values.get(group, [])), *declared.items(),
            *ctx.enum_synonyms.get(group, {}).items()]


def _named_by(values: list[str], names: list[tuple[str, str]], said: set[str]) -> list[str]:
    """Those of `values` one of whose names holds a word said: 食パン in 角食パン, サンド in たまごサンド, ケーキ in
    ショートケーキ (いちごショート); an English word whole, singular or plural (sandwiches: egg sandwich)."""
    def holds(name: str, word: str) -> bool:
        if not word.isascii():
            return word in name
        return bool({word, word.removesuffix("s"), word.removesuffix("es")} & set(name.split()))
    named = {v for n, v in names if any(holds(fold(n), w) for w in said)}
    return [v for v in values if v in named]


def _every(tool: Tool, pname: str, param: Param, slots: Slots, ctx: Context) -> list[Any]:
    """Every value of a required parameter read from the data, where a command or a question is asked of all of
    them (all the lights, 家じゅう, 全部の電気の状態) and the request names none; [] otherwise, or where they are more
    than one request calls."""
    asked = tool.mode == "read" and words.pattern("every_asked", "words").search(slots.cue_text)
    if not param.required or not reads_data(param) \
            or not (slots.every_but or asked or words.pattern("every", "words").search(slots.cue_text)):
        return []
    group = ctx.lexicon.enum_of[(tool.name, pname)].key
    values = [v for v in ctx.enum_values.get(group, []) if v not in slots.kept]  # 寝室以外: all but the bedroom
    return values if not slots.enum_values(group) and len(values) <= MAX_CALLS_PER_REQUEST else []


def _groups_said_to(tool: Tool, slots: Slots) -> set[str]:
    """The enum groups read from the data, of this tool's parameters, whose values the request says."""
    keys = {p.enum.key for p in tool.params.values() if reads_data(p) and p.enum is not None}
    return {key for h in slots.enums for key, _ in h.value if key in keys}


def _plan_call(plan: Plan, request: Request, tool: Tool, slots: Slots, ctx: Context, ahead: Slots | None,
               base: dict[str, Any], fixed: dict[str, Any] | None = None) -> Problem | None:
    """The calls of one tool for the request; `fixed` are arguments the question's structure settles (the
    grouping, figure and count of a ranking: planner/ranking.py), over what its words read."""
    dated = [n for n, p in tool.params.items() if isinstance(p.extract, DateExtract)]
    slots, periods = _periods_of(tool, slots, ctx, base, dated)
    values = {**_values_said(tool, slots, ctx, base, dated), **{k: [v] for k, v in (fixed or {}).items()}}
    values = ranking.in_time_order(tool, slots, ctx.lexicon, values)
    values = date_pairs.implied(tool, slots, values)
    _note_measure(request, tool, slots, ctx, base)
    unclear = _impossible(tool, slots) or _negative(tool, values) or _unclear(tool, slots, ctx, values) \
        or _shared(tool, ctx, values) or _not_meant(tool, slots, values) or _twice(tool, slots, ctx, values)
    if unclear:
        return unclear
    _note_understood(request, slots, values)
    _note_counted(request, tool, slots, ctx, values)
    copied = _same_as(tool, slots, ctx, values)
    missing = _fill(plan, request, tool, slots, ctx, ahead, (values, periods[0], base), skip=set(copied))
    if isinstance(missing, Problem):
        return missing
    if missing:
        return Problem("missing", tool.name, tuple(missing), candidates=_choices(tool, missing, ctx, slots),
                       said=_label_said(tool, missing, slots, ctx))
    needed = _needed(tool, values, ctx)
    if needed is not None:
        return needed
    for pname, (current, read_args) in copied.items():  # the other light's colour, read first
        values[pname] = [Ref(plan.add(Step(current.tool, read_args)), current.column)]
    paired = writes.pair(tool, slots, values, periods, ctx.lexicon,
                         lambda part: _values_said(tool, _read(part, ctx), ctx, {}, dated))
    if isinstance(paired, writes.Unpaired):
        return Problem("ambiguous", tool.name, paired.params, candidates=paired.said)
    for line, _ in paired or [(values, periods)]:
        _fit(tool, slots, ctx, line)
    return _add_calls(plan, request, tool, values, periods, paired or [(values, periods)]) \
        or _absent(tool, slots, ctx, values)


def _absent(tool: Tool, slots: Slots, ctx: Context, values: dict[str, list[Any]]) -> Problem | None:
    """エアコンとテレビ消して, with no air conditioner: the TV switched off, and the word said to name none there is
    (planner/settings_said.py, kind none_such), never a question about the TV's name."""
    said = _listed_absent(tool, slots, ctx)
    named = [p for p, param in tool.params.items() if reads_data(param) and values.get(p)]
    if said is None or not named:
        return None
    return Problem("none_such", tool.name, (named[0],), said=said)


def _listed_absent(tool: Tool, slots: Slots, ctx: Context) -> str | None:
    """The word naming no device, listed with one said, of a command (no order held: an item not on the menu is
    asked about, never left out of the order)."""
    return settings_said.listed_unknown(slots, ctx.lexicon) if tool.mode == "write" and ctx.memory.held is None \
        else None


def _fill(plan: Plan, request: Request, tool: Tool, slots: Slots, ctx: Context, ahead: Slots | None,
          said: tuple[dict[str, list[Any]], dict[str, str], dict[str, Any]], skip: set[str]) -> list[str] | Problem:
    """The values not said that a call needs, found (into `values`): every one, a level against the one it has,
    or one found otherwise (`_find`); the required ones still missing, or why one cannot be found."""
    values, period, base = said
    missing: list[str] = []
    named = _named_lookup(tool, slots, values)
    for pname, param in tool.params.items():
        if pname in values or pname in period or pname in skip or param.extract is None:
            continue
        refers = isinstance(param.extract, CodeExtract) and bool(param.extract.refer)
        in_focus = refers and not base and not any(values.values()) and not period  # 電話番号は？
        if not (param.required or pname in slots.referred or (slots.pronoun and refers) or in_focus
                or pname == named):
            continue
        every = _every(tool, pname, param, slots, ctx)  # 全部の電気つけて, make them all blue
        found = every or _relative(plan, tool, pname, param, slots, ctx, values) \
            or _find(plan, request, tool, pname, param, slots, ctx, ahead)
        if isinstance(found, Problem) and in_focus and not param.required:
            continue
        if isinstance(found, Problem):
            return found
        if found:
            values[pname] = found
        elif param.required:
            missing.append(pname)
    moving = [p for p in missing if levels.moved_said(tool.params[p], slots.cue_text)]
    return [p for p in missing if p not in moving] or missing  # もう少し暗く: which light, not how bright


def _add_calls(plan: Plan, request: Request, tool: Tool, values: dict[str, list[Any]], periods: list[dict[str, str]],
               calls: list[tuple[dict[str, list[Any]], list[dict[str, str]]]]) -> Problem | None:
    """The request's steps: one call per combination of the values and periods of each set in `calls`. More
    than MAX_CALLS_PER_REQUEST make none, and the request says so: a value said is never dropped unsaid."""
    wanted = sum(math.prod(len(v) for v in own.values()) * len(own_periods) for own, own_periods in calls)
    if wanted > MAX_CALLS_PER_REQUEST:
        return _too_many_calls(tool, values, wanted)
    request.values.update(values)
    request.values.update({k: [v] for k, v in periods[0].items()})
    for own, own_periods in calls:
        _add_steps(plan, request, tool, own, own_periods)
    return None


def _too_many_calls(tool: Tool, values: dict[str, list[Any]], wanted: int) -> Problem:
    several = tuple(name for name, said in values.items() if len(said) > 1)
    return Problem("too_many", tool.name, several, reason=(
        ("ja", f"このご依頼には{wanted}件の問い合わせが必要ですが、一度にできるのは{MAX_CALLS_PER_REQUEST}件までです。"
               "値の数を減らすか、いくつかに分けてお送りください。"),
        ("en", f"This request would take {wanted} separate lookups, and I can make at most {MAX_CALLS_PER_REQUEST} at "
               "once. Please ask for fewer values, or split it into several messages.")))


def _periods_of(tool: Tool, slots: Slots, ctx: Context, base: dict[str, Any], dated: list[str]
                ) -> tuple[Slots, list[dict[str, str]]]:
    """The date arguments said (on the tool's own clock), else those of the call followed up."""
    today = ctx.clocks.get(tool.name, ctx.today)
    ahead = date_pairs.days_to_come(tool, slots.text, dated)
    if today != ctx.today or ahead:  # a pickup day: 土曜 is the coming Saturday
        slots = replace(slots, dates=find_dates(slots.text, today, slots.focus, ahead=ahead))
    return slots, _dates(tool, slots, today, base) or [{n: base[n] for n in dated if base.get(n) is not None}]


def _note_measure(request: Request, tool: Tool, slots: Slots, ctx: Context, base: dict[str, Any]) -> None:
    """The one figure of the tool's result the request names (売上: the money; 単価, a column of its rows), for the
    answer to state alone; a follow-up of the same tool (2011年は？ after 2010年の売上合計は？) keeps the figure the
    request before it named. The price of a thing asked with no period (カットはいくら？) is what one costs, each
    row's, never what the rows of every time it was sold add up to."""
    each = measure.price_of(tool, slots.cue_text) if measure.one_price_asked(slots.cue_text, bool(slots.dates)) \
        else None
    if each is not None:
        request.measures[tool.name] = measure.EACH_OF + each
        return
    figure = measure.named(tool, slots.cue_text) or measure.total_named(tool, slots.cue_text)
    last = ctx.memory.last_call
    if figure is None and base and last is not None and last[0] == tool.name:
        figure = measure.named(tool, fold(normalise(ctx.memory.said)))
    if figure is None:  # 胡蝶蘭の単価: the unit price of the rows, not what they add up to
        figure = measure.column_named(tool, slots.cue_text) or measure.price_of(tool, slots.cue_text)
    if figure is not None:
        request.measures[tool.name] = measure.column(tool, figure)


def _note_counted(request: Request, tool: Tool, slots: Slots, ctx: Context, values: dict[str, list[Any]]) -> None:
    """The status a call asked for money counts (planner/statuses.py), into `values`, for the answer to say."""
    def known(pname: str) -> list[str]:
        group = ctx.lexicon.enum_of.get((tool.name, pname))
        return ctx.enum_values.get(group.key, []) if group is not None else []

    found = statuses.counted(tool, slots.cue_text, values, known)
    if found is not None and found not in request.counted:
        request.counted.append(found)


def _note_understood(request: Request, slots: Slots, values: dict[str, list[Any]]) -> None:
    """The loose readings this call uses, for the answer to say (『ハンバーグ』 is ハンバーグ弁当)."""
    request.understood += [u for u in slots.understood if u not in request.understood and any(
        u[1] in said for said in values.values())]


def _impossible(tool: Tool, slots: Slots) -> Problem | None:
    """A date said that does not exist (2025-02-30) is refused with the reason, never read as another day."""
    dated = [n for n, p in tool.params.items() if isinstance(p.extract, DateExtract)]
    if not slots.impossible or not dated:
        return None
    bad = slots.impossible[0]
    return Problem("impossible_value", tool.name, tuple(dated), said=bad.text, reason=(
        ("ja", f"{bad.text}という日付はありません。正しい日付で言い直してください。"),
        ("en", f"{bad.text} is not a real date. Please say the date again.")))


def _fitted(tool: Tool, slots: Slots, ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    """A call's arguments with the value said that its other value takes (`_fit`)."""
    values = {k: [v] for k, v in args.items()}
    _fit(tool, slots, ctx, values)
    return {k: v[0] for k, v in values.items()}


def _fit(tool: Tool, slots: Slots, ctx: Context, values: dict[str, list[Any]]) -> None:
    """A value said by a synonym, of another value it does not take, read as the one it takes that the synonym's
    words name (into `values`): a large cola is an Lサイズ one (large size), a large bowl 大盛り."""
    for pname, param in tool.params.items():
        enum = param.enum
        if enum is None or enum.fits_param is None or len(values.get(pname, [])) != 1:
            continue
        fits = ctx.enum_fits.get(enum.key, {})
        taken = [set(fits.get(str(v), ())) for v in values.get(enum.fits_param, [])]
        value = values[pname][0]
        if not taken or all(value in t for t in taken):
            continue
        said = {w for h in slots.enums if (enum.key, value) in h.value for w in fold(h.phrase).split()}
        names = {**enum.synonyms, **getattr(param.extract, "synonyms", {}), **ctx.enum_synonyms.get(enum.key, {})}
        meant = [v for v in set.intersection(*taken)
                 if said and any(said <= set(fold(n).split()) for n, of in names.items() if of == v)]
        if len(meant) == 1:
            values[pname] = meant
            slots.enums = [replace(h, value=h.value | {(enum.key, meant[0])}) if (enum.key, value) in h.value else h
                           for h in slots.enums]  # the words said name it here


def _shared(tool: Tool, ctx: Context, values: dict[str, list[Any]]) -> Problem | None:
    """A name several rows have (two customers named 佐藤) without the key of one: which is asked, by its key,
    never answered for all of them."""
    for pname, param in tool.params.items():
        enum = param.enum
        if enum is None or enum.shared_param is None or values.get(enum.shared_param):
            continue
        for value in values.get(pname, []):
            keys = ctx.enum_shared.get(enum.key, {}).get(str(value))
            if keys:
                return Problem("which_row", tool.name, (enum.shared_param, pname), said=str(value),
                               candidates=tuple(keys))
    return None


def _not_meant(tool: Tool, slots: Slots, values: dict[str, list[Any]]) -> Problem | None:
    """Values said in the negative are not what a request is about (into `values`): 郊外店じゃなくて本店の売上 is the
    main store's. One said in the negative alone cannot be applied: of a question (郊外店じゃない店舗の売上), said so,
    never answered for it or for all; of a command (make it large, not the cola), never written: which is asked."""
    negated = not_meant.values(slots)
    for pname, said in list(values.items()):
        meant = [v for v in said if v not in negated]
        if meant:
            values[pname] = meant
        elif said and tool.mode == "write" and reads_data(tool.params[pname]):
            del values[pname]  # make it large, not the cola: which item is asked, never the cola written
        elif said and isinstance(tool.params[pname].extract, EnumExtract):
            words_said = not_meant.said(slots, said[0])
            return Problem("not_applied", tool.name, said=words_said, candidates=(words_said,))
    return None


def _negative(tool: Tool, values: dict[str, list[Any]]) -> Problem | None:
    """A sum said with a minus sign where the parameter takes none is refused as said, never made positive."""
    for pname, param in tool.params.items():
        low = param.min if param.min is not None else 0
        for value in values.get(pname, []):
            if isinstance(param.extract, AmountExtract) and isinstance(value, int) and value < 0 <= low:
                said = f"{value:,}"
                return Problem("impossible_value", tool.name, (pname,), said=said, reason=(
                    ("ja", f"金額がマイナス（{said}円）になっています。マイナスでない金額で言い直してください。"),
                    ("en", f"The amount is negative ({said} yen). Please say the amount without a minus sign.")))
    return None


def _unclear(tool: Tool, slots: Slots, ctx: Context, values: dict[str, list[Any]]) -> Problem | None:
    """A word that names several values the tool takes (お茶: 麦茶 or 緑茶?), or that looks like a value and
    names none (惣菜の売上): asked, never dropped for an answer about everything."""
    takes = {code_pattern(p) for p in tool.params.values() if isinstance(p.extract, CodeExtract)}
    stray = [slots.text[c.start:c.end] for c in slots.codes if c.label and c.pattern not in takes] + slots.stray
    if stray:  # 顧客コード0009 to a tool that knows no customers: never dropped
        return Problem("not_taken", tool.name, said=stray[0])
    qualified = _qualified(tool, slots)
    if qualified is not None:
        return qualified
    loose = _loose_params(tool, ctx)
    for pname, group in loose:
        unsure = next((u for u in slots.unsure if u.of(group)), None)
        if unsure is not None and unsure.also:  # 佐藤さん: 佐藤 健一 of the staff or 佐藤 花子 of the customers?
            return _whose(tool, unsure.said, unsure.candidates, loose, ctx)
        if unsure is not None:  # 先週のコーヒーとお茶: coffee is clear, which tea is asked
            return Problem("which_value", tool.name, (pname,), said=unsure.said, candidates=unsure.candidates)
    for hit in slots.enums:  # 鈴木 大輔さん, a member of staff and a customer: which of them, never both
        taking = {pname for pname, group in loose for k, _ in hit.value if k == group}
        if len(taking) > 1 and said_as_person(slots.text, (hit.start, hit.end)):
            said = slots.text[hit.start:hit.end]
            return _whose(tool, said, tuple(dict.fromkeys(v for _, v in sorted(hit.value))), loose, ctx)
    if slots.unknown and loose and _listed_absent(tool, slots, ctx) is None:
        widest = max(loose, key=lambda pg: len(ctx.enum_values.get(pg[1], [])))[0]
        every = _choices(tool, [widest], ctx)  # お風呂の電気 where there is none: the lights there are
        return Problem("unknown_value", tool.name, (widest,), said=slots.unknown[0][0], candidates=every,
                       every=bool(every))
    return None


def _whose(tool: Tool, said: str, values: tuple[str, ...], loose: list[tuple[str, str]], ctx: Context) -> Problem:
    """Which person words name where they name people of several of the tool's parameters: each candidate with the
    parameter it is a value of (a name that is the same in two, once for each)."""
    params, candidates = [], []
    for pname, group in loose:
        for value in values:
            if value in ctx.enum_values.get(group, ()):
                params.append(pname)
                candidates.append(value)
    return Problem("which_person", tool.name, tuple(params), said=said, candidates=tuple(candidates))


def _qualified(tool: Tool, slots: Slots) -> Problem | None:
    """A value given by a name with a word before it that makes it another value (warm white: not white) is
    asked about, with the names there are in the request's script."""
    for code in slots.codes:
        if code.qualified is None or any(h.start <= code.qualified < h.end for h in slots.enums):
            continue  # the light of "the kitchen light red" names the light, it does not make red another colour
        for pname, param in tool.params.items():
            x = param.extract
            if isinstance(x, CodeExtract) and x.named and code_pattern(param) == code.pattern:
                said = slots.text[code.qualified:code.end]
                names = tuple(n for n in x.named if n.isascii() == said.isascii())
                return Problem("unknown_value", tool.name, (pname,), said=said, candidates=names, every=True)
    return None


def _loose_params(tool: Tool, ctx: Context) -> list[tuple[str, str]]:
    """(parameter, group) of the tool's enums whose values are matched loosely (read from the data)."""
    matched = ctx.lexicon.matchers(ctx.enum_values, ctx.enum_synonyms)
    return [(n, ctx.lexicon.enum_of[(tool.name, n)].key) for n, p in tool.params.items()
            if isinstance(p.extract, EnumExtract) and ctx.lexicon.enum_of[(tool.name, n)].key in matched]


def _twice(tool: Tool, slots: Slots, ctx: Context, values: dict[str, list[Any]]) -> Problem | None:
    """One word said that is a value of two of the tool's parameters (受付: a ticket's status, and the role of the
    staff who took it), nothing saying which: asked which, never both applied."""
    keys = {p: ctx.lexicon.enum_of[(tool.name, p)].key for p in values if (tool.name, p) in ctx.lexicon.enum_of}
    for hit in slots.enums:
        for value in {v for _, v in hit.value}:  # the very same value in two groups (カット and cut: one item)
            groups = {k for k, v in hit.value if v == value}
            params = [p for p, key in keys.items() if key in groups and value in values[p]]
            if len(groups) > 1 and len(params) > 1:
                return Problem("which_param", tool.name, tuple(params), said=slots.text[hit.start:hit.end])
    return None


def _values_said(tool: Tool, slots: Slots, ctx: Context, base: dict[str, Any], dated: list[str]
                 ) -> dict[str, list[Any]]:
    """Each parameter's values said in the request (dates apart), else the value of the call followed up."""
    values: dict[str, list[Any]] = {}
    for pname, param in tool.params.items():
        said = [] if pname in dated else _said(tool, pname, param, slots, ctx)
        if said:
            values[pname] = said
        elif base.get(pname) is not None and pname not in dated and not _every(tool, pname, param, slots, ctx):
            values[pname] = [base[pname]]
    return values


def _add_steps(plan: Plan, request: Request, tool: Tool, values: dict[str, list[Any]],
               periods: list[dict[str, str]]) -> None:
    """One call per combination of the values and periods said (`_add_calls` counted them)."""
    names = list(values)
    for combo, period in itertools.product(itertools.product(*values.values()), periods):
        chosen = dict(zip(names, combo, strict=True))
        args = {k: v for k, v in chosen.items() if not isinstance(v, Ref)}
        refs = {k: v for k, v in chosen.items() if isinstance(v, Ref)}
        ordered = {k: ({**args, **period})[k] for k in tool.params if k in args or k in period}
        request.steps.append(plan.add(Step(tool.name, ordered, refs, request.gate)))


def _named_lookup(tool: Tool, slots: Slots, values: dict[str, list[Any]]) -> str | None:
    """A name said to a tool that takes no name (orders of Chika Smith): the first optional code
    parameter with a lookup finds the code from it, as a required one would."""
    if not slots.names or finds_by_name(tool):
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
    if isinstance(x, EnumExtract):  # 明るさを50%に: the light just switched on; テレビ: the only one there is
        return _enum_in_focus(tool, pname, ctx, slots)
    remembered = ctx.memory.values.get(pname) or []
    if len(remembered) > 1:
        return Problem("ambiguous", tool.name, (pname,))
    return remembered


def _relative(plan: Plan, tool: Tool, pname: str, param: Param, slots: Slots, ctx: Context,
              values: dict[str, list[Any]]) -> list[Any] | Problem:
    """A level said against the one it has (もう少し暗く): a step from the last level known of the device, else
    from the level its current tool reads first (levels.py); nothing when no such word is said."""
    rel = levels.relative(param)
    by = rel.step * levels.direction(slots.cue_text, rel) if rel is not None else 0
    if rel is None or not by:
        return []
    if any(len(v) != 1 for k, v in values.items() if k != pname):
        return _relative_of_several(tool, pname, param, ctx, values, by)
    args = {k: v[0] for k, v in values.items()}
    level = ctx.memory.level_of.get(levels.key(tool.name, pname, args))
    if level is not None:
        moved = levels.moved(level, by)
        if moved is not None and not levels.within(moved, param):  # brighter at 100%: nothing to move to
            return Problem("at_limit", tool.name, (pname,), said=str(level))
        return [moved] if moved is not None else []
    current = param.current
    if current is None or current.tool not in ctx.offered:
        return []
    reads = ctx.lexicon.tools[current.tool]
    if any(p.required and n not in args for n, p in reads.params.items()):
        return []
    step = plan.add(Step(current.tool, {k: v for k, v in args.items() if k in reads.params}))
    return [Ref(step, current.column, by)]


def _relative_of_several(tool: Tool, pname: str, param: Param, ctx: Context, values: dict[str, list[Any]],
                         by: int) -> list[Any]:
    """The level of several devices moved a step, where the conversation knows each one's level and it is the
    same (もうちょい明るく after both lights were set to 30: 40 each); nothing otherwise."""
    others = {k: v for k, v in values.items() if k != pname}
    known = {ctx.memory.level_of.get(levels.key(tool.name, pname, dict(zip(others, combo, strict=True))))
             for combo in itertools.product(*others.values())}
    if len(known) != 1 or None in known:
        return []
    moved = levels.moved(known.pop(), by)
    return [moved] if moved is not None and levels.within(moved, param) else []


def _same_as(tool: Tool, slots: Slots, ctx: Context, values: dict[str, list[Any]]
             ) -> dict[str, tuple[Current, dict[str, Any]]]:
    """The parameters whose value is said to be another device's (キッチンと同じ色に), each with the tool that reads
    it and its arguments (the parameter's `current`); that device stops being one the write is for."""
    wanted = {n: p.current for n, p in tool.params.items() if p.current is not None and n not in values
              and p.current.tool in ctx.offered}
    for dname, device in tool.params.items():
        source = _source(slots, ctx.lexicon.enum_of[(tool.name, dname)].key) if wanted and reads_data(device) else None
        focus = ctx.memory.chosen.get(dname) if wanted and reads_data(device) and source is None else None
        if focus is not None and values.get(dname) and focus not in values[dname] \
                and words.pattern("same_alone", "words").search(slots.folded):  # same colour for the bedroom
            return {n: (c, {dname: focus}) for n, c in wanted.items() if dname in ctx.lexicon.tools[c.tool].params}
        if source is None or source not in values.get(dname, []):
            continue
        values[dname] = [v for v in values[dname] if v != source]
        if not values[dname]:
            del values[dname]  # 同じ色にして after the living room light was named: that light
        return {n: (c, {dname: source}) for n, c in wanted.items() if dname in ctx.lexicon.tools[c.tool].params}
    return {}


def _source(slots: Slots, group: str) -> Any:
    """The value of the group said as the one copied: right before と同じ, or after "same as"."""
    hits = sorted((h for h in slots.enums if any(k == group for k, _ in h.value)), key=lambda h: h.start)
    for m in words.pattern("same", "after_source").finditer(slots.folded):
        before = [h for h in hits if h.end <= m.start() and not slots.folded[h.end:m.start()].strip("の電気 ")]
        if before:
            return next(v for k, v in sorted(before[-1].value) if k == group)
    for m in words.pattern("same", "before_source").finditer(slots.folded):
        after = [h for h in hits if h.start >= m.end()]
        if after:
            return next(v for k, v in sorted(after[0].value) if k == group)
    return None


def _enum_in_focus(tool: Tool, pname: str, ctx: Context, slots: Slots) -> list[Any]:
    """The value of the conversation's focus, or the only value there is. A write takes the focus only where the
    request says something else it records, or points back (それ2つに): 確認させてください after an item was
    ordered is no second order of it."""
    valid = ctx.enum_values.get(ctx.lexicon.enum_of[(tool.name, pname)].key, [])
    if len(valid) == 1:
        return list(valid)
    if tool.mode == "write" and not coverage(slots, ctx.lexicon, tool.name)[0] \
            and not words.pattern("references", "thing").search(slots.cue_text) \
            and not levels.moves(tool, slots.cue_text):
        return []
    if pname not in ctx.memory.chosen:
        return _named_for_later(tool, pname, ctx)
    several = ctx.memory.chosen_all.get(pname, [])
    if len(several) > 1 and words.pattern("references", "several").search(slots.cue_text):
        return several  # make them blue: both lights just switched on
    last = ctx.memory.last_command
    if len(several) > 1 and last is not None and last[0] == tool.name and levels.moves(tool, slots.cue_text):
        return several  # もうちょい明るく after both lights were set to 30: both, a step up
    return [ctx.memory.chosen[pname]]


def _named_for_later(tool: Tool, pname: str, ctx: Context) -> list[Any]:
    """The one value the request before named in a command of a case to come, which nothing was done to: 今消しちゃって
    after 「もし寝たら寝室の電気消して」 is of the bedroom light."""
    if not ctx.memory.said or not may_be_hypothetical(ctx.memory.said):
        return []
    before = _read(ctx.memory.said, ctx)
    if hypothetical(before) is None:
        return []
    named = before.enum_values(ctx.lexicon.enum_of[(tool.name, pname)].key)
    return named if len(named) == 1 else []


def _said(tool: Tool, pname: str, param: Param, slots: Slots, ctx: Context) -> list[Any]:
    """The values of one parameter said in the request (several only where each makes a call)."""
    x = param.extract
    if takes_key(param):  # ALFKIの注文: a text key with no pattern
        return list(dict.fromkeys(k for k, _ in slots.keys))
    if isinstance(x, CodeExtract):
        said = dict.fromkeys(c.value for c in slots.codes if takes_code(param, c.value, c.pattern)
                             and _labelled_for(tool, pname, c))
        return [int(v) for v in said] if param.type == "integer" else list(said)  # customer 5: the key 5
    if isinstance(x, NameExtract):
        return _names_for(tool, pname, slots, ctx)
    if isinstance(x, EnumExtract):
        key = ctx.lexicon.enum_of[(tool.name, pname)].key
        if key in ctx.lexicon.static_values:  # 売れてないトップ5: the longer phrase says the order
            hits = [h for h in slots.enums if any(k == key for k, _ in h.value)]
            longest = max(hits, key=lambda h: h.end - h.start, default=None)
            return [v for k, v in sorted(longest.value) if k == key] if longest else []
        return slots.enum_values(key)
    if isinstance(x, AmountExtract):
        if slots.amounts:
            return [slots.amounts[0][0]]
        amount = _bare_amount(slots) if param.required else None
        return [amount] if amount is not None else []
    if isinstance(x, ItemsExtract):
        goods = slots.items[0][0] if slots.items else english_items(slots)
        return [goods] if goods else []
    if isinstance(x, CountExtract):
        n = writes.written_count(slots, ctx.lexicon, tool, pname) if tool.mode == "write" \
            else count(slots, ctx.lexicon, tool.name, pname)
        return [n] if n is not None else []
    if isinstance(x, TimeExtract):
        return [slots.times[0][0]] if slots.times else []
    return []


def _labelled_for(tool: Tool, pname: str, code: Code) -> bool:
    """Whether a code said after a word fills this parameter: "customer <uuid>" fills the tool's parameter that
    is said "customer", never its order's or store's key of the same shape; where none is said so, any fits."""
    if not code.label:
        return True
    said = fold(normalise(code.label))

    def labelled(p: Param) -> bool:
        return isinstance(p.extract, CodeExtract) and said in {fold(normalise(w)) for w in p.extract.labels}

    takers = [n for n, p in tool.params.items() if isinstance(p.extract, CodeExtract)
              and takes_code(p, code.value, code.pattern)]
    named = [n for n in takers if labelled(tool.params[n])]
    return not named or pname in named


def _names_for(tool: Tool, pname: str, slots: Slots, ctx: Context) -> list[str]:
    """The names said that fill this name parameter (planner/whose.py), and the words that look like a value
    that no value of the data matched (山田商店の受注) when no name is said at all."""
    said = slots.names or slots.people(ctx.lexicon.enum_groups(tool.name)) \
        or people_tables.unplaced_people(slots, ctx.lexicon, tool.name) or slots.unknown
    return list(dict.fromkeys(n for n, span in said if whose.fills(tool, slots, span, ctx.offered) == [pname]))


def _dates(tool: Tool, slots: Slots, today: date, base: dict[str, Any]) -> list[dict[str, str]]:
    """Date arguments, one set per period said: a day, a period (先週, 4月10日から4月20日, 先月と今月),
    or a current and a previous period (two said: the later one is current; one said: the one
    before it is the previous)."""
    params = date_pairs.chosen(tool, slots, base)
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
        joined = resolve(slots.text[match.start_index :], today, slots.focus) if match.kind != "span" else None
        out.append(joined or match.range)
    return out
