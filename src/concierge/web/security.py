"""The web app's edge: bounded bodies, same-origin writes, security headers, answers that echo nothing.

Each defence is a plain ASGI middleware (none buffers a response, so event streams stream):

- `BodyLimit`: a request body over `max_bytes` gets 413 before the app sees it. A declared
  ``Content-Length`` over the limit is refused without reading a byte; a body without one is
  read only up to the limit.
- `SameOrigin`: a state-changing request (anything but GET, HEAD, OPTIONS) that a browser says
  comes from another site, or from another origin of this host (another port: SameSite does
  not tell ports apart), gets 403. Browsers say so with ``Sec-Fetch-Site`` and ``Origin``;
  a request with neither is not a browser's and carries no victim's cookie. Behind a proxy the
  Host compared is the one it forwards (nginx ``Host $http_host``) or a trusted proxy's
  ``X-Forwarded-Host`` (`concierge.web.proxy` rewrites it before this runs).
- `SecurityHeaders`: ``nosniff`` on every response; the page's policy (CSP with
  ``frame-ancestors 'none'``, no referrer) on every HTML response, wherever it is served from. A page whose
  own policy lets some origins frame it (the embedded chat's, the configured host origins:
  `concierge.web.embed`) keeps it and gets no ``X-Frame-Options``, which cannot name those origins.
- `validation_failed`: a 422 that says which field is wrong and why, never what was sent.
- `database_unavailable`: the state or business database down is 503 with a JSON message,
  not a bare 500; the next request after it is back works, as before.

Every refusal of the edge (403, 413, 422) is audited: who the cookie claims, from where, what. It comes
before any session is checked, so its lines are bounded per client address and refusal
(`concierge.pipeline.audit.stranger`): a flood is its first lines and one summary line that counts the rest.

The MCP endpoint has its own body limit and origin check (`concierge.mcp.http`), so `BodyLimit`
and `SameOrigin` leave its path alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from concierge import threads
from concierge.pipeline import audit

MAX_API_BODY_BYTES = 64 * 1024  # a chat question is at most 4,000 characters
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
RETRY_AFTER_S = 5
# The page loads only from this server: no CDN, no font service, no beacon; no one may frame it.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
        "form-action 'self'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
TOO_LARGE = f"the request body is over {MAX_API_BODY_BYTES // 1024} KiB; send a shorter one"
CROSS_SITE = "refused: a change must be sent from this server's own page, not from another site or port"
DATABASE_DOWN = "the database is unavailable right now; try again in a moment"


def _skipped(scope: Scope, skip: Iterable[str]) -> bool:
    return scope["type"] != "http" or scope["path"] in skip


REFUSAL_CODES = {403: "cross_site", 413: "too_large", 422: "invalid_request"}
EDGE_KIND = "web-edge"  # the audit's name for the refusals of the edge, counted together per address


async def _refuse(status: int, detail: str, scope: Scope, receive: Receive, send: Send) -> None:
    await audit_refusal(Request(scope), status, detail)
    await JSONResponse({"detail": detail}, status_code=status)(scope, receive, send)


async def audit_refusal(request: Request, status: int, detail: str) -> None:
    """Every request the edge refuses is audited: who the cookie claims, from where, what. It is refused before
    any session is checked, so its lines are bounded per client address and refusal (`audit.stranger`)."""
    web = getattr(getattr(request.scope.get("app"), "state", None), "web", None)
    if web is None:  # not mounted in the concierge app (a bare middleware under test)
        return
    from concierge.web.auth import claimed_user, source

    await threads.run(lambda: audit.stranger(
        web.pipeline.state, kind=EDGE_KIND, user=claimed_user(request), tool=f"{request.method} {request.url.path}",
        decision=f"refused:{REFUSAL_CODES.get(status, str(status))}", message=detail, source=source(request)))


class BodyLimit:
    """413 for a request body over `max_bytes` (paths in `skip` excepted); see the module docstring."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_API_BODY_BYTES, skip: Iterable[str] = ()):
        self.app, self.max_bytes, self.skip = app, max_bytes, tuple(skip)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if _skipped(scope, self.skip):
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            await _refuse(413, TOO_LARGE, scope, receive, send)
            return
        messages: list[Message] = []
        size = 0
        while True:  # at most max_bytes are held: the body is read before the app, then replayed
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            if size > self.max_bytes:
                await _refuse(413, TOO_LARGE, scope, receive, send)
                return
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)


class SameOrigin:
    """403 for a state-changing request a browser sent from another origin; see the module docstring."""

    def __init__(self, app: ASGIApp, skip: Iterable[str] = ()):
        self.app, self.skip = app, tuple(skip)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if _skipped(scope, self.skip) or scope["method"] in SAFE_METHODS or same_origin(Headers(scope=scope)):
            await self.app(scope, receive, send)
            return
        await _refuse(403, CROSS_SITE, scope, receive, send)


def same_origin(headers: Headers) -> bool:
    """False when the browser's own headers say the request comes from another origin than its Host."""
    site = headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = headers.get("origin")
    if origin is None:  # no Origin: a same-origin navigation of an old browser, or no browser at all
        return True
    return _authority(origin) == _host_authority(headers.get("host", ""), urlsplit(origin).scheme)


_DEFAULT_PORTS = {"http": "80", "https": "443"}


def _authority(origin: str) -> str | None:
    """``host:port`` of an Origin, the default port made explicit; None for ``null`` or junk."""
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{host}:{port or _DEFAULT_PORTS[parts.scheme]}".lower()


def _host_authority(host: str, scheme: str) -> str:
    host = host.strip().lower()
    if host.rsplit(":", 1)[-1].isdigit() and not host.endswith("]"):
        return host
    return f"{host}:{_DEFAULT_PORTS.get(scheme, '80')}"


class SecurityHeaders:
    """``nosniff`` on every response, the page's policy on every HTML one (headers already set win)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                html = headers.get("content-type", "").startswith("text/html")
                policy = headers.get("content-security-policy", "")
                framed = "frame-ancestors" in policy and "frame-ancestors 'none'" not in policy
                for name, value in (PAGE_HEADERS.items() if html else [("X-Content-Type-Options", "nosniff")]):
                    if not (framed and name == "X-Frame-Options"):
                        headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, with_headers)


async def validation_failed(request: Request, exc: Exception) -> JSONResponse:
    """422 naming each bad field and what is wrong with it; the value sent is never in the answer."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    problems = [{"loc": [_short(part) for part in error.get("loc", ())], "msg": error.get("msg", ""),
                 "type": error.get("type", "")} for error in errors[:20]]
    await audit_refusal(request, 422, "; ".join(f"{'.'.join(map(str, p['loc']))}: {p['msg']}" for p in problems))
    return JSONResponse({"detail": problems}, status_code=422)


def _short(part: object) -> object:
    """A location part as sent (a key of the body may be the client's): cut to a readable length."""
    return part if isinstance(part, int) or len(str(part)) <= 64 else str(part)[:61] + "..."


async def database_unavailable(_request: Request, _exc: Exception) -> JSONResponse:
    return JSONResponse({"detail": DATABASE_DOWN}, status_code=503, headers={"Retry-After": str(RETRY_AFTER_S)})

