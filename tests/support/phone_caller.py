"""A scripted phone call, as Twilio ConversationRelay makes it: the signed TwiML request, then the
signed WebSocket speaking ConversationRelay's JSON (tests/phone and bench/phone.py).

    async with dial(base_url, TOKEN, caller="+819012345678") as call:
        reply = await call.say("からあげ弁当を2つ")
        reply.text, reply.tokens, reply.end
"""

from __future__ import annotations

import asyncio
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

from concierge.agent.store import ConversationStore
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


class Call:
    def __init__(self, socket: ClientConnection, call_sid: str):
        self.socket, self.call_sid = socket, call_sid

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
               call_sid: str | None = None) -> AsyncIterator[Call]:
    """Twilio's side of a call: POST /phone/twiml, then open the relay URL its TwiML names and send `setup`."""
    call_sid = call_sid or "CA" + secrets.token_hex(16)
    params = {"CallSid": call_sid, "From": caller, "To": "+81312345678", "AccountSid": "AC" + "0" * 32,
              "CallStatus": "ringing", "Direction": "inbound"}
    response = await asyncio.to_thread(post_signed, f"{base_url}/phone/twiml", token, params)
    assert response.status_code == 200, response.text
    relay_url = re.search(r'<ConversationRelay[^>]* url="([^"]+)"', response.text)
    assert relay_url is not None, response.text
    url = relay_url.group(1)
    async with connect(url, additional_headers={"X-Twilio-Signature": signed(token, url)}) as socket:
        call = Call(socket, call_sid)
        await call.send({"type": "setup", "sessionId": "VX" + secrets.token_hex(16), "accountSid": params["AccountSid"],
                         "callSid": call_sid, "from": caller, "to": params["To"], "direction": "inbound",
                         "callStatus": "in-progress", "customParameters": {}})
        yield call


def stored_conversation(url: str, session_id: str, user: str) -> list[dict[str, Any]]:
    """The conversation as the store keeps it: role and text of each message."""
    db = Database(url)
    try:
        messages = ConversationStore(db).load(session_id, user)
    finally:
        db.dispose()
    return [{"role": m.role, "text": m.text} for m in messages]
