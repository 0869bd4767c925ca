"""The chat API: ask, confirm or cancel a pending write, and the user's conversations.

`POST /api/chat` and `POST /api/sessions/{id}/confirm` answer with a server-sent
event stream: ``thinking``, ``tool_start`` and ``tool_end`` as they happen,
then exactly one ``answer`` (the whole turn) or one ``error``; a ``: ping``
comment every 10 seconds while nothing else happens (a model thinking) keeps
proxies from closing it. Events already waiting go out in one write. The browser
never sees a confirmation token: the agent keeps it with the conversation, so a
confirmation can only be the user's yes to the card the server showed.

A message is at most `MESSAGE_CHARS` long (the limit of every channel). A user has at most
`TURNS_PER_USER` turns in progress at once: one more is refused at once with 429 and a message in
both languages to wait for the answer in progress, never queued behind them.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, HTTPException, Query, Request
from pydantic import BaseModel, Field, StringConstraints

from concierge import threads
from concierge.agent.loop import PENDING_KEYS, EventHandler
from concierge.agent.store import TITLE_CHARS
from concierge.agent.turn import MESSAGE_CHARS, Turn
from concierge.errors import ConciergeError
from concierge.pipeline.access import User
from concierge.web import history
from concierge.web.auth import SignedIn
from concierge.web.events import EventStream

log = logging.getLogger(__name__)
router = APIRouter(prefix="/api")
PRIVATE_RESULT_KEYS = ("confirmation_token", "ai_instruction")
STREAMED = ("thinking", "tool_start", "tool_end")
STREAM_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
PING_S = 10.0
_PING: dict = {"type": "ping"}
_SCALARS = frozenset({str, int, float, bool, type(None)})
TURNS_PER_USER = 2  # turns of one user in progress at once (two tabs); one more is refused, never queued
BUSY = ("前の質問への回答をまだ作成中です。その回答が届いてから、次の質問を送ってください。 / "
        "An answer to your earlier message is still being worked out; please wait for it before sending another.")

_running: set[asyncio.Task] = set()  # turns in progress, kept referenced until they end


class Ask(BaseModel):
    text: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MESSAGE_CHARS)]
    session_id: str | None = Field(default=None, max_length=100)


@router.post("/chat")
async def chat(body: Ask, request: Request, user: SignedIn) -> EventStream:
    agent = request.app.state.web.agent
    if body.session_id is not None:
        await _require_session(request, body.session_id, user)
    return _stream(request.app, user, lambda sink: agent.ask(body.text, user, session_id=body.session_id,
                                                               on_event=sink))


@router.post("/sessions/{session_id}/confirm")
async def confirm(session_id: str, request: Request, user: SignedIn) -> EventStream:
    agent = request.app.state.web.agent
    await _require_session(request, session_id, user)
    return _stream(request.app, user, lambda sink: agent.confirm(session_id, user, on_event=sink))


@router.post("/sessions/{session_id}/cancel")
async def cancel(session_id: str, request: Request, user: SignedIn) -> dict:
    await _require_session(request, session_id, user)
    return public_turn(await request.app.state.web.agent.cancel(session_id, user))


@router.get("/sessions")
async def sessions(request: Request, user: SignedIn, q: Annotated[str, Query(max_length=100)] = "") -> list[dict]:
    """The user's conversations, newest first; `q`: only those whose title or a question holds it."""
    return await threads.run(request.app.state.web.agent.store.list_sessions, user.name, q)


class Rename(BaseModel):
    title: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=TITLE_CHARS)]


@router.patch("/sessions/{session_id}")
async def rename(session_id: str, body: Rename, request: Request, user: SignedIn) -> dict:
    await _require_session(request, session_id, user)
    await threads.run(request.app.state.web.agent.store.rename, session_id, user.name, body.title)
    return {"session_id": session_id, "title": body.title}


@router.delete("/sessions/{session_id}", status_code=204)
async def delete(session_id: str, request: Request, user: SignedIn) -> None:
    """The conversation is gone for good; a write that waited in it was never written."""
    await _require_session(request, session_id, user)
    await threads.run(request.app.state.web.agent.store.delete, session_id, user.name)


@router.get("/sessions/{session_id}")
async def session(session_id: str, request: Request, user: SignedIn) -> dict:
    """The conversation as exchanges (question, answer, calls) and the write still waiting for a yes."""
    store = request.app.state.web.agent.store
    await _require_session(request, session_id, user)
    messages, pending = await threads.run(store.resume, session_id, user.name)
    return {
        "session_id": session_id,
        "exchanges": [public_turn(e) for e in history.exchanges(messages)],
        "pending": _public_pending(pending),
    }


async def _require_session(request: Request, session_id: str, user: User) -> None:
    """404 unless the conversation is this user's: another user's behaves exactly as a missing one."""
    if not await threads.run(request.app.state.web.agent.store.exists, session_id, user.name):
        pipeline, where = request.app.state.web.agent.pipeline, f"web {request.client.host if request.client else ''}"
        await threads.run(lambda: pipeline.record_refusal(  # audited: a probe of others' conversations shows
            user, f"{request.method} {request.url.path}", "not_found", "no such conversation of this user",
            source=where.strip()))
        raise HTTPException(status_code=404, detail="no such conversation")


class Turns:
    """The turns each user has in progress on this server (touched on the event loop only)."""

    def __init__(self) -> None:
        self.running: Counter[str] = Counter()

    def take(self, name: str) -> bool:
        """One more turn of the user, unless TURNS_PER_USER are in progress."""
        if self.running[name] >= TURNS_PER_USER:
            return False
        self.running[name] += 1
        return True

    def give_back(self, name: str) -> None:
        self.running[name] -= 1
        if self.running[name] <= 0:
            del self.running[name]


def turns_of(app: FastAPI) -> Turns:
    """The app's count of turns in progress, made on first use."""
    turns = getattr(app.state, "chat_turns", None)
    if turns is None:
        turns = app.state.chat_turns = Turns()
    return turns


def _stream(app: FastAPI, user: User, run: Callable[[EventHandler], Awaitable[Turn]]) -> EventStream:
    """Start the user's turn and stream its events; 429 when the user has TURNS_PER_USER turns in progress.

    The turn starts now and runs on when the browser goes away (a phone losing its connection): its answer
    and any write it did are saved with the conversation, to be seen on the next visit. Its place among
    the user's turns in progress is given back when it ends, whether or not its events were read."""
    turns = turns_of(app)
    if not turns.take(user.name):
        raise HTTPException(status_code=429, detail=BUSY, headers={"Retry-After": "1"})
    queue: asyncio.Queue[dict | None] = asyncio.Queue()
    task = asyncio.create_task(_produce(run, queue))
    _running.add(task)
    task.add_done_callback(_running.discard)
    task.add_done_callback(lambda _: turns.give_back(user.name))
    return EventStream(_events(queue), headers=STREAM_HEADERS)


async def _produce(run: Callable[[EventHandler], Awaitable[Turn]], queue: asyncio.Queue[dict | None]) -> None:
    """Run the turn, putting its events on `queue`, then its answer (or error), then None."""
    answered: list[dict] = []  # the turn as the agent's own `answer` event has it, already plain

    async def sink(event: dict) -> None:
        kind = event.get("type")
        if kind in STREAMED:
            queue.put_nowait(_plain(event))
        elif kind == "answer" and isinstance(event.get("turn"), dict):
            answered.append(event["turn"])

    try:
        turn = await run(sink)
        shown = _public(answered[-1]) if answered else public_turn(turn)
        queue.put_nowait({"type": "answer", "turn": shown})
    except ConciergeError as err:  # in both languages where the error has a Japanese text
        said = f"{err.message_ja}\n{err}" if err.message_ja and err.message_ja != str(err) else str(err)
        queue.put_nowait({"type": "error", "message": said})
    except Exception:
        log.exception("the agent failed")
        queue.put_nowait({"type": "error", "message": "internal error; the server log has the details"})
    finally:
        queue.put_nowait(None)


async def _events(queue: asyncio.Queue[dict | None]) -> AsyncGenerator[tuple[str, bool], None]:
    """The turn's events in batches, each with whether it is the last; a ping while nothing happens."""
    loop = asyncio.get_running_loop()

    def ping() -> None:
        queue.put_nowait(_PING)
        timer[0] = loop.call_later(PING_S, ping)

    timer = [loop.call_later(PING_S, ping)]
    try:
        while True:
            batch = [await queue.get()]
            while not queue.empty():
                batch.append(queue.get_nowait())
            ended = None in batch
            text = "".join(_encode(event) for event in batch[: batch.index(None) if ended else None] if event)
            if text or ended:
                yield text, ended
            if ended:
                return
    finally:
        timer[0].cancel()


def _encode(event: dict) -> str:
    if event is _PING:
        return ": ping\r\n\r\n"
    return f"event: {event['type']}\r\ndata: {json.dumps(event, ensure_ascii=False, default=str)}\r\n\r\n"


def public_turn(turn: Turn | dict) -> dict:
    """The turn as the browser gets it: no confirmation token, no instructions meant for the model."""
    return _public(_plain(turn))


def _public(data: dict) -> dict:
    """`public_turn` of a plain turn, sharing what it does not change."""
    data = dict(data)
    if data.get("calls"):
        data["calls"] = [
            {**call, "result": {k: v for k, v in call["result"].items() if k not in PRIVATE_RESULT_KEYS}}
            if isinstance(call.get("result"), dict) else call
            for call in data["calls"]
        ]
    data["pending"] = _public_pending(data.get("pending"))
    return data


def _public_pending(pending: dict | None) -> dict | None:
    if not pending:
        return None
    return {k: pending[k] for k in PENDING_KEYS if k in pending}


def _plain(value: Any) -> Any:
    if type(value) in _SCALARS:
        return value
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
