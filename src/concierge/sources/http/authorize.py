"""The one-time consent of an `oauth2_authorization_code` source: `concierge services authorize SOURCE`.

The authorization code flow with PKCE (S256) and a `state` value, on a loopback redirect (RFC 8252): concierge
listens on 127.0.0.1 (the source's `redirect_port`, else a port the system picks) at `/callback`, shows the
authorization URL (and opens the browser), takes the code the browser brings back, exchanges it with the
verifier, and keeps the refresh token sealed in the state database (`concierge.storage.source_grants`).
"""

from __future__ import annotations

import html
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlsplit

from authlib.common.security import generate_token
from authlib.oauth2.rfc6749.parameters import prepare_grant_uri
from authlib.oauth2.rfc7636 import create_s256_code_challenge

from concierge.catalog.secrets import ResolvedSource
from concierge.sources.http.oauth2 import TokenError, Tokens
from concierge.storage.source_grants import GrantStore

CALLBACK = "/callback"


@dataclass(frozen=True)
class Authorized:
    source: str
    scope: str


class _Callback(HTTPServer):
    state: str
    found: dict[str, str] | None = None


class _Handler(BaseHTTPRequestHandler):
    server: _Callback

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if parts.path != CALLBACK or query.get("state") != self.server.state or self.server.found is not None:
            self._page(400, "This is not the answer concierge is waiting for. / "
                            "concierge が待っている応答ではありません。")
            return
        self.server.found = query
        if "code" in query:
            self._page(200, "concierge has been given access. You can close this tab. / "
                            "concierge へのアクセス許可を受け取りました。このタブを閉じてください。")
        else:
            self._page(400, "Access was not given. / アクセスは許可されませんでした。")

    def _page(self, status: int, text: str) -> None:
        body = f"<!doctype html><meta charset=utf-8><title>concierge</title><p>{html.escape(text)}</p>".encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the query holds the code: not logged)
        return


def authorize(source: ResolvedSource, grants: GrantStore, show: Callable[[str], None], *,
              timeout: float = 300.0) -> Authorized:
    """Run the flow for `source`: `show(url)` presents the authorization URL; the refresh token is stored."""
    auth = source.auth
    assert auth is not None and auth.kind == "oauth2_authorization_code"
    tokens = Tokens(source, grants)
    verifier, state = generate_token(64), generate_token(32)
    server = _Callback(("127.0.0.1", auth.redirect_port or 0), _Handler)
    server.state, server.timeout = state, 0.5
    redirect_uri = f"http://127.0.0.1:{server.server_address[1]}{CALLBACK}"
    url = prepare_grant_uri(auth.authorize_url, auth.client_id, "code", redirect_uri=redirect_uri,
                            scope=auth.scope or None, state=state, code_challenge=create_s256_code_challenge(verifier),
                            code_challenge_method="S256")
    try:
        threading.Thread(target=show, args=(url,), daemon=True).start()
        deadline = time.monotonic() + timeout
        while server.found is None and time.monotonic() < deadline:
            server.handle_request()
    finally:
        server.server_close()
    found = server.found
    if found is None:
        raise tokens.error("no_consent", "timeout", calling=False)
    if "code" not in found:
        raise tokens.error("no_consent", found.get("error", "no code"), calling=False)
    doc = tokens.request("authorization_code", code=found["code"], redirect_uri=redirect_uri, code_verifier=verifier)
    refresh = doc.get("refresh_token")
    if not isinstance(refresh, str) or not refresh:
        raise tokens.error("no_refresh_token", calling=False)
    scope = str(doc.get("scope") or auth.scope or "")
    grants.put(source.name, refresh, scope)
    return Authorized(source.name, scope)


__all__ = ["Authorized", "TokenError", "authorize"]
