"""Is a request really Twilio's? `X-Twilio-Signature` checked with the `twilio` package's RequestValidator.

Twilio signs the URL it requested, exactly as it was configured (scheme, host, path, query), plus
each POST parameter's name and value; the WebSocket handshake is signed over the `url` the TwiML
gave (its query, the call's ticket, included), with no parameters. Behind a proxy the server does not
see that URL, so `phone.public_url` says what Twilio sees (https://concierge.example.com); without it
the request's own URL is used.
The auth token is read from the environment (TWILIO_AUTH_TOKEN) and never from the settings file;
with no token nothing can be checked, so every request is refused.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit, urlunsplit

from twilio.request_validator import RequestValidator

TOKEN_VARIABLE = "TWILIO_AUTH_TOKEN"
HEADER = "x-twilio-signature"


class Signatures:
    def __init__(self, token: str | None = None, public_url: str = ""):
        token = os.environ.get(TOKEN_VARIABLE, "") if token is None else token
        self.token = token  # also the key of the call credentials (`credential`)
        self.validator = RequestValidator(token) if token else None
        self.public_url = public_url

    @property
    def configured(self) -> bool:
        return self.validator is not None

    def url(self, seen: str, *, websocket: bool = False) -> str:
        """The URL Twilio asked for: the one this server saw, on the public base when one is set."""
        parts = urlsplit(seen)
        if self.public_url:
            base = urlsplit(self.public_url)
            parts = parts._replace(scheme=base.scheme, netloc=base.netloc,
                                   path=base.path.rstrip("/") + parts.path)
        if websocket:  # its query (the TwiML's ticket) is part of what Twilio signs
            parts = parts._replace(scheme={"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme))
        return urlunsplit(parts)

    def valid(self, url: str, params: Mapping[str, str], signature: str | None) -> bool:
        if self.validator is None or not signature:
            return False
        return bool(self.validator.validate(url, dict(params), signature))
