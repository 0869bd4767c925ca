"""Sending one request to a source, over kept-alive connections (httpx2); every failure a `ServiceError`.

One `httpx2.Client` per source: a pool of kept-alive connections, the source's `timeout` for connecting,
writing and reading, and the environment's HTTP_PROXY / HTTPS_PROXY / ALL_PROXY / NO_PROXY (and SSL_CERT_FILE)
as httpx applies them, read when the source sends its first request. No redirect is followed and no cookie kept.

A failure says, in both languages, what happened and what to check, and whether the request may have
reached the service (`sent`): no connection (refused, unknown host, TLS, the proxy) sent nothing; a timeout
or a dropped connection once the request was going out may have. A read that meets a dropped connection is
sent once more (the service may have closed the kept-alive connection just then); a write never is.
No message holds a header, a credential, the proxy's address or an answer's body.
"""

from __future__ import annotations

import functools
import json
import socket
import ssl
import threading
from dataclasses import dataclass
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from concierge.catalog.secrets import ResolvedSource
from concierge.errors import ConciergeError
from concierge.sources.http.credentials import auth_headers
from concierge.sources.http.oauth2 import TokenError, Tokens
from concierge.sources.http.request import Built

if TYPE_CHECKING:
    import httpx2

    from concierge.storage.source_grants import GrantStore

_IDLE_KEPT = 4  # idle connections kept per source (httpx closes one left idle over 5 s)


class ServiceError(ConciergeError):
    """A web API could not be reached or gave no usable answer. `message_ja` is for a person reading
    Japanese; `sent`: the request may have reached the service (a write may have happened)."""

    def __init__(self, message: str, message_ja: str, *, sent: bool):
        super().__init__(message)
        self.message_ja, self.sent = message_ja, sent


@dataclass(frozen=True)
class Answer:
    status: int
    doc: Any  # the JSON answer; None when the body was empty


class Client:
    """The connections of one source. Thread-safe. httpx2 is imported, and the pool made, at the first request."""

    def __init__(self, source: ResolvedSource, grants: GrantStore | None = None):
        self.source = source
        self.tokens = Tokens(source, grants) if source.auth is not None and source.auth.oauth2 else None
        parts = urlsplit(source.base_url)
        host = f"[{parts.hostname}]" if ":" in (parts.hostname or "") else parts.hostname or ""
        # scheme, host, port and path only: credentials in base_url are never sent as basic auth
        self._base = f"{parts.scheme}://{host}{f':{parts.port}' if parts.port else ''}{parts.path.rstrip('/')}"
        self._pool: httpx2.Client | None = None
        self._via_proxy = False
        self._lock = threading.Lock()

    def send(self, built: Built, *, read: bool = False) -> Answer:
        """Send `built` and read the JSON answer. `read`: the request changes nothing, so one that met a
        dropped connection is sent once more; a write is never sent twice."""

        pool = self._connections()
        token = self._token()
        response = self._exchange(pool, self._request(pool, built, token), again=read)
        if response.status_code == 401 and token is not None and (read or _token_refused(response)):
            # the token expired early or was revoked: a new one, and the request once more. A write only when the
            # service says the token was refused (RFC 6750 invalid_token): then it did not act on the request.
            assert self.tokens is not None
            self.tokens.rejected(token)
            response = self._exchange(pool, self._request(pool, built, self._token()), again=read)
        return Answer(response.status_code, self._json(response.status_code, response.content))

    def _token(self) -> str | None:
        if self.tokens is None:
            return None
        try:
            return self.tokens.current()
        except TokenError as err:
            raise ServiceError(str(err), err.message_ja or str(err), sent=False) from None

    def _request(self, pool: httpx2.Client, built: Built, token: str | None) -> httpx2.Request:
        import httpx2

        headers = self._headers(built)
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        try:
            return pool.build_request(built.method, self._base + built.target, content=built.body, headers=headers)
        except (httpx2.InvalidURL, UnicodeEncodeError):
            raise self._error("unsendable", sent=False) from None

    def close(self) -> None:
        """Close the kept-alive connections; a later request opens new ones."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    # --- the request ------------------------------------------------------------------------------
    def _connections(self) -> httpx2.Client:
        with self._lock:
            if self._pool is None:
                self._pool, self._via_proxy = _pool(self.source.timeout, self._base)
            return self._pool

    def _headers(self, built: Built) -> dict[str, str]:
        auth = None if self.tokens is not None else self.source.auth
        headers = {"accept": "application/json", **self.source.headers, **auth_headers(auth)}
        if built.body is not None and not any(k.lower() == "content-type" for k in headers):
            headers["content-type"] = "application/json"
        return headers

    def _exchange(self, pool: httpx2.Client, request: httpx2.Request, *, again: bool) -> httpx2.Response:
        """The answer to `request`, read whole; `again`: sent once more if the connection drops."""
        import httpx2

        try:
            return pool.send(request)
        except (httpx2.RemoteProtocolError, httpx2.ReadError, httpx2.WriteError):
            if again:  # the service had just closed a kept-alive connection, or failed: a read may ask again
                return self._exchange(pool, request, again=False)
            raise self._error("dropped", sent=True) from None
        except httpx2.HTTPError as err:
            raise self._failure(err) from None

    # --- what went wrong, in words ----------------------------------------------------------------
    def _failure(self, err: httpx2.HTTPError) -> ServiceError:
        import httpx2

        if isinstance(err, (httpx2.ConnectError, httpx2.ConnectTimeout, httpx2.PoolTimeout, httpx2.ProxyError)):
            return self._connect_error(err)  # no connection: not a byte of the request went out
        if isinstance(err, httpx2.TimeoutException):  # reading, or writing: the request may be there
            return self._error("timeout", sent=True)
        if isinstance(err, (httpx2.LocalProtocolError, httpx2.UnsupportedProtocol)):  # refused before sending
            return self._error("unsendable", sent=False)
        if isinstance(err, httpx2.DecodingError):  # a body its content-encoding does not decode
            return self._error("not_json", sent=True)
        return self._error("dropped", sent=True)

    def _connect_error(self, err: Exception) -> ServiceError:
        import httpx2

        cause = _os_error(err)
        if isinstance(cause, ssl.SSLError):
            return self._error("tls", sent=False)
        if self._via_proxy or isinstance(err, httpx2.ProxyError):
            return self._error("proxy", sent=False)
        if isinstance(err, (httpx2.ConnectTimeout, httpx2.PoolTimeout)):
            return self._error("connect_timeout", sent=False)
        if isinstance(cause, socket.gaierror):
            return self._error("unknown_host", sent=False)
        if isinstance(cause, ConnectionRefusedError):
            return self._error("refused", sent=False)
        return self._error("unreachable", sent=False)

    def _json(self, status: int, data: bytes) -> Any:
        if not data.strip():
            return None
        try:
            return json.loads(data)
        except ValueError:
            if 200 <= status < 300:
                raise self._error("not_json", sent=True) from None
            return None  # an error page: the status says what happened

    def _error(self, kind: str, *, sent: bool) -> ServiceError:
        name, where, seconds = self.source.name, self.source.where, f"{self.source.timeout:g}"
        en, ja = _WORDS[kind]
        maybe_en = (" The request may have reached the service: check the device's status before trying again."
                    if sent else " Nothing was sent.")
        maybe_ja = ("依頼はサービスに届いた可能性があります。もう一度試す前に機器の状態を確かめてください。"
                    if sent else "何も送っていません。")
        return ServiceError(
            self.source.redact(en.format(name=name, where=where, seconds=seconds) + maybe_en),
            self.source.redact(ja.format(name=name, where=where, seconds=seconds) + maybe_ja),
            sent=sent,
        )


def _token_refused(response: httpx2.Response) -> bool:
    """The service says the bearer token was refused (`WWW-Authenticate: Bearer error="invalid_token"`)."""
    challenge = response.headers.get("www-authenticate", "")
    return challenge.lower().startswith("bearer") and "invalid_token" in challenge


def _pool(timeout: float, base: str) -> tuple[httpx2.Client, bool]:
    """A source's httpx2 client, and whether the environment sends its requests through a proxy."""
    import httpx2

    pool = httpx2.Client(
        timeout=httpx2.Timeout(timeout),  # connect, write, read (each socket operation) and a pooled connection
        limits=httpx2.Limits(max_connections=None, max_keepalive_connections=_IDLE_KEPT),
        trust_env=True,  # HTTP(S)_PROXY, ALL_PROXY, NO_PROXY
        verify=_tls(),
        follow_redirects=False,
        cookies=CookieJar(DefaultCookiePolicy(allowed_domains=[])),  # a cookie the service sets is never sent back
    )
    transport_for = getattr(pool, "_transport_for_url", None)  # httpx's own choice of proxy mount for a URL
    via_proxy = transport_for is not None and transport_for(httpx2.URL(base)) is not getattr(pool, "_transport", None)
    return pool, via_proxy


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context for every source (building one reads the trust store: 0.2 s); SSL_CERT_FILE applies."""
    import httpx2

    return httpx2.create_ssl_context(trust_env=True)


def _os_error(err: BaseException) -> OSError | None:
    """The socket's error under an httpx error (httpx raises from httpcore, which raises from the OSError)."""
    seen: BaseException | None = err
    while seen is not None and not isinstance(seen, OSError):
        seen = seen.__cause__ or seen.__context__
    return seen


_WORDS = {
    "refused": ("Could not connect to {name} at {where}: the connection was refused. Is the service running, "
                "and is its base_url right?",
                "{name}（{where}）に接続できませんでした（接続を拒否されました）。サービスが動いているか、"
                "base_url が正しいか確かめてください。"),
    "unknown_host": ("Could not connect to {name}: the host of {where} is unknown. Check base_url and the "
                     "network.", "{name} に接続できませんでした（{where} のホストが見つかりません）。"
                     "base_url とネットワークを確かめてください。"),
    "connect_timeout": ("Could not connect to {name} at {where} within {seconds} s. Check the network and "
                        "the service.", "{name}（{where}）に{seconds}秒以内に接続できませんでした。"
                        "ネットワークとサービスの状態を確かめてください。"),
    "tls": ("Could not connect securely to {name} at {where} (TLS failed). Check base_url and the "
            "service's certificate.", "{name}（{where}）と安全に接続できませんでした（TLS の失敗）。"
            "base_url と証明書を確かめてください。"),
    "unreachable": ("Could not connect to {name} at {where}. Check the network and base_url.",
                    "{name}（{where}）に接続できませんでした。ネットワークと base_url を確かめてください。"),
    "proxy": ("Could not connect to {name} at {where} through the proxy the environment sets (HTTP_PROXY, "
              "HTTPS_PROXY or ALL_PROXY). Check the proxy, or list the host in NO_PROXY to connect directly.",
              "{name}（{where}）に、環境変数で設定されたプロキシ（HTTP_PROXY、HTTPS_PROXY、ALL_PROXY）経由で"
              "接続できませんでした。プロキシを確かめるか、直接つなぐホストを NO_PROXY に加えてください。"),
    "unsendable": ("Could not send the request to {name} at {where}: a header or the address holds characters "
                   "HTTP does not allow. Check the source's headers and base_url.",
                   "{name}（{where}）に依頼を送れませんでした（ヘッダーかアドレスに HTTP で使えない文字があります）。"
                   "ソースの headers と base_url を確かめてください。"),
    "timeout": ("{name} at {where} did not answer within {seconds} s.",
                "{name}（{where}）から{seconds}秒以内に応答がありませんでした。"),
    "dropped": ("{name} at {where} closed the connection without an answer.",
                "{name}（{where}）が応答せずに接続を切りました。"),
    "not_json": ("{name} at {where} answered with something that is not JSON. Check base_url.",
                 "{name}（{where}）の応答が JSON ではありませんでした。base_url を確かめてください。"),
}
