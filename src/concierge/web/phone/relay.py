"""One phone call over Twilio ConversationRelay: the caller's words in, spoken answers out.

Twilio turns speech into `prompt` messages and reads the `text` tokens sent back; this module is
the conversation in between. From Twilio: `setup` (callSid, from, to, customParameters), `prompt`
(voicePrompt, lang, last: false only with partial prompts), `interrupt` (utteranceUntilInterrupt,
durationUntilInterruptMs, a number or a string), `dtmf` (digit), `error` (description). Anything
else, and anything that is not a JSON object, is ignored: a message never ends the call. To Twilio:
`text` (token, last, interruptible, preemptible), `end` (handoffData, a JSON-encoded string).

Each prompt is one agent turn, in order (a worker takes them one at a time). The answer is sent
sentence by sentence as the agent has it (a model's stream, or the planner's whole answer); an
`interrupt` stops the rest, and the conversation keeps only what the caller heard. While a write
waits for the caller's yes, はい / yes confirms it and いいえ / no cancels it; anything else is a new
request. The conversation is stored as the phone user's, one per caller number and call. A call
that drops stops speaking; a turn already running ends as it would (a confirmed write stays
written, a previewed one is never run). When the call is over, however it ended, the catalog's
`phone.discard_tool` throws away what the call wrote and did not place (the restaurant's draft order),
through the pipeline like every call. The audit lines of a call carry `phone <CallSid>` as their source.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from anyio import to_thread
from starlette.websockets import WebSocket, WebSocketDisconnect

from concierge.agent import latency
from concierge.agent.loop import Agent
from concierge.agent.streaming import Speech
from concierge.agent.turn import Turn
from concierge.errors import ConciergeError
from concierge.language.detect import Lang, language
from concierge.pipeline import audit
from concierge.pipeline.access import Session, User
from concierge.planner.answer import render
from concierge.settings import PhoneSettings
from concierge.web.phone import speech, twiml

log = logging.getLogger(__name__)
Action = Literal["end", "handover"]

_YES = re.compile(r"^(はい|ええ|うん|お願いします|おねがいします|それで(お願いします|いいです|大丈夫です)?|大丈夫です|"
                  r"yes|yeah|yep|sure|correct|that'?s (right|correct)|ok(ay)?|please do)[、。,.! ]*"
                  r"(お願いします|です|please)?[。.! ]*$", re.IGNORECASE)
_NO = re.compile(r"^(いいえ|いや|違います|ちがいます|キャンセル(して(ください)?)?|やめます|やめて(ください)?|"
                 r"no|nope|cancel( it)?|don'?t)[、。,.! ]*(です|please)?[。.! ]*$", re.IGNORECASE)


def yes_or_no(text: str) -> bool | None:
    """True for a plain yes, False for a plain no, None for anything else (a new request)."""
    said = text.strip()
    if _YES.match(said):
        return True
    if _NO.match(said):
        return False
    return None


def session_for(caller: str, call_sid: str) -> str:
    """The conversation of one call: the caller's digits and the call's id."""
    digits = re.sub(r"\D", "", caller) or "anonymous"
    return f"tel{digits}_{re.sub(r'[^0-9A-Za-z]', '', call_sid)[:40] or 'call'}"


def duration_ms(value: Any) -> float | None:
    """durationUntilInterruptMs: a number in one of Twilio's documents, a string in another."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


@dataclass
class Phone:
    """What every call of one app shares."""

    agent: Agent
    settings: PhoneSettings
    user: User

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
    session_id: str = ""
    caller: str = ""
    call_sid: str = ""
    lang: Lang = "ja"
    closed: bool = False
    ended: bool = False
    partial: list[str] = field(default_factory=list)
    speaker: Speaker | None = None
    work: asyncio.Queue[tuple[str, Any, float] | None] = field(default_factory=asyncio.Queue)

    async def run(self) -> None:
        self.lang = "ja" if twiml.lang_of(self.phone.settings.language) == "ja" else "en"
        worker = asyncio.create_task(self._worker())
        try:
            while True:
                try:
                    raw = await self.websocket.receive_text()
                except (WebSocketDisconnect, RuntimeError, KeyError):
                    return
                message = _message(raw)
                if message is not None:
                    self._on(message)
        finally:
            self.closed = True
            if self.speaker is not None:
                self.speaker.speech.stop.set()
            self.work.put_nowait(None)
            await worker  # a turn already running ends and is saved; nothing more is said
            await self._discard()

    def _on(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "setup":
            self.call_sid = str(message.get("callSid") or "")
            self.caller = str(message.get("from") or "")
            self.session_id = session_for(self.caller, self.call_sid)
        elif kind == "prompt":
            self.partial.append(str(message.get("voicePrompt") or ""))
            if message.get("last", True) is not False:
                text, self.partial = "".join(self.partial).strip(), []
                if text:
                    self.work.put_nowait(("prompt", text, time.perf_counter()))
        elif kind == "interrupt":
            self._interrupted(str(message.get("utteranceUntilInterrupt") or ""),
                              duration_ms(message.get("durationUntilInterruptMs")))
        elif kind == "dtmf":
            digit = str(message.get("digit") or "")
            if digit and digit == self.phone.settings.handover_digit:
                self.work.put_nowait(("handover", None, time.perf_counter()))
        elif kind == "error":
            log.warning("phone call %s: Twilio reports an error: %s", self.call_sid, message.get("description"))

    @property
    def source(self) -> str:
        """Where the call's audit lines come from."""
        return f"phone {self.call_sid or 'call'}"

    async def _discard(self) -> None:
        """The call is over: what it wrote and did not place is thrown away (`phone.discard_tool`), so a call
        that drops leaves no half-written row; a placed order is not the call's any more and stays."""
        name, pipeline, user = self.phone.settings.discard_tool, self.phone.agent.pipeline, self.phone.user
        if not name or not self.session_id or name not in {t.name for t in pipeline.tools_for(user)}:
            return
        session = Session(self.session_id, self.caller or None)
        try:
            result = await to_thread.run_sync(
                lambda: pipeline.invoke(name, {}, user, session=session, source=self.source))
        except ConciergeError as err:
            log.error("phone call %s: could not discard what it left: %s", self.call_sid, err)
            return
        if not result.ok:
            log.error("phone call %s: %s refused: %s", self.call_sid, name, result.message)

    def _interrupted(self, heard: str, after_ms: float | None) -> None:
        speaker = self.speaker
        if speaker is None:
            return
        log.info("phone call %s: interrupted after %s ms", self.call_sid, after_ms)
        speaker.interrupt(heard)
        if speaker.done:  # the answer was all sent and is saved: keep only what was heard of it
            self.work.put_nowait(("heard", heard, time.perf_counter()))

    async def _worker(self) -> None:
        while (item := await self.work.get()) is not None:
            if self.ended or (self.closed and item[0] != "heard"):
                continue
            kind, value, at = item
            try:
                with audit.source(self.source):
                    await self._handle(kind, value, at)
            except Exception:
                log.exception("phone call %s: the turn failed", self.call_sid)
                await self._end("error", _SORRY[self.lang])

    async def _handle(self, kind: str, value: Any, at: float) -> None:
        if kind == "prompt":
            await self._turn(value, at)
        elif kind == "handover":
            await self._end("handover", twiml.HANDOVER_WORDS[self.lang])
        elif kind == "heard":
            await self._keep_heard(value)

    async def _turn(self, text: str, at: float) -> None:
        agent, user = self.phone.agent, self.phone.user
        self.session_id = self.session_id or session_for(self.caller, self.call_sid or f"{id(self):x}")
        lang: Lang = language(text) if re.search(r"[A-Za-z\u3040-\u30ff\u4e00-\u9fff]", text) else self.lang
        if lang != self.lang:  # the caller speaks the other language: Twilio's voice and ears follow
            code = LANGUAGES[lang] if twiml.lang_of(self.phone.settings.language) != lang \
                else self.phone.settings.language
            await self.send({"type": "language", "ttsLanguage": code, "transcriptionLanguage": code})
            self.lang = lang
        speaker = self.speaker = Speaker(self, lang, at)
        pending = await to_thread.run_sync(agent.store.pending, self.session_id, user.name)
        answer = yes_or_no(text) if pending else None
        if answer is True:
            turn = await agent.confirm(self.session_id, user, speech=speaker.speech, caller=self.caller or None)
        elif answer is False:
            turn = await agent.cancel(self.session_id, user)
        else:
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
        await to_thread.run_sync(self.phone.agent.store.amend_answer, self.session_id, self.phone.user.name, text)

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


def _message(raw: str) -> dict[str, Any] | None:
    try:
        message = json.loads(raw)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None
