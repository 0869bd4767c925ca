"""Access tokens of `kind: oauth2_client_credentials` and `kind: oauth2_authorization_code` sources (RFC 6749,
RFC 7636), with Authlib's protocol pieces over httpx2.

A token is asked for at the first request and kept in memory until shortly before it expires (`expires_in`);
then, or when the service answers 401, the next request gets a new one. Client credentials ask with the client's
id and secret (HTTP Basic or form fields, `client_auth`); an authorization code source asks with the refresh token
`concierge services authorize SOURCE` stored (`concierge.storage.source_grants`), and keeps the new refresh token
when the service rotates it. A refusal of the token endpoint becomes a `ServiceError` that says what to do; no
message holds a secret, a token or what the token endpoint said beyond its error code.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from authlib.oauth2.auth import ClientAuth
from authlib.oauth2.rfc6749.parameters import prepare_token_request

from concierge.catalog.secrets import ResolvedSource
from concierge.errors import ConciergeError

if TYPE_CHECKING:
    from concierge.storage.source_grants import GrantStore

EARLY_S = 30.0  # a token is renewed this long before it expires (or at a tenth of its life, if that is shorter)


class TokenError(ConciergeError):
    """No access token: `message_ja` is for a person reading Japanese. Nothing was sent to the API."""

    def __init__(self, message: str, message_ja: str):
        super().__init__(message)
        self.message_ja = message_ja


class Tokens:
    """The access token of one source. Thread-safe."""

    def __init__(self, source: ResolvedSource, grants: GrantStore | None = None,
                 clock: Callable[[], float] = time.monotonic):
        assert source.auth is not None and source.auth.oauth2
        self.source, self.auth, self.grants, self.clock = source, source.auth, grants, clock
        self._token: str | None = None
        self._until = 0.0
        self._lock = threading.Lock()

    def current(self) -> str:
        """A token that has not expired: the one kept, else a new one."""
        with self._lock:
            if self._token is None or self.clock() >= self._until:
                self._token = None
                self._token, self._until = self._fetch()
            return self._token

    def rejected(self, token: str) -> None:
        """The service refused `token` (401): the next `current()` asks for a new one."""
        with self._lock:
            if self._token == token:
                self._token = None

    def _fetch(self) -> tuple[str, float]:
        if self.auth.kind == "oauth2_client_credentials":
            doc = self.request("client_credentials", scope=self.auth.scope or None)
        else:
            grant = self.grants.get(self.source.name) if self.grants is not None else None
            if grant is None:
                raise self.error("not_authorized")
            doc = self.request("refresh_token", refresh_token=grant.refresh_token, scope=None)
            if doc.get("refresh_token") and doc["refresh_token"] != grant.refresh_token:
                assert self.grants is not None
                self.grants.put(self.source.name, doc["refresh_token"], doc.get("scope") or grant.scope, renewed=True)
        token = doc.get("access_token")
        if not isinstance(token, str) or not token or str(doc.get("token_type", "bearer")).lower() != "bearer":
            raise self.error("bad_answer")
        return token, self.clock() + _lifetime(doc.get("expires_in"))

    def request(self, grant_type: str, **params: Any) -> dict[str, Any]:
        """POST a token request (form-encoded) and return the token endpoint's JSON answer; `TokenError` else."""
        import httpx2

        auth = self.auth
        secret = auth.client_secret or None
        method = "none" if secret is None else ("client_secret_post" if auth.client_auth == "post" else
                                                "client_secret_basic")
        fields = {k: v for k, v in params.items() if v is not None}
        if method == "none":
            fields["client_id"] = auth.client_id
        body = prepare_token_request(grant_type, **fields)
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
        url, headers, body = ClientAuth(auth.client_id, secret, method).prepare("POST", auth.token_url, headers, body)
        try:
            with httpx2.Client(timeout=self.source.timeout, follow_redirects=False, trust_env=True) as http:
                response = http.post(url, content=body, headers=headers)
        except httpx2.HTTPError:
            raise self.error("unreachable") from None
        try:
            doc = json.loads(response.content)
        except ValueError:
            doc = None
        if not isinstance(doc, dict):
            raise self.error("bad_answer")
        if response.status_code != 200 or "error" in doc:
            raise self._refusal(str(doc.get("error") or f"HTTP {response.status_code}"))
        return doc

    def _refusal(self, code: str) -> TokenError:
        if code in ("invalid_client", "unauthorized_client"):
            return self.error("invalid_client", code)
        if code == "invalid_grant" and self.auth.kind == "oauth2_authorization_code":
            return self.error("revoked", code)
        if code == "invalid_scope":
            return self.error("invalid_scope", code)
        return self.error("refused", code)

    def error(self, kind: str, code: str = "", *, calling: bool = True) -> TokenError:
        """`calling`: while calling the API (its request was not sent, and the message says so)."""
        parts = urlsplit(self.auth.token_url)
        where = f"{parts.scheme}://{parts.hostname}{f':{parts.port}' if parts.port else ''}"
        code = "".join(c for c in code if c.isalnum() or c in "_ -.")[:60]
        en, ja = _WORDS[kind]
        words = {"name": self.source.name, "where": where, "code": code}
        en, ja = en.format(**words), ja.format(**words)
        if calling:
            en, ja = en + " Nothing was sent.", ja + "何も送っていません。"
        return TokenError(self.source.redact(en), self.source.redact(ja))


def _lifetime(expires_in: object) -> float:
    """How long a token is used: until shortly before `expires_in` (an hour when the answer does not say)."""
    try:
        seconds = float(expires_in)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        seconds = 3600.0
    return max(0.0, seconds - min(EARLY_S, seconds / 10))


_AUTHORIZE = "run `concierge services authorize {name}`"
_WORDS = {
    "no_consent": ("{name} did not give concierge access ({code}).",
                   "{name} からアクセス許可を得られませんでした（{code}）。"),
    "no_refresh_token": ("The token endpoint of {name} ({where}) gave no refresh token, so concierge could not keep "
                         "its access. Ask for offline access in scope (often offline_access), and try again.",
                         "{name} のトークン発行先（{where}）がリフレッシュトークンを発行しなかったため、アクセスを"
                         "保てません。scope でオフラインアクセス（多くは offline_access）を求めて、"
                         "もう一度試してください。"),
    "not_authorized": (f"concierge has not been given access to {{name}} yet: {_AUTHORIZE} once.",
                       f"{{name}} へのアクセスがまだ許可されていません。一度 {_AUTHORIZE.replace('run ', '')} "
                       "を実行してください。"),
    "revoked": (f"The access concierge was given to {{name}} has been revoked or has expired ({{code}}): "
                f"{_AUTHORIZE} again.",
                f"{{name}} へのアクセス許可が取り消されたか期限切れです（{{code}}）。もう一度 "
                f"{_AUTHORIZE.replace('run ', '')} を実行してください。"),
    "invalid_client": ("The token endpoint of {name} ({where}) refused concierge's client credentials ({code}). "
                       "Check client_id and client_secret in the source's auth.",
                       "{name} のトークン発行先（{where}）がクライアント認証を拒否しました（{code}）。"
                       "auth の client_id と client_secret を確かめてください。"),
    "invalid_scope": ("The token endpoint of {name} ({where}) refused the scope asked for ({code}). "
                      "Check scope in the source's auth.",
                      "{name} のトークン発行先（{where}）が要求したスコープを拒否しました（{code}）。"
                      "auth の scope を確かめてください。"),
    "refused": ("The token endpoint of {name} ({where}) gave no access token ({code}). Check the source's auth.",
                "{name} のトークン発行先（{where}）がアクセストークンを発行しませんでした（{code}）。"
                "auth の設定を確かめてください。"),
    "unreachable": ("Could not reach the token endpoint of {name} at {where}. Check token_url and the network.",
                    "{name} のトークン発行先（{where}）に接続できませんでした。token_url とネットワークを"
                    "確かめてください。"),
    "bad_answer": ("The token endpoint of {name} at {where} answered with no usable bearer token. Check token_url.",
                   "{name} のトークン発行先（{where}）の応答に使えるトークンがありませんでした。token_url を"
                   "確かめてください。"),
}
