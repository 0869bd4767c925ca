"""concierge as the OAuth 2.1 authorization server of its own /mcp, for hosts that require OAuth (Claude, ChatGPT).

The protocol is the MCP SDK's (`mcp.server.auth`: metadata, /authorize, /token, /register, /revoke, PKCE S256,
redirect URI and client checks); this module is its provider over the state database (`concierge.storage.oauth`):

- a client is known by its metadata document URL (`concierge.mcp.client_documents`, preferred by the MCP
  specification from 2025-11-25 on) or registered itself (RFC 7591, deprecated there in 2026-07-28 but still
  what Cursor uses);
- /authorize sends the browser to the consent page (`concierge.web.consent`), which signs the user in with the
  web sign-in and asks; `approve` turns the user's yes into a one-time code for that user;
- every token is for one resource, this server's /mcp (RFC 8707): a request for another is refused, and so is
  a token of another resource presented here (`concierge.mcp.bearer`);
- the token's subject is a concierge user, so the role and row scope of every call are that user's, read at
  the moment of the call.
"""

from __future__ import annotations

import html
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from mcp.server.auth.handlers.metadata import MetadataHandler, ProtectedResourceMetadataHandler
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    RegistrationError,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.routes import build_metadata, cors_middleware, create_auth_routes
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.server.transport_security import RequestBodyLimitMiddleware
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken, ProtectedResourceMetadata
from pydantic import AnyHttpUrl
from starlette.datastructures import Headers
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from concierge import threads
from concierge.mcp import client_secrets
from concierge.mcp.client_documents import (
    ClientDocuments,
    DocumentRefused,
    is_document_url,
    redirect_uri_refusal,
)
from concierge.settings import LOOPBACK
from concierge.storage import oauth
from concierge.storage.database import Database

SCOPE = "tools"  # the tools the user's role allows, as that user; writes still wait for the user's yes
SCOPES = [SCOPE]
PENDING_S = 600
MAX_NAME_CHARS = 200
MAX_REQUEST_BYTES = 16 * 1024  # /register, /token, /revoke: a few hundred bytes each, for any real client
MAX_REQUEST_BYTES = 16 * 1024  # how long the consent page may stay open


@dataclass(frozen=True)
class Pending:
    """An authorization request waiting for the user on the consent page."""

    client_id: str
    client_name: str
    scopes: tuple[str, ...]
    code_challenge: str
    redirect_uri: str
    redirect_explicit: bool
    state: str | None
    resource: str
    made_at: float

    @property
    def expired(self) -> bool:
        return time.time() - self.made_at > PENDING_S


def resource_url(issuer: str, path: str = "/mcp") -> str:
    return issuer.rstrip("/") + path


def metadata_url(resource: str) -> str:
    """RFC 9728 §3.1: /.well-known/oauth-protected-resource followed by the resource's path."""
    parts = urlsplit(resource)
    return f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource{parts.path.rstrip('/')}"


class Provider:
    """The SDK's `OAuthAuthorizationServerProvider` over the state database.

    `consent_url` turns a pending request into the consent page's address (the web app signs it); `secret` (the
    web app's) keeps the client secrets of registered clients encrypted in the state database.
    """

    def __init__(self, db: Database, *, issuer: str, resource: str, consent_url: Callable[[Pending], str],
                 secret: bytes | None = None):
        self.db, self.issuer, self.resource = db, issuer.rstrip("/"), resource
        self.consent_url = consent_url
        self.sealed = client_secrets.Sealed(secret or os.urandom(32))
        self.documents = ClientDocuments(SCOPES, local=urlsplit(issuer).hostname in LOOPBACK)

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        if is_document_url(client_id):
            try:
                return await self.documents.client(client_id)
            except DocumentRefused:
                return None
        info = await threads.run(oauth.registered_client, self.db, client_id)
        return self.sealed.opened(OAuthClientInformationFull.model_validate_json(info)) if info else None

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        for uri in client_info.redirect_uris or []:
            refusal = redirect_uri_refusal(str(uri))
            if refusal is not None:
                raise RegistrationError("invalid_redirect_uri", refusal)
        if len(client_info.client_name or "") > MAX_NAME_CHARS:
            raise RegistrationError("invalid_client_metadata", f"client_name is over {MAX_NAME_CHARS} characters")
        if client_info.client_id is None:
            raise RegistrationError("invalid_client_metadata", "no client_id was assigned")
        sealed = self.sealed.sealed(client_info)
        await threads.run(oauth.register_client, self.db, client_info.client_id, sealed.model_dump_json())

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        if params.resource is not None and params.resource.rstrip("/") != self.resource.rstrip("/"):
            raise AuthorizeError("invalid_target", f"this server issues tokens for {self.resource} only")
        pending = Pending(
            client_id=client.client_id or "", client_name=_client_name(client), scopes=tuple(params.scopes or SCOPES),
            code_challenge=params.code_challenge, redirect_uri=str(params.redirect_uri),
            redirect_explicit=params.redirect_uri_provided_explicitly, state=params.state, resource=self.resource,
            made_at=time.time(),
        )
        return self.consent_url(pending)

    def approve(self, pending: Pending, user_name: str) -> str:
        """The user said yes: the redirect back to the client, with a one-time code for that user."""
        consent = oauth.Consent(pending.client_id, pending.client_name, user_name, pending.scopes, pending.resource)
        code = oauth.issue_code(self.db, consent, code_challenge=pending.code_challenge,
                                redirect_uri=pending.redirect_uri, redirect_explicit=pending.redirect_explicit)
        return construct_redirect_uri(pending.redirect_uri, code=code, state=pending.state)

    @staticmethod
    def deny(pending: Pending) -> str:
        return construct_redirect_uri(pending.redirect_uri, error="access_denied",
                                      error_description="the user did not allow it", state=pending.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull,
                                      authorization_code: str) -> AuthorizationCode | None:
        found = await threads.run(oauth.load_code, self.db, authorization_code)
        if found is None:
            return None
        return AuthorizationCode(
            code=authorization_code, scopes=list(found.consent.scopes), expires_at=found.expires_at.timestamp(),
            client_id=found.consent.client_id, code_challenge=found.code_challenge,
            redirect_uri=found.redirect_uri,  # type: ignore[arg-type]  # pydantic parses the string
            redirect_uri_provided_explicitly=found.redirect_explicit, resource=found.consent.resource,
            subject=found.consent.user_name,
        )

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          authorization_code: AuthorizationCode) -> OAuthToken:
        issued = await threads.run(oauth.exchange_code, self.db, authorization_code.code)
        if issued is None:
            raise TokenError("invalid_grant", "the authorization code was used already")
        return _token(issued)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        found = await threads.run(oauth.load_refresh, self.db, refresh_token)
        if found is None:
            return None
        return RefreshToken(token=refresh_token, client_id=found.consent.client_id, scopes=list(found.consent.scopes),
                            expires_at=int(found.expires_at.timestamp()), resource=found.consent.resource,
                            subject=found.consent.user_name)

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: RefreshToken,
                                     scopes: list[str]) -> OAuthToken:
        try:
            issued = await threads.run(oauth.refresh, self.db, refresh_token.token, tuple(scopes))
        except oauth.GrantReused:
            raise TokenError("invalid_grant", "the refresh token was used already; the grant is revoked: "
                                              "sign in again") from None
        return _token(issued)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = await threads.run(oauth.check_access, self.db, token)
        return access_token(token, found) if found is not None else None

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        await threads.run(oauth.revoke_token, self.db, token.token)

    async def exchange_identity_assertion(self, client: OAuthClientInformationFull, params: object) -> OAuthToken:
        raise TokenError("unsupported_grant_type", "identity assertions are not accepted here")


def access_token(token: str, found: oauth.Access) -> AccessToken:
    """The SDK's view of one of our live access tokens: its subject is the concierge user."""
    return AccessToken(token=token, client_id=found.consent.client_id, scopes=list(found.consent.scopes),
                       expires_at=int(found.expires_at.timestamp()), resource=found.consent.resource,
                       subject=found.consent.user_name)


def _token(issued: oauth.Issued) -> OAuthToken:
    return OAuthToken(access_token=issued.access_token, token_type="Bearer", expires_in=issued.expires_in,
                      scope=" ".join(issued.scopes), refresh_token=issued.refresh_token)


def _client_name(client: OAuthClientInformationFull) -> str:
    """What the consent page and `token list` call the client: its name, printable characters only."""
    name = client.client_name or urlsplit(client.client_id or "").netloc or client.client_id or "?"
    return "".join(ch for ch in name if ch.isprintable())[:MAX_NAME_CHARS] or "?"


class _NoRedirectToStrangers:
    """/authorize sends a browser to a client's redirect URI with an error only when some person has allowed that
    client before; for anyone else's client the error is a page here (RFC 9700 §4.11.2: anybody can make a client
    whose redirect URI is their own page, and a link to concierge's address must not land there)."""

    def __init__(self, app: ASGIApp, provider: Provider):
        self.app, self.provider = app, provider

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        replaced = False

        async def watch(message: Message) -> None:
            nonlocal replaced
            if message["type"] == "http.response.start" and message["status"] in (302, 303):
                location = Headers(raw=message["headers"]).get("location", "")
                if not location.startswith(self.provider.issuer + "/") and not await self._known(scope):
                    replaced = True
                    said = parse_qs(urlsplit(location).query)
                    text = f"{said.get('error', ['?'])[0]}: {said.get('error_description', [''])[0]}"
                    await HTMLResponse(_REFUSED.format(html.escape(text)), status_code=400)(scope, receive, send)
                    return
            if not replaced:
                await send(message)

        await self.app(scope, receive, watch)

    async def _known(self, scope: Scope) -> bool:
        client_id = parse_qs(scope.get("query_string", b"").decode()).get("client_id", [""])[0]
        return bool(client_id) and await threads.run(oauth.has_grant, self.provider.db, client_id)


_REFUSED = ("<!doctype html><html><head><meta charset='utf-8'><title>concierge</title></head><body><main>"
            "<p role='alert'>This sign-in cannot go on ({}). Go back to your app and connect again; if it happens "
            "again, tell whoever runs concierge.</p><p lang='ja'>この接続は続けられません。アプリに戻って、もう一度"
            "接続してください。</p></main></body></html>")


class _PublicRevocation:
    """The SDK's /revoke requires a ``client_secret`` field, which a public client (RFC 7009 §2.1, auth method
    ``none``) does not send: an absent one is added empty, which the client check then ignores."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > MAX_REQUEST_BYTES:
                await PlainTextResponse("request body too large", status_code=413)(scope, receive, send)
                return
        if b"client_secret=" not in body:
            body += b"&client_secret=" if body else b"client_secret="
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def routes(provider: Provider) -> list[Route]:
    """The authorization server (its metadata, /authorize, /token, /register, /revoke) and the protected
    resource metadata of /mcp, at the root and at the path RFC 9728 derives from the resource."""
    issuer = AnyHttpUrl(provider.issuer)
    registration = ClientRegistrationOptions(enabled=True, valid_scopes=SCOPES, default_scopes=SCOPES)
    revocation = RevocationOptions(enabled=True)
    found = create_auth_routes(provider, issuer, client_registration_options=registration,
                               revocation_options=revocation)
    metadata = build_metadata(issuer, None, registration, revocation)
    metadata.token_endpoint_auth_methods_supported = ["none", "client_secret_post", "client_secret_basic"]
    metadata.revocation_endpoint_auth_methods_supported = ["none", "client_secret_post", "client_secret_basic"]
    metadata.client_id_metadata_document_supported = True
    wrapped: dict[str, Callable[[ASGIApp], ASGIApp]] = {
        "/revoke": lambda app: _PublicRevocation(app),
        "/register": lambda app: RequestBodyLimitMiddleware(app, MAX_REQUEST_BYTES),
        "/token": lambda app: RequestBodyLimitMiddleware(app, MAX_REQUEST_BYTES),
        "/authorize": lambda app: _NoRedirectToStrangers(app, provider),
    }
    served = [Route(r.path, wrapped[r.path](r.app), methods=list(r.methods or ())) if r.path in wrapped else r
              for r in found if r.path != "/.well-known/oauth-authorization-server"]
    server_metadata = cors_middleware(MetadataHandler(metadata).handle, ["GET", "OPTIONS"])
    served.append(Route("/.well-known/oauth-authorization-server", server_metadata, methods=["GET", "OPTIONS"]))
    resource = ProtectedResourceMetadata(resource=AnyHttpUrl(provider.resource), authorization_servers=[issuer],
                                         scopes_supported=SCOPES, resource_name="concierge")
    described = cors_middleware(ProtectedResourceMetadataHandler(resource).handle, ["GET", "OPTIONS"])
    for path in dict.fromkeys([urlsplit(metadata_url(provider.resource)).path,
                               "/.well-known/oauth-protected-resource"]):
        served.append(Route(path, described, methods=["GET", "OPTIONS"]))
    return served
