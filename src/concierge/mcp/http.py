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
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

import anyio
import uvicorn
from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.routing import Route
from starlette.types import ASGIApp

from concierge.errors import ConfigError
from concierge.mcp.server import build_server
from concierge.mcp.stdio import MAX_FRAME_BYTES
from concierge.pipeline.access import User
from concierge.pipeline.pipeline import Pipeline
from concierge.storage import tokens
from concierge.storage.database import Database

LOOPBACK = ("127.0.0.1", "localhost", "::1")
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_ALL_INTERFACES = ("0.0.0.0", "::", "")


class DatabaseTokenVerifier:
    """The SDK's `TokenVerifier`: a bearer token is one of ours, stored hashed."""

    def __init__(self, db: Database):
        self.db = db

    async def verify_token(self, token: str) -> AccessToken | None:
        name = await anyio.to_thread.run_sync(tokens.verify, self.db, token)
        if name is None:
            return None
        return AccessToken(token=token, client_id=name, subject=name, scopes=[])


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
) -> McpHttp:
    """The HTTP endpoint; with `anonymous_user` (loopback only) it takes no tokens and acts as that user."""
    if anonymous_user is not None and host not in LOOPBACK:
        raise ConfigError(f"serving without tokens is allowed on a loopback address only ({', '.join(LOOPBACK)})")
    manager = StreamableHTTPSessionManager(
        app=build_server(pipeline, user=anonymous_user),
        json_response=True,
        security_settings=security_settings(host, allowed_hosts),
        max_request_body_size=MAX_FRAME_BYTES,
    )
    endpoint: ASGIApp = StreamableHTTPASGIApp(manager)
    if anonymous_user is None:
        endpoint = AuthenticationMiddleware(
            AuthContextMiddleware(RequireAuthMiddleware(endpoint, required_scopes=[])),
            backend=BearerAuthBackend(DatabaseTokenVerifier(pipeline.state)),
        )
    return McpHttp(endpoint=endpoint, session_manager=manager, path=path)


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
    config = uvicorn.Config(mcp_http.app(), host=host, port=port, log_config=None, lifespan="on")
    await uvicorn.Server(config).serve()
