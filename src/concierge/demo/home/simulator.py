"""A SwitchBot API v1.1 compatible device hub on 127.0.0.1: a SIMULATOR, with no real device behind it.

It lets the home catalog be tried, and tested, without hardware: `concierge devices simulate` serves it
(`serve`), tests start one in a thread (`serve_in_thread`). Every request is checked as the real API checks it
(the token, ``t`` within five minutes, a nonce, the signature; HTTP 401 ``{"message": "Unauthorized"}``
otherwise) and answered in the real wire format; what the calls do to the devices is `concierge.demo.home.devices`.

The state lives in memory, or in a JSON file (``--state``) that is re-read whenever it changes on disk (edit it
to take a device offline) and written after every change, so a person can watch it.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from concierge.demo.home.devices import (
    Home,
    Reply,
    default_home,
    device_list,
    device_status,
    failure,
    home_from_json,
    home_to_json,
    run_command,
)
from concierge.errors import ConfigError
from concierge.sources.http import switchbot
from concierge.sources.http.switchbot import StatusCode

WINDOW_MS = 5 * 60 * 1000
"""How far a request's ``t`` may be from the simulator's clock, either way."""

LABEL = "SwitchBot SIMULATOR (no real devices)"

Report = Callable[[str], None]


@dataclass(frozen=True)
class Credentials:
    """The simulator's token and secret, the pair a SwitchBot app would show its owner."""

    token: str
    secret: str

    @classmethod
    def generate(cls) -> Credentials:
        return cls("SIMULATOR-" + secrets.token_hex(24), secrets.token_hex(16))


def refusal(headers: Mapping[str, str], credentials: Credentials, now_ms: int) -> str | None:
    """Why the real API would answer 401 to a request with these headers, or None when it is signed correctly.
    The reason never contains a header's value."""
    token, t, nonce = headers.get("authorization", ""), headers.get("t", ""), headers.get("nonce", "")
    if not hmac.compare_digest(token.encode(), credentials.token.encode()):
        return "missing or wrong token (authorization header)"
    if not (len(t) == 13 and t.isascii() and t.isdigit()):
        return "t is not a 13-digit time in milliseconds"
    if abs(now_ms - int(t)) > WINDOW_MS:
        return "t is more than 5 minutes from the current time"
    if not nonce:
        return "missing nonce"
    expected = switchbot.sign(credentials.token, credentials.secret, t, nonce)
    if not hmac.compare_digest(headers.get("sign", "").encode(), expected.encode()):
        return "wrong sign (HMAC-SHA256 of token + t + nonce with the secret, base64)"
    return None


@dataclass(frozen=True)
class Call:
    """One request the simulator answered: what a test can check its client sent."""

    method: str
    path: str
    body: Any
    http_status: int
    status_code: int | None


class HomeStore:
    """The simulated home and its credentials, in memory or in a JSON file; safe across threads."""

    def __init__(self, path: Path | None = None, *, offline: tuple[str, ...] = ()):
        self.path = path
        self._lock = threading.Lock()
        self._seen = b""
        self.home, self.credentials = default_home(), Credentials.generate()
        if path is not None and path.exists():
            try:
                self._seen = path.read_bytes()
            except OSError as err:
                raise ConfigError(f"the simulator cannot read its state {path}: {err.strerror}") from None
            self.home, self.credentials = _load(self._seen, path)
        if path is not None and not path.parent.is_dir():
            raise ConfigError(f"the simulator's state {path}: the folder {path.parent} does not exist")
        for name in offline:
            self.set_online(name, False)
        self._save()

    def apply(self, action: Callable[[Home], Reply]) -> Reply:
        """Run one API call on the current home (re-read from the file if it changed); save what changed."""
        with self._lock:
            self._reload()
            reply = action(self.home)
            if reply.change:
                self._save()
            return reply

    def reset(self) -> None:
        """Every device as it starts (the credentials stay)."""
        with self._lock:
            self.home = default_home()
            self._save()

    def snapshot(self) -> dict[str, Any]:
        """The current state, as the state file keeps it."""
        with self._lock:
            self._reload()
            return home_to_json(self.home)

    def set_online(self, name: str, online: bool) -> None:
        """Take a device or hub (by name or id) offline or back online."""
        with self._lock:
            self._reload()
            device = self.home.named(name)
            if device is None:
                raise ConfigError(f"the simulator has no device {name!r}")
            device.online = online
            self._save()

    def _reload(self) -> None:
        if self.path is None:
            return
        try:
            seen = self.path.read_bytes()
        except OSError:
            return  # deleted or unreadable for a moment: keep the state in memory; the next change writes it
        if seen != self._seen:
            try:
                self.home, self.credentials = _load(seen, self.path)
            except ConfigError:
                return  # a half-edited file: keep the last good state until it parses
            self._seen = seen

    def _save(self) -> None:
        if self.path is None:
            return
        data = {"simulator": LABEL, "token": self.credentials.token, "secret": self.credentials.secret,
                **home_to_json(self.home)}
        text = (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
        fd, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.")
        with os.fdopen(fd, "wb") as out:
            out.write(text)
        os.replace(temporary, self.path)
        self._seen = text


def _load(text: bytes, path: Path) -> tuple[Home, Credentials]:
    """The home and credentials a state file's text holds (`path` names it in the error)."""
    try:
        data = json.loads(text)
        home = home_from_json(data)
    except ValueError as err:
        raise ConfigError(f"the simulator state {path} is unusable: {err}") from None
    token, secret = data.get("token"), data.get("secret")
    if isinstance(token, str) and isinstance(secret, str) and token and secret:
        return home, Credentials(token, secret)
    return home, Credentials.generate()


def create_app(store: HomeStore, *, report: Report | None = None, calls: list[Call] | None = None) -> Any:
    """The simulator's ASGI app. `report` gets one line per change or refusal; `calls` collects each request."""
    try:
        from starlette.applications import Starlette
        from starlette.responses import JSONResponse
        from starlette.routing import Route
    except ImportError as err:
        raise ConfigError(f"the simulator needs {err.name}: pip install 'concierge[web]'") from None

    api = _Endpoints(store, report or (lambda _line: None), calls, JSONResponse)

    async def not_found(_request: Any, _exc: Exception) -> Any:
        return JSONResponse({"message": "Not Found"}, status_code=404)

    routes = [Route("/v1.1/devices", api.devices, methods=["GET"]),
              Route("/v1.1/devices/{device_id}/status", api.status, methods=["GET"]),
              Route("/v1.1/devices/{device_id}/commands", api.command, methods=["POST"])]
    return Starlette(routes=routes, exception_handlers={404: not_found})


_NOT_JSON = object()


@dataclass
class _Endpoints:
    """The three API routes over one store; every answer goes through `answer` (the signature check first)."""

    store: HomeStore
    report: Report
    calls: list[Call] | None
    response: Any  # starlette's JSONResponse, imported only when the app is made

    async def devices(self, request: Any) -> Any:
        return self.answer(request, device_list)

    async def status(self, request: Any) -> Any:
        device_id = request.path_params["device_id"]
        return self.answer(request, lambda home: device_status(home, device_id))

    async def command(self, request: Any) -> Any:
        device_id = request.path_params["device_id"]
        body = await _json_body(request)
        if body is _NOT_JSON:
            return self.answer(request, lambda _home: failure(StatusCode.BAD_FORMAT, "body is not JSON"))
        return self.answer(request, lambda home: run_command(home, device_id, body), body)

    def answer(self, request: Any, action: Callable[[Home], Reply], body: Any = None) -> Any:
        where = f"{request.method} {request.url.path}"
        why = refusal(request.headers, self.store.credentials, int(time.time() * 1000))
        if why is not None:
            self.report(f"401 {where}: {why}")
            self._record(request, body, 401, None)
            return self.response({"message": switchbot.UNAUTHORIZED_MESSAGE}, status_code=401)
        reply = self.store.apply(action)
        if reply.change:
            self.report(reply.change)
        elif reply.code != StatusCode.SUCCESS:
            self.report(f"{int(reply.code)} {where}: {reply.message}")
        self._record(request, body, 200, int(reply.code))
        return self.response(reply.to_json())

    def _record(self, request: Any, body: Any, http_status: int, code: int | None) -> None:
        if self.calls is not None:
            self.calls.append(Call(request.method, request.url.path, None if body is _NOT_JSON else body,
                                   http_status, code))


async def _json_body(request: Any) -> Any:
    """The request's JSON body, or _NOT_JSON when it is not sent as (or is not) JSON."""
    if not request.headers.get("content-type", "").startswith("application/json"):
        return _NOT_JSON
    try:
        return json.loads(await request.body())
    except ValueError:
        return _NOT_JSON


@dataclass
class Simulator:
    """A running simulator: where it listens, the credentials it accepts, and its state."""

    base_url: str
    store: HomeStore
    calls: list[Call] = field(default_factory=list)
    _stop: Callable[[], None] = lambda: None

    @property
    def token(self) -> str:
        return self.store.credentials.token

    @property
    def secret(self) -> str:
        return self.store.credentials.secret

    def environment(self) -> dict[str, str]:
        """The variables that point concierge's home catalog at this simulator."""
        return {"SWITCHBOT_BASE_URL": self.base_url, "SWITCHBOT_TOKEN": self.token,
                "SWITCHBOT_SECRET": self.secret}

    def state(self) -> dict[str, Any]:
        """Every device's current state (hubs, bulbs, remotes), as the state file keeps it."""
        return self.store.snapshot()

    def device(self, name: str) -> dict[str, Any]:
        """One device's current state, by name or id."""
        for entries in self.state().values():
            for entry in entries:
                if name in (entry["name"], entry["device_id"]):
                    return dict(entry)
        raise KeyError(name)

    def set_online(self, name: str, online: bool) -> None:
        """Take a device or hub offline (its calls answer 161, or 171 for a hub's remotes) or back online."""
        self.store.set_online(name, online)

    def close(self) -> None:
        self._stop()

    def __enter__(self) -> Simulator:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def serve_in_thread(port: int = 0, state: Path | str | None = None, *, host: str = "127.0.0.1",
                    offline: tuple[str, ...] = ()) -> Simulator:
    """Start a simulator in a background thread (port 0: a free one) and return it once it answers.
    `state`: a JSON file to keep the state in (created if missing), else memory. Call `.close()` to stop."""
    store = HomeStore(None if state is None else Path(state), offline=offline)
    calls: list[Call] = []
    server, sock, base_url = _server(create_app(store, calls=calls), host, port)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True,
                              name="switchbot-simulator")
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise ConfigError("the SwitchBot simulator did not start")
        time.sleep(0.01)

    def stop() -> None:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()

    return Simulator(base_url, store, calls, stop)


@contextmanager
def running(port: int = 0, state: Path | str | None = None, **options: Any) -> Iterator[Simulator]:
    """`serve_in_thread` as a context manager: the simulator stops when the block ends."""
    simulator = serve_in_thread(port, state, **options)
    try:
        yield simulator
    finally:
        simulator.close()


def serve(host: str, port: int, state: Path | None, *, offline: tuple[str, ...] = (), report: Report,
          ready: Callable[[Simulator], None]) -> None:
    """Serve a simulator in this thread until interrupted; `ready` is called once it listens."""
    store = HomeStore(state, offline=offline)
    server, sock, base_url = _server(create_app(store, report=report), host, port)
    ready(Simulator(base_url, store))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()


def _server(app: Any, host: str, port: int) -> tuple[Any, socket.socket, str]:
    """A uvicorn server for `app` and the socket it will listen on (bound now, so port 0 is known)."""
    try:
        import uvicorn
    except ImportError as err:
        raise ConfigError(f"the simulator needs {err.name}: pip install 'concierge[web]'") from None
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)  # so a client told "listening" at once is queued, not refused, until uvicorn accepts
    except OSError as err:
        sock.close()
        raise ConfigError(f"the simulator cannot listen on {host}:{port}: {err.strerror}") from None
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    shown = f"[{host}]" if ":" in host else host
    return uvicorn.Server(config), sock, f"http://{shown}:{sock.getsockname()[1]}"
