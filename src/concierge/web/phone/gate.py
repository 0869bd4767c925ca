"""Who may speak on a relay socket: the socket's first `setup`, admitted only with the call credential of
the signed POST /phone/twiml that named its callSid and from (`credential`), within `SETUP_TIMEOUT_S`.

A socket that sends no setup in time, a setup without a valid unused credential, or one whose callSid
or from differ from the call the credential was issued for, is closed (1008) with a log line and an
audit refusal; it never reaches a conversation. Any message over `MAX_MESSAGE_BYTES` closes the socket
(1009): ConversationRelay's messages are a few hundred bytes.
"""

from __future__ import annotations

import contextlib
import json
import logging
from typing import Any

import anyio
from starlette.websockets import WebSocket, WebSocketDisconnect

from concierge import threads
from concierge.pipeline import audit
from concierge.pipeline.pipeline import Pipeline
from concierge.web.phone.credential import PARAMETER, Credentials
from concierge.web.phone.identity import CallIdentity

log = logging.getLogger(__name__)
MAX_MESSAGE_BYTES = 64 * 1024
SETUP_TIMEOUT_S = 10.0  # Twilio sends setup as soon as the socket is open
POLICY_VIOLATION, TOO_BIG = 1008, 1009
RELAY = "WS /phone/relay"


def message_of(raw: str) -> dict[str, Any] | None:
    """A message as a JSON object; None for anything else (ignored, never fatal)."""
    try:
        message = json.loads(raw)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def too_big(raw: str) -> bool:
    return len(raw) > MAX_MESSAGE_BYTES or len(raw.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES


async def receive(websocket: WebSocket) -> str | None:
    """The next text message; None once the socket is closed, or closed here for a message too big."""
    try:
        raw = await websocket.receive_text()
    except (WebSocketDisconnect, RuntimeError, KeyError):
        return None
    if too_big(raw):
        log.warning("phone: closed a relay socket from %s: a message of %d characters (at most %d bytes)",
                    _client(websocket), len(raw), MAX_MESSAGE_BYTES)
        await close(websocket, TOO_BIG, "message too big")
        return None
    return raw


async def close(websocket: WebSocket, code: int, reason: str = "") -> None:
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):  # closed already
        await websocket.close(code=code, reason=reason)


async def admit(websocket: WebSocket, credentials: Credentials, pipeline: Pipeline) -> CallIdentity | None:
    """The call an accepted socket may speak for, from its first setup; None: refused, and closed."""
    setup = await _first_setup(websocket)
    if setup is None:
        await refuse(websocket, pipeline, "no_setup", f"no setup within {SETUP_TIMEOUT_S:g} s", None)
        return None
    call = CallIdentity.of(setup.get("callSid"), setup.get("from"), setup.get("to"))
    custom = setup.get("customParameters")
    credential = custom.get(PARAMETER) if isinstance(custom, dict) else None
    reason = await threads.run(credentials.redeem, credential, call)
    if reason is not None:
        await refuse(websocket, pipeline, "bad_call_credential", reason, call)
        return None
    return call


async def refuse(websocket: WebSocket, pipeline: Pipeline, code: str, reason: str, call: CallIdentity | None,
                 *, close_code: int = POLICY_VIOLATION) -> None:
    """Log and audit why the socket may not go on; close it (`close_code`; 0 leaves it open)."""
    claims = {"callSid": call.call_sid, "from": call.caller} if call else {}
    log.warning("phone: refused a relay socket from %s%s: %s", _client(websocket),
                f" (callSid {call.call_sid!r}, from {call.caller!r})" if call else "", reason)
    source = f"phone {_client(websocket)}"
    await threads.run(lambda: audit.stranger(pipeline.state, kind="phone", user="?", tool=RELAY,
                                                    decision=f"refused:{code}", message=reason, args=claims,
                                                    source=source))  # bounded: nobody is signed in here
    if close_code:
        await close(websocket, close_code, "call not admitted")


async def _first_setup(websocket: WebSocket) -> dict[str, Any] | None:
    """The first `setup` (other messages before it are ignored); None when the socket closed or none came."""
    with anyio.move_on_after(SETUP_TIMEOUT_S):
        while (raw := await receive(websocket)) is not None:
            message = message_of(raw)
            if message is not None and message.get("type") == "setup":
                return message
    return None


def _client(websocket: WebSocket) -> str:
    return websocket.client.host if websocket.client else "unknown"
