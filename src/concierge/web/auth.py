"""Sign-in for the page: a server-side session, named by a signed cookie, decides every permission.

Signing in makes a session in the state database (`concierge.storage.sessions`); the cookie holds the
user name, the session's id and when it was issued, signed with HMAC-SHA256. Every API request looks the
session up (one indexed read): a bad signature, an old cookie, or a session that was ended in any process
(sign-out, a password change, the user removed, ``concierge user sign-out NAME``) answer 401. Nothing the
browser sends besides the cookie says who the user is. The embedded chat (`concierge.web.embed`) keeps the same
signed value in memory and sends it as the `HEADER` instead (a cookie in another site's frame may be blocked);
when both come, the header wins: it names the user the host app vouched for.

Sign-in attempts go through the throttle (`concierge.storage.throttle`): the failing address first (per
account, and over all accounts), the account itself only when many addresses fail it; counted in the state
database. A refused attempt answers 429 with ``Retry-After``. A failed or refused sign-in leaves an audit
line (the name tried, the client address, when; never the password), and so does an address or an account
that starts to wait (``throttled:address``, ``throttled:address_all``, ``throttled:account``). These lines
are a stranger's, so they are bounded per client address and kind (`concierge.pipeline.audit.stranger`):
a flood of guesses is its first lines and one summary line that counts the rest.
The client address is the peer's, or what a trusted proxy says (`concierge.web.proxy`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import BaseModel, Field

from concierge import threads
from concierge.pipeline import audit
from concierge.pipeline.access import User
from concierge.storage import passwords, sessions, throttle
from concierge.storage.sealing import ENV_SECRET, load_secret  # noqa: F401 (web.auth.load_secret, ENV_SECRET)

COOKIE = "concierge_session"
HEADER = "X-Concierge-Session"
MAX_AGE_S = int(sessions.MAX_AGE.total_seconds())
SIGN_IN_TOOL = "sign-in"  # the audit's name for a sign-in attempt
VERIFIED_KEPT = 4096  # signed cookies remembered as checked (one per live session)


@dataclass(frozen=True)
class Signer:
    secret: bytes
    # cookies whose signature was checked, and their payloads: every request of a session brings the same one
    _verified: dict[str, dict] = field(default_factory=dict, compare=False, repr=False)

    def dump(self, payload: dict) -> str:
        body = _b64(json.dumps(payload, separators=(",", ":")).encode())
        return f"{body}.{self._sign(body)}"

    def load(self, value: str) -> dict | None:
        known = self._verified.get(value)
        if known is not None:
            return dict(known)
        body, _, signature = value.partition(".")
        if not body or not hmac.compare_digest(signature, self._sign(body)):
            return None
        try:
            payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        except ValueError:
            return None
        if not isinstance(payload, dict):
            return None
        if len(self._verified) >= VERIFIED_KEPT:
            self._verified.clear()
        self._verified[value] = payload
        return dict(payload)

    def _sign(self, body: str) -> str:
        return _b64(hmac.new(self.secret, body.encode(), hashlib.sha256).digest())


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unauthorized() -> HTTPException:
    return HTTPException(status_code=401, detail="sign in first")


def client_address(request: Request) -> str | None:
    """The client's address (a trusted proxy's X-Forwarded-For already applied by `web.proxy`)."""
    return request.client.host if request.client else None


def source(request: Request) -> str:
    """The audit's `source` of a web request: ``web 203.0.113.7``."""
    return f"web {client_address(request) or 'unknown'}"


def claimed_user(request: Request) -> str:
    """For the audit of a refused request: the user its signed cookie names (not checked against the
    sessions: the request is refused anyway), or ``?``."""
    signed = _cookie_session(request)
    return signed[0] if signed else "?"


def _cookie_session(request: Request, *, header: bool = True) -> tuple[str, str] | None:
    """(user name, session id) from a cookie (or, with `header`, the embedded chat's header) that is ours and not
    too old, else None."""
    signed = (request.headers.get(HEADER) if header else None) or request.cookies.get(COOKIE, "")
    payload = request.app.state.web.signer.load(signed)
    if payload is None or not isinstance(payload.get("u"), str) or not isinstance(payload.get("s"), str):
        return None
    issued = payload.get("t")
    if not isinstance(issued, int | float) or time.time() - issued > MAX_AGE_S:
        return None
    return payload["u"], payload["s"]


async def current_user(request: Request) -> User:
    """The signed-in user, or 401."""
    found = _cookie_session(request)
    if found is None:
        raise _unauthorized()
    user = await threads.run(_check, request.app.state.web, *found)
    if user is None:
        raise _unauthorized()
    return user


def _check(web, name: str, session_id: str, embedded: bool = True) -> User | None:
    """The session's user, read now with the session (so an end in any process counts at once), when it is
    `name`."""
    found = sessions.signed_in(web.pipeline.state, session_id, embedded=embedded)
    if found is None or found.name != name:
        return None
    return User(found.name, found.role, found.display_name)


SignedIn = Annotated[User, Depends(current_user)]


class SignIn(BaseModel):
    name: str = Field(min_length=1, max_length=50)
    password: str = Field(min_length=1, max_length=200)


router = APIRouter(prefix="/api")


# a key of the throttle that starts to wait: its audit decision, and what its line says
_THROTTLED = {
    "pair": ("throttled:address", "{failures} failed sign-ins of {name} from {address}: that address waits {wait} s "
             "before it may try {name} again (other addresses still sign in)"),
    "addr": ("throttled:address_all", "{failures} failed sign-ins from {address}, whatever the account: that "
             "address waits {wait} s before any sign-in"),
    "user": ("throttled:account", "failed sign-ins of {name} from {failures} different addresses: the account waits "
             "{wait} s, from every address"),
}
_WAITING = {"pair": "this address must wait before trying this account again",
            "addr": "this address must wait before any sign-in",
            "user": "the account must wait: it failed from many addresses"}


def _audit_sign_in(request: Request, name: str, decision: str, message: str) -> None:
    """An audit line of a sign-in (the name tried, from where; never the password), bounded per address."""
    audit.stranger(request.app.state.web.pipeline.state, kind=SIGN_IN_TOOL, user=name, tool=SIGN_IN_TOOL,
                   decision=decision, message=message, source=source(request))


def _failed_sign_in(request: Request, name: str, attempt: throttle.Attempt) -> None:
    """The line of a wrong password, and one for each key of the throttle this failure makes wait."""
    _audit_sign_in(request, name, "refused:sign_in_failed", "wrong user name or password")
    address = client_address(request) or throttle.UNKNOWN_ADDRESS
    for started in attempt.throttled:
        decision, text = _THROTTLED[started.kind]
        _audit_sign_in(request, name, decision,
                       text.format(failures=started.failures, name=name, address=address, wait=started.wait_s))


class SignInRefused(Exception):
    """A sign-in that did not happen: the status (401 wrong password, 429 waiting), why, and how long to wait."""

    def __init__(self, status: int, detail: str, retry_after_s: int | None = None):
        super().__init__(detail)
        self.status, self.detail, self.retry_after_s = status, detail, retry_after_s


async def password_sign_in(request: Request, name: str, password: str) -> str:
    """Checks the password through the throttle, audits it, starts a session; the signed cookie's value."""
    web = request.app.state.web
    state, address = web.pipeline.state, client_address(request)
    attempt = await threads.run(throttle.begin, state, name, address)
    if not attempt.allowed:
        wait = attempt.retry_after_s
        await threads.run(_audit_sign_in, request, name, "refused:sign_in_throttled",
                          f"too many failed sign-ins; {_WAITING[attempt.waiting or 'pair']}: refused for {wait} s")
        raise SignInRefused(429, f"too many failed sign-ins: try again in {wait} seconds", wait)
    fingerprint = await threads.run(passwords.verify, state, name, password)
    if fingerprint is None:
        await threads.run(_failed_sign_in, request, name, attempt)
        raise SignInRefused(401, "wrong user name or password")
    await threads.run(throttle.succeeded, state, name, address, attempt)
    session_id = await threads.run(lambda: sessions.start(state, name, fingerprint, source=source(request)))
    return web.signer.dump({"u": name, "s": session_id, "t": int(time.time())})


def set_session_cookie(request: Request, response: Response, cookie: str) -> None:
    response.set_cookie(COOKIE, cookie, max_age=MAX_AGE_S, httponly=True, samesite="strict",
                        secure=request.app.state.web.secure_cookie or request.url.scheme == "https", path="/")


async def signed_in_person(request: Request) -> User | None:
    """The user of the browser's cookie session when they signed in themselves, else None: a page that asks the
    person (the OAuth consent) offers to sign in instead; a session a host app's token started does not count."""
    found = _cookie_session(request, header=False)
    if found is None:
        return None
    return await threads.run(_check, request.app.state.web, *found, False)


@router.post("/login")
async def login(body: SignIn, request: Request, response: Response) -> dict:
    try:
        cookie = await password_sign_in(request, body.name, body.password)
    except SignInRefused as refused:
        headers = {"Retry-After": str(refused.retry_after_s)} if refused.retry_after_s is not None else None
        raise HTTPException(status_code=refused.status, detail=refused.detail, headers=headers) from None
    set_session_cookie(request, response, cookie)
    web = request.app.state.web
    return web.describe(await threads.run(web.pipeline.user, body.name))


@router.post("/logout")
async def logout(request: Request, response: Response) -> dict:
    """Ends the session in the state database (every process), then forgets the cookie."""
    found = _cookie_session(request)
    if found is not None:
        await threads.run(sessions.end, request.app.state.web.pipeline.state, found[1])
    response.delete_cookie(COOKIE, path="/")
    return {"signed_out": True}


@router.get("/me")
async def me(request: Request, user: SignedIn) -> dict:
    return request.app.state.web.describe(user)
