"""Sign-in through the company's own OpenID Connect provider (docs/web.md, "Sign in with the company's account").

With `oidc.issuer` set, the chat page and the OAuth consent page (`concierge.web.consent`) offer "Sign in with
<company>". ``GET /auth/oidc/start?next=/PATH`` sends the browser to the provider: the authorization code flow with
PKCE (S256), a fresh ``state`` and ``nonce``. ``GET /auth/oidc/callback`` takes it back: the code is exchanged at the
provider's token endpoint (with the PKCE verifier, and the client secret CONCIERGE_OIDC_CLIENT_SECRET when there is
one), and the ID token is checked with the keys the provider publishes (its JWKS, asymmetric algorithms only): the
signature, ``iss`` exactly `oidc.issuer`, ``aud`` (and ``azp``) concierge's client id, ``exp`` and ``iat``, the
``nonce`` of this sign-in and ``at_hash``. The provider's endpoints come from its discovery document, whose
``issuer`` must be `oidc.issuer` itself; an answer that names another issuer (RFC 9207 ``iss``) is refused before
its code is used. Authlib builds the requests and checks the ID token's claims; joserfc (the
JOSE library Authlib uses) checks its signature; httpx2 carries the requests.

The flow's ``state``, ``nonce``, PKCE verifier, redirect URI and the page to return to live in a cookie of their
own: signed with a key of its own, HttpOnly, SameSite=Lax (the provider's redirect back is a cross-site navigation),
sent to /auth/oidc only, for `FLOW_MAX_AGE_S`. A callback whose ``state`` is not that of the browser's cookie is
refused, so nobody can sign a victim's browser in as someone else. The page to return to is a path of this server
(`safe_next`), never another site.

The claim `oidc.user_claim` names the concierge user (when it is ``email``, the provider must have verified it:
``email_verified``). Without `oidc.role_claim` the user must exist (an administrator adds them:
``concierge user add NAME --role ROLE --no-password``) and keeps the role concierge has for them. With it, the
provider decides the role at every sign-in: the claim's value (a string, or a list such as groups), through
`oidc.roles` when that is set, must give one role the catalogs declare, else the sign-in is refused; a user not
there yet is added with that role, and one whose role differs gets the claim's. The provider never grants a role
the catalogs do not declare. A claim the ID token lacks is read from the provider's userinfo endpoint, whose
``sub`` must be the ID token's.

The session is a server-side one (`concierge.storage.sessions`, fingerprint `sessions.PROVIDER`) that lasts
`oidc.session_s`: signing out, ``concierge user sign-out NAME`` and removing the user end it. Every sign-in leaves
an audit line with the provider's ``iss`` and ``sub``, and so does every refusal (bounded per client address:
`audit.stranger`), whose page says why, in English or Japanese, and what to do next.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import re
import time
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx2
from authlib.common.security import generate_token
from authlib.oauth2.auth import ClientAuth
from authlib.oauth2.rfc6749.parameters import prepare_grant_uri, prepare_token_request
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from authlib.oidc.core import CodeIDToken
from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from joserfc import jwt
from joserfc.errors import BadSignatureError, ClaimError, ExpiredTokenError, InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet
from joserfc.jws import JWSRegistry

from concierge import threads
from concierge.errors import ConfigError
from concierge.language.detect import Lang
from concierge.pipeline import audit
from concierge.settings import OidcSettings
from concierge.sources.result import new_result_id
from concierge.storage import sessions, users
from concierge.web import auth
from concierge.web.pages import request_lang, small_page
from concierge.web.security import PAGE_HEADERS

START = "/auth/oidc/start"
CALLBACK = "/auth/oidc/callback"
FLOW_PATH = "/auth/oidc"
FLOW_COOKIE = "concierge_oidc"
FLOW_MAX_AGE_S = 600
TOOL = "oidc-sign-in"  # the audit's name for a sign-in through the company's provider (its tool and its kind)
LEEWAY_S = 60  # the clocks of the provider and of concierge may differ this much
DISCOVERY_KEPT_S = 3600  # the provider's discovery document is read again after this
TIMEOUT_S = 10
ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
NEXT_CHARS = 3000
SHOWN_CHARS = 60
NO_STORE = {"Cache-Control": "no-store"}
OFF = "sign-in with the company's account is off on this server: set oidc.issuer and oidc.client_id (docs/web.md)"

_AGAIN = ("Sign in again.", "もう一度サインインしてください。")
_ADMIN = ("Ask the administrator of this site.", "このサイトの管理者にお問い合わせください。")
_LATER = ("Try again in a moment; if it goes on, ask the administrator of this site.",
          "しばらくしてからもう一度お試しください。続くときは、このサイトの管理者にお問い合わせください。")
# code -> (status, English, Japanese, what to do next); {values} are filled in
_REFUSALS: dict[str, tuple[int, str, str, tuple[str, str]]] = {
    "state": (400, "This sign-in was not started in this browser, or it took more than 10 minutes.",
              "このサインインは、このブラウザーで始めたものではないか、10 分以上かかりました。", _AGAIN),
    "denied": (401, "The company's sign-in answered {error}{description}.",
               "会社のサインインが {error}{description} と答えました。", _AGAIN),
    "unreachable": (503, "concierge could not reach the company's sign-in at {url} ({error}).",
                    "会社のサインイン ({url}) に接続できませんでした({error})。", _LATER),
    "discovery": (503, "The company's sign-in at {url} did not answer as OpenID Connect requires ({error}).",
                  "会社のサインイン ({url}) の応答が OpenID Connect の形ではありません({error})。", _ADMIN),
    "wrong_issuer": (503, "The provider at {url} says its issuer is {got}, not {want}: oidc.issuer must be exactly "
                     "its issuer.", "{url} のプロバイダーの issuer は {got} で、{want} ではありません。oidc.issuer には"
                     "その issuer をそのまま設定します。", _ADMIN),
    "mixup": (401, "This sign-in's answer came from {got}, not from {want} (oidc.issuer): another provider's answer "
              "is not taken.", "このサインインの応答は {got} からのもので、{want} (oidc.issuer) からではありません。"
              "ほかのプロバイダーの応答は受け付けません。", _ADMIN),
    "code": (401, "The company's sign-in did not give a sign-in token for this sign-in ({error}).",
             "会社のサインインから、このサインインのトークンを受け取れませんでした({error})。", _AGAIN),
    "issuer": (401, "The sign-in token was issued by {got}, not by {want} (oidc.issuer).",
               "サインイン用トークンの発行者が {got} です({want} であるべきです。oidc.issuer)。", _ADMIN),
    "audience": (401, "The sign-in token is meant for {got}, not for this concierge ({want}, oidc.client_id).",
                 "サインイン用トークンの宛先が {got} で、この concierge ({want}、oidc.client_id) ではありません。",
                 _ADMIN),
    "signature": (401, "The sign-in token's signature does not match the keys the company's sign-in publishes.",
                  "サインイン用トークンの署名が、会社のサインインが公開している鍵と一致しません。", _ADMIN),
    "expired": (401, "The sign-in token has expired, or the clocks of the company's sign-in and of concierge differ.",
                "サインイン用トークンの有効期限が切れているか、サーバーの時計がずれています。", _AGAIN),
    "nonce": (401, "The sign-in token belongs to another sign-in (its nonce).",
              "サインイン用トークンが別のサインインのものです(nonce)。", _AGAIN),
    "token": (401, "The sign-in token is not valid ({error}).", "サインイン用トークンが無効です({error})。", _ADMIN),
    "claim": (403, "The company's account has no {claim} claim, which concierge needs (oidc.{setting}).",
              "会社のアカウントに、concierge が必要とする {claim} がありません(oidc.{setting})。", _ADMIN),
    "name": (403, "The company's account names the user {name}, which is not a concierge user name (letters, digits "
             "and . _ @ -, at most 50).", "会社のアカウントのユーザー名 {name} は、concierge のユーザー名に使えません"
             "(英数字と . _ @ -、50 文字まで)。", _ADMIN),
    "unverified": (403, "The company's sign-in has not verified the email address {name}.",
                   "会社のサインインは、メールアドレス {name} を確認済みとしていません。", _ADMIN),
    "unknown_user": (403, "No concierge user is named {name}.", "concierge に {name} というユーザーはいません。",
                     ("Ask an administrator to add you (concierge user add NAME --role ROLE --no-password).",
                      "管理者に追加を依頼してください(concierge user add NAME --role ROLE --no-password)。")),
    "role": (403, "The company's account gives {got} in its {claim} claim, and concierge takes exactly one of: "
             "{roles}.", "会社のアカウントの {claim} は {got} です。concierge が受け付けるのは次のどれか 1 つです: "
             "{roles}。",
             ("Ask the administrator to give your account a role at the company's sign-in, or to map it in "
              "oidc.roles.", "会社のサインインでロールを付けるか、oidc.roles に対応を書くよう、管理者に"
              "依頼してください。")),
}
TEXT = {
    "en": {"title": "Sign in", "back": "Back", "continue": "Signed in. Continuing…",
           "with": "Sign in with {label}", "company": "Sign in with your company account"},
    "ja": {"title": "サインイン", "back": "戻る", "continue": "サインインしました。続けています…",
           "with": "{label} でサインイン", "company": "会社のアカウントでサインイン"},
}


class Refused(Exception):
    """A sign-in that did not happen: why, in English and Japanese, the status, and the user it named if known."""

    def __init__(self, code: str, **values: object):
        status, en, ja, (then_en, then_ja) = _REFUSALS[code]
        self.code, self.status, self.user = code, status, "?"
        self.en, self.ja = f"{en.format(**values)} {then_en}", ja.format(**values) + then_ja
        super().__init__(self.en)


def _shown(value: object) -> str:
    """A value the provider or the browser chose, quoted and cut, for a message."""
    text = value if isinstance(value, str) else str(value)
    return f'"{text[:SHOWN_CHARS]}…"' if len(text) > SHOWN_CHARS else f'"{text}"'


def problems(settings: OidcSettings, roles: set[str]) -> list[str]:
    """What keeps the oidc settings from signing anyone in, as sentences that say what to set."""
    out = []
    if not settings.client_id:
        out.append("oidc.client_id is not set: set it to concierge's client id at the provider "
                   "(CONCIERGE_OIDC_CLIENT_ID)")
    if not settings.user_claim:
        out.append("oidc.user_claim must not be empty")
    if settings.roles and not settings.role_claim:
        out.append("oidc.roles maps the values of a claim: set oidc.role_claim to that claim (groups, roles, ...)")
    unknown = sorted({r for r in settings.roles.values() if r not in roles})
    if unknown:
        out.append(f"oidc.roles gives {', '.join(unknown)}, which no catalog in use declares (declared roles: "
                   f"{', '.join(sorted(roles)) or 'none'})")
    return out


def safe_next(value: str) -> str:
    """`value` when it is a path of this server (``/...``), else ``/``: never another site's address."""
    parts = urlsplit(value)
    if (not value.startswith("/") or value.startswith("//") or "\\" in value or len(value) > NEXT_CHARS
            or parts.scheme or parts.netloc or value.startswith(FLOW_PATH + "/")
            or any(ord(c) < 0x21 or ord(c) == 0x7F for c in value)):
        return "/"
    return value


class Oidc:
    """The company's provider as concierge's sign-in: its discovery document and keys (read when first needed and
    kept), the flow's cookie, and who a verified ID token signs in."""

    def __init__(self, settings: OidcSettings, roles: set[str], secret: bytes, public_url: str = ""):
        found = problems(settings, roles)
        if found:
            raise ConfigError("sign-in with the company's account (oidc.issuer) cannot start: " + "; ".join(found)
                              + " (docs/web.md)")
        self.settings, self.issuer, self.roles = settings, settings.issuer, roles
        self.public_url = public_url.rstrip("/")
        self.signer = auth.Signer(hmac.new(secret, b"concierge oidc flow", hashlib.sha256).digest())
        self._metadata: dict[str, Any] | None = None
        self._metadata_at = 0.0
        self._keys: KeySet | None = None

    def button(self, lang: str) -> str:
        label = self.settings.label
        return TEXT[lang]["with"].format(label=label) if label else TEXT[lang]["company"]

    def redirect_uri(self, request: Request) -> str:
        """The callback's address as the provider knows it: under web.public_url, else as this request came."""
        return (self.public_url or str(request.base_url).rstrip("/")) + CALLBACK

    async def metadata(self) -> dict[str, Any]:
        """The provider's discovery document, once its ``issuer`` is `oidc.issuer` exactly."""
        if self._metadata is not None and time.monotonic() - self._metadata_at < DISCOVERY_KEPT_S:
            return self._metadata
        url = self.issuer.rstrip("/") + "/.well-known/openid-configuration"
        found = await _get_json(url)
        if found.get("issuer") != self.issuer:
            raise Refused("wrong_issuer", url=url, got=_shown(found.get("issuer")), want=_shown(self.issuer))
        missing = [k for k in ("authorization_endpoint", "token_endpoint", "jwks_uri") if not isinstance(found.get(k),
                                                                                                          str)]
        if missing:
            raise Refused("discovery", url=url, error="no " + ", ".join(missing))
        self._metadata, self._metadata_at, self._keys = found, time.monotonic(), None
        return found

    async def keys(self, *, fresh: bool = False) -> KeySet:
        """The provider's published keys; `fresh` reads them again (a key the token names may be new)."""
        if self._keys is None or fresh:
            url = (await self.metadata())["jwks_uri"]
            try:
                self._keys = KeySet.import_key_set(await _get_json(url))  # type: ignore[arg-type]
            except (JoseError, ValueError, TypeError, KeyError) as err:
                raise Refused("discovery", url=url, error=f"its keys: {str(err)[:200]}") from None
        return self._keys

    def begin(self, metadata: dict[str, Any], redirect_uri: str, target: str) -> tuple[str, str]:
        """The provider's authorization URL for a new sign-in, and the flow's signed cookie."""
        state, nonce, verifier = generate_token(32), generate_token(32), generate_token(64)
        url = prepare_grant_uri(metadata["authorization_endpoint"], self.settings.client_id, "code",
                                redirect_uri=redirect_uri, scope=" ".join(self.settings.scopes), state=state,
                                code_challenge=create_s256_code_challenge(verifier), code_challenge_method="S256",
                                nonce=nonce)
        flow = self.signer.dump({"s": state, "n": nonce, "v": verifier, "r": redirect_uri, "next": target,
                                 "t": int(time.time())})
        return url, flow

    def flow(self, cookie: str) -> dict[str, Any] | None:
        """The flow this browser started, from its cookie, unless altered or older than `FLOW_MAX_AGE_S`."""
        flow = self.signer.load(cookie) if cookie else None
        if flow is None or set(flow) != {"s", "n", "v", "r", "next", "t"} or not isinstance(flow["t"], int):
            return None
        return flow if time.time() - flow["t"] <= FLOW_MAX_AGE_S else None

    async def exchange(self, code: str, flow: dict[str, Any]) -> dict[str, Any]:
        """The provider's token answer for the code (with the flow's PKCE verifier), with an ID token in it."""
        metadata = await self.metadata()
        secret = self.settings.client_secret
        body = prepare_token_request("authorization_code", code=code, redirect_uri=flow["r"], code_verifier=flow["v"])
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
        client = ClientAuth(self.settings.client_id, secret.get_secret_value() if secret else None,
                            _auth_method(metadata, secret is not None))
        url, headers, body = client.prepare("POST", metadata["token_endpoint"], headers, body)
        try:
            async with httpx2.AsyncClient(timeout=TIMEOUT_S) as http:
                response = await http.post(url, content=body, headers=headers)
        except httpx2.HTTPError as err:
            raise Refused("unreachable", url=url, error=type(err).__name__) from None
        answer = _json(response)
        if response.status_code != 200 or not isinstance(answer.get("id_token"), str):
            said = answer.get("error_description") or answer.get("error") or f"HTTP {response.status_code}"
            raise Refused("code", error=_shown(said))
        return answer

    async def claims(self, token: dict[str, Any], flow: dict[str, Any]) -> dict[str, Any]:
        """The verified ID token's claims, with those it lacks from the userinfo endpoint."""
        claims = dict(await self._id_token(token, flow["n"]))
        metadata = await self.metadata()
        user_claim = self.settings.user_claim
        wanted = [c for c in (user_claim, self.settings.role_claim, "email_verified" if user_claim == "email" else "")
                  if c]
        endpoint, access = metadata.get("userinfo_endpoint"), token.get("access_token")
        if any(c not in claims for c in wanted) and isinstance(endpoint, str) and isinstance(access, str):
            info = await _get_json(endpoint, {"Authorization": f"Bearer {access}"})
            if info.get("sub") != claims["sub"]:
                raise Refused("token", error="the userinfo endpoint answered for another account")
            claims = {**info, **claims}
        return claims

    async def _id_token(self, token: dict[str, Any], nonce: str) -> CodeIDToken:
        metadata = await self.metadata()
        offered = metadata.get("id_token_signing_alg_values_supported") or ["RS256"]
        registry = JWSRegistry(algorithms=[a for a in offered if a in ALGORITHMS] or ["RS256"],
                               strict_check_header=False)
        try:
            try:
                decoded = jwt.decode(token["id_token"], await self.keys(), registry=registry)
            except InvalidKeyIdError:
                decoded = jwt.decode(token["id_token"], await self.keys(fresh=True), registry=registry)
        except BadSignatureError:
            raise Refused("signature") from None
        except JoseError as err:
            raise Refused("token", error=_shown(err.error or str(err))) from None
        client_id = self.settings.client_id
        claims = CodeIDToken(decoded.claims, decoded.header,
                             {"iss": {"essential": True, "value": self.issuer},
                              "aud": {"essential": True, "values": [client_id]}},
                             {"nonce": nonce, "client_id": client_id, "access_token": token.get("access_token")})
        try:
            claims.validate(leeway=LEEWAY_S)
        except ClaimError as err:
            raise _claim_refusal(err, decoded.claims, self.issuer, client_id) from None
        return claims

    def admit(self, web: Any, claims: dict[str, Any], where: str) -> tuple[str, str]:
        """The user the claims name, with the role they give, and a new session's id; audited. Or `Refused`."""
        settings, state = self.settings, web.pipeline.state
        name = claims.get(settings.user_claim)
        if not isinstance(name, str) or not name:
            raise Refused("claim", claim=settings.user_claim, setting="user_claim")
        if not re.match(users.NAME_PATTERN, name):
            raise Refused("name", name=_shown(name))
        try:
            if settings.user_claim == "email" and claims.get("email_verified") is not True:
                raise Refused("unverified", name=_shown(name))
            role, note = self._role_of(state, name, claims)
        except Refused as refused:
            refused.user = name
            raise
        session_id = sessions.start(state, name, sessions.PROVIDER, source=where,
                                    max_age=timedelta(seconds=settings.session_s))
        audit.record(state, user=name, tool=TOOL, args={"issuer": claims["iss"], "sub": claims["sub"], "role": role},
                     decision="signed_in", result_id=new_result_id(), rows=0, ms=0.0,
                     message=f"signed in through the company's provider {self.issuer} as {name} (role {role}){note}",
                     source=where)
        return name, session_id

    def _role_of(self, state: Any, name: str, claims: dict[str, Any]) -> tuple[str, str]:
        """The user's role, and what changed: the stored one, or (with `oidc.role_claim`) the claim's, written."""
        found = users.find(state, name)
        if not self.settings.role_claim:
            if found is None:
                raise Refused("unknown_user", name=_shown(name))
            return found.role, ""
        role = self.role(claims)
        if found is None:
            given = claims.get("name")
            display = given if isinstance(given, str) and given else name
            try:
                users.add(state, name, role, display[:100])
                return role, f"; added with the role {role} from the claim {self.settings.role_claim}"
            except ConfigError:  # added by a sign-in in another process meanwhile
                found = users.find(state, name)
        if found is not None and found.role != role:
            users.set_role(state, name, role)
            return role, f"; role {found.role} changed to {role} by the claim {self.settings.role_claim}"
        return role, ""

    def role(self, claims: dict[str, Any]) -> str:
        """The one role `oidc.role_claim` gives: through `oidc.roles` (the first value it lists that the claim has),
        else the claim's value itself, which must be a role the catalogs declare; or `Refused`."""
        claim, mapping = self.settings.role_claim, self.settings.roles
        value = claims.get(claim)
        if isinstance(value, list):
            given = [v for v in value if isinstance(v, str)]
        else:
            given = [value] if isinstance(value, str) else []
        if mapping:
            found = [role for listed, role in mapping.items() if listed in given]
        else:
            found = list(dict.fromkeys(v for v in given if v in self.roles))
        if not found or (not mapping and len(found) > 1):
            taken = [f"{v} ({r})" for v, r in sorted(mapping.items())] if mapping else sorted(self.roles)
            said = ", ".join(str(v) for v in value) if isinstance(value, list) else value
            raise Refused("role", got=_shown(said if said not in (None, "") else "nothing"), claim=claim,
                          roles=", ".join(taken))
        return found[0]


def _auth_method(metadata: dict[str, Any], has_secret: bool) -> str:
    """How concierge proves itself at the token endpoint: none (PKCE only) without a secret; else HTTP Basic,
    or the form's fields where the provider takes only those."""
    if not has_secret:
        return "none"
    offered = metadata.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
    return "client_secret_post" if "client_secret_basic" not in offered and "client_secret_post" in offered \
        else "client_secret_basic"


def _claim_refusal(err: ClaimError, claims: dict[str, Any], issuer: str, client_id: str) -> Refused:
    if isinstance(err, ExpiredTokenError) or err.claim in ("exp", "iat", "nbf"):
        return Refused("expired")
    if err.claim == "iss":
        return Refused("issuer", got=_shown(claims.get("iss")), want=_shown(issuer))
    if err.claim in ("aud", "azp"):
        return Refused("audience", got=_shown(claims.get(err.claim)), want=_shown(client_id))
    if err.claim == "nonce":
        return Refused("nonce")
    return Refused("token", error=_shown(err.description))


async def _get_json(url: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    """A JSON object the provider serves at `url`, or `Refused`."""
    try:
        async with httpx2.AsyncClient(timeout=TIMEOUT_S) as http:
            response = await http.get(url, headers={"Accept": "application/json", **(headers or {})})
    except httpx2.HTTPError as err:
        raise Refused("unreachable", url=url, error=type(err).__name__) from None
    if response.status_code != 200:
        raise Refused("unreachable", url=url, error=f"HTTP {response.status_code}")
    found = _json(response)
    if not found:
        raise Refused("discovery", url=url, error="not a JSON object")
    return found


def _json(response: httpx2.Response) -> dict[str, Any]:
    try:
        found = response.json()
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


router = APIRouter()


def install(app: FastAPI, settings: OidcSettings | None, roles: set[str], secret: bytes, public_url: str = "") -> None:
    """The routes of the sign-in through the company's provider; they answer 404 (saying how to turn it on) unless
    `settings` names an issuer. A setting that keeps anyone from signing in is a `ConfigError` now."""
    app.state.oidc = Oidc(settings, roles, secret, public_url) if settings is not None and settings.issuer else None
    app.include_router(router)


def current(request: Request) -> Oidc | None:
    return getattr(request.app.state, "oidc", None)


def _required(request: Request) -> Oidc:
    oidc = current(request)
    if oidc is None:
        raise HTTPException(status_code=404, detail=OFF)
    return oidc


def sign_in_link(request: Request, lang: str, next_path: str) -> str:
    """The "Sign in with <company>" link of a page that offers to sign in (the consent page); "" when off."""
    oidc = current(request)
    if oidc is None:
        return ""
    href = f"{START}?" + urlencode({"next": next_path})
    return f"<p><a class='oidc' href='{html.escape(href)}'>{html.escape(oidc.button(lang))}</a></p>"


@router.get("/api/sign-in-options")
async def options(request: Request) -> dict[str, Any]:
    """What the chat page's sign-in offers besides the password: the company's sign-in, when it is on."""
    oidc = current(request)
    return {"oidc": None if oidc is None else {"label": oidc.settings.label, "start": START}}


@router.get(START, include_in_schema=False)
async def start(request: Request, next: str = "/") -> Response:
    """Off to the provider, with a new flow's cookie; `next`: the page of this server to return to."""
    oidc, target = _required(request), safe_next(next)
    try:
        metadata = await oidc.metadata()
    except Refused as refused:
        await threads.run(_audit_refusal, request, refused)
        return _refusal_page(request_lang(request), refused, target)
    url, flow = oidc.begin(metadata, oidc.redirect_uri(request), target)
    response = RedirectResponse(url, status_code=303, headers=NO_STORE)
    response.set_cookie(FLOW_COOKIE, flow, max_age=FLOW_MAX_AGE_S, httponly=True, samesite="lax", path=FLOW_PATH,
                        secure=request.app.state.web.secure_cookie or request.url.scheme == "https")
    return response


@router.get(CALLBACK, include_in_schema=False)
async def callback(request: Request) -> Response:
    """Back from the provider: this browser's flow, the code exchanged, the ID token checked, the user signed in;
    then on to the page the flow returns to (a page of this server's own, so that the session's SameSite=Strict
    cookie goes with that request)."""
    oidc, lang = _required(request), request_lang(request)
    flow = oidc.flow(request.cookies.get(FLOW_COOKIE, ""))
    target = flow["next"] if flow is not None else "/"
    try:
        name, session_id = await _finish(request, oidc, flow)
    except Refused as refused:
        await threads.run(_audit_refusal, request, refused)
        response: Response = _refusal_page(lang, refused, target)
    else:
        t = TEXT[lang]
        response = _page(lang, f"<p role='status'>{t['continue']}</p><p><a href='{html.escape(target)}'>{t['back']}"
                               "</a></p>", refresh=target)
        web = request.app.state.web
        auth.set_session_cookie(request, response, web.signer.dump({"u": name, "s": session_id,
                                                                    "t": int(time.time())}))
    response.delete_cookie(FLOW_COOKIE, path=FLOW_PATH)
    return response


async def _finish(request: Request, oidc: Oidc, flow: dict[str, Any] | None) -> tuple[str, str]:
    params = request.query_params
    if flow is None or not hmac.compare_digest(params.get("state", "").encode(), flow["s"].encode()):
        raise Refused("state")
    said_by = params.get("iss")  # RFC 9207: which provider answered
    if said_by != oidc.issuer and (said_by is not None or
                                   (await oidc.metadata()).get("authorization_response_iss_parameter_supported")):
        raise Refused("mixup", got=_shown(said_by or "an unnamed provider"), want=_shown(oidc.issuer))
    if "error" in params or not params.get("code"):
        said = params.get("error_description", "")
        raise Refused("denied", error=_shown(params.get("error", "no code")),
                      description=f" ({_shown(said)})" if said else "")
    token = await oidc.exchange(params["code"], flow)
    claims = await oidc.claims(token, flow)
    return await threads.run(oidc.admit, request.app.state.web, claims, auth.source(request))


def _audit_refusal(request: Request, refused: Refused) -> None:
    """The refusal's line, in the name the provider gave if it got that far, bounded per client address."""
    audit.stranger(request.app.state.web.pipeline.state, kind=TOOL, user=refused.user[:50], tool=TOOL,
                   decision=f"refused:{refused.code}", message=refused.en, source=auth.source(request))


def _refusal_page(lang: Lang, refused: Refused, target: str) -> HTMLResponse:
    said = refused.ja if lang == "ja" else refused.en
    return _page(lang, f"<p role='alert'>{html.escape(said)}</p><p><a href='{html.escape(target)}'>"
                       f"{TEXT[lang]['back']}</a></p>", status=refused.status)


def _page(lang: Lang, body: str, *, status: int = 200, refresh: str | None = None) -> HTMLResponse:
    title = TEXT[lang]["title"]
    return small_page(lang, title, f"<h1>{html.escape(title)}</h1>{body}", {**PAGE_HEADERS, **NO_STORE},
                      status=status, refresh=refresh)
