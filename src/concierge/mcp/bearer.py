"""The bearer tokens of the HTTP MCP endpoint, checked against the state database on every request.

A token that is unknown, revoked, expired or of a removed user gets 401 (from the SDK's
`RequireAuthMiddleware`) and leaves an audit line: whose token it was when we know it, the token's ID
(never the token), the client address (a trusted proxy's X-Forwarded-For applied by `concierge.web.proxy`
when served by `concierge serve`) and when. Those lines are a stranger's, so they are bounded per client
address and refusal (`concierge.pipeline.audit.stranger`): a flood of guessed tokens is its first lines and
one summary line that counts the rest. A request with no token at all is not audited: it is what every
client sends first.

An OAuth access token (`concierge.mcp.oauth`) is accepted too, when it was issued for this server's resource
(its /mcp URL, RFC 8707): a token of another resource is refused as if unknown, and audited as such.
"""

from __future__ import annotations

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.authentication import AuthCredentials, AuthenticationBackend
from starlette.requests import HTTPConnection

from concierge import threads
from concierge.mcp.oauth import access_token
from concierge.pipeline import audit
from concierge.pipeline.access import User
from concierge.storage import oauth, tokens
from concierge.storage.database import Database

TOOL = "bearer-token"  # the audit's name for a token presented to /mcp
UNKNOWN_USER = "?"  # the audit's user of a token that is none of ours
_MESSAGES = {
    "token_unknown": "no such bearer token",
    "token_revoked": "the bearer token was revoked (concierge token list)",
    "token_expired": "the bearer token has expired (concierge token create --expires-in)",
    "token_user_removed": "the bearer token's user was removed",
    "oauth_token_invalid": "the OAuth access token is unknown, expired or revoked (concierge token list)",
    "oauth_wrong_resource": "the OAuth access token was issued for another server",
}


class TokenUser(AuthenticatedUser):
    """The SDK's user of a request, with the concierge user (role included) read with its token, so that the
    request's handlers need no second read to know who calls."""

    def __init__(self, auth_info: AccessToken, user: User):
        super().__init__(auth_info)
        self.user = user


class TokenBackend(AuthenticationBackend):
    """Starlette's authentication backend: ``Authorization: Bearer ct_...`` is one of our tokens, or no one."""

    def __init__(self, db: Database, channel: str = "mcp-http", resource: str | None = None):
        self.db = db
        self.channel = channel
        self.resource = resource.rstrip("/") if resource else None  # this server's /mcp URL, when OAuth is on

    async def authenticate(self, conn: HTTPConnection):
        header = conn.headers.get("authorization")
        if not header:
            return None
        scheme, _, token = header.partition(" ")
        token = token.strip()
        if scheme.lower() == "bearer" and token.startswith(oauth.ACCESS_PREFIX):
            return await self._oauth(conn, token)
        found = await threads.run(tokens.check, self.db, token) if scheme.lower() == "bearer" else (
            tokens.Check(None, "token_unknown"))
        if found.user_name is None:
            client = conn.client.host if conn.client else "unknown"
            await threads.run(self._record, found, f"{self.channel} {client}")
            return None
        access = AccessToken(token=token, client_id=found.user_name, subject=found.user_name, scopes=[])
        user = User(found.user_name, found.role or "", found.display_name or "")
        return AuthCredentials([]), TokenUser(access, user)

    async def _oauth(self, conn: HTTPConnection, token: str):
        found = await threads.run(oauth.check_access, self.db, token)
        if found is None or self.resource is None or found.consent.resource.rstrip("/") != self.resource:
            refusal = "oauth_token_invalid" if found is None else "oauth_wrong_resource"
            owner = found.consent.user_name if found is not None else None
            client = conn.client.host if conn.client else "unknown"
            check = tokens.Check(None, refusal, found.grant_id if found else None, owner)
            await threads.run(self._record, check, f"{self.channel} {client}")
            return None
        access = access_token(token, found)
        return AuthCredentials(access.scopes), AuthenticatedUser(access)

    def _record(self, found: tokens.Check, source: str) -> None:
        code = found.refusal or "token_unknown"
        audit.stranger(self.db, kind=TOOL, user=found.owner or UNKNOWN_USER, tool=TOOL,
                       args={"token_id": found.token_id} if found.token_id else {}, decision=f"refused:{code}",
                       message=_MESSAGES[code], source=source)
