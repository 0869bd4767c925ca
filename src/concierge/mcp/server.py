"""The MCP server: a thin adapter from the protocol to `Pipeline.invoke`.

Every tools/call goes through the one pipeline (access, guard, SQL, shaping,
audit), run in a worker thread because the pipeline is synchronous. The
caller is the user of the HTTP request's bearer token when there is one,
otherwise the user the server was started for (stdio, in-process, or HTTP
without tokens on a loopback address).

Refusals and the pipeline's errors are tool results with ``isError``; only
system errors (the database is down) become protocol errors, with one line
of text and no traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from typing import Any, TypeVar

import mcp_types as types
from mcp.server import Server
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from concierge import threads
from concierge.errors import ConciergeError
from concierge.mcp import apps, prompts, resources
from concierge.mcp.bearer import TokenUser
from concierge.mcp.rejected import AuditRefusals
from concierge.mcp.tools import call_result, confirmation_note, declaration, split_confirmation
from concierge.pipeline.access import User
from concierge.pipeline.pipeline import Pipeline

log = logging.getLogger(__name__)
T = TypeVar("T")


def _version() -> str:
    try:
        return package_version("concierge")
    except PackageNotFoundError:  # running from a source tree that is not installed
        return "0"


def instructions(pipeline: Pipeline) -> str:
    about = " ".join(c.spec.description.en for c in pipeline.catalogs)
    return (
        f"{about} Call the tools for every figure; never compute or guess one. "
        f"A refused call says what is valid. {confirmation_note('A write tool')}"
    )


def build_server(pipeline: Pipeline, *, user: User | None = None) -> Server[Any]:
    """The low-level SDK server over `pipeline`; `user` acts when a request brings no token."""
    handlers = _Handlers(pipeline, user)
    server: Server[Any] = Server(
        "concierge",
        version=_version(),
        title="concierge",
        instructions=instructions(pipeline),
        get_tool_input_schema=_no_header_marks,
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
        on_list_resources=handlers.list_resources,
        on_read_resource=handlers.read_resource,
        on_list_prompts=handlers.list_prompts,
        on_get_prompt=handlers.get_prompt,
        on_completion=handlers.complete,
    )
    server.middleware.append(AuditRefusals(pipeline, handlers.caller))  # what the SDK refuses is audited
    apps.advertise(server)
    return server


def _no_header_marks(_tool: str) -> None:
    """The schema the SDK checks a call's `Mcp-Param-*` headers against: none, as no argument of a listed tool
    carries the ``x-mcp-header`` mark, so no header can contradict one. Without this hook the SDK would run a whole
    tools/list on every call to look for the marks."""
    return None


class _Handlers:
    """The server's request handlers: each finds its caller, then runs the pipeline off the event loop."""

    def __init__(self, pipeline: Pipeline, user: User | None):
        self.pipeline, self.user = pipeline, user

    def caller(self, ctx: ServerRequestContext[Any]) -> User:
        """Who calls, with the role they have now."""
        held = self._held(ctx)
        if held is not self.user:  # read for this request, with its token
            return held
        current = self.pipeline.as_now(held)  # the role now, not the one the server started with
        if current is None:
            raise MCPError(code=types.INVALID_REQUEST, message=f"user {held.name} no longer exists")
        return current

    def _held(self, ctx: ServerRequestContext[Any]) -> User:
        """Who calls as the request says: its token's user (read with the token when it is one of ours), else the
        server's user as it was started. `Pipeline.invoke` reads the role itself, so a call needs nothing more."""
        request = ctx.request
        authenticated = request.scope.get("user") if request is not None else None
        if isinstance(authenticated, TokenUser):
            return authenticated.user
        if isinstance(authenticated, AuthenticatedUser):  # an OAuth access token: its subject is our user
            token = authenticated.access_token
            return self.pipeline.user(token.subject or token.client_id)
        if self.user is None:
            raise MCPError(code=types.INVALID_REQUEST, message="this request carries no user")
        return self.user

    async def list_tools(self, ctx: ServerRequestContext[Any], _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=await _in_thread(self._declarations, ctx))

    async def call_tool(self, ctx: ServerRequestContext[Any],
                        params: types.CallToolRequestParams) -> types.CallToolResult:
        return await _in_thread(self._invoke, ctx, params)

    async def list_resources(self, ctx: ServerRequestContext[Any], _params: Any) -> types.ListResourcesResult:
        listing = await _in_thread(lambda: resources.listing(self.pipeline, self.caller(ctx)))
        return types.ListResourcesResult(resources=[*listing, *apps.listed(ctx)])

    async def read_resource(self, ctx: ServerRequestContext[Any],
                            params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        return await _in_thread(self._read, ctx, params.uri)

    async def list_prompts(self, ctx: ServerRequestContext[Any], _params: Any) -> types.ListPromptsResult:
        listing = await _in_thread(lambda: prompts.listing(self.pipeline, self.caller(ctx)))
        return types.ListPromptsResult(prompts=listing)

    async def get_prompt(self, ctx: ServerRequestContext[Any],
                         params: types.GetPromptRequestParams) -> types.GetPromptResult:
        return await _in_thread(lambda: prompts.get(self.pipeline, self.caller(ctx), params.name, params.arguments))

    async def complete(self, ctx: ServerRequestContext[Any],
                       params: types.CompleteRequestParams) -> types.CompleteResult:
        return await _in_thread(lambda: prompts.complete(self.pipeline, self.caller(ctx), params))

    def _declarations(self, ctx: ServerRequestContext[Any]) -> list[types.Tool]:
        tools = [declaration(t, self.pipeline.guard_context(t.name)) for t in self.pipeline.tools_for(self.caller(ctx))]
        return [apps.linked(t) for t in tools] if apps.negotiated(ctx) else tools

    def _invoke(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        args, token = split_confirmation(self.pipeline.tools.get(params.name), params.arguments)
        result = self.pipeline.invoke(params.name, args, self._held(ctx), confirmation=token)
        out = call_result(result)
        return apps.with_view(out, result, self.pipeline) if apps.negotiated(ctx) else out

    def _read(self, ctx: ServerRequestContext[Any], uri: str) -> types.ReadResourceResult:
        if uri == apps.RESULT_URI and apps.negotiated(ctx):
            return types.ReadResourceResult(contents=[apps.contents()])
        body = resources.read(self.pipeline, self.caller(ctx), uri)
        if body is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"no resource {uri}")
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=resources.MIME, text=body)]
        )


async def _in_thread(func: Callable[..., T], *args: Any) -> T:
    """Runs blocking pipeline work off the event loop; a system error becomes a one-line protocol error."""
    try:
        return await threads.run(func, *args)
    except ConciergeError as err:
        log.error("%s", err)
        raise MCPError(code=types.INTERNAL_ERROR, message=str(err)) from None
