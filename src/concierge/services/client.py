"""Sending one request to a source, over kept-alive connections; every failure a `ServiceError`.

A failure says, in both languages, what happened and what to check, and whether the request may have
reached the service (`sent`): a refused connection sent nothing; a timeout after sending may have.
No message holds a header, a credential or an answer's body.
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from concierge.errors import ConciergeError
from concierge.services.auth import auth_headers
from concierge.services.request import Built
from concierge.services.settings import ResolvedSource

_IDLE_KEPT = 4  # idle connections kept per source
_STALE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)


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
    """The connections of one source. Thread-safe: each request takes an idle connection or opens one."""

    def __init__(self, source: ResolvedSource):
        self.source = source
        parts = urlsplit(source.base_url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port or (443 if self._https else 80)
        self._prefix = parts.path.rstrip("/")
        self._idle: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()

    def send(self, built: Built) -> Answer:
        headers = {"accept": "application/json", **self.source.headers, **auth_headers(self.source.auth)}
        if built.body is not None and not any(k.lower() == "content-type" for k in headers):
            headers["content-type"] = "application/json"
        conn, reused = self._take()
        try:
            status, data = self._exchange(conn, built, headers)
        except _STALE:
            conn.close()
            if not reused:
                raise self._error("dropped", sent=True) from None
            conn, reused = self._open(), False  # the service had closed an idle connection: once more
            status, data = self._guarded(conn, built, headers)
        except (OSError, http.client.HTTPException):
            conn.close()
            raise self._error("dropped", sent=True) from None
        self._give(conn)
        return Answer(status, self._json(status, data))

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    # --- connections -----------------------------------------------------------------------------
    def _take(self) -> tuple[http.client.HTTPConnection, bool]:
        with self._lock:
            if self._idle:
                return self._idle.pop(), True
        return self._open(), False

    def _open(self) -> http.client.HTTPConnection:
        timeout = self.source.timeout
        conn: http.client.HTTPConnection
        if self._https:
            conn = http.client.HTTPSConnection(self._host, self._port, timeout=timeout,
                                               context=ssl.create_default_context())
        else:
            conn = http.client.HTTPConnection(self._host, self._port, timeout=timeout)
        try:
            conn.connect()
        except Exception as err:
            conn.close()
            raise self._connect_error(err) from None
        if conn.sock is not None:  # a request goes out at once, never held back for an ACK (Nagle)
            conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return conn

    def _give(self, conn: http.client.HTTPConnection) -> None:
        with self._lock:
            if len(self._idle) < _IDLE_KEPT:
                self._idle.append(conn)
                return
        conn.close()

    def _exchange(self, conn: http.client.HTTPConnection, built: Built, headers: dict[str, str]) -> tuple[int, bytes]:
        try:
            conn.request(built.method, self._prefix + built.target, body=built.body, headers=headers)
            response = conn.getresponse()
            data = response.read()
        except TimeoutError:
            conn.close()
            raise self._error("timeout", sent=True) from None
        if response.getheader("connection", "").lower() == "close":
            conn.close()
        return response.status, data

    def _guarded(self, conn: http.client.HTTPConnection, built: Built, headers: dict[str, str]) -> tuple[int, bytes]:
        try:
            return self._exchange(conn, built, headers)
        except (OSError, http.client.HTTPException):
            conn.close()
            raise self._error("dropped", sent=True) from None

    # --- what went wrong, in words ----------------------------------------------------------------
    def _connect_error(self, err: Exception) -> ServiceError:
        if isinstance(err, TimeoutError):
            return self._error("connect_timeout", sent=False)
        if isinstance(err, socket.gaierror):
            return self._error("unknown_host", sent=False)
        if isinstance(err, ConnectionRefusedError):
            return self._error("refused", sent=False)
        if isinstance(err, ssl.SSLError):
            return self._error("tls", sent=False)
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
    "timeout": ("{name} at {where} did not answer within {seconds} s.",
                "{name}（{where}）から{seconds}秒以内に応答がありませんでした。"),
    "dropped": ("{name} at {where} closed the connection without an answer.",
                "{name}（{where}）が応答せずに接続を切りました。"),
    "not_json": ("{name} at {where} answered with something that is not JSON. Check base_url.",
                 "{name}（{where}）の応答が JSON ではありませんでした。base_url を確かめてください。"),
}
