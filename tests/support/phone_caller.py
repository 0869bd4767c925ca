"""A scripted phone call, as Twilio ConversationRelay makes it: the signed TwiML request, then the
signed WebSocket speaking ConversationRelay's JSON (tests/phone and bench/phone.py).

    async with dial(base_url, TOKEN, caller="+819012345678") as call:
        reply = await call.say("からあげ弁当を2つ")
        reply.text, reply.tokens, reply.end

The pieces, for a caller that does what Twilio would not (tests/phone/test_call_binding.py):
`incoming` (the signed POST /phone/twiml and what its TwiML names: the relay URL and the `<Parameter>`s),
`relay_socket` (the socket with the handshake's signature) and `setup` (the first message).
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx2
from twilio.request_validator import RequestValidator
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from concierge.agent.store import ConversationStore
from concierge.pipeline import audit
from concierge.storage.database import Database

TOKEN = "phone-test-auth-token"
REPLY_TIMEOUT_S = 20.0


def signed(token: str, url: str, params: dict[str, str] | None = None) -> str:
    return RequestValidator(token).compute_signature(url, params or {})


def post_signed(url: str, token: str, params: dict[str, str]) -> httpx2.Response:
    return httpx2.post(url, data=params, headers={"X-Twilio-Signature": signed(token, url, params)}, timeout=30)


@dataclass
class Reply:
    tokens: list[str] = field(default_factory=list)
    end: dict[str, Any] | None = None  # the handoffData of an `end`, decoded
    messages: list[dict[str, Any]] = field(default_factory=list)  # everything received, in order
    first_token_s: float | None = None  # from the prompt sent to the first text token received
    total_s: float = 0.0

    @property
    def text(self) -> str:
        return "".join(self.tokens).strip()


@dataclass
class Incoming:
    """What POST /phone/twiml answered: the call's form fields, the relay URL and the `<Parameter>`s."""

    params: dict[str, str]
    relay_url: str
    parameters: dict[str, str]

    @property
    def call_sid(self) -> str:
        return self.params["CallSid"]

    @property
    def caller(self) -> str:
        return self.params["From"]


def call_params(call_sid: str | None = None, caller: str = "+819012345678") -> dict[str, str]:
    """The form fields of an incoming call, as Twilio POSTs them."""
    return {"CallSid": call_sid or "CA" + secrets.token_hex(16), "From": caller, "To": "+81312345678",
            "AccountSid": "AC" + "0" * 32, "CallStatus": "ringing", "Direction": "inbound"}


async def incoming(base_url: str, token: str = TOKEN, params: dict[str, str] | None = None) -> Incoming:
    """The signed POST /phone/twiml of a call, and what its TwiML names."""
    params = params or call_params()
    response = await asyncio.to_thread(post_signed, f"{base_url}/phone/twiml", token, params)
    assert response.status_code == 200, response.text
    relay_url = re.search(r'<ConversationRelay[^>]* url="([^"]+)"', response.text)
    assert relay_url is not None, response.text
    parameters = {html.unescape(name): html.unescape(value)
                  for name, value in re.findall(r'<Parameter name="([^"]*)" value="([^"]*)"', response.text)}
    return Incoming(params, html.unescape(relay_url.group(1)), parameters)


def setup(call_sid: str, caller: str, parameters: dict[str, str] | None = None,
          to: str = "+81312345678") -> dict[str, Any]:
    """The first message of a relay socket, as Twilio sends it."""
    return {"type": "setup", "sessionId": "VX" + secrets.token_hex(16), "accountSid": "AC" + "0" * 32,
            "callSid": call_sid, "from": caller, "to": to, "direction": "inbound", "callStatus": "in-progress",
            "customParameters": parameters or {}}


@asynccontextmanager
async def relay_socket(url: str, token: str = TOKEN) -> AsyncIterator[ClientConnection]:
    """The relay socket, its handshake signed over `url` (the same signature for every call)."""
    async with connect(url, additional_headers={"X-Twilio-Signature": signed(token, url)}) as socket:
        yield socket


class Call:
    def __init__(self, socket: ClientConnection, call_sid: str, answered: Incoming | None = None):
        self.socket, self.call_sid, self.answered = socket, call_sid, answered

    async def send(self, message: dict[str, Any]) -> None:
        await self.socket.send(json.dumps(message, ensure_ascii=False))

    async def say(self, words: str, *, lang: str = "ja-JP") -> Reply:
        """The caller's words as a prompt; the answer's tokens until one with last: true (or an end)."""
        started = time.perf_counter()
        await self.send({"type": "prompt", "voicePrompt": words, "lang": lang, "last": True})
        return await self.listen(started)

    async def listen(self, started: float | None = None, *, tokens: int | None = None) -> Reply:
        """Messages until the answer's last token or an end (or `tokens` text tokens received)."""
        started = time.perf_counter() if started is None else started
        reply = Reply()
        while True:
            message = json.loads(await asyncio.wait_for(self.socket.recv(), REPLY_TIMEOUT_S))
            reply.messages.append(message)
            if message.get("type") == "text":
                if message.get("token") and reply.first_token_s is None:
                    reply.first_token_s = time.perf_counter() - started
                reply.tokens.append(message.get("token", ""))
                if message.get("last") or (tokens is not None and len([t for t in reply.tokens if t]) >= tokens):
                    break
            elif message.get("type") == "end":
                reply.end = json.loads(message["handoffData"])
                break
        reply.total_s = time.perf_counter() - started
        return reply


@asynccontextmanager
async def dial(base_url: str, token: str = TOKEN, *, caller: str = "+819012345678",
               call_sid: str | None = None, setup_from: str | None = None) -> AsyncIterator[Call]:
    """Twilio's side of a call: POST /phone/twiml, then open the relay URL its TwiML names and send `setup`
    with the TwiML's parameters (`setup_from`: another `from` in the setup than the POST's)."""
    answered = await incoming(base_url, token, call_params(call_sid, caller))
    async with relay_socket(answered.relay_url, token) as socket:
        call = Call(socket, answered.call_sid, answered)
        first = setup(answered.call_sid, caller if setup_from is None else setup_from, answered.parameters)
        await socket.send(json.dumps(first))  # JSON escapes, as Twilio's: a lone surrogate travels as \ud800
        yield call


async def until_closed(socket: ClientConnection, timeout_s: float = 10.0) -> tuple[int | None, list[dict[str, Any]]]:
    """What the server sends until it closes the socket, and its close code (TimeoutError: it never does)."""
    received: list[dict[str, Any]] = []
    try:
        while True:
            received.append(json.loads(await asyncio.wait_for(socket.recv(), timeout_s)))
    except ConnectionClosed as closed:
        return (closed.rcvd.code if closed.rcvd else None), received


def stored_conversation(url: str, session_id: str, user: str) -> list[dict[str, Any]]:
    """The conversation as the store keeps it: role and text of each message."""
    db = Database(url)
    try:
        messages = ConversationStore(db).load(session_id, user)
    finally:
        db.dispose()
    return [{"role": m.role, "text": m.text} for m in messages]


def audit_lines(url: str) -> list[dict]:
    """The audit of the database at `url`, oldest first (its last 1,000 lines)."""
    db = Database(url)
    try:
        return audit.latest(db, 1000)[::-1]
    finally:
        db.dispose()
