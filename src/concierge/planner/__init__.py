"""The offline planner: reads a request in Japanese or English and chooses declared tools, with no model.

It is driven by the catalog, not by code per tool: each tool's `intents` say when it is
asked for, each parameter's `extract` says how its value is found in a request
(docs/planner.md). `Planner.reply` is one step of the agent loop: given the
conversation so far it returns the next tool calls, or, when the plan is complete,
the answer built from the results. It never reads the database itself.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections import OrderedDict
from dataclasses import replace

from concierge.agent.providers.interface import ModelReply, ModelRequest, ToolCall
from concierge.catalog.model import CodeExtract, CountExtract, TimeExtract
from concierge.language.detect import language
from concierge.language.tokens import Utterance, tokenise
from concierge.pipeline.guard import GuardContext
from concierge.pipeline.pipeline import Pipeline
from concierge.planner import answer, budget, choose, progress, refusals, scope, words
from concierge.planner.answer.scene import role
from concierge.planner.lexicon import Lexicon
from concierge.planner.lines import Held
from concierge.planner.nouns import noun
from concierge.planner.plan import Context, Plan, Problem, build, only_values
from concierge.planner.slots import Slots
from concierge.planner.text import fold, normalise
from concierge.sources.result import Rows

__all__ = ["Planner"]

PLANS_KEPT = 256
PLANS_LETTERS = 40_000  # and the letters of the requests they plan: a plan of a long request keeps much (0.5 MB)
log = logging.getLogger(__name__)


class Planner:
    def __init__(self, pipeline: Pipeline):
        self.pipeline = pipeline
        self.lexicon = Lexicon(pipeline.tools, pipeline.db.engine.dialect.name)
        self.referable = {p for params in self.lexicon.refer.values() for p in params}
        self._looked_up = any(isinstance(p.extract, CodeExtract) and p.extract.lookup is not None
                              for t in pipeline.tools.values() for p in t.params.values())
        self._timed = {t.name for t in pipeline.tools.values()
                       if any(isinstance(p.extract, TimeExtract) for p in t.params.values())}
        ctx = pipeline.guard_context()
        # read the data's values now, and their readings (loads the dictionary); build what words are found by
        self.lexicon.enum_phrases(ctx.enum_values, ctx.enum_synonyms)
        self.lexicon.matchers(ctx.enum_values, ctx.enum_synonyms)
        self.lexicon.prepare()
        words.prepare()
        scope.prepare()
        choose.prepare(pipeline.tools.values())
        # The steps of one turn plan the same message; a question asked again (same day, same offer) is too.
        # A plan is kept with the texts it read (its `Slots`): the turn's later steps read none of them again.
        self._plans: OrderedDict[tuple, tuple[Plan, dict[str, Slots]]] = OrderedDict()
        self._plans_lock = threading.Lock()  # requests are planned in worker threads, several at once
        self._letters = 0  # of the requests whose plans are kept
        self._facts_key: tuple[GuardContext, tuple] | None = None  # the values read from the data, as a key
        # What each answered turn asked, by its words and its answer: the next turn need not plan it again to know.
        self._asked_turns: OrderedDict[tuple[str, str], Problem | None] = OrderedDict()

    def plan(self, request: ModelRequest) -> tuple[Plan, int]:
        """The plan for the turn's message, and where that message is in the conversation."""
        start = progress.turn_start(request.messages)
        text = request.messages[start].text or "" if start >= 0 else ""
        facts = self.pipeline.guard_context()
        ctx = Context(
            facts_key=self._key_of_facts(facts),
            lexicon=self.lexicon,
            offered={spec.name for spec in request.tools},
            today=request.today,
            enum_values=facts.enum_values,
            enum_synonyms=facts.enum_synonyms,
            enum_shared=facts.enum_shared,
            enum_fits=facts.enum_fits,
            needs=facts.needs,
            memory=progress.memory(request.messages[: max(start, 0)], self.pipeline.tools, self.referable,
                                   self._held(request)),
            clocks=dict(request.clocks),
            now=self._now(request),
        )
        plan = self._built(text, ctx)
        before = progress.turn_start(request.messages[:start]) if start > 0 else -1
        said_before = request.messages[before].text or "" if before >= 0 else ""
        if not said_before:
            return plan, start
        turn = range(before, start)
        if only_values(normalise(text), ctx) or self._completes(plan, said_before, ctx, request, turn):
            blocked = self._blocked_before(said_before, ctx, request, turn)
            # a turn before that asked nothing is completed by none: it is not planned again to know
            if blocked is not None or self._asked_before(said_before, ctx, request, turn) is not None:
                plan = self._answering(said_before, text, ctx, blocked) or plan
        return plan, start

    def _held(self, request: ModelRequest) -> Held | None:
        """The lines of the first catalog state that `rules.lines` edits, as the turn began (`lines.py`)."""
        for catalog in self.pipeline.catalogs:
            rules = catalog.spec.rules
            if rules is None or rules.lines is None or rules.state not in request.state:
                continue
            add = self.pipeline.tools[rules.lines.add]
            key = next(n for n, p in add.params.items() if p.required)
            spec = rules.lines
            return Held(rules.state, spec.add, spec.change, spec.remove, spec.place, key, request.state[rules.state])
        return None

    def _now(self, request: ModelRequest) -> str | None:
        """The time of day of the clock of the tools that take a time of day (the demo's, else the wall's)."""
        timed = next((spec.name for spec in request.tools if spec.name in self._timed), None)
        return self.pipeline.now(timed) if timed else None

    def _completes(self, plan: Plan, said_before: str, ctx: Context, request: ModelRequest, turn: range) -> bool:
        """Whether this turn gives what the turn before asked for, though it does not read as values alone: a call
        of the very tool asked about (明日の朝 -> what time? -> 8時半くらいで); or, making no call, a request of the
        same tool missing what the turn before said (暗くして -> how bright? -> 60%で), or words that are part of one
        of the candidates it offered and nothing else (うどん? -> かけで)."""
        tools = {s.tool for s in plan.steps}
        made = {call.name for i in turn for call in request.messages[i].tool_calls}
        if not made:  # 佐藤さん -> (佐藤 健一（スタッフ） or 佐藤 花子（顧客）?) -> 顧客のほう; 売上 -> (どれ?) -> 訪問
            asked = self._asked_before(said_before, ctx, request, turn)
            if asked is not None and asked.kind == "which_person":
                return self._person_meant(request.messages[turn.stop].text or "", asked) is not None
            if asked is not None and asked.kind == "which_tool":
                return self._tool_meant(request.messages[turn.stop].text or "", asked) is not None
        if len(tools) == 1 and not tools & made:  # the turn before asked for it, and called it not: what it asked?
            asked = self._asked_before(said_before, ctx, request, turn)
            return asked is not None and asked.kind == "missing" and asked.tool in tools
        if plan.steps or made:
            return False
        asked = self._asked_before(said_before, ctx, request, turn)
        if asked is None:
            return False
        missing = _asked(plan)
        if missing is not None and missing.kind == "missing":
            return asked.kind == "missing" and asked.tool == missing.tool
        text = request.messages[turn.stop].text or ""
        if asked.kind == "missing" and words.value_said(text).isdigit():  # 明るさ変えて -> how bright? -> 40
            return True
        if asked.kind == "which_row":  # 佐藤さんの売上 -> (顧客ID 1 or 2?) -> 顧客ID 1のほう
            return _key_of(text, asked.candidates) is not None
        return asked.kind == "which_value" and _one_of(words.value_said(text), asked.candidates) in asked.candidates

    def _asked_before(self, said_before: str, ctx: Context, request: ModelRequest, turn: range) -> Problem | None:
        """What the turn before asked, as its answer was made (remembered), else as its words are planned now."""
        answered = next((m.text for m in reversed(request.messages[turn.start:turn.stop])
                         if m.role == "assistant" and m.text), "")
        with self._plans_lock:
            if (said_before, answered) in self._asked_turns:
                return self._asked_turns[(said_before, answered)]
        return _asked(self._built(said_before, ctx))

    def _blocked_before(self, said_before: str, ctx: Context, request: ModelRequest, turn: range) -> Problem | None:
        """The write of the turn before that a name held back, found in several rows (田中さんの予約 人数を1名に:
        two bookings of 田中): which row, their keys its candidates; planned again as that turn was, with the calls
        it made."""
        made = progress.calls_made(request.messages[turn.start + 1:turn.stop])
        tools = self.pipeline.tools
        if not self._looked_up or not made or any(c.name not in tools or tools[c.name].mode == "write" for c in made):
            return None
        found = {str(v) for c in made if isinstance(c.result, Rows) for row in c.result.rows for v in row.values()}
        said = tokenise(normalise(request.messages[turn.stop].text or ""))
        if not any(v in said.text and _said_whole(said, v) for v in found if v):
            return None  # the turn names no value its lookups found: no row of theirs is picked
        earlier = replace(ctx, memory=progress.memory(request.messages[:turn.start], self.pipeline.tools,
                                                      self.referable, self._held(request)), read={}, edits={})
        plan = self._built(said_before, earlier)
        return _held_back(plan, progress.advance(plan, made, self.pipeline.tools)[1])

    def _remember_asked(self, said: str, answered: str, plan: Plan) -> None:
        with self._plans_lock:
            self._asked_turns[(said, answered)] = _asked(plan)
            if len(self._asked_turns) > PLANS_KEPT:
                self._asked_turns.popitem(last=False)

    def _answering(self, said_before: str, text: str, ctx: Context, blocked: Problem | None) -> Plan | None:
        """The previous request completed by this turn, when the previous turn asked something and this one
        only gives values: かぼちゃ4個を600円で売った -> (which customer?) -> 0016です; 先週のお茶の売上 ->
        (麦茶 or 緑茶?) -> 麦茶; 商品ランキングの売上 -> (the product ランキング?) -> 『ランキング』です."""
        before = self._built(said_before, ctx)
        asked = _asked(before) or blocked
        if asked is None or (asked is blocked and _key_of(text, asked.candidates) is None):
            return None  # held back for several rows: only the key of one of them completes it
        answer = words.value_said(text)
        answer = _one_of(answer, asked.candidates) if asked.kind == "which_value" else answer
        key = _key_of(text, asked.candidates) if asked.kind == "which_row" else None
        person = self._person_meant(text, asked) if asked.kind == "which_person" else None
        meant = self._tool_meant(text, asked) if asked.kind == "which_tool" else None
        if asked.kind == "which_person":
            if person is None:
                return None
            joined_text = _put_in(said_before, asked.said, person)
        elif meant is not None:  # the request again, the other data no longer offered: 先月の売上 of the visits
            tools = self.pipeline.tools
            others = {noun(tools[t]).ja for t in asked.candidates if t in tools} - {meant}
            chosen = replace(ctx, offered={t for t in ctx.offered if t in tools and noun(tools[t]).ja not in others})
            joined = self._built(said_before, chosen)
            return joined if joined.steps and _asked(joined) is None else None
        elif key is not None:  # the key of the row meant, said as the request reads a key: 顧客ID1 佐藤さんの…
            joined_text = f"{self._key_label(asked, said_before)}{key} {said_before}"
        elif asked.said and asked.kind in ("which_value", "which_reading", "unknown_value") and answer:
            joined_text = _put_in(said_before, asked.said, answer)
        elif asked.kind == "missing":  # 暗くして -> (how bright?) -> 60%で: one request, not two
            asking = _asking(before, asked, said_before)
            joined_text = f"{asking.rstrip(words.STOPS)} {self._cued(asked, answer) or text}"
        else:
            joined_text = f"{said_before}。{text}"
        joined = self._built(joined_text, ctx)
        if joined.steps and _asked(joined) is None:
            return joined
        if asked.kind == "missing" and asked.candidates and answer:  # which line? メロンパンのほう: of the request
            joined = self._built(f"{answer} {said_before}", ctx)
            return joined if joined.steps and _asked(joined) is None else None
        return None

    def _tool_meant(self, text: str, asked: Problem) -> str | None:
        """The noun of the one data asked about that the answer names (訪問, the visits), in the language of the
        request asked about; None where it names none of them, or several."""
        said = fold(normalise(text))
        nouns = [noun(self.pipeline.tools[t]) for t in asked.candidates if t in self.pipeline.tools]
        named = {n.ja for n in nouns if any(w and fold(normalise(w)) in said for w in (n.ja, n.one))}
        return next(iter(named)) if len(named) == 1 else None

    def _person_meant(self, text: str, asked: Problem) -> str | None:
        """The one person asked about that the answer names, by name or by who they are (佐藤 花子, 顧客のほう), as
        the request says them with who they are (顧客の佐藤 花子); None where it names none of them, or several."""
        tool = self.pipeline.tools.get(asked.tool or "")
        if tool is None:
            return None
        said = fold(normalise(text))
        scores = []
        for pname, value in zip(asked.params, asked.candidates, strict=True):
            group = self.lexicon.enum_of.get((tool.name, pname))
            roles = {fold(normalise(role(tool, pname, lang))) for lang in ("ja", "en")}
            roles |= self.lexicon.role_words(group.key) if group else set()
            scores.append(int(fold(normalise(value)) in said) + int(any(w and w in said for w in roles)))
        best = max(scores, default=0)
        if best == 0 or scores.count(best) > 1:
            return None
        i = scores.index(best)
        lang = "ja" if language(asked.said) == "ja" else "en"
        who = role(tool, asked.params[i], lang)
        return f"{who}の{asked.candidates[i]}" if lang == "ja" else f"{who} {asked.candidates[i]}"

    def _key_label(self, asked: Problem, said_before: str) -> str:
        """What the key asked for is called, in the language of the request (顧客ID, customer id)."""
        tool = self.pipeline.tools.get(asked.tool or "")
        x = tool.params[asked.params[0]].extract if tool and asked.params[0] in tool.params else None
        labels = x.labels if isinstance(x, CodeExtract) else []
        japanese = not said_before.isascii()
        return next((f"{w} " for w in labels if w.isascii() != japanese), f"{labels[0]} " if labels else "")

    def _cued(self, asked: Problem, answer: str) -> str | None:
        """A bare number given for the count asked for, said after its cue (40 -> 明るさを40), else None."""
        tool = self.pipeline.tools.get(asked.tool or "")
        params = [tool.params[p] for p in asked.params if p in tool.params] if tool else []
        x = params[0].extract if len(params) == 1 else None
        return f"{x.cues[0]}{answer}" if isinstance(x, CountExtract) and answer.isdigit() else None

    def _key_of_facts(self, facts: GuardContext) -> tuple:
        """The values read from the data that a plan depends on, as a key: made again only when they are read
        again (the pipeline keeps one `GuardContext` until then)."""
        seen = self._facts_key
        if seen is not None and seen[0] is facts:
            return seen[1]
        key = (tuple((k, tuple(v)) for k, v in sorted(facts.enum_values.items())),
               tuple((k, tuple(sorted(v.items()))) for k, v in sorted(facts.enum_synonyms.items())),
               tuple((k, tuple((x, tuple(y)) for x, y in sorted(v.items())))
                     for k, v in sorted(facts.enum_fits.items())),
               tuple((k, tuple(sorted(by.items()))) for k, by in sorted(facts.needs.items())))
        self._facts_key = (facts, key)
        return key

    def _built(self, text: str, ctx: Context) -> Plan:
        key = (text, ctx.today, ctx.now, frozenset(ctx.offered), repr(ctx.memory), tuple(sorted(ctx.clocks.items())),
               ctx.facts_key)
        with self._plans_lock:
            kept = self._plans.get(key)
            if kept is not None:
                self._plans.move_to_end(key)
        if kept is not None:
            for said, slots in kept[1].items():
                ctx.read.setdefault(said, slots)
            return kept[0]
        plan = build(normalise(text), ctx)  # outside the lock: another request's plan never waits for this one
        with self._plans_lock:
            self._letters += 0 if key in self._plans else len(text)  # two threads may plan one request at once
            self._plans[key] = (plan, dict(ctx.read))
            while len(self._plans) > PLANS_KEPT or (self._letters > PLANS_LETTERS and len(self._plans) > 1):
                self._letters -= len(self._plans.popitem(last=False)[0][0])
        return plan

    def reply(self, request: ModelRequest) -> ModelReply:
        """The next tool calls, or the answer; within the planning budget, else the answer that the request is
        too long to work out (`budget`), audited as a request the planner declined."""
        try:
            with budget.within():
                plan, start = self.plan(request)
        except budget.PlanTooLong as err:
            text = _said(request)
            log.warning("the planner gave up on a request of %d characters from %s: %s", len(text), request.user, err)
            refusals.record_too_long(self.pipeline, request, text, err)
            return ModelReply(text=budget.too_long_text(language(text)))
        made = progress.calls_made(request.messages[start + 1 :]) if start >= 0 else []
        calls, states = progress.advance(plan, made, self.pipeline.tools)
        if calls:
            return ModelReply(tool_calls=[ToolCall("call_" + secrets.token_hex(6), n, a) for n, a in calls])
        text = request.messages[start].text or "" if start >= 0 else ""
        before = progress.turn_start(request.messages[:start]) if start > 0 else -1
        lang = language(text, request.messages[before].text or "" if before >= 0 else "")  # ch 5 after 電気つけて
        refusals.record(self.pipeline, plan, request)  # what it declines is audited, as a refused call is
        answered = answer.compose(plan, states, lang, self.pipeline.tools, self._capabilities(request, lang),
                                  today=request.today, clocks=dict(request.clocks))
        self._remember_asked(text, answered, plan)
        return ModelReply(text=answered)

    def _capabilities(self, request: ModelRequest, lang: str) -> list[str]:
        offered = {spec.tool.catalog for spec in request.tools}
        return [c.spec.description.get(lang) for c in self.pipeline.catalogs if c.name in offered]


_ASKS = ("missing", "ambiguous", "which_value", "which_reading", "unknown_value", "which_row", "which_person",
         "which_tool")


def _asking(plan: Plan, asked: Problem, said: str) -> str:
    """The words of the request that asked, where the others of its message made their calls (明日の朝取りに行きたい
    of 明日の朝取りに行きたい クロワッサン4つ…: the basket is filled, the pickup time asked); else all that was said."""
    asking = next((r for r in plan.requests if asked in r.problems), None)
    others = [r for r in plan.requests if r is not asking]
    return asking.text if asking is not None and any(r.steps for r in others) else said


def _said(request: ModelRequest) -> str:
    """The text of the turn's message."""
    start = progress.turn_start(request.messages)
    return request.messages[start].text or "" if start >= 0 else ""


def _key_of(text: str, keys: tuple[str, ...]) -> str | None:
    """The one key of `keys` an answer gives as a word of its own (1, 顧客ID 2のほう), else None."""
    said = tokenise(normalise(text))
    found = [k for k in keys if k and _said_whole(said, k)]
    return found[0] if len(found) == 1 else None


def _said_whole(said: Utterance, key: str) -> bool:
    """Whether a key is said as words of its own: it begins where a token begins and ends where one ends."""
    return any(said.text.startswith(key, t.start) and said.ends_at(t.start + len(key)) for t in said.tokens)


def _one_of(answer: str, candidates: tuple[str, ...]) -> str:
    """The one candidate asked about that the answer is part of (かけ of かけうどん, きつねうどん), else the answer."""
    said = fold(normalise(answer))
    named = [c for c in candidates if said and said in fold(normalise(c))]
    return named[0] if len(named) == 1 else answer


def _put_in(said_before: str, asked: str, answer: str) -> str:
    """The earlier request with the value asked about replaced by the answer, its polite prefix too (お風呂 -> 玄関)."""
    at = said_before.find(asked)
    if at < 0:
        return said_before
    before = tokenise(said_before).ending_at(at)
    start = before.start if before is not None and before.is_prefix else at
    return said_before[:start] + answer + said_before[at + len(asked):]


def _held_back(plan: Plan, states: list[progress.State]) -> Problem | None:
    """A write held back as its lookup found several rows (two bookings of 田中一郎), as the row asked for: the
    name said, the keys found."""
    for step, state in zip(plan.steps, states, strict=True):
        if state.status != progress.BLOCKED or state.reason != "ambiguous":
            continue
        pname, ref = next(iter(step.refs.items()))
        said = next((name for r in plan.requests for name, at in r.lookups if at == ref.step), "")
        return Problem("which_row", step.tool, (pname,), said=said, candidates=tuple(str(v) for v in state.values))
    return None


def _asked(plan: Plan) -> Problem | None:
    """What a plan asked the user instead of calling (a value missing, or which one was meant)."""
    return next((p for r in plan.requests for p in r.problems if p.kind in _ASKS), None)
