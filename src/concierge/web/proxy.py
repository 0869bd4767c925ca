"""Who is really asking, behind a reverse proxy: X-Forwarded-For/-Proto/-Host, believed only from a trusted one.

`web.trusted_proxy` names the proxy's addresses (``127.0.0.1``, ``10.0.0.0/8``, comma-separated; ``*``
any; empty: none). A request whose peer is one of them gets, from the headers that proxy sets:

- the client address (``X-Forwarded-For``, read from the right: the first address that is not itself a
  trusted proxy), which the sign-in throttle counts and the audit records;
- the scheme (``X-Forwarded-Proto``: http or https), so that a sign-in over HTTPS gets a ``Secure`` cookie
  and an origin check compares ``https://...``;
- the host (``X-Forwarded-Host``), which the MCP endpoint's Host check and an origin check see.

From any other peer these headers are removed before the app sees them: a client cannot name its own
address, scheme or host. The middleware wraps the whole app (it is the outermost layer).
"""

from __future__ import annotations

import ipaddress
import re

from starlette.types import ASGIApp, Receive, Scope, Send

_FORWARDED = (b"x-forwarded-for", b"x-forwarded-proto", b"x-forwarded-host")
_HOST = re.compile(r"^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$")
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_trusted(text: str) -> tuple[bool, tuple[Network, ...]]:
    """(any peer trusted, the trusted networks) of a `web.trusted_proxy` value; a bad entry is a ValueError."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if "*" in parts:
        return True, ()
    networks = []
    for part in parts:
        try:
            networks.append(ipaddress.ip_network(part, strict=False))
        except ValueError:
            raise ValueError(f"web.trusted_proxy: {part!r} is not an IP address or network "
                             "(127.0.0.1, 10.0.0.0/8, ::1; * for any)") from None
    return False, tuple(networks)


class TrustedProxy:
    def __init__(self, app: ASGIApp, trusted: str = ""):
        self.app = app
        self.any, self.networks = parse_trusted(trusted)

    def trusts(self, address: str | None) -> bool:
        if self.any or not self.networks:
            return self.any
        try:
            ip = ipaddress.ip_address(address or "")
        except ValueError:
            return False
        return any(ip in n for n in self.networks)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or not any(n in _FORWARDED for n, _ in scope.get("headers", ())):
            await self.app(scope, receive, send)  # nothing to believe or to remove
            return
        client = scope.get("client")
        headers = list(scope.get("headers", []))
        forwarded = {name: [v for n, v in headers if n == name] for name in _FORWARDED}
        kept = [(n, v) for n, v in headers if n not in _FORWARDED]
        scope = dict(scope)
        if self.trusts(client[0] if client else None):
            self._apply(scope, kept, forwarded, client)
        else:
            scope["headers"] = kept
        await self.app(scope, receive, send)

    def _apply(self, scope: dict, kept: list, forwarded: dict[bytes, list[bytes]], client) -> None:
        proto = _last(forwarded[b"x-forwarded-proto"])
        if proto in ("http", "https"):
            scope["scheme"] = proto if scope["type"] == "http" else proto.replace("http", "ws")
        host = _last(forwarded[b"x-forwarded-host"])
        if host and len(host) <= 255 and _HOST.match(host):
            kept = [(n, v) for n, v in kept if n != b"host"] + [(b"host", host.encode("ascii"))]
        address = self._client(forwarded[b"x-forwarded-for"])
        if address:
            scope["client"] = (address, client[1] if client else 0)
        scope["headers"] = kept + [(n, v) for n, values in forwarded.items() for v in values]

    def _client(self, values: list[bytes]) -> str | None:
        """The first address from the right that is not a trusted proxy; None when there is no valid one."""
        hops = [h.strip() for v in values for h in v.decode("latin-1").split(",") if h.strip()]
        found = None
        for hop in reversed(hops):
            try:
                found = str(ipaddress.ip_address(hop.strip("[]")))
            except ValueError:
                break  # a proxy would not write this: believe nothing further left
            if not self.trusts(found):
                break
        return found


def _last(values: list[bytes]) -> str | None:
    """The value the nearest proxy wrote: the last of the last header."""
    if not values:
        return None
    return values[-1].decode("latin-1").split(",")[-1].strip().lower() or None
