"""The agent loop: a model (or the offline planner) chooses tools, the pipeline runs them.

One turn: the user's message joins the conversation; the provider sees the
whole conversation with the system prompt and a fresh dynamic context, and
either answers or asks for tool calls. Every call goes through
`Pipeline.invoke` (the calls of one reply run concurrently, each in a worker
thread); results and refusals go back to the provider, which may correct
itself. This repeats until the provider answers or `max_steps` model requests
were made.

A write the pipeline answers with status "confirm" ends the turn with a
pending action; its token stays in the conversation store. `confirm` runs
exactly that call with the token and lets the provider describe the outcome;
`cancel` drops it; a new question drops it too (and the model is told).
The turn is saved when it ends, also when the provider fails half-way, so a
write that already ran is never forgotten.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Awaitable, Callable, Collection, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from functools import partial
from typing import Any

import anyio

from concierge import threads
from concierge.agent import card, grounding, latency, prompts, streaming
from concierge.agent import context as rules
from concierge.agent.pricing import cost_usd
from concierge.agent.providers.interface import Message, ModelRequest, Provider, ToolCall, ToolSpec
from concierge.agent.store import ConversationStore, new_session_id
from concierge.agent.turn import CallRecord, PendingAction, Settled, Timings, Turn, TurnUsage, check_message
from concierge.errors import ConciergeError, ResultCode, TurnFailedAfterWrite
from concierge.language.detect import Lang, language
from concierge.language.replies import reply as plain_reply
from concierge.pipeline.access import Session, User
from concierge.pipeline.confirm import TOKEN_TTL, Hashed, hashed
from concierge.pipeline.pipeline import Pipeline
from concierge.pipeline.tool_schema import input_schema
from concierge.sources.result import Confirmation, Failure, Rows, ToolResult

EventHandler = Callable[[dict[str, Any]], Awaitable[None]]
# the user as the state database has them now, the offer, the system prompt and the state
_Begun = tuple[User, list[ToolSpec], str, dict[str, tuple[dict[str, Any], ...]]]
PENDING_KEYS = ("tool", "args", "preview", "message", "fields", "warning")  # what a Turn shows of a pending write


@dataclass
class _Run:
    """The state of one turn while it runs."""

    session_id: str
    user: User
    lang: Lang
    messages: list[Message]
    saved: int  # messages[:saved] are already in the store
    turn_start: int  # messages[turn_start:] are this turn's, for grounding and instructions
    on_event: EventHandler | None
    today: date | None = None
    started: float = field(default_factory=time.perf_counter)
    calls: list[CallRecord] = field(default_factory=list)
    model_ms: list[float] = field(default_factory=list)
    tool_ms: list[float] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    reported_usage: bool = False
    steps: int = 0
    answer: str = ""
    answered_by_model: bool = False
    pending: dict[str, Any] | None = None
    settled: Settled | None = None  # what became of the write that waited for a yes as the turn began
    speech: streaming.Speech | None = None  # a channel that speaks: the answer's text as it is written
    caller: str | None = None  # the phone number of a call (`:_caller`)
    first_text_ms: float | None = None

    def first_text(self) -> None:
        if self.first_text_ms is None:
            self.first_text_ms = _ms_since(self.started)

    async def emit(self, event: dict[str, Any]) -> None:
        if self.on_event is not None:
            await self.on_event(event)


class Agent:
    def __init__(
        self,
        pipeline: Pipeline,
        provider: Provider,
        *,
        store: ConversationStore | None = None,
        max_steps: int = 8,
        catalogs: Collection[str] | None = None,
        instructions: str = "",
    ):
        """`catalogs` limits the tools offered to those catalogs' (None: every tool the user may call);
        `instructions` are added to the system prompt (how a channel wants its answers)."""
        self.pipeline = pipeline
        self.provider = provider
        self.store = store or ConversationStore(pipeline.state)
        self.max_steps = max_steps
        self.catalogs = frozenset(catalogs) if catalogs is not None else None
        self.instructions = instructions
        self._has_rules = any(c.spec.rules for c in pipeline.catalogs)
        self._line_tools = {name for c in pipeline.catalogs if c.spec.rules and (lines := c.spec.rules.lines)
                            for name in (lines.add, lines.change, lines.remove, lines.place) if name}
        self._has_lines = bool(self._line_tools)
        self._line_states = {c.spec.rules.state for c in pipeline.catalogs
                             if c.spec.rules and c.spec.rules.lines and c.spec.rules.state}
        self._offers: dict[User, tuple[tuple[int, date], list[ToolSpec], str]] = {}
        self._currency = {c.name: c.spec.currency for c in pipeline.catalogs}

    # --- the three things a user can do -------------------------------------------
    async def ask(
        self,
        text: str,
        user: User,
        *,
        session_id: str | None = None,
        on_event: EventHandler | None = None,
        auto_confirm: bool = False,
        speech: streaming.Speech | None = None,
        caller: str | None = None,
    ) -> Turn:
        """The turn for the user's message: an answer, or a write that waits for a yes (`pending`)."""
        at_once = self._at_once(speech)
        return await self._played(at_once, self._ask(text, user, session_id=session_id,
                                                     on_event=_forwarded(on_event, at_once),
                                                     auto_confirm=auto_confirm, speech=speech, caller=caller))

    async def confirm(self, session_id: str, user: User, *, on_event: EventHandler | None = None,
                      speech: streaming.Speech | None = None, caller: str | None = None,
                      said: str | None = None) -> Turn:
        """Run exactly the pending write, with its token, and let the model describe the outcome; `said`: the
        words the user typed or spoke to say yes (else the card's button was pressed)."""
        at_once = self._at_once(speech)
        return await self._played(at_once, self._confirm(session_id, user, on_event=_forwarded(on_event, at_once),
                                                         speech=speech, caller=caller, said=said))

    async def cancel(self, session_id: str, user: User, *, on_event: EventHandler | None = None,
                     said: str | None = None) -> Turn:
        """Drop the pending write; the conversation records that nothing was written. `said`: the words the user
        typed or spoke to say no (else the card's button was pressed)."""
        at_once = self._at_once(None)
        return await self._played(at_once, self._cancel(session_id, user, on_event=_forwarded(on_event, at_once),
                                                        said=said))

    def _at_once(self, speech: streaming.Speech | None) -> bool:
        """Whether the turn runs on one worker (`threads.through`): its provider answers from this process
        (the offline planner) and nothing is spoken as it is written."""
        return self.provider.capabilities.local and speech is None

    @staticmethod
    async def _played(at_once: bool, turn: Coroutine[Any, Any, Turn]) -> Turn:
        """The turn, on one worker where `at_once` (its trips to threads made there: one trip where it would
        make five), else here."""
        return await (threads.run(threads.through, turn) if at_once else turn)

    async def _ask(self, text: str, user: User, *, session_id: str | None, on_event: EventHandler | None,
                   auto_confirm: bool, speech: streaming.Speech | None, caller: str | None) -> Turn:
        check_message(text)  # the one length limit of every channel (MESSAGE_CHARS)
        session_id = session_id or new_session_id()  # a new id: nothing is stored under it yet
        history, dropped, begun = await threads.run(self._opened, session_id, user, caller)
        answered = plain_reply(text) if dropped and not auto_confirm else None
        if answered == "yes":  # はい typed (or said) to the card: the card's 確定
            return await self._confirm(session_id, user, on_event=on_event, speech=speech, caller=caller, said=text)
        if answered == "no":
            return await self._cancel(session_id, user, on_event=on_event, said=text)
        if answered == "unclear" and dropped:  # いいです, はい？: the question again, and the card keeps waiting
            return await self._card_answered(
                session_id, user, history, Message("user", text=text, repeats=True),
                prompts.ask_again_answer(dropped["message"], dropped["lang"]), "repeated", dropped["lang"], on_event,
                waiting=dropped)
        notes = [prompts.dropped_pending_note(dropped["tool"])] if dropped else []
        before = next((m.text for m in reversed(history) if m.role == "user" and m.text and not m.confirms), "")
        run = _Run(session_id, user, language(text, before), [*history, Message("user", text=text)],
                   saved=len(history), turn_start=len(history), on_event=on_event, speech=speech,
                   caller=caller)
        await self._guarded(run, self._loop(run, notes, auto_confirm=auto_confirm, begun=begun))
        if dropped:
            run.settled = "replaced" if run.pending else "dropped"
        return await self._finish(run)

    async def _confirm(self, session_id: str, user: User, *, on_event: EventHandler | None,
                       speech: streaming.Speech | None, caller: str | None, said: str | None) -> Turn:
        history, pending = await threads.run(self.store.resume, session_id, user.name)
        if pending is None:
            return await self._nothing_pending(session_id, user, history, on_event, said)
        lang: Lang = pending["lang"]
        yes = Message("user", text=said or prompts.confirm_text(lang), confirms=True)
        if _expired(pending):  # after the card's time (TOKEN_TTL): nothing written, the card dropped
            return await self._card_answered(session_id, user, history, yes, prompts.expired_answer(TOKEN_TTL, lang),
                                             "expired", lang, on_event)
        call = ToolCall("confirm_" + secrets.token_hex(4), pending["tool"], pending["args"])
        run = _Run(session_id, user, lang, [*history, yes, Message("assistant", tool_calls=[call])],
                   saved=len(history), turn_start=min(pending["turn_start"], len(history)), on_event=on_event,
                   speech=speech, caller=caller)

        async def confirmed() -> None:
            [(result, record)] = await self._invoke_all(run, [call], confirmation=_pending_token(pending))
            run.calls.append(record)
            run.messages.append(Message("tool", tool_call_id=call.id, result=record.result))
            run.settled = "confirmed" if result.ok else "changed" if result.status == "confirm" else "failed"
            if isinstance(result, Confirmation):  # what the card showed has changed: nothing written, a new card
                self._wait_for_yes(run, call, result)
                return
            await self._loop(run, [], auto_confirm=False)

        await self._guarded(run, confirmed())
        return await self._finish(run)

    async def _cancel(self, session_id: str, user: User, *, on_event: EventHandler | None,
                      said: str | None) -> Turn:
        history, pending = await threads.run(self.store.resume, session_id, user.name)
        if pending is None:
            return await self._nothing_pending(session_id, user, history, on_event, said)
        lang: Lang = pending["lang"]
        no = Message("user", text=said or prompts.cancel_text(lang), cancels=True)
        return await self._card_answered(session_id, user, history, no, prompts.cancelled_answer(lang), "cancelled",
                                         lang, on_event)

    async def _card_answered(self, session_id: str, user: User, history: list[Message], said: Message, answer: str,
                             settled: Settled, lang: Lang, on_event: EventHandler | None,
                             waiting: dict[str, Any] | None = None) -> Turn:
        """A turn that only answers about the card (cancelled, expired, asked again): nothing is run; `waiting`: the
        write that keeps waiting for a yes, else none does."""
        run = _Run(session_id, user, lang, [*history, said, Message("assistant", text=answer)], saved=len(history),
                   turn_start=len(history), on_event=on_event)
        run.answer, run.settled, run.pending = answer, settled, waiting
        return await self._finish(run)

    # --- the loop ----------------------------------------------------------------
    async def _loop(self, run: _Run, notes: list[str], *, auto_confirm: bool, begun: _Begun | None = None) -> None:
        # the offer, and the state as the turn began (the plan of its message edits these lines): one trip to a
        # thread, or none where they were read with the conversation (`_opened`)
        if begun is None:
            begun = await threads.run(self._begin, run.user, run.messages, Session(run.session_id, run.caller))
        run.user, specs, system, state = begun  # the role read as the turn began: its calls are made within ms
        clocks = {s.name: self.pipeline.today(s.name) for s in specs}  # the same for every step of the turn
        today = run.today = self._today(clocks)
        for _ in range(self.max_steps):
            request = ModelRequest(
                system=system, messages=list(run.messages), tools=specs, today=today, user=run.user.name,
                context=await self._context(run, notes),
                clocks=dict(clocks), state=state,
            )
            await run.emit({"type": "thinking"})
            started = time.perf_counter()
            reply = await streaming.decide(self.provider, request, run.speech, run.first_text)
            run.model_ms.append(_ms_since(started))
            run.steps += 1
            if reply.usage is not None:
                run.reported_usage = True
                run.input_tokens += reply.usage.input_tokens
                run.output_tokens += reply.usage.output_tokens
            if not reply.tool_calls:
                run.answer, run.answered_by_model = reply.text or "", True
                run.messages.append(Message("assistant", text=run.answer))
                return
            calls = list(reply.tool_calls)
            run.messages.append(Message("assistant", text=reply.text, tool_calls=calls))
            if await self._handle_results(run, calls, auto_confirm):
                return
        run.answer = prompts.step_limit_answer(self.max_steps, run.lang)
        run.messages.append(Message("assistant", text=run.answer))

    async def _context(self, run: _Run, notes: list[str]) -> str:
        """The context added to the newest user message (`prompts.dynamic_context`); "" for a provider that does not
        read it (the offline planner reads the conversation itself)."""
        if not self.provider.capabilities.reads_context:
            return ""
        return prompts.dynamic_context(run.messages, run.turn_start, notes, await self._rules(run))

    async def _rules(self, run: _Run) -> str:
        """The catalogs' tool-calling rules and the conversation's state (the current order), read anew before
        every model request; "" when no catalog declares rules (`concierge.agent.context`)."""
        if not self._has_rules:
            return ""
        session = Session(run.session_id, run.caller)
        return await threads.run(rules.context, self.pipeline, run.user, session, run.lang)

    def _opened(self, session_id: str, user: User, caller: str | None
                ) -> tuple[list[Message], dict[str, Any] | None, _Begun]:
        """The conversation and its waiting write (`ConversationStore.resume`), and what a turn begins with
        (`_begin`), in one trip to a thread."""
        history, dropped = self.store.resume(session_id, user.name)
        return history, dropped, self._begin(user, history, Session(session_id, caller))

    def _begin(self, user: User, messages: list[Message], session: Session) -> _Begun:
        """The user with the role they have now, the tools offered, the system prompt, and the state (`_state`), as
        the turn begins (in a thread)."""
        now = self.pipeline.as_now(user) or user  # a removed user: their calls are refused (the pipeline reads again)
        return now, *self._offer(now), self._state(now, messages, session)

    def _state(self, user: User, messages: list[Message], session: Session) -> dict[str, tuple[dict[str, Any], ...]]:
        """The lines of the catalogs' states, for a provider that reads them instead of `context` (the offline
        planner); {} for the others, and when no catalog declares `rules.lines`."""
        if not self._has_lines or self.provider.capabilities.reads_context:
            return {}
        made = (call.name for m in messages if m.role == "assistant" for call in m.tool_calls)
        if not any(name in self._line_tools for name in made):
            return dict.fromkeys(self._line_states, ())  # nothing put in the order yet: no lines, and no read
        return rules.state_rows(self.pipeline, user, session)

    async def _handle_results(self, run: _Run, calls: list[ToolCall], auto_confirm: bool) -> bool:
        """Run the calls and add their results; True when the turn ends waiting for a confirmation."""
        waiting: tuple[ToolCall, Confirmation] | None = None
        for call, (result, record) in zip(calls, await self._invoke_all(run, calls), strict=True):
            run.calls.append(record)
            if isinstance(result, Confirmation) and waiting is None and auto_confirm:
                confirmed = ToolCall(call.id + "/confirmed", call.name, call.args)
                [(result, record)] = await self._invoke_all(run, [confirmed], confirmation=result.confirmation_token)
                run.calls.append(record)
            elif isinstance(result, Confirmation) and waiting is None:
                waiting = (call, result)
            elif isinstance(result, Confirmation):
                result = Failure(tool=call.name, args=result.args, message=prompts.deferred_write_message(call.name))
                record = _record(call.id, call, result, record.ms)
                run.calls[-1] = record
            run.messages.append(Message("tool", tool_call_id=call.id, result=record.result))
        if waiting is None:
            return False
        self._wait_for_yes(run, *waiting)
        return True

    def _wait_for_yes(self, run: _Run, call: ToolCall, result: Confirmation) -> None:
        """End the turn on the write's preview: the conversation keeps it (with its token's hash) for a yes."""
        tool = self.pipeline.tools[call.name]
        said = card.sentence(result, tool, run.lang, self.pipeline.today(call.name))
        message = (prompts.changed_preview_message(tool, run.lang, said) if result.code == ResultCode.PREVIEW_CHANGED
                   else prompts.preview_message(tool, run.lang, said))
        shown = card.fields(result, tool, run.lang, self._currency.get(tool.catalog))
        warning = card.warning(result, run.lang)
        run.pending = {
            "tool": call.name, "args": result.args, "preview": result.preview, "message": message,
            "fields": [f.model_dump() for f in shown], "warning": warning,
            "token_hash": hashed(result.confirmation_token or "").digest, "lang": run.lang,
            "turn_start": run.turn_start, "at": datetime.now(UTC).isoformat(),
        }
        run.answer = prompts.preview_answer(message, shown, warning)
        run.messages.append(Message("assistant", text=run.answer))

    async def _invoke_all(
        self, run: _Run, calls: list[ToolCall], *, confirmation: str | Hashed | None = None
    ) -> list[tuple[ToolResult, CallRecord]]:
        """Run the calls of one reply, reads concurrently; a reply with a write runs its calls one after another
        in the order the model gave them (setting a pickup time, then confirming the order). Results come back
        in the order of `calls`."""
        done: list[tuple[ToolResult, CallRecord] | None] = [None] * len(calls)
        failures: list[BaseException] = []

        def invoked(call: ToolCall) -> Callable[[], tuple[ToolResult, float]]:
            return partial(self._invoked, call, run.user, confirmation, Session(run.session_id, run.caller))

        async def started(call: ToolCall) -> None:
            await run.emit({"type": "tool_start", "id": call.id, "name": call.name, "args": call.args})

        async def ended(i: int, call: ToolCall, result: ToolResult, ms: float) -> None:
            record = _record(call.id, call, result, ms)
            done[i] = (result, record)
            await run.emit({"type": "tool_end", "id": call.id, "name": call.name, "status": result.status,
                            "result_id": result.result_id, "row_count": result.any_row_count(), "ms": record.ms})

        async def one(i: int, call: ToolCall) -> None:
            await started(call)
            try:
                result, ms = await threads.run(invoked(call))
            except Exception as err:  # a system error (database down): raised after the others finish
                failures.append(err)
                return
            await ended(i, call, result, ms)

        if len(calls) == 1:  # the usual case: no task group to set up
            await one(0, calls[0])
        elif any(self._writes(call.name) for call in calls):  # a write may depend on the call before it
            for i, call in enumerate(calls):
                await one(i, call)
        else:  # reads, at once; a system error is raised once all are done
            for call in calls:
                await started(call)
            outcomes = await threads.run_all([invoked(c) for c in calls])
            for i, (call, (result, ms)) in enumerate(zip(calls, outcomes, strict=True)):
                await ended(i, call, result, ms)
        if failures:
            raise failures[0]
        out = [d for d in done if d is not None]
        run.tool_ms.extend(record.ms for _, record in out)
        return out

    def _invoked(self, call: ToolCall, user: User, confirmation: str | Hashed | None,
                 session: Session) -> tuple[ToolResult, float]:
        """The call's result through the pipeline, and how long it took (ms)."""
        started = time.perf_counter()
        result = self.pipeline.invoke(call.name, call.args, user, confirmation=confirmation, session=session)
        return result, _ms_since(started)

    def _writes(self, name: str) -> bool:
        tool = self.pipeline.tools.get(name)
        return tool is not None and tool.mode == "write"

    # --- ending a turn --------------------------------------------------------------
    async def _guarded(self, run: _Run, work: Awaitable[None]) -> None:
        """Run the turn; if the provider or the database fails, keep what already happened."""
        try:
            await work
        except BaseException as err:
            happened = _complete_prefix(run.messages, run.saved)
            if len(happened) > run.saved + 1:
                # on one worker (`threads.through`) nothing can cancel the save; on the event loop, shielded
                shield = contextlib.nullcontext() if threads.here() else anyio.CancelScope(shield=True)
                with shield, contextlib.suppress(ConciergeError):
                    await threads.run(
                        partial(self.store.save_turn, run.session_id, run.user.name, happened[run.saved :])
                    )
            self._raise_if_written(run, err)
            raise

    def _raise_if_written(self, run: _Run, err: BaseException) -> None:
        """A failure after one of the turn's writes was done is never told as if nothing had happened."""
        written = [c for c in run.calls if c.status == "ok" and self.pipeline.tools[c.name].mode == "write"]
        if written and isinstance(err, ConciergeError):
            raise TurnFailedAfterWrite([(c.name, c.result_id) for c in written], str(err)) from err

    async def _finish(self, run: _Run) -> Turn:
        try:
            ungrounded = await threads.run(self._saved, run)
        except ConciergeError as err:
            self._raise_if_written(run, err)
            raise
        total_ms = _ms_since(run.started)
        turn = Turn(
            session_id=run.session_id,
            answer=run.answer,
            lang=run.lang,
            calls=run.calls,
            pending=PendingAction(**{k: run.pending[k] for k in PENDING_KEYS if k in run.pending})
            if run.pending else None,
            ungrounded=ungrounded,
            timings=Timings(model_ms=run.model_ms, tool_ms=run.tool_ms, total_ms=total_ms,
                            first_text_ms=run.first_text_ms if run.first_text_ms is not None else total_ms),
            usage=TurnUsage(
                input_tokens=run.input_tokens, output_tokens=run.output_tokens,
                cost_usd=cost_usd(self.provider.model, run.input_tokens, run.output_tokens)
                if run.reported_usage else None,
            ),
            steps=run.steps,
            settled=run.settled,
        )
        latency.log_turn(turn, run.user)
        if run.on_event is not None:
            await run.emit({"type": "answer", "turn": turn.model_dump(mode="json")})
        return turn

    def _saved(self, run: _Run) -> list[str]:
        """Keep the turn, then check its answer's numbers (`_ungrounded`): one trip to a thread, none of it on the
        event loop (the results of a turn may be long)."""
        self.store.save_turn(run.session_id, run.user.name, run.messages[run.saved :], pending=run.pending)
        return self._ungrounded(run) if run.answered_by_model else []

    def _ungrounded(self, run: _Run) -> list[str]:
        mine = run.messages[run.turn_start :]
        found = grounding.sources(
            (m.result for m in mine if m.role == "tool" and m.result),
            (m.text for m in mine if m.role == "user" and m.text),
            run.today or self.pipeline.today(),
        )
        missing = grounding.ungrounded(run.answer, found)
        if missing:  # the keys of rows that share a name, read from the data to ask which (佐藤: 顧客ID 1 or 2?)
            for keys in self.pipeline.guard_context().enum_shared.values():
                found.add_value(list(keys.values()))
            missing = grounding.ungrounded(run.answer, found)
        return missing

    async def _nothing_pending(
        self, session_id: str, user: User, history: list[Message], on_event: EventHandler | None,
        said: str | None = None,
    ) -> Turn:
        """A yes or no to a card whose write no longer waits (done, cancelled, replaced by a later question):
        nothing is run, and the answer says so; the conversation is left as it is."""
        last = said or next((m.text for m in reversed(history) if m.role == "user" and m.text), "")
        lang = language(last)
        turn = Turn(session_id=session_id, answer=prompts.no_pending_answer(lang), lang=lang, settled="gone")
        if on_event is not None:
            await on_event({"type": "answer", "turn": turn.model_dump(mode="json")})
        return turn

    def _offer(self, user: User) -> tuple[list[ToolSpec], str]:
        """The tools `user` (as the state database has them now) is offered, with their schemas, and the system
        prompt; made again when the values read from the data or the day change."""
        stamp = (self.pipeline.facts_version, date.today())
        offer = self._offers.get(user)
        if offer is None or offer[0] != stamp:
            tools = [t for t in self.pipeline.tools_for(user) if self.catalogs is None or t.catalog in self.catalogs]
            specs = [ToolSpec(t, input_schema(t, self.pipeline.guard_context(t.name))) for t in tools]
            system = prompts.system_prompt(self.pipeline, user, tools)
            offer = self._offers[user] = (stamp, specs, f"{system}\n\n{self.instructions}" if self.instructions
                                          else system)
        return offer[1], offer[2]

    def _today(self, clocks: dict[str, date]) -> date:
        days = set(clocks.values())
        return days.pop() if len(days) == 1 else self.pipeline.today()


def _forwarded(on_event: EventHandler | None, at_once: bool) -> EventHandler | None:
    """The channel's handler of the turn's events; for a turn on one worker (`at_once`), one that runs it on
    this event loop and waits for it there (the channel's queue belongs to the loop)."""
    if on_event is None or not at_once:
        return on_event
    loop = asyncio.get_running_loop()

    async def forward(event: dict[str, Any]) -> None:
        async def on_loop() -> None:
            await on_event(event)

        asyncio.run_coroutine_threadsafe(on_loop(), loop).result()

    return forward


def _expired(pending: dict[str, Any]) -> bool:
    """Whether the card's token has run out (a conversation saved by an earlier version has no time: the
    pipeline checks its token)."""
    at = pending.get("at")
    return at is not None and datetime.now(UTC) - datetime.fromisoformat(at) > TOKEN_TTL


def _pending_token(pending: dict[str, Any]) -> Hashed | str:
    """The stored write's token: its hash (a conversation keeps no token), or, in a conversation saved by
    an earlier version, the token itself."""
    return Hashed(pending["token_hash"]) if "token_hash" in pending else pending["token"]


def _record(call_id: str, call: ToolCall, result: ToolResult, ms: float) -> CallRecord:
    return CallRecord(
        id=call_id, name=call.name, args=call.args, status=result.status,
        code=None if isinstance(result, Rows) or result.code is None else str(result.code), message=result.message,
        result_id=result.result_id, row_count=result.any_row_count(), ms=ms, read_from=result.read_from,
        result=result,
    )


def _complete_prefix(messages: list[Message], start: int) -> list[Message]:
    """The longest prefix in which every tool call of messages[start:] has its result."""
    end = len(messages)
    i = start
    while i < len(messages):
        message = messages[i]
        if message.role == "assistant" and message.tool_calls:
            answered = {m.tool_call_id for m in messages[i + 1 : i + 1 + len(message.tool_calls)] if m.role == "tool"}
            if answered != {c.id for c in message.tool_calls}:
                end = i
                break
            i += len(message.tool_calls)
        i += 1
    return messages[:end]


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
