"""A local server speaking Home Assistant's REST API (developers.home-assistant.io, docs/api/rest.md), strict
about what a client sends: the bearer token, JSON bodies of exactly the service's fields, known entity ids.

It keeps two things apart, as Home Assistant does: `devices` (what the lights really do) and the state
records. `POST /api/services/light/turn_on|turn_off` reaches the device and updates the record;
`POST /api/states/<entity_id>` only rewrites the record, and the device does not change.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOKEN = "hass-long-lived-token-0123456789"


def _states() -> dict[str, dict[str, Any]]:
    return {
        "light.living_room": {"entity_id": "light.living_room", "state": "on",
                              "attributes": {"friendly_name": "Living Room", "supported_color_modes": ["brightness"],
                                             "brightness": 200}},
        "light.bedroom": {"entity_id": "light.bedroom", "state": "off",
                          "attributes": {"friendly_name": "Bedroom", "supported_color_modes": ["color_temp"]}},
        "switch.coffee": {"entity_id": "switch.coffee", "state": "off", "attributes": {"friendly_name": "Coffee"}},
        "sun.sun": {"entity_id": "sun.sun", "state": "above_horizon", "attributes": {"friendly_name": "Sun"}},
    }


@dataclass
class HomeAssistant:
    base_url: str
    states: dict[str, dict[str, Any]] = field(default_factory=_states)
    devices: dict[str, str] = field(default_factory=dict)  # entity id -> what the light really is
    requests: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.devices = {k: v["state"] for k, v in self.states.items() if k.startswith("light.")}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    hass: HomeAssistant

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _send(self, status: int, doc: Any, *, text: bool = False) -> None:
        data = doc.encode() if text else json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("content-type", "text/plain; charset=utf-8" if text else "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _serve(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        self.hass.requests.append({"method": self.command, "path": self.path, "headers": dict(self.headers.items()),
                                   "body": raw})
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            return self._send(401, "401: Unauthorized", text=True)  # as Home Assistant answers
        if self.command == "GET":
            return self._get()
        if not self.headers.get("content-type", "").startswith("application/json"):
            return self._send(400, {"message": "Data should be valid JSON."})
        try:
            body = json.loads(raw)
        except ValueError:
            return self._send(400, {"message": "Data should be valid JSON."})
        if self.path.startswith("/api/services/light/"):
            return self._light(self.path.rsplit("/", 1)[1], body)
        if self.path.startswith("/api/states/"):
            return self._record(self.path.removeprefix("/api/states/"), body)
        return self._send(404, {"message": "Not Found"})

    def _get(self) -> None:
        if self.path == "/api/states":
            return self._send(200, list(self.hass.states.values()))
        entity = self.path.removeprefix("/api/states/")
        if self.path.startswith("/api/states/") and entity in self.hass.states:
            return self._send(200, self.hass.states[entity])
        return self._send(404, {"message": "Entity not found."})

    def _light(self, service: str, body: Any) -> None:
        if service not in ("turn_on", "turn_off"):
            return self._send(400, {"message": f"Service light.{service} not found."})
        if not isinstance(body, dict) or set(body) != {"entity_id"} or body["entity_id"] not in self.hass.devices:
            return self._send(400, {"message": "Invalid entity_id"})
        entity = body["entity_id"]
        self.hass.devices[entity] = "on" if service == "turn_on" else "off"
        self.hass.states[entity] = {**self.hass.states[entity], "state": self.hass.devices[entity]}
        return self._send(200, [self.hass.states[entity]])  # the states that changed

    def _record(self, entity: str, body: Any) -> None:
        if not isinstance(body, dict) or not isinstance(body.get("state"), str):
            return self._send(400, {"message": "No state specified."})
        self.hass.states[entity] = {"entity_id": entity, "state": body["state"],
                                    "attributes": body.get("attributes", {})}
        return self._send(200, self.hass.states[entity])  # the device itself is not touched


@contextmanager
def serving() -> Iterator[HomeAssistant]:
    """A Home Assistant-like server on 127.0.0.1, on a free port, for the length of the block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    hass = HomeAssistant(f"http://127.0.0.1:{server.server_address[1]}")
    server.RequestHandlerClass = type("Handler", (_Handler,), {"hass": hass})
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield hass
    finally:
        server.shutdown()
        server.server_close()
