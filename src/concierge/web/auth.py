"""Sign-in for the page: a signed session cookie names the user; the session decides every permission.

The cookie holds the user name, when it was issued and a fingerprint of the
stored password hash, signed with HMAC-SHA256. It is checked on every API
request: a bad signature, an old cookie, or a password changed since the
sign-in all answer 401. Nothing the browser sends besides the cookie says who
the user is.

The stored fingerprint a cookie was checked against is remembered for
`FINGERPRINT_TTL_S`, so most requests need no database read (and no worker
thread): a password change made through this process (any UPDATE or DELETE of
the users table on its engine) forgets them at once; one made by another process
(`concierge user set-password` while the server runs) signs earlier sessions out
within that time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import platformdirs
from anyio import to_thread
from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import BaseModel, Field
from sqlalchemy import event

from concierge.errors import UnknownUser
from concierge.pipeline.access import User
from concierge.storage import passwords
from concierge.storage.database import Database

COOKIE = "concierge_session"
MAX_AGE_S = 7 * 24 * 3600
ENV_SECRET = "CONCIERGE_SECRET"
FINGERPRINT_TTL_S = 1.0
_USERS_CHANGED = ("UPDATE concierge_users", "DELETE FROM concierge_users")


def load_secret() -> bytes:
    """CONCIERGE_SECRET, else a random key kept in the user data folder (so a restart keeps sign-ins)."""
    if os.environ.get(ENV_SECRET):
        return os.environ[ENV_SECRET].encode()
    path = Path(platformdirs.user_data_dir("concierge", appauthor=False)) / "web-secret"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_urlsafe(32))
    return path.read_text().strip().encode()


@dataclass(frozen=True)
class Signer:
    secret: bytes

    def dump(self, payload: dict) -> str:
        body = _b64(json.dumps(payload, separators=(",", ":")).encode())
        return f"{body}.{self._sign(body)}"

    def load(self, value: str) -> dict | None:
        body, _, signature = value.partition(".")
        if not body or not hmac.compare_digest(signature, self._sign(body)):
            return None
        try:
            payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        except ValueError:
            return None
        return payload if isinstance(payload, dict) else None

    def _sign(self, body: str) -> str:
        return _b64(hmac.new(self.secret, body.encode(), hashlib.sha256).digest())


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unauthorized() -> HTTPException:
    return HTTPException(status_code=401, detail="sign in first")


@dataclass
class Fingerprints:
    """The stored password fingerprints checked in the last `FINGERPRINT_TTL_S`, by user name."""

    db: Database
    ttl_s: float = FINGERPRINT_TTL_S
    _checked: dict[str, tuple[float, str | None]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _generation: int = 0  # counts the password changes seen

    def __post_init__(self) -> None:
        event.listen(self.db.engine, "after_cursor_execute", self._on_execute)
        event.listen(self.db.engine, "commit", self._on_commit)

    def recent(self, name: str) -> tuple[bool, str | None]:
        """(True, fingerprint) when it was read from the database less than `ttl_s` ago."""
        seen = self._checked.get(name)
        if seen is None or time.monotonic() - seen[0] > self.ttl_s:
            return False, None
        return True, seen[1]

    def read(self, name: str) -> str | None:
        """The stored fingerprint, read now. Sync: it reads the database."""
        with self._lock:
            generation = self._generation
        started = time.monotonic()
        found = passwords.current_fingerprint(self.db, name)
        with self._lock:
            if generation == self._generation:  # no password changed while it was read
                self._checked[name] = (started, found)
        return found

    def forget(self) -> None:
        with self._lock:
            self._generation += 1
            self._checked.clear()

    def _on_execute(self, conn, _cursor, statement: str, *_args) -> None:
        if statement.startswith(_USERS_CHANGED):
            conn.info["users_changed"] = True
            self.forget()

    def _on_commit(self, conn) -> None:
        if conn.info.pop("users_changed", False):
            self.forget()


async def current_user(request: Request) -> User:
    """The signed-in user, or 401."""
    web = request.app.state.web
    payload = web.signer.load(request.cookies.get(COOKIE, ""))
    if payload is None or not isinstance(payload.get("u"), str) or not isinstance(payload.get("t"), int | float):
        raise _unauthorized()
    if time.time() - payload["t"] > MAX_AGE_S:
        raise _unauthorized()
    name = payload["u"]
    known, stored = web.fingerprints.recent(name)
    if known:  # the user was found when its fingerprint was read: Pipeline.user has it without a read
        user = web.pipeline.user(name) if stored is not None and stored == payload.get("f") else None
    else:
        user = await to_thread.run_sync(_check, web, name, payload.get("f"))
    if user is None:
        raise _unauthorized()
    return user


def _check(web, name: str, fingerprint: object) -> User | None:
    """Read the stored fingerprint (remembered) and the user (kept by the pipeline) in one hop."""
    stored = web.fingerprints.read(name)
    if stored is None:
        return None
    try:
        user = web.pipeline.user(name)
    except UnknownUser:  # removed since the cookie was made: signed out
        return None
    return user if stored == fingerprint else None


SignedIn = Annotated[User, Depends(current_user)]


class SignIn(BaseModel):
    name: str = Field(min_length=1, max_length=50)
    password: str = Field(min_length=1, max_length=200)


router = APIRouter(prefix="/api")


@router.post("/login")
async def login(body: SignIn, request: Request, response: Response) -> dict:
    web = request.app.state.web
    fingerprint = await to_thread.run_sync(passwords.verify, web.pipeline.state, body.name, body.password)
    if fingerprint is None:
        raise HTTPException(status_code=401, detail="wrong user name or password")
    cookie = web.signer.dump({"u": body.name, "f": fingerprint, "t": int(time.time())})
    response.set_cookie(COOKIE, cookie, max_age=MAX_AGE_S, httponly=True, samesite="strict",
                        secure=web.secure_cookie, path="/")
    return web.describe(await to_thread.run_sync(web.pipeline.user, body.name))


@router.post("/logout")
async def logout(response: Response) -> dict:
    response.delete_cookie(COOKIE, path="/")
    return {"signed_out": True}


@router.get("/me")
async def me(request: Request, user: SignedIn) -> dict:
    return request.app.state.web.describe(user)
