"""The web app: the chat page, its JSON/SSE API, and the MCP endpoint at /mcp, over one pipeline."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.routing import Route

from concierge.agent.loop import Agent
from concierge.agent.providers import make_provider
from concierge.agent.store import ConversationStore
from concierge.mcp.http import build_http
from concierge.pipeline.access import User
from concierge.pipeline.pipeline import Pipeline
from concierge.protocol import Provider
from concierge.web import auth, chat

STATIC = Path(__file__).parent / "static"
# The page loads only from this server: no CDN, no font service, no beacon.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


@dataclass
class WebState:
    pipeline: Pipeline
    agent: Agent
    signer: auth.Signer
    secure_cookie: bool
    fingerprints: auth.Fingerprints

    def describe(self, user: User) -> dict[str, Any]:
        """Who is signed in, and what the page shows about the setup (provider, clock per catalog)."""
        tools = self.pipeline.tools_for(user)
        catalogs = list(dict.fromkeys(t.catalog for t in tools))
        today = {c: self.pipeline.today(next(t.name for t in tools if t.catalog == c)).isoformat()
                 for c in catalogs}
        return {
            "name": user.name,
            "role": user.role,
            "display_name": user.display_name or user.name,
            "provider": self.agent.provider.name,
            "model": self.agent.provider.model,
            "catalogs": catalogs,
            "today": today,
        }


def create_app(
    pipeline: Pipeline,
    provider_name: str = "offline",
    *,
    model: str | None = None,
    base_url: str | None = None,
    provider: Provider | None = None,
    secret: bytes | None = None,
    secure_cookie: bool = False,
    mcp: bool = True,
    host: str = "127.0.0.1",
    allowed_hosts: Sequence[str] = (),
    max_steps: int = 8,
) -> FastAPI:
    """The whole web process; `provider` (an object) wins over `provider_name` (tests pass a fake).

    `host` and `allowed_hosts` are the names the MCP endpoint accepts in a request's Host header.
    """
    owns_provider = provider is None
    provider = provider or make_provider(provider_name, model=model, base_url=base_url, pipeline=pipeline)
    state = WebState(
        pipeline=pipeline,
        agent=Agent(pipeline, provider, store=ConversationStore(pipeline.state), max_steps=max_steps),
        signer=auth.Signer(secret or auth.load_secret()),
        secure_cookie=secure_cookie,
        fingerprints=auth.Fingerprints(pipeline.state),
    )
    mcp_http = build_http(pipeline, path="/mcp", host=host, allowed_hosts=allowed_hosts) if mcp else None

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        async with AsyncExitStack() as stack:
            if owns_provider:  # a provider passed in belongs to the caller
                await stack.enter_async_context(state.agent.provider)
            if mcp_http is not None:
                await stack.enter_async_context(mcp_http.lifespan())
            yield

    app = FastAPI(title="concierge", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.web = state
    app.include_router(auth.router)
    app.include_router(chat.router)

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers=PAGE_HEADERS)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    if mcp_http is not None:  # bearer tokens only: the page's cookie does not reach the tools this way
        app.router.routes.append(Route(mcp_http.path, mcp_http.endpoint))
    return app
