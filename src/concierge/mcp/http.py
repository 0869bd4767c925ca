"""MCP over streamable HTTP: one long-lived server, many users, one connection pool.

Every request must carry ``Authorization: Bearer <token>`` (see
`concierge.storage.tokens`); the token's user is the user of every call in it, so
row scope and write permission follow the token. A request without a valid
token gets 401 before the MCP layer reads it. Only on a loopback address may
the server run without tokens, with every call acting as one named user.

DNS-rebinding protection stays on: the Host header (and Origin, when sent)
must name this machine's loopback address or a host named with
``allowed_hosts``, otherwise 421 (403 for Origin).

To serve inside another ASGI app (the web app mounts it at /mcp), add
``Route(path, mcp_http.endpoint)`` to its routes and enter
``mcp_http.lifespan()`` in its lifespan; `McpHttp.app` is the standalone app.

No client can use up what the others need. A client of the stateless protocol
(2026-07-28, `server/discover`) holds nothing between requests. An older client
(``initialize``) gets a session, but each user holds at most `SESSIONS_PER_USER`
of them: opening one more ends that user's longest-idle session (its id then
answers 404, and the client opens a new one); a session idle for
`SESSION_IDLE_S` ends on its own; `MAX_SESSIONS` bounds them all. So a token
looping over ``initialize`` holds a few sessions of its own and nothing of anyone else's.

A database that is down is a 503 with a JSON-RPC error (-32603), not a bare 500.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
import uvicorn
from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import AuthorizationContext, RequireAuthMiddleware
from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from concierge.errors import ConfigError, DatabaseError
from concierge.mcp.bearer import TokenBackend
from concierge.mcp.oauth import metadata_url
from concierge.mcp.rejected import audit_http_refusals
from concierge.mcp.server import build_server
from concierge.mcp.stdio import MAX_FRAME_BYTES
from concierge.pipeline.access import User
from concierge.pipeline.pipeline import Pipeline
from concierge.settings import LOOPBACK

_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_ALL_INTERFACES = ("0.0.0.0", "::", "")
SESSIONS_PER_USER = 16
SESSION_IDLE_S = 5 * 60.0
MAX_SESSIONS = 1000  # about 40 KB each
DATABASE_DOWN = "the database is unavailable right now; try again in a moment"
_UNAVAILABLE = (DatabaseError, sa.exc.OperationalError, sa.exc.InterfaceError, sa.exc.TimeoutError)
log = logging.getLogger(__name__)


class CappedSessions(StreamableHTTPSessionManager):
    """The SDK's session manager, with at most `per_user` handshake-era sessions for each user.

    It hooks the SDK's admission step (`_admit_session`, called under the SDK's creation lock,
    so counting and admitting are one step); the sessions of a server without tokens all
    belong to its one user and are bounded by `max_sessions` only.
    """

    def __init__(self, app: Server[Any], *, per_user: int, **kwargs: Any):
        super().__init__(app, **kwargs)
        self.per_user = per_user

    def _admit_session(self, requestor: AuthorizationContext | None) -> StreamableHTTPServerTransport | None:
        if requestor is not None:
            own = [sid for sid, owner in self._session_owners.items() if owner == requestor]
            if len(own) >= self.per_user and not self._end_longest_idle(own):
                log.warning("refusing an MCP session to %s: %d sessions, all busy", requestor["subject"], len(own))
                return None
        return super()._admit_session(requestor)

    def _end_longest_idle(self, session_ids: list[str]) -> bool:
        """End the session of `session_ids` idle the longest; False when every one is serving a request."""
        idle = {sid: _idle_since(self._server_instances.get(sid)) for sid in session_ids}
        idle = {sid: since for sid, since in idle.items() if since is not None}
        if not idle or self._task_group is None:
            return False
        victim = min(idle, key=idle.__getitem__)
        transport = self._server_instances.pop(victim)
        self._session_owners.pop(victim, None)  # its id answers 404 from now on
        self._task_group.start_soon(transport.terminate)
        return True


def _idle_since(transport: StreamableHTTPServerTransport | None) -> float | None:
    """When the transport's idle countdown ends (earlier = idle longer); None while it serves a request."""
    scope = transport.idle_scope if transport is not None else None
    if scope is None or math.isinf(scope.deadline):
        return None
    return scope.deadline


class DatabaseUnavailable:
    """503 with a JSON-RPC error when the database fails before the answer has begun (the token check)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except _UNAVAILABLE:
            if started:
                raise
            log.warning("MCP request refused: the database is unavailable", exc_info=True)
            body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32603, "message": DATABASE_DOWN}}
            await JSONResponse(body, status_code=503, headers={"Retry-After": "5"})(scope, receive, send)


@dataclass(frozen=True)
class McpHttp:
    endpoint: ASGIApp
    session_manager: StreamableHTTPSessionManager
    path: str

    def lifespan(self) -> AbstractAsyncContextManager[None]:
        """Runs the session manager; enter it once, for the life of the app serving `endpoint`."""
        return self.session_manager.run()

    def app(self) -> Starlette:
        return Starlette(routes=[Route(self.path, self.endpoint)], lifespan=lambda _app: self.lifespan())


def build_http(
    pipeline: Pipeline,
    *,
    path: str = "/mcp",
    host: str = "127.0.0.1",
    allowed_hosts: Sequence[str] = (),
    anonymous_user: User | None = None,
    sessions_per_user: int = SESSIONS_PER_USER,
    session_idle_s: float = SESSION_IDLE_S,
    max_sessions: int = MAX_SESSIONS,
    resource: str | None = None,
) -> McpHttp:
    """The HTTP endpoint; with `anonymous_user` (loopback only) it takes no tokens and acts as that user.

    With `resource` (its own URL, when `concierge.mcp.oauth` serves beside it) it also takes OAuth access tokens
    issued for that URL, and a 401 names where its protected resource metadata is. The session limits are
    described in the module docstring.
    """
    if anonymous_user is not None and host not in LOOPBACK:
        raise ConfigError(f"serving without tokens is allowed on a loopback address only ({', '.join(LOOPBACK)})")
    manager = CappedSessions(
        app=build_server(pipeline, user=anonymous_user),
        json_response=True,
        security_settings=security_settings(host, allowed_hosts),
        max_request_body_size=MAX_FRAME_BYTES,
        per_user=sessions_per_user,
        session_idle_timeout=session_idle_s,
        max_sessions=max_sessions,
    )
    endpoint: ASGIApp = StreamableHTTPASGIApp(manager)
    endpoint = audit_http_refusals(endpoint, pipeline, anonymous_user)  # what the transport refuses is audited
    if anonymous_user is None:
        endpoint = AuthenticationMiddleware(
            AuthContextMiddleware(RequireAuthMiddleware(endpoint, required_scopes=[], resource_metadata_url=(
                AnyHttpUrl(metadata_url(resource)) if resource else None))),
            backend=TokenBackend(pipeline.state, resource=resource),  # refusals audited with the client address
        )
    return McpHttp(endpoint=DatabaseUnavailable(endpoint), session_manager=manager, path=path)


def security_settings(host: str, allowed_hosts: Sequence[str] = ()) -> TransportSecuritySettings:
    """Loopback names with any port, plus the served host and `allowed_hosts` with or without one."""
    names = [host] if host not in LOOPBACK + _ALL_INTERFACES else []
    names += [h for h in allowed_hosts if h not in names]
    hosts = [f"{n}:*" for n in _LOOPBACK_NAMES] + [h for n in names for h in (n, f"{n}:*")]
    origins = [f"http://{n}:*" for n in _LOOPBACK_NAMES]
    origins += [f"{scheme}://{h}" for n in names for scheme in ("http", "https") for h in (n, f"{n}:*")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts,
                                     allowed_origins=origins)


async def serve(mcp_http: McpHttp, host: str, port: int) -> None:
    # no X-Forwarded-* believed: uvicorn's default would take them from any process on 127.0.0.1
    config = uvicorn.Config(mcp_http.app(), host=host, port=port, log_config=None, lifespan="on", proxy_headers=False)
    await uvicorn.Server(config).serve()
