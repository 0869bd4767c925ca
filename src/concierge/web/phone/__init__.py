"""The phone channel: Twilio ConversationRelay in front of the same agent and pipeline (docs/phone.md).

    POST /phone/twiml   a call comes in: TwiML that connects it to the relay socket
    WS   /phone/relay   the call as text: the caller's words in, the answer's sentences out (`relay`)
    POST /phone/action  the relay session ended: TwiML that dials a person or hangs up

Every request and the socket's handshake must carry a valid `X-Twilio-Signature` (`signature`);
any other gets 403 and an audit line, and the socket is never accepted. The same signed POST
/phone/twiml twice is a replay: 403. The socket's signature covers only its URL, so the TwiML carries a
one-time call credential for the CallSid and From of the signed POST (`credential`), and a socket speaks
for a call only once its `setup` gives that credential back (`gate`). How many calls are taken at once is
limited (`lines`). Twilio does the speech: nothing here makes or hears audio.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from urllib.parse import parse_qsl

from fastapi import APIRouter, FastAPI, Request, WebSocket
from fastapi.responses import JSONResponse, Response
from starlette.requests import HTTPConnection

from concierge import threads
from concierge.agent import prompts
from concierge.agent.loop import Agent
from concierge.errors import UnknownUser
from concierge.pipeline import audit
from concierge.settings import PhoneSettings
from concierge.web.phone import gate, relay, twiml
from concierge.web.phone.credential import PARAMETER, TICKET, Credentials
from concierge.web.phone.identity import CallIdentity
from concierge.web.phone.lines import Lines
from concierge.web.phone.signature import HEADER, TOKEN_VARIABLE, Signatures

log = logging.getLogger(__name__)
router = APIRouter(prefix="/phone")
XML = "application/xml"
FORBIDDEN = "refused: the request does not carry a valid X-Twilio-Signature"
REPLAYED = "refused: this signed request was taken before (a replay)"


@dataclass
class PhoneState:
    agent: Agent
    settings: PhoneSettings
    signatures: Signatures
    credentials: Credentials
    lines: Lines


def install(app: FastAPI, agent: Agent, settings: PhoneSettings, signatures: Signatures | None = None) -> None:
    """The phone routes on `app`, answered by an agent of their own over the same provider and store."""
    phone_agent = Agent(agent.pipeline, agent.provider, store=agent.store, max_steps=agent.max_steps,
                        catalogs=[settings.catalog] if settings.catalog else None, instructions=prompts.PHONE)
    signatures = signatures or Signatures(public_url=settings.public_url)
    credentials = Credentials(signatures.token, agent.pipeline.state, settings.user)
    lines = Lines(settings.max_calls, settings.max_calls_per_caller)
    app.state.phone = PhoneState(phone_agent, settings, signatures, credentials, lines)
    app.include_router(router)


@router.post("/twiml", name="phone_twiml")
async def incoming(request: Request) -> Response:
    phone: PhoneState = request.app.state.phone
    form = dict(parse_qsl((await request.body()).decode(), keep_blank_values=True))
    refused = await _refused(request, phone, form) or await _replayed(request, phone, form)
    if refused is not None:
        return refused
    call = CallIdentity.of(form.get("CallSid"), form.get("From"), form.get("To"))
    credential = phone.credentials.issue(call)
    relay_url = phone.signatures.url(str(request.url_for("phone_relay")), websocket=True)
    relay_url += f"?{TICKET}={phone.credentials.ticket()}"  # this call's own URL: its handshake is its own
    action_url = phone.signatures.url(str(request.url_for("phone_action")))
    return Response(twiml.connect(phone.settings, relay_url, action_url, {PARAMETER: credential}), media_type=XML)


@router.post("/action", name="phone_action")
async def action(request: Request) -> Response:
    """The relay session's end: HandoffData is what the relay sent with `end` (or nothing: a hang-up)."""
    phone: PhoneState = request.app.state.phone
    form = dict(parse_qsl((await request.body()).decode(), keep_blank_values=True))
    refused = await _refused(request, phone, form)
    if refused is not None:
        return refused
    try:
        handoff = json.loads(form.get("HandoffData") or "{}")
    except ValueError:
        handoff = {}
    reason = handoff.get("reason") if isinstance(handoff, dict) else None
    log.info("phone call %s ended (%s): %s", form.get("CallSid"), form.get("SessionStatus"), reason or "hang-up")
    return Response(twiml.after_session(phone.settings, handover=reason == "handover"), media_type=XML)


@router.websocket("/relay", name="phone_relay")
async def relay_socket(websocket: WebSocket) -> None:
    phone: PhoneState = websocket.app.state.phone
    url = phone.signatures.url(str(websocket.url), websocket=True)
    if not phone.signatures.valid(url, {}, websocket.headers.get(HEADER)):
        await _audit(websocket, gate.RELAY)
        await websocket.close(code=1008)  # before accept: the client gets HTTP 403, no socket
        return
    try:
        user = await threads.run(phone.agent.pipeline.user, phone.settings.user)
    except UnknownUser:
        log.error("phone: no user %r (phone.user); `concierge user add %s --role ...`",
                  phone.settings.user, phone.settings.user)
        await websocket.close(code=1011)
        return
    call = await _admitted(websocket, phone)
    if call is None:
        return
    busy = phone.lines.take(call.caller)
    if busy is not None:
        await gate.refuse(websocket, phone.agent.pipeline, "too_many_calls", busy, call, close_code=0)
        await relay.busy(websocket, call, "ja" if twiml.lang_of(phone.settings.language) == "ja" else "en")
        return
    try:
        await relay.Call(relay.Phone(phone.agent, phone.settings, user), websocket, call).run()
    finally:
        phone.lines.hang_up(call.caller)


async def _admitted(websocket: WebSocket, phone: PhoneState) -> CallIdentity | None:
    """The call the socket speaks for, once its setup is admitted (`gate.admit`); None: refused and closed."""
    ticket = websocket.query_params.get(TICKET, "")
    if not phone.credentials.ticket_valid(ticket):
        refused = ("bad_ticket", "the relay URL carries no valid ticket of a TwiML this server gave")
    elif not phone.lines.first_use(ticket, time.time() + phone.credentials.lifetime_s):
        refused = ("replayed", "this call's relay URL opened a socket already: a call has one socket")
    elif not phone.lines.knock():
        refused = ("too_many_calls", f"{phone.lines.waiting} sockets wait for their setup already")
    else:
        refused = None
    if refused is not None:  # before accept: the client gets HTTP 403, and no waiting slot is taken
        await gate.refuse(websocket, phone.agent.pipeline, *refused, None, close_code=0)
        await websocket.close(code=1013 if refused[0] == "too_many_calls" else 1008)
        return None
    try:
        await websocket.accept()
        return await gate.admit(websocket, phone.credentials, phone.agent.pipeline)
    finally:
        phone.lines.answered()


async def _refused(request: Request, phone: PhoneState, params: dict[str, str]) -> Response | None:
    url = phone.signatures.url(str(request.url))
    if phone.signatures.valid(url, params, request.headers.get(HEADER)):
        return None
    await _audit(request, f"{request.method} {request.url.path}")
    detail = FORBIDDEN if phone.signatures.configured else f"{FORBIDDEN} ({TOKEN_VARIABLE} is not set)"
    return JSONResponse({"detail": detail}, status_code=403)


async def _replayed(request: Request, phone: PhoneState, params: dict[str, str]) -> Response | None:
    """403 for a signed request taken before: Twilio POSTs /phone/twiml once per call."""
    url, signature = phone.signatures.url(str(request.url)), request.headers.get(HEADER) or ""
    if await threads.run(phone.credentials.first_webhook, url, params, signature):
        return None
    log.warning("phone: refused a replay of the signed %s %s for call %r", request.method, request.url.path,
                params.get("CallSid"))
    await _audit(request, f"{request.method} {request.url.path}", "replayed", REPLAYED)
    return JSONResponse({"detail": REPLAYED}, status_code=403)


async def _audit(conn: HTTPConnection, what: str, code: str = "bad_signature", message: str = FORBIDDEN) -> None:
    """Bounded as every unauthenticated refusal is (`audit.stranger`): a stranger cannot grow the audit."""
    state = conn.app.state.phone.agent.pipeline.state
    where = f"phone {conn.client.host if conn.client else 'unknown'}"
    await threads.run(lambda: audit.stranger(state, kind="phone", user="?", tool=what,
                                                    decision=f"refused:{code}", message=message, source=where))
