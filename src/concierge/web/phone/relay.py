"""One phone call over Twilio ConversationRelay: the caller's words in, spoken answers out.

Twilio turns speech into `prompt` messages and reads the `text` tokens sent back; this module is
the conversation in between, for a call already admitted by its `setup` (`gate`): the socket speaks for
that call only, and a second `setup` is refused and changes nothing. From Twilio: `prompt`
(voicePrompt, lang, last: false only with partial prompts), `interrupt` (utteranceUntilInterrupt,
durationUntilInterruptMs, a number or a string), `dtmf` (digit), `error` (description). Anything
else, and anything that is not a JSON object, is ignored: a message never ends the call (one over
`gate.MAX_MESSAGE_BYTES` closes the socket). To Twilio: `text` (token, last, interruptible, preemptible),
`end` (handoffData, a JSON-encoded string).

Limits (`Limits`, from `phone.*`): a prompt longer than `max_prompt_chars` — its partial prompts
together, which are buffered only up to that — is never run: the caller hears "please say it shorter";
at most `MAX_WAITING` prompts (or digits, interrupts) wait behind a running turn (more are dropped);
an answer is interrupted once; a call `max_call_s` long
is ended with a goodbye (`end` with reason `time_limit`) and its socket closed.

Each prompt is one agent turn, in order (a worker takes them one at a time). The answer is sent
sentence by sentence as the agent has it (a model's stream, or the planner's whole answer); an
`interrupt` stops the rest, and the conversation keeps only what the caller heard. While a write
waits for the caller's yes, はい / yes confirms it and いいえ / no cancels it (language/replies.py); anything else
is a new request. The conversation is stored as the phone user's, one per caller number and call. A call
that drops stops speaking; a turn already running ends as it would (a confirmed write stays
written, a previewed one is never run). When the call is over, however it ended, the catalog's
`phone.discard_tool` throws away what the call wrote and did not place (the restaurant's draft order),
through the pipeline like every call, for the call the socket was admitted for and no other. The audit
lines of a call carry `phone <CallSid>` as their source.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from starlette.websockets import WebSocket, WebSocketDisconnect

from concierge import threads
from concierge.agent import latency
from concierge.agent.loop import Agent
from concierge.agent.streaming import Speech
from concierge.agent.turn import MESSAGE_CHARS, Turn
from concierge.errors import ConciergeError, TurnFailedAfterWrite, WriteOutcomeUnknown
from concierge.language.detect import Lang, language
from concierge.pipeline import audit
from concierge.pipeline.access import Session, User
from concierge.planner.answer import render
from concierge.settings import PhoneSettings
from concierge.web.phone import gate, speech, twiml
from concierge.web.phone.identity import CallIdentity

log = logging.getLogger(__name__)
Action = Literal["end", "handover"]

def duration_ms(value: Any) -> float | None:
    """durationUntilInterruptMs: a number in one of Twilio's documents, a string in another."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


MAX_WAITING = 3  # prompts, digits and interrupts queued behind a running turn; more are dropped


@dataclass(frozen=True)
class Limits:
    # a prompt (its partial prompts together) longer than this is not run: `phone.max_prompt_chars`, and never
    # more than any channel's message (`agent.turn.MESSAGE_CHARS`)
    prompt_chars: int
    call_s: float  # a call this long is ended

    @classmethod
    def of(cls, settings: PhoneSettings) -> Limits:
        return cls(min(settings.max_prompt_chars, MESSAGE_CHARS), settings.max_call_s)


@dataclass
class Phone:
    """What every call of one app shares."""

    agent: Agent
    settings: PhoneSettings
    user: User

    @property
    def limits(self) -> Limits:
        return Limits.of(self.settings)

    def action(self, turn: Turn) -> Action | None:
        """Whether the turn ended the call or asked for a person: a successful end or handover tool call."""
        done = {c.name for c in turn.calls if c.status == "ok"}
        if self.settings.handover_tool and self.settings.handover_tool in done:
            return "handover"
        if self.settings.end_tool and self.settings.end_tool in done:
            return "end"
        return None


class Speaker:
    """One answer on its way to Twilio: sentences as they are ready, until it ends or is interrupted."""

    def __init__(self, call: Call, lang: Lang, heard_from: float):
        self.call, self.lang, self.heard_from = call, lang, heard_from
        self.cut = speech.Sentences()
        self.said: list[str] = []
        self.speech = Speech(self.piece)
        self.first_sent_ms: float | None = None
        self.interrupted = False
        self.heard: str | None = None
        self.done = False

    async def piece(self, text: str) -> None:
        for sentence in self.cut.feed(text):
            await self.sentence(sentence)

    async def sentence(self, sentence: str) -> None:
        words = speech.spoken(sentence, self.lang)
        if not words or self.speech.stop.is_set():
            return
        if len(self.said) >= speech.MAX_SENTENCES:
            self.speech.stop.set()  # enough for a caller; the model need not write on
            return
        self.said.append(words)
        if self.first_sent_ms is None:
            self.first_sent_ms = round((time.perf_counter() - self.heard_from) * 1000, 3)
        await self.call.send({"type": "text", "token": words + (" " if self.lang == "en" else ""), "last": False,
                              "interruptible": True, "preemptible": False})

    async def finish(self, answer: str) -> None:
        """The rest of the answer, or all of it when nothing was streamed, then `last`."""
        for sentence in self.cut.flush():
            await self.sentence(sentence)
        if not self.said and not self.speech.stop.is_set():
            for words in speech.say(answer, self.lang):
                await self.sentence(words)
        if not self.speech.stop.is_set():
            await self.call.send({"type": "text", "token": "", "last": True})

    def interrupt(self, heard: str) -> None:
        self.interrupted = True
        self.heard = heard
        self.speech.stop.set()


@dataclass
class Call:
    phone: Phone
    websocket: WebSocket
    identity: CallIdentity  # the call the socket was admitted for (`gate.admit`): it never changes
    lang: Lang = "ja"
    closed: bool = False
    ended: bool = False
    partial: list[str] = field(default_factory=list)
    partial_chars: int = 0
    too_long: bool = False  # the prompt being heard is over the limit: its pieces are no longer kept
    second_setup: bool = False  # one was refused (and audited) already; more are ignored
    speaker: Speaker | None = None
    work: asyncio.Queue[tuple[str, Any, float] | None] = field(default_factory=asyncio.Queue)

    @property
    def call_sid(self) -> str:
        return self.identity.call_sid

    @property
    def caller(self) -> str:
        return self.identity.caller

    @property
    def session_id(self) -> str:
        return self.identity.session_id

    @property
    def source(self) -> str:
        """Where the call's audit lines come from."""
        return self.identity.source

    async def run(self) -> None:
        self.lang = "ja" if twiml.lang_of(self.phone.settings.language) == "ja" else "en"
        worker = asyncio.create_task(self._worker())
        try:
            with anyio.move_on_after(self.phone.limits.call_s) as timer:
                while (raw := await gate.receive(self.websocket)) is not None:
                    message = gate.message_of(raw)
                    if message is not None:
                        await self._on(message)
            if timer.cancelled_caught:
                await self._time_up()
        finally:
            self.closed = True
            if self.speaker is not None:
                self.speaker.speech.stop.set()
            self.work.put_nowait(None)
            await worker  # a turn already running ends and is saved; nothing more is said
            await self._discard()

    async def _on(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "setup":
            await self._second_setup(message)
        elif kind == "prompt":
            self._prompt(message)
        elif kind == "interrupt":
            self._interrupted(str(message.get("utteranceUntilInterrupt") or ""),
                              duration_ms(message.get("durationUntilInterruptMs")))
        elif kind == "dtmf":
            digit = str(message.get("digit") or "")
            if digit and digit == self.phone.settings.handover_digit:
                self._queue("handover", None)
        elif kind == "error":
            log.warning("phone call %s: Twilio reports an error: %s", self.call_sid, message.get("description"))

    async def _second_setup(self, message: dict[str, Any]) -> None:
        """The socket is this call's: another setup changes nothing; the first such is audited."""
        if self.second_setup:
            return
        self.second_setup = True
        await gate.refuse(self.websocket, self.phone.agent.pipeline, "second_setup",
                          f"a second setup on the socket of call {self.call_sid}: ignored",
                          CallIdentity.of(message.get("callSid"), message.get("from")), close_code=0)

    def _prompt(self, message: dict[str, Any]) -> None:
        """A prompt, or a piece of one (last: false): kept up to the limit, queued when it is whole."""
        piece = str(message.get("voicePrompt") or "")
        self.partial_chars += len(piece)
        if self.partial_chars > self.phone.limits.prompt_chars:
            self.too_long, self.partial = True, []
        elif not self.too_long:
            self.partial.append(piece)
        if message.get("last", True) is False:
            return
        text, too_long = "".join(self.partial).strip(), self.too_long
        self.partial, self.partial_chars, self.too_long = [], 0, False
        if too_long:
            log.info("phone call %s: a prompt over %d characters, not run", self.call_sid,
                     self.phone.limits.prompt_chars)
            self._queue("too_long", None)
        elif text:
            self._queue("prompt", text)

    def _queue(self, kind: str, value: Any) -> None:
        if self.work.qsize() >= MAX_WAITING:
            log.warning("phone call %s: %d things wait already; %s dropped", self.call_sid, MAX_WAITING, kind)
            return
        self.work.put_nowait((kind, value, time.perf_counter()))

    async def _time_up(self) -> None:
        """The call has lasted `phone.max_call_s`: a goodbye, `end`, and the socket closed."""
        log.info("phone call %s: ended after %g s, the longest a call may last", self.call_sid,
                 self.phone.limits.call_s)
        if self.speaker is not None:
            self.speaker.speech.stop.set()
        await self._end("time_limit", TIME_UP_WORDS[self.lang])
        self.closed = True  # a turn still running ends quietly
        await gate.close(self.websocket, 1000, "call time limit")

    async def _discard(self) -> None:
        """The call is over: what it wrote and did not place is thrown away (`phone.discard_tool`), so a call
        that drops leaves no half-written row; a placed order is not the call's any more and stays."""
        name, pipeline, user = self.phone.settings.discard_tool, self.phone.agent.pipeline, self.phone.user
        if not name or name not in {t.name for t in pipeline.tools_for(user)}:
            return
        session = Session(self.session_id, self.caller or None)
        try:
            result = await threads.run(
                lambda: pipeline.invoke(name, {}, user, session=session, source=self.source))
        except ConciergeError as err:
            log.error("phone call %s: could not discard what it left: %s", self.call_sid, err)
            return
        if not result.ok:
            log.error("phone call %s: %s refused: %s", self.call_sid, name, result.message)

    def _interrupted(self, heard: str, after_ms: float | None) -> None:
        speaker = self.speaker
        if speaker is None or speaker.interrupted:  # an answer is interrupted once
            return
        log.info("phone call %s: interrupted after %s ms", self.call_sid, after_ms)
        speaker.interrupt(heard)
        if speaker.done:  # the answer was all sent and is saved: keep only what was heard of it
            self._queue("heard", heard)

    async def _worker(self) -> None:
        while (item := await self.work.get()) is not None:
            if self.ended or (self.closed and item[0] != "heard"):
                continue
            kind, value, at = item
            try:
                with audit.source(self.source):
                    await self._handle(kind, value, at)
            except (TurnFailedAfterWrite, WriteOutcomeUnknown) as err:  # never "we cannot take your call" then
                log.error("phone call %s: the turn failed after its write: %s", self.call_sid, err)
                words = _PLACED_THEN_FAILED if isinstance(err, TurnFailedAfterWrite) else _MAYBE_PLACED
                await self._end("handover", words[self.lang])
            except Exception:
                log.exception("phone call %s: the turn failed", self.call_sid)
                await self._end("error", _SORRY[self.lang])

    async def _handle(self, kind: str, value: Any, at: float) -> None:
        if kind == "prompt":
            await self._turn(value, at)
        elif kind == "too_long":
            await self.send({"type": "text", "token": TOO_LONG_WORDS[self.lang], "last": True, "interruptible": True})
        elif kind == "handover":
            await self._end("handover", twiml.HANDOVER_WORDS[self.lang])
        elif kind == "heard":
            await self._keep_heard(value)

    async def _turn(self, text: str, at: float) -> None:
        agent, user = self.phone.agent, self.phone.user
        lang: Lang = language(text) if re.search(r"[A-Za-z\u3040-\u30ff\u4e00-\u9fff]", text) else self.lang
        if lang != self.lang:  # the caller speaks the other language: Twilio's voice and ears follow
            code = LANGUAGES[lang] if twiml.lang_of(self.phone.settings.language) != lang \
                else self.phone.settings.language
            await self.send({"type": "language", "ttsLanguage": code, "transcriptionLanguage": code})
            self.lang = lang
        speaker = self.speaker = Speaker(self, lang, at)
        # a plain yes or no to the read-back confirms or cancels it (Agent.ask); anything else is a new request
        turn = await agent.ask(text, user, session_id=self.session_id, speech=speaker.speech,
                               caller=self.caller or None)
        await speaker.finish(self._read_back(turn, lang) if turn.pending else turn.answer)
        speaker.done = True
        latency.log_channel(turn, user, "phone", prompt_to_first_text=speaker.first_sent_ms)
        if speaker.interrupted:
            await self._keep_heard(speaker.heard or "")
        action = self.phone.action(turn)
        if action is not None:
            await self._end(action, None)

    def _read_back(self, turn: Turn, lang: Lang) -> str:
        """A write waiting for the caller's yes, as its catalog's confirmation sentence (「ご注文は4点、合計
        2,520円…この内容で確定してよろしいですか？」), not the screen's preview card."""
        record = next((c for c in reversed(turn.calls) if c.status == "confirm"), None)
        if record is None:
            return turn.pending.message if turn.pending else turn.answer
        pipeline = self.phone.agent.pipeline
        text = render(record.result, lang, pipeline.tools.get(record.name), today=pipeline.today(record.name)).strip()
        return text if text.endswith(("？", "?")) else f"{text}{_ASK[lang]}"

    async def _keep_heard(self, heard: str) -> None:
        text = f"{heard.strip()}…" if heard.strip() else "…"
        await threads.run(self.phone.agent.store.amend_answer, self.session_id, self.phone.user.name, text)

    async def _end(self, reason: str, words: str | None) -> None:
        if words:
            await self.send({"type": "text", "token": words, "last": True, "interruptible": False})
        handoff = {"reason": reason, "callSid": self.call_sid, "sessionId": self.session_id}
        await self.send({"type": "end", "handoffData": json.dumps(handoff, ensure_ascii=False)})
        self.ended = True

    async def send(self, message: dict[str, Any]) -> None:
        if self.closed:
            return
        try:
            await self.websocket.send_text(json.dumps(message, ensure_ascii=False))
        except (WebSocketDisconnect, RuntimeError, OSError):
            self.closed = True


LANGUAGES: dict[str, str] = {"ja": "ja-JP", "en": "en-US"}
_ASK = {"ja": "よろしいですか？", "en": " Is that right?"}
_SORRY = {"ja": "申し訳ありません。ただいまお受けできません。", "en": "Sorry, we cannot take your call right now."}
# a write was done and then the turn failed; a write's outcome is unknown: the caller is told, then handed over
_PLACED_THEN_FAILED = {"ja": "ご注文は承りました。この後の処理で不具合がありましたので、係の者におつなぎします。",
                       "en": "Your order has been placed. Something went wrong after that; let me put you through "
                             "to a member of staff."}
_MAYBE_PLACED = {"ja": "ご注文が確定したかどうか、こちらで確認できませんでした。重ねてのご注文はなさらず、"
                       "係の者におつなぎしますのでお待ちください。",
                 "en": "I could not confirm whether your order went through. Please do not order it again; let me "
                       "put you through to a member of staff."}
# what the caller hears when a prompt is over `phone.max_prompt_chars`, when the call reaches `phone.max_call_s`,
# and when there is no line for the call (`phone.max_calls`, `phone.max_calls_per_caller`)
TOO_LONG_WORDS = {"ja": "申し訳ありません、一度に伺える長さを超えました。短く区切っておっしゃってください。",
                  "en": "Sorry, that was too long for me. Could you say it more briefly?"}
TIME_UP_WORDS = {"ja": "お時間になりましたので、これで失礼いたします。お電話ありがとうございました。",
                 "en": "We have reached the time limit for this call. Thank you for calling, goodbye."}
BUSY_WORDS = {"ja": "ただいま電話が大変混み合っております。しばらくしてからおかけ直しください。",
              "en": "Sorry, all our lines are busy. Please call again a little later."}


async def busy(websocket: WebSocket, call: CallIdentity, lang: Lang) -> None:
    """No line for the call (`Lines.take`): the caller hears so, the relay session ends, the socket closes."""
    handoff = {"reason": "busy", "callSid": call.call_sid, "sessionId": call.session_id}
    for message in ({"type": "text", "token": BUSY_WORDS[lang], "last": True, "interruptible": False},
                    {"type": "end", "handoffData": json.dumps(handoff, ensure_ascii=False)}):
        try:
            await websocket.send_text(json.dumps(message, ensure_ascii=False))
        except (WebSocketDisconnect, RuntimeError, OSError):
            break
    await gate.close(websocket, 1000, "busy")
