"""A local OAuth 2.0 provider and the web API it guards, on 127.0.0.1, checking the wire format strictly.

The token endpoint (RFC 6749 section 3.2) takes only form-encoded POSTs, each client authenticating the one way it
registered (HTTP Basic with form-urlencoded id and secret, or client_id and client_secret in the form) and never
both; the authorization endpoint shows a consent page whose Allow button redirects to the loopback URI with the code
and state; a code is exchanged once, with the PKCE verifier whose S256 digest was sent; refresh tokens rotate. The
API takes `Authorization: Bearer` and answers 401 with `WWW-Authenticate: Bearer error="invalid_token"`.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote_plus, urlencode, urlsplit

CC_SECRET, POST_SECRET, AC_SECRET = "cc-secret-4f9a2b7e", "post-secret-8c1d3e5f", "ac-secret-6b0e9d2a"
CLIENTS = {"cc-client": (CC_SECRET, "basic"), "post-client": (POST_SECRET, "post"), "ac-client": (AC_SECRET, "basic")}
FORM = "application/x-www-form-urlencoded"


@dataclass
class Provider:
    base_url: str = ""
    expires_in: int = 3600
    token_requests: list[dict[str, str]] = field(default_factory=list)
    api_requests: list[dict[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # wire-format violations seen
    access: dict[str, float] = field(default_factory=dict)  # token -> when it expires
    refresh: dict[str, str] = field(default_factory=dict)  # live refresh token -> client
    codes: dict[str, dict[str, str]] = field(default_factory=dict)
    always_401: bool = False

    def revoke_all(self) -> None:
        self.access.clear()
        self.refresh.clear()

    def expire_access(self) -> None:
        self.access.clear()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    provider: Provider

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, doc: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(doc).encode(), "application/json", headers)

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_GET(self) -> None:  # noqa: N802
        path = urlsplit(self.path).path
        if path == "/authorize":
            return self._authorize()
        return self._api()

    def do_POST(self) -> None:  # noqa: N802
        path = urlsplit(self.path).path
        if path == "/token":
            return self._token()
        if path == "/consent":
            return self._consent()
        return self._api()

    # --- the API ------------------------------------------------------------------------------------
    def _api(self) -> None:
        p = self.provider
        self._body()
        given = self.headers.get("Authorization", "")
        p.api_requests.append({"method": self.command, "path": self.path, "authorization": given})
        token = given.removeprefix("Bearer ") if given.startswith("Bearer ") else ""
        if p.always_401 or token not in p.access or p.access[token] < time.time():
            return self._json(401, {"message": "unauthorized"},
                              {"WWW-Authenticate": 'Bearer realm="api", error="invalid_token"'})
        if self.command == "POST":
            return self._json(200, {"done": True})
        return self._json(200, {"items": [{"name": "robot-1"}, {"name": "robot-2"}]})

    # --- the authorization endpoint and its consent page ----------------------------------------------
    def _authorize(self) -> None:
        q = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
        redirect = urlsplit(q.get("redirect_uri", ""))
        ok = (q.get("response_type") == "code" and q.get("client_id") in CLIENTS and q.get("state")
              and q.get("code_challenge_method") == "S256" and len(q.get("code_challenge", "")) == 43
              and redirect.scheme == "http" and redirect.hostname == "127.0.0.1" and redirect.path == "/callback")
        if not ok:
            self.provider.problems.append(f"authorize: {q}")
            return self._send(400, b"bad request", "text/plain")
        hidden = "".join(f'<input type="hidden" name="{k}" value="{html.escape(v)}">' for k, v in q.items())
        scope = html.escape(q.get("scope", ""))
        page = (f"<!doctype html><title>Consent</title><h1>Give concierge access?</h1><p>Scope: {scope}"
                f'<form method="post" action="/consent">{hidden}<button name="answer" value="allow">Allow</button>'
                f'<button name="answer" value="deny">Deny</button></form>')
        self._send(200, page.encode(), "text/html; charset=utf-8")

    def _consent(self) -> None:
        q = {k: v[0] for k, v in parse_qs(self._body().decode()).items()}
        target = q["redirect_uri"]
        if q.get("answer") != "allow":
            denied = urlencode({"error": "access_denied", "state": q["state"]})
            return self._send(302, b"", "text/plain", {"Location": f"{target}?{denied}"})
        code = secrets.token_urlsafe(16)
        self.provider.codes[code] = q
        self._send(302, b"", "text/plain", {"Location": f"{target}?{urlencode({'code': code, 'state': q['state']})}"})

    # --- the token endpoint -----------------------------------------------------------------------------
    def _token(self) -> None:
        p = self.provider
        raw = self._body().decode()
        if self.headers.get("Content-Type") != FORM:
            p.problems.append(f"token content-type {self.headers.get('Content-Type')}")
            return self._json(400, {"error": "invalid_request"})
        pairs = parse_qs(raw, keep_blank_values=True, strict_parsing=True)
        if any(len(v) != 1 for v in pairs.values()):
            p.problems.append("a repeated form field")
            return self._json(400, {"error": "invalid_request"})
        form = {k: v[0] for k, v in pairs.items()}
        p.token_requests.append({**form, "authorization": self.headers.get("Authorization", "")})
        client = self._client(form)
        if client is None:
            return self._json(401, {"error": "invalid_client"}, {"WWW-Authenticate": 'Basic realm="token"'})
        grant = form.get("grant_type")
        if grant == "client_credentials":
            return self._issue(client, form.get("scope", ""), refresh=False)
        if grant == "authorization_code":
            return self._code(client, form)
        if grant == "refresh_token":
            if p.refresh.pop(form.get("refresh_token", ""), None) != client:
                return self._json(400, {"error": "invalid_grant", "error_description": "the grant was revoked"})
            return self._issue(client, "calendar offline_access", refresh=True)
        return self._json(400, {"error": "unsupported_grant_type"})

    def _client(self, form: dict[str, str]) -> str | None:
        given = self.headers.get("Authorization", "")
        if given.startswith("Basic "):
            if "client_secret" in form:
                self.provider.problems.append("two client authentication methods")
                return None
            raw_id, _, raw_secret = base64.b64decode(given[6:]).decode().partition(":")
            client_id, secret, how = unquote_plus(raw_id), unquote_plus(raw_secret), "basic"
        else:
            client_id, secret, how = form.get("client_id", ""), form.get("client_secret", ""), "post"
        known = CLIENTS.get(client_id)
        if known is None or known != (secret, how):
            return None
        return client_id

    def _code(self, client: str, form: dict[str, str]) -> None:
        p = self.provider
        asked = p.codes.pop(form.get("code", ""), None)
        verifier = form.get("code_verifier", "")
        digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        if (asked is None or asked["client_id"] != client or asked["redirect_uri"] != form.get("redirect_uri")
                or not 43 <= len(verifier) <= 128 or digest != asked["code_challenge"]):
            p.problems.append("a code exchange that does not match")
            return self._json(400, {"error": "invalid_grant"})
        self._issue(client, asked.get("scope", ""), refresh=True)

    def _issue(self, client: str, scope: str, *, refresh: bool) -> None:
        p = self.provider
        token = "at-" + secrets.token_urlsafe(12)
        p.access[token] = time.time() + p.expires_in
        doc: dict[str, Any] = {"access_token": token, "token_type": "Bearer", "expires_in": p.expires_in,
                               "scope": scope}
        if refresh:
            rt = "rt-" + secrets.token_urlsafe(12)
            p.refresh[rt] = client
            doc["refresh_token"] = rt
        self._json(200, doc)


@contextmanager
def providing() -> Iterator[Provider]:
    provider = Provider()
    handler = type("H", (_Handler,), {"provider": provider})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    provider.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield provider
    finally:
        server.shutdown()
        server.server_close()
