"""The SwitchBot API v1.1 wire facts that both the client (the `switchbot` authentication kind) and the
local simulator share: the request signature, its headers, and the service's status codes.

The signature is the one of the API's code samples (the README's prose disagrees, and is wrong):
``sign = base64(HMAC-SHA256(key=secret, message=token + t + nonce))``, no upper-casing, nonce included.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
import uuid
from enum import IntEnum

BASE_URL = "https://api.switch-bot.com"
CONTENT_TYPE = "application/json; charset=utf8"
SIGNED_HEADERS = ("authorization", "t", "nonce", "sign")


class StatusCode(IntEnum):
    """The `statusCode` of a SwitchBot answer (sent with HTTP 200, success or not)."""

    SUCCESS = 100
    WRONG_DEVICE_TYPE = 151
    DEVICE_NOT_FOUND = 152
    COMMAND_NOT_SUPPORTED = 160
    DEVICE_OFFLINE = 161
    HUB_OFFLINE = 171
    BAD_FORMAT = 190


MESSAGES: dict[StatusCode, str] = {
    StatusCode.SUCCESS: "success",
    StatusCode.WRONG_DEVICE_TYPE: "device type error",
    StatusCode.DEVICE_NOT_FOUND: "device not found",
    StatusCode.COMMAND_NOT_SUPPORTED: "command is not supported",
    StatusCode.DEVICE_OFFLINE: "device offline",
    StatusCode.HUB_OFFLINE: "hub device is offline",
    StatusCode.BAD_FORMAT: "wrong parameter format or internal error",
}
"""The `message` the service sends with each status code."""

UNAUTHORIZED_MESSAGE = "Unauthorized"
"""The body's `message` of the HTTP 401 a bad token, time or signature gets."""


def sign(token: str, secret: str, t: str, nonce: str) -> str:
    """The `sign` header of a request: base64(HMAC-SHA256(key=secret, message=token + t + nonce))."""
    digest = hmac.new(secret.encode(), (token + t + nonce).encode(), hashlib.sha256).digest()
    return base64.b64encode(digest).decode("ascii")


def headers(token: str, secret: str, *, now: float | None = None, nonce: str | None = None) -> dict[str, str]:
    """The headers of one signed request, names lower-case: authorization, t (milliseconds since the
    epoch, from `now` in seconds, default the clock), nonce (default a fresh UUID), sign, content-type."""
    t = str(int((time.time() if now is None else now) * 1000))
    nonce = str(uuid.uuid4()) if nonce is None else nonce
    return {"authorization": token, "t": t, "nonce": nonce, "sign": sign(token, secret, t, nonce),
            "content-type": CONTENT_TYPE}
