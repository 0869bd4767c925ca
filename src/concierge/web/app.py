"""The web app: the chat page, its JSON/SSE API, and the MCP endpoint at /mcp, over one pipeline."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from starlette.routing import Route

from concierge.agent.loop import Agent
from concierge.agent.prompts import title
from concierge.agent.providers import make_provider
from concierge.agent.providers.interface import Provider
from concierge.agent.store import ConversationStore
from concierge.catalog.model import Tool
from concierge.errors import DatabaseError
from concierge.language.detect import Lang, language
from concierge.mcp import oauth
from concierge.mcp.http import build_http
from concierge.pipeline.access import User
from concierge.pipeline.pipeline import Pipeline
from concierge.settings import EmbedSettings, OidcSettings, PhoneSettings
from concierge.web import auth, chat, consent, proxy, security
from concierge.web.embed import install as install_embed
from concierge.web.oidc import install as install_oidc
from concierge.web.security import PAGE_HEADERS

LANGS: tuple[Lang, ...] = ("ja", "en")

STATIC = Path(__file__).parent / "static"
# A database that is down or out of connections: 503, not a bare 500 (driver errors not already ours too).
UNAVAILABLE = (DatabaseError, sa.exc.OperationalError, sa.exc.InterfaceError, sa.exc.TimeoutError)


@dataclass
class WebState:
    pipeline: Pipeline
    agent: Agent
    signer: auth.Signer
    secure_cookie: bool

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
            "titles": {t.name: {lang: title(t, t.name, lang) for lang in LANGS} for t in tools},
            "examples": _examples(tools),
        }


def _examples(tools: list[Tool]) -> dict[str, dict[str, list[str]]]:
    """The requests the user's read tools declare they answer (`intents.examples`), per tool and language: the
    page's suggestion cards, and its follow-ups after an answer of another tool."""
    out: dict[str, dict[str, list[str]]] = {}
    for tool in (t for t in tools if t.mode == "read"):  # a write suggested would start one nobody asked for
        said = tool.intents.examples if tool.intents else []
        out[tool.name] = {lang: [e for e in said if language(e) == lang] for lang in LANGS}
    return out


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
    trusted_proxy: str = "",
    phone: PhoneSettings | None = None,
    public_url: str = "",
    embed: EmbedSettings | None = None,
    oidc: OidcSettings | None = None,
) -> FastAPI:
    """The whole web process; `provider` (an object) wins over `provider_name` (tests pass a fake).

    `host` and `allowed_hosts` are the names the MCP endpoint accepts in a request's Host header;
    `trusted_proxy` the addresses whose X-Forwarded-* headers are believed (`concierge.web.proxy`);
    `phone` serves the phone channel under /phone (`concierge.web.phone`, needs the `twilio` package);
    `public_url` (the address MCP hosts reach) makes this server the OAuth authorization server of its /mcp
    (`concierge.mcp.oauth`, the consent page `concierge.web.consent`); without it /mcp takes bearer tokens only;
    `embed` lets the host app's pages it names frame the chat, signed in by the host's tokens (`concierge.web.embed`);
    `oidc` lets people sign in with the company's OpenID Connect provider, on the chat page and the consent page
    (`concierge.web.oidc`; its callback is under `public_url` when given, else as the request came).
    """
    owns_provider = provider is None
    provider = provider or make_provider(provider_name, model=model, base_url=base_url, pipeline=pipeline)
    state = WebState(
        pipeline=pipeline,
        agent=Agent(pipeline, provider, store=ConversationStore(pipeline.state), max_steps=max_steps),
        signer=auth.Signer(secret or auth.load_secret()),
        secure_cookie=secure_cookie,
    )
    oauth_provider = None
    if mcp and public_url:
        oauth_provider = oauth.Provider(pipeline.state, issuer=public_url, resource=oauth.resource_url(public_url),
                                        consent_url=consent.consent_url(state.signer, public_url),
                                        secret=state.signer.secret)
    mcp_http = build_http(pipeline, path="/mcp", host=host, allowed_hosts=allowed_hosts,
                          resource=oauth_provider.resource if oauth_provider else None) if mcp else None

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
    app.state.oauth = oauth_provider
    app.include_router(auth.router)
    app.include_router(chat.router)
    install_embed(app, embed)
    install_oidc(app, oidc, {r for roles in pipeline.roles.values() for r in roles}, state.signer.secret, public_url)
    oauth_paths = []
    if oauth_provider is not None:
        app.include_router(consent.router)
        oauth_routes = oauth.routes(oauth_provider)
        app.router.routes.extend(oauth_routes)
        # the protocol's endpoints are called by the hosts' servers and apps, and have their own limits
        oauth_paths = [r.path for r in oauth_routes if r.path != "/authorize"]
    if phone is not None:
        from concierge.web.phone import install

        install(app, state.agent, phone)
    _guard(app, skip=([mcp_http.path] if mcp_http is not None else []) + oauth_paths)

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)  # HEAD: monitors and curl -I
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers=PAGE_HEADERS)

    @app.get("/static/index.html", include_in_schema=False)
    async def page_elsewhere() -> RedirectResponse:  # the app page has one address, with its headers
        return RedirectResponse("/", status_code=308)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    if mcp_http is not None:  # bearer tokens only: the page's cookie does not reach the tools this way
        app.router.routes.append(Route(mcp_http.path, mcp_http.endpoint))
    app.add_middleware(proxy.TrustedProxy, trusted=trusted_proxy)  # added last: the outermost layer
    return app


def _guard(app: FastAPI, skip: list[str]) -> None:
    """The edge of `concierge.web.security`: last added runs first, so the headers go on every answer."""
    app.add_exception_handler(RequestValidationError, security.validation_failed)
    for error in UNAVAILABLE:
        app.add_exception_handler(error, security.database_unavailable)
    app.add_middleware(security.SameOrigin, skip=skip)
    app.add_middleware(security.BodyLimit, skip=skip)
    app.add_middleware(security.SecurityHeaders)
