"""The chat embedded in the business's own web app, its user vouched for by the host app's server (docs/embed.md).

The host page loads ``/embed.js`` and places ``<concierge-chat>``, which frames ``/embed``: the chat page in
embed mode. That page asks its parent for a token; the element gets one (its ``token`` attribute, or a fresh
one from the host's ``token-url``) and posts it to concierge's origin only. The page exchanges it at
``POST /api/embed/session`` for a server-side session of the user it names (`concierge.storage.sessions`,
`sessions.EMBEDDED`: no concierge password), so signing out and ``concierge user sign-out NAME`` end it too,
and the user's role and rows apply as on the chat page.

The token is a JWT signed by the host's server: HS256 with the shared secret (CONCIERGE_EMBED_SECRET), or
RS256/ES256 with a key the host publishes at ``embed.jwks_url``; each algorithm is checked with its own key only,
never ``none``. It must name ``embed.issuer`` and ``embed.audience``, and carry ``iat``, ``exp`` (at most
``embed.max_age_s`` after ``iat``) and the user's name in ``embed.user_claim``; clocks may differ by
`LEEWAY_S`. A token signs in once: its ``jti`` (else its digest) leaves a marker in the state database's
one-time table until it could no longer be taken anyway, so a copy is refused in every server process.

No cookie: a cookie in another site's frame is blocked by some browsers and settings. The page keeps the
session's signed value in memory and sends it as `auth.HEADER`; no other site can read it or make a browser
send it, and `security.SameOrigin` is unchanged: the framed page is concierge's own origin, so its writes are
same-origin, and a host origin never writes to concierge directly. Only ``/embed`` may be framed, by the
configured origins alone (``frame-ancestors``); every other page keeps ``frame-ancestors 'none'``. The only
cross-origin read allowed is ``/embed.js`` (for a host that loads it with ``crossorigin`` or as a module), and
only by those origins.

Every sign-in leaves an audit line, and so does every refusal (bounded per client address:
`audit.stranger`). A refusal answers with its reason in English and Japanese, and what to do next.
"""

from __future__ import annotations

import base64
import hashlib
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import jwt
from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, JSONResponse
from pydantic import BaseModel, Field

from concierge import threads
from concierge.errors import ConfigError, UnknownUser
from concierge.pipeline import audit
from concierge.settings import EmbedSettings, public_part
from concierge.sources.result import new_result_id
from concierge.storage import sessions
from concierge.storage import state as schema
from concierge.storage.insert_once import insert_once
from concierge.web.auth import source
from concierge.web.security import PAGE_HEADERS

STATIC = Path(__file__).parent / "static"
TOOL = "embed-sign-in"  # the audit's name for a sign-in by the host app's token (its tool and its kind)
MARKER = "embed token"  # the `tool` of a used token's marker among the one-time tokens: no tool has a space
LEEWAY_S = 30  # the clocks of the host's server and of concierge may differ this much
MIN_SECRET_CHARS = 32
HMAC = ("HS256",)
PUBLIC_KEY = ("RS256", "ES256")
TOKEN_CHARS = 8192
SHOWN_CHARS = 60  # of a value the token chose, in a message
NO_STORE = {"Cache-Control": "no-store"}
OFF = "the embedded chat is off on this server: set embed.origins and a key for the host's tokens (docs/embed.md)"

_ADMIN = ("Ask the administrator of this site.", "このサイトの管理者にお問い合わせください。")
_RELOAD = ("Reload the page to sign in again.", "ページを再読み込みして、もう一度サインインしてください。")
# code -> (status, English, Japanese, what to do next); {values} are filled in
_REFUSALS: dict[str, tuple[int, str, str, tuple[str, str]]] = {
    "malformed": (401, "The host app's sign-in token is not one concierge can read (a signed JWT).",
                  "ホストのアプリのサインイン用トークンが読み取れません(署名付き JWT ではありません)。", _ADMIN),
    "algorithm": (401, "The sign-in token is signed with {alg}, which concierge does not take here ({allowed}).",
                  "サインイン用トークンの署名方式 {alg} は受け付けていません({allowed} のみ)。", _ADMIN),
    "signature": (401, "The sign-in token's signature is wrong: the host app's server must sign it with {key}.",
                  "サインイン用トークンの署名が正しくありません。ホストのアプリのサーバーは {key} で署名します。",
                  _ADMIN),
    "unknown_key": (401, "The sign-in token names the key {kid}, which is not among the host app's keys at {url}.",
                    "サインイン用トークンの鍵 {kid} が、ホストのアプリの鍵 ({url}) にありません。", _ADMIN),
    "keys_unavailable": (503, "concierge could not read the host app's keys at {url} ({error}).",
                         "ホストのアプリの鍵 ({url}) を読み込めませんでした({error})。",
                         ("Try again in a moment; if it goes on, ask the administrator of this site.",
                          "しばらくしてからもう一度お試しください。続くときは、このサイトの管理者にお問い合わせください。")),
    "issuer": (401, "The sign-in token was issued by {got}, not by {want} (embed.issuer).",
               "サインイン用トークンの発行者が {got} です({want} であるべきです。embed.issuer)。", _ADMIN),
    "audience": (401, "The sign-in token is meant for {got}, not for {want} (embed.audience).",
                 "サインイン用トークンの宛先が {got} です({want} であるべきです。embed.audience)。", _ADMIN),
    "expired": (401, "The sign-in token has expired.", "サインイン用トークンの有効期限が切れています。", _RELOAD),
    "too_long": (401, "The sign-in token lives {life} seconds, longer than the {most} concierge takes "
                 "(embed.max_age_s): the host app's server must make short-lived tokens.",
                 "サインイン用トークンの有効期間 ({life} 秒) が長すぎます(最長 {most} 秒。embed.max_age_s)。", _ADMIN),
    "not_yet": (401, "The sign-in token is not valid yet: the clocks of the host app's server and of concierge "
                "differ.", "サインイン用トークンがまだ有効になっていません(サーバーの時計がずれています)。", _ADMIN),
    "claim": (401, "The sign-in token has no {claim} claim, which concierge needs.",
              "サインイン用トークンに必要な {claim} がありません。", _ADMIN),
    "replayed": (401, "This sign-in token was used already: each one signs in once.",
                 "このサインイン用トークンは使用済みです(1 回だけ使えます)。", _RELOAD),
    "unknown_user": (403, "No concierge user is named {name}.", "concierge に {name} というユーザーはいません。",
                     ("Ask an administrator to add you (concierge user add NAME --role ROLE --no-password).",
                      "管理者に追加を依頼してください(concierge user add NAME --role ROLE --no-password)。")),
    "role": (403, "{name} has the role {role}, which the host app may not sign in (embed.roles).",
             "{name} のロール {role} は、ホストアプリからはサインインできません (embed.roles)。", _ADMIN),
    "origin": (403, "The page {origin} is not among the sites allowed to embed the chat (embed.origins).",
               "{origin} のページは、チャットを埋め込めるサイト (embed.origins) に含まれていません。", _ADMIN),
}


class Refused(Exception):
    """A token that signs nobody in: why, in English and Japanese, and the status to answer with."""

    def __init__(self, code: str, **values: object):
        status, en, ja, (then_en, then_ja) = _REFUSALS[code]
        self.code, self.status = code, status
        self.en, self.ja = f"{en.format(**values)} {then_en}", ja.format(**values) + then_ja
        super().__init__(self.en)

    def body(self) -> dict[str, str]:
        return {"code": self.code, "detail": self.en, "detail_ja": self.ja}


def _shown(value: object) -> str:
    """A value the token chose, quoted and cut, for a message."""
    text = value if isinstance(value, str) else str(value)
    return f'"{text[:SHOWN_CHARS]}…"' if len(text) > SHOWN_CHARS else f'"{text}"'


def problems(settings: EmbedSettings) -> list[str]:
    """What keeps the embed settings from checking a token, as sentences that say what to set."""
    out = []
    if not settings.issuer:
        out.append("embed.issuer is not set: set it to the `iss` the host app's server writes in its tokens "
                   "(CONCIERGE_EMBED_ISSUER)")
    if not settings.audience or not settings.user_claim:
        out.append("embed.audience and embed.user_claim must not be empty")
    if settings.secret is None and not settings.jwks_url:
        out.append("no key checks the host app's tokens: set CONCIERGE_EMBED_SECRET (HS256, a secret shared with "
                   "the host's server) or embed.jwks_url (RS256/ES256, the host's public keys)")
    if settings.secret is not None and len(settings.secret.get_secret_value()) < MIN_SECRET_CHARS:
        out.append(f"CONCIERGE_EMBED_SECRET has {len(settings.secret.get_secret_value())} characters: use at least "
                   f"{MIN_SECRET_CHARS} random ones (python -c \"import secrets; print(secrets.token_urlsafe(32))\")")
    return out


class Embedding:
    """The embedded chat of one server: who may frame it, and how a host's token is checked."""

    def __init__(self, settings: EmbedSettings):
        found = problems(settings)
        if found:
            raise ConfigError("the embedded chat (embed.origins) cannot start: " + "; ".join(found)
                              + " (docs/embed.md)")
        self.settings = settings
        self.origins = frozenset(settings.origins)
        self.secret = settings.secret.get_secret_value().encode() if settings.secret is not None else None
        self.keys = jwt.PyJWKClient(settings.jwks_url, timeout=5, headers={"User-Agent": "concierge"}) \
            if settings.jwks_url else None
        policy = PAGE_HEADERS["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in policy
        self.page_headers = {
            **{k: v for k, v in PAGE_HEADERS.items() if k != "X-Frame-Options"},
            "Content-Security-Policy": policy.replace("frame-ancestors 'none'",
                                                      "frame-ancestors " + " ".join(settings.origins)),
        }

    @property
    def algorithms(self) -> list[str]:
        return [*(HMAC if self.secret is not None else ()), *(PUBLIC_KEY if self.keys is not None else ())]

    def sign_in(self, web: Any, token: str, origin: str, where: str) -> tuple[str, str]:
        """The user the token names and a new session's id, or `Refused`; the sign-in is audited."""
        if origin not in self.origins:
            raise Refused("origin", origin=_shown(origin))
        claims = self.claims(token)
        name = claims[self.settings.user_claim]
        if not isinstance(name, str) or not name:
            raise Refused("claim", claim=self.settings.user_claim)
        try:
            role = web.pipeline.user(name).role
        except UnknownUser:
            raise Refused("unknown_user", name=_shown(name)) from None
        if self.settings.roles and role not in self.settings.roles:
            raise Refused("role", name=_shown(name), role=_shown(role))
        if not self._first_use(web.pipeline.state, claims, token, name):
            raise Refused("replayed")
        session_id = sessions.start(web.pipeline.state, name, sessions.EMBEDDED, source=where,
                                    max_age=timedelta(seconds=self.settings.session_s))
        audit.record(web.pipeline.state, user=name, tool=TOOL, args={"origin": origin, "issuer": claims["iss"]},
                     decision="signed_in", result_id=new_result_id(), rows=0, ms=0.0,
                     message=f"signed in by the host app's token, in a page of {origin}", source=where)
        return name, session_id

    def claims(self, token: str) -> dict[str, Any]:
        """The token's claims once its signature, issuer, audience and times are right, else `Refused`."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.InvalidTokenError:
            raise Refused("malformed") from None
        key, algorithm = self._key(header, token)
        settings = self.settings
        try:
            claims = jwt.decode(token, key, algorithms=[algorithm], audience=settings.audience,
                                issuer=settings.issuer, leeway=LEEWAY_S,
                                options={"require": ["exp", "iat", "iss", "aud", settings.user_claim]})
        except jwt.InvalidTokenError as err:
            raise self._refusal(err, token, algorithm) from None
        life = claims["exp"] - claims["iat"]
        if life > settings.max_age_s:
            raise Refused("too_long", life=int(life), most=settings.max_age_s)
        return claims

    def _key(self, header: dict[str, Any], token: str) -> tuple[Any, str]:
        """The key that checks a token signed with the header's algorithm: the secret for HS256 only, the host's
        published key of the same algorithm for RS256/ES256 only."""
        alg = header.get("alg")
        if alg in HMAC and self.secret is not None:
            return self.secret, alg
        if alg in PUBLIC_KEY and self.keys is not None:
            jwk = self._published(header.get("kid"))
            if jwk.algorithm_name == alg:
                return jwk.key, alg
        raise Refused("algorithm", alg=_shown(alg), allowed=", ".join(self.algorithms))

    def _published(self, kid: object) -> jwt.PyJWK:
        assert self.keys is not None
        url = public_part(self.settings.jwks_url)
        try:
            self.keys.get_signing_keys()
        except (jwt.PyJWKClientError, jwt.PyJWKSetError, jwt.PyJWKError) as err:
            raise Refused("keys_unavailable", url=url, error=type(err).__name__) from None
        try:
            return self.keys.get_signing_key(kid if isinstance(kid, str) else None)  # type: ignore[arg-type]
        except jwt.PyJWKClientConnectionError as err:
            raise Refused("keys_unavailable", url=url, error=type(err).__name__) from None
        except jwt.PyJWTError:
            raise Refused("unknown_key", kid=_shown(kid), url=url) from None

    def _refusal(self, err: jwt.InvalidTokenError, token: str, algorithm: str) -> Refused:
        settings = self.settings
        if isinstance(err, jwt.ExpiredSignatureError):
            return Refused("expired")
        if isinstance(err, jwt.InvalidAudienceError):
            return Refused("audience", got=_shown(_unverified(token).get("aud")), want=_shown(settings.audience))
        if isinstance(err, jwt.InvalidIssuerError):
            return Refused("issuer", got=_shown(_unverified(token).get("iss")), want=_shown(settings.issuer))
        if isinstance(err, jwt.ImmatureSignatureError):
            return Refused("not_yet")
        if isinstance(err, jwt.MissingRequiredClaimError):
            return Refused("claim", claim=err.claim)
        if isinstance(err, jwt.InvalidSignatureError):
            shared = algorithm in HMAC
            return Refused("signature", key="CONCIERGE_EMBED_SECRET" if shared else public_part(settings.jwks_url))
        return Refused("malformed")

    def _first_use(self, state: Any, claims: dict[str, Any], token: str, name: str) -> bool:
        """Leave the marker of a used token; False when it was there already. A token is taken at most
        max_age_s + 2 * LEEWAY_S after its marker could first be made: older markers are deleted on the way."""
        jti = claims.get("jti")
        used = f"jti\n{claims['iss']}\n{jti}" if isinstance(jti, str) and jti else f"token\n{_decoded(token)}"
        table, now = schema.confirmations, datetime.now(UTC)
        keep = timedelta(seconds=self.settings.max_age_s + 2 * LEEWAY_S)
        row = {"token_hash": hashlib.sha256(f"{MARKER}\n{used}".encode()).hexdigest(), "user_name": name[:50],
               "tool": MARKER, "args": "{}", "created_at": now, "used_at": now}
        with state.write() as conn:
            conn.execute(table.delete().where(table.c.tool == MARKER, table.c.created_at < now - keep))
            return insert_once(conn, table, row)

    def audit_refusal(self, web: Any, refused: Refused, token: str, origin: str, where: str) -> None:
        """The refusal's line, in the name the token claims (not checked: it was refused), bounded per address."""
        claimed = _unverified(token).get(self.settings.user_claim)
        audit.stranger(web.pipeline.state, kind=TOOL, user=claimed[:50] if isinstance(claimed, str) else "?",
                       tool=TOOL, decision=f"refused:{refused.code}", message=f"{refused.en} (page of {origin[:100]})",
                       source=where)


def _decoded(token: str) -> str:
    """The token's three parts decoded, so that a copy spelt otherwise (base64 padding added) is the same token."""
    try:
        parts = [base64.urlsafe_b64decode(p.rstrip("=") + "=" * (-len(p.rstrip("=")) % 4)) for p in token.split(".")]
    except ValueError:
        return token
    return hashlib.sha256(b"\0".join(parts)).hexdigest()


def _unverified(token: str) -> dict[str, Any]:
    """The token's claims, unchecked (for messages and the audit of a refusal); {} when there are none."""
    try:
        claims = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        return {}
    return claims if isinstance(claims, dict) else {}


router = APIRouter()


def install(app: FastAPI, settings: EmbedSettings | None) -> None:
    """The embedded chat's routes; they answer 404 (saying how to turn it on) unless `settings` names origins.
    A setting that keeps the tokens from being checked is a `ConfigError` now, not a refusal later."""
    app.state.embed = Embedding(settings) if settings is not None and settings.origins else None
    app.include_router(router)


def _embedding(request: Request) -> Embedding:
    embedding = getattr(request.app.state, "embed", None)
    if embedding is None:
        raise HTTPException(status_code=404, detail=OFF)
    return embedding


@router.api_route("/embed", methods=["GET", "HEAD"], include_in_schema=False)
async def page(request: Request) -> FileResponse:
    """The chat page in embed mode, framed only by the configured origins."""
    return FileResponse(STATIC / "index.html", headers=_embedding(request).page_headers)


@router.get("/embed.js", include_in_schema=False)
async def script(request: Request) -> FileResponse:
    """The host page's `<concierge-chat>` element; readable cross-origin by the configured origins only."""
    embedding = _embedding(request)
    headers = {"Cache-Control": "no-cache", "Vary": "Origin"}
    origin = request.headers.get("origin", "")
    if origin in embedding.origins:
        headers["Access-Control-Allow-Origin"] = origin
    return FileResponse(STATIC / "embed.js", media_type="text/javascript; charset=utf-8", headers=headers)


class Exchange(BaseModel):
    token: str = Field(min_length=1, max_length=TOKEN_CHARS)
    origin: str = Field(min_length=1, max_length=300)  # the host page's, as the framed page received the token


@router.post("/api/embed/session")
async def exchange(body: Exchange, request: Request) -> JSONResponse:
    """The host's token for a session: its signed value (sent back as the session header) and who signed in."""
    embedding = _embedding(request)
    web, where = request.app.state.web, source(request)
    try:
        name, session_id = await threads.run(embedding.sign_in, web, body.token, body.origin, where)
    except Refused as refused:
        await threads.run(embedding.audit_refusal, web, refused, body.token, body.origin, where)
        return JSONResponse(refused.body(), status_code=refused.status, headers=NO_STORE)
    signed = web.signer.dump({"u": name, "s": session_id, "t": int(time.time())})
    me = web.describe(await threads.run(web.pipeline.user, name))
    return JSONResponse({"session": signed, "me": me}, headers=NO_STORE)
