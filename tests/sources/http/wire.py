"""A local web API for the tests: SwitchBot v1.1's wire format, checked strictly (headers, signature, body
types), plus a bearer route (Home Assistant's shape), a fixed-header route and a slow one.

Also, on 127.0.0.1: `proxying`, a forwarding HTTP proxy that records what it forwards, and `scripted`, a server
that answers, stalls or drops the connection request by request (what a client must survive)."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from concierge.sources.http.switchbot import sign

TOKEN, SECRET, BEARER, API_KEY = "tok-1234567890", "sec-abcdefghij", "ha-long-lived-token", "key-0987654321"
LIGHTS = {"B01": "リビング", "B02": "寝室"}
OFFLINE = "B02"


@dataclass
class Service:
    base_url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    listings: int = 0
    devices: dict[str, str] = field(default_factory=lambda: dict(LIGHTS))
    power: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    service: Service

    def log_message(self, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no 40 ms delayed-ACK stalls

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _send(self, status: int, doc: Any) -> None:
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError):  # the client gave up waiting (the timeout test)
            self.wfile.write(data)

    def _serve(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        seen = {"method": self.command, "path": self.path, "headers": dict(self.headers.items()),
                "body": json.loads(raw) if raw else None}
        self.service.requests.append(seen)
        if self.service.delay:
            time.sleep(self.service.delay)
        if self.path.startswith("/api/"):
            return self._home_assistant()
        if self.path.startswith("/keyed"):
            ok = self.headers.get("X-API-Key") == API_KEY
            return self._send(200 if ok else 403, {"items": [{"n": 1}]} if ok else {"message": "no"})
        if not self._signed():
            return self._send(401, {"message": "Unauthorized"})
        self._switchbot(seen["body"])

    def _signed(self) -> bool:
        names = [k for k in self.headers]  # as sent on the wire
        needed = {"authorization", "t", "nonce", "sign", "content-type"}
        if not needed <= set(names):
            return False
        t, nonce = self.headers["t"], self.headers["nonce"]
        return (self.headers["authorization"] == TOKEN and t.isdigit() and len(t) == 13
                and abs(int(t) / 1000 - time.time()) < 300 and len(nonce) == 36
                and self.headers["content-type"] == "application/json; charset=utf8"
                and self.headers["sign"] == sign(TOKEN, SECRET, t, nonce))

    def _switchbot(self, body: Any) -> None:
        parts = self.path.split("?")[0].strip("/").split("/")
        if parts == ["v1.1", "devices"]:
            self.service.listings += 1
            lights = [{"deviceId": i, "deviceName": n, "deviceType": "Color Bulb"}
                      for i, n in self.service.devices.items()]
            tv = [{"deviceId": "IR1", "deviceName": "テレビ", "remoteType": "TV"}]
            return self._send(200, {"statusCode": 100, "message": "success",
                                    "body": {"deviceList": lights, "infraredRemoteList": tv}})
        device = parts[2] if len(parts) == 4 else ""
        if device not in self.service.devices:
            return self._send(200, {"statusCode": 152, "message": "device not found", "body": {}})
        if parts[3] == "status":
            return self._send(200, {"statusCode": 100, "body": {"deviceId": device,
                                                                 "power": self.service.power.get(device, "off"),
                                                                 "brightness": 80}})
        if device == OFFLINE:
            return self._send(200, {"statusCode": 161, "message": "device offline", "body": {}})
        if not (isinstance(body, dict) and set(body) == {"command", "parameter", "commandType"}
                and body["commandType"] == "command"):
            return self._send(200, {"statusCode": 190, "message": "bad format", "body": {}})
        command, parameter = body["command"], body["parameter"]
        if command in ("turnOn", "turnOff") and parameter == "default":
            self.service.power[device] = "on" if command == "turnOn" else "off"
        elif command == "setBrightness" and isinstance(parameter, int) and 1 <= parameter <= 100:
            pass
        else:
            return self._send(200, {"statusCode": 160, "message": "command not supported", "body": {}})
        self._send(200, {"statusCode": 100, "message": "success", "body": {}})

    def _home_assistant(self) -> None:
        if self.headers.get("Authorization") != f"Bearer {BEARER}":
            return self._send(401, {"message": "401: Unauthorized"})
        if self.path == "/api/states":
            return self._send(200, [{"entity_id": "light.living", "state": "on",
                                     "attributes": {"friendly_name": "Living"}}])
        return self._send(404, {"message": "Entity not found."})


@contextmanager
def _threaded(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """`handler` served on 127.0.0.1 in a thread; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def serving() -> Iterator[Service]:
    service = Service("")
    with _threaded(type("Bound", (Handler,), {"service": service})) as base_url:
        service.base_url = base_url
        yield service


# --- a forwarding proxy ------------------------------------------------------------------------------
_HOP_BY_HOP = {"connection", "proxy-connection", "keep-alive", "proxy-authorization", "te", "trailer",
               "transfer-encoding", "upgrade"}


@dataclass
class Proxy:
    url: str
    seen: list[str] = field(default_factory=list)  # the request lines it forwarded: "GET http://host:port/path"


class ProxyHandler(BaseHTTPRequestHandler):
    """A plain HTTP forward proxy: the request line holds the absolute URL; the answer is sent back as is."""

    protocol_version = "HTTP/1.1"
    proxy: Proxy

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._forward()

    def do_POST(self) -> None:
        self._forward()

    def _forward(self) -> None:
        self.proxy.seen.append(f"{self.command} {self.path}")
        target = urlsplit(self.path)
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
        upstream = http.client.HTTPConnection(target.hostname or "", target.port or 80, timeout=10)
        try:
            upstream.request(self.command, target.path + (f"?{target.query}" if target.query else ""), body=body,
                             headers=headers)
            answer = upstream.getresponse()
            data = answer.read()
        finally:
            upstream.close()
        self.send_response(answer.status)
        for name, value in answer.getheaders():
            if name.lower() not in _HOP_BY_HOP | {"content-length", "server", "date"}:
                self.send_header(name, value)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextmanager
def proxying() -> Iterator[Proxy]:
    proxy = Proxy("")
    with _threaded(type("BoundProxy", (ProxyHandler,), {"proxy": proxy})) as url:
        proxy.url = url
        yield proxy


# --- a server that answers, stalls or drops, request by request ------------------------------------------
@dataclass
class Script:
    """What the server does with its n-th request (the last step repeats): "answer" (200, kept alive),
    "slow" (answers after `delay` s) or "drop" (closes the connection without an answer)."""

    steps: list[str]
    delay: float = 0.0
    base_url: str = ""
    seen: list[str] = field(default_factory=list)  # "METHOD /path" of each request read whole
    connections: int = 0


class ScriptedHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    script: Script

    def log_message(self, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        self.script.connections += 1

    def do_GET(self) -> None:
        self._step()

    def do_POST(self) -> None:
        self._step()

    def _step(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        script = self.script
        step = script.steps[min(len(script.seen), len(script.steps) - 1)]
        script.seen.append(f"{self.command} {self.path}")
        if step == "drop":
            self.close_connection = True
            return
        if step == "slow":
            time.sleep(script.delay)
        data = b'{"ok": true}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        with contextlib.suppress(OSError):  # the client gave up waiting
            self.wfile.write(data)


@contextmanager
def scripted(*steps: str, delay: float = 0.0) -> Iterator[Script]:
    script = Script(list(steps), delay)
    with _threaded(type("BoundScript", (ScriptedHandler,), {"script": script})) as base_url:
        script.base_url = base_url
        yield script
