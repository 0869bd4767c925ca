"""MCP requests refused before our handlers run, in the audit.

The SDK refuses some requests itself: params that do not validate (``tools/call`` whose
``arguments`` is not an object, a missing ``name``), an unknown method, a request before the
handshake; over HTTP also a body that is not JSON-RPC or ``Mcp-Param-*`` headers that contradict
the arguments. Each leaves an audit line like a refused call's: the caller, the tool (or the method
when no tool was named), ``refused:<reason>`` and the SDK's message, with the channel as source.

`AuditRefusals` is a server middleware (stdio and HTTP): it also sets the audit source for
everything the request does. `audit_http_refusals` wraps the HTTP endpoint inside the token check
and records what the transport answered with 4xx before the server saw the request.
Errors of the system (INTERNAL_ERROR: the database is down) are not refusals and are not recorded.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from functools import partial
from typing import Any

import mcp_types as types
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from concierge import threads
from concierge.pipeline import audit
from concierge.pipeline.access import User
from concierge.pipeline.pipeline import Pipeline

log = logging.getLogger(__name__)
_AUDITED = "concierge.refusal_audited"  # set in the ASGI scope once a request's refusal is recorded
_BODY_KEPT = 4096
_REASONS = {
    types.PARSE_ERROR: "parse_error", types.INVALID_REQUEST: "invalid_request",
    types.METHOD_NOT_FOUND: "method_not_found", types.INVALID_PARAMS: "invalid_params",
}


def reason(code: int) -> str:
    return _REASONS.get(code, f"jsonrpc_{code}")


class AuditRefusals:
    """Server middleware: the request's audit source, and a line for each request the SDK refuses."""

    def __init__(self, pipeline: Pipeline, caller: Callable[[ServerRequestContext[Any]], User]):
        self.pipeline, self.caller = pipeline, caller

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        with audit.source(_source(ctx)):
            try:
                return await call_next(ctx)
            except MCPError as err:
                if err.error.code != types.INTERNAL_ERROR:
                    await self._record(ctx, reason(err.error.code), err.error.message)
                raise
            except ValidationError:
                await self._record(ctx, "invalid_params", "Invalid request parameters")
                raise

    def _refusal(self, ctx: ServerRequestContext[Any, Any], tool: str, why: str, message: str, args: Any) -> None:
        """In a worker thread: who the caller is now is read from the state database."""
        try:
            user = self.caller(ctx)
        except MCPError:
            return
        self.pipeline.record_refusal(user, tool, why, message, args=args)

    async def _record(self, ctx: ServerRequestContext[Any, Any], why: str, message: str) -> None:
        if ctx.request_id is None:  # a notification: nobody was answered, nothing was refused
            return
        tool, args = _asked(ctx.method, ctx.params)
        await threads.run(partial(self._refusal, ctx, tool, why, message, args))
        request = ctx.request
        if request is not None and hasattr(request, "scope"):
            request.scope[_AUDITED] = True


def _asked(method: str, params: Any) -> tuple[str, Any]:
    """The tool asked for (else the method) and the arguments (else the params) of a request."""
    params = params if isinstance(params, dict) else {"params": params}
    name = params.get("name")
    if method == "tools/call" and isinstance(name, str):
        arguments = params.get("arguments")
        return name, arguments if isinstance(arguments, dict) else {"arguments": arguments}
    return method, params


def _source(ctx: ServerRequestContext[Any, Any]) -> str:
    request = ctx.request
    client = getattr(request, "client", None)
    return f"mcp-http {client.host}" if client is not None else "mcp"


def audit_http_refusals(app: ASGIApp, pipeline: Pipeline, anonymous: User | None = None) -> ASGIApp:
    """`app` (the streamable HTTP endpoint, inside the token check) with its 4xx answers audited, as the
    token's user (`anonymous` on a server without tokens)."""

    async def endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        seen: dict[str, Any] = {"status": 200, "body": b""}

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                seen["status"] = message["status"]
            elif message["type"] == "http.response.body" and 400 <= seen["status"] < 500:
                seen["body"] = (seen["body"] + message.get("body", b""))[:_BODY_KEPT]
            await send(message)

        await app(scope, receive, watch)
        status = seen["status"]
        name = _user_name(scope.get("user"), anonymous)
        if 400 <= status < 500 and status != 401 and not scope.get(_AUDITED) and name is not None:
            why, message = _http_refusal(status, seen["body"])
            client = scope.get("client")
            where = f"mcp-http {client[0]}" if client else "mcp-http"
            what = f"{scope.get('method', 'POST')} {scope.get('path', '')}"
            if isinstance(scope.get("user"), AuthenticatedUser):
                await threads.run(partial(pipeline.record_refusal, name, what, why, message, source=where))
            else:  # no token: whoever reaches the port; bounded as every unauthenticated refusal is
                await threads.run(partial(
                    audit.stranger, pipeline.state, kind="mcp-http", user=name, tool=what, decision=f"refused:{why}",
                    message=message, source=where))

    return endpoint


def _user_name(user: Any, anonymous: User | None) -> str | None:
    if isinstance(user, AuthenticatedUser):
        return user.access_token.subject or user.access_token.client_id
    return anonymous.name if anonymous is not None else None


def _http_refusal(status: int, body: bytes) -> tuple[str, str]:
    """The reason and message of a 4xx answer: its JSON-RPC error when it has one, else the HTTP status."""
    try:
        error = json.loads(body).get("error") or {}
    except (ValueError, AttributeError):
        error = {}
    if isinstance(error, dict) and isinstance(error.get("code"), int):
        return reason(error["code"]), str(error.get("message") or "")[:500]
    return f"http_{status}", f"the MCP endpoint answered HTTP {status}"
