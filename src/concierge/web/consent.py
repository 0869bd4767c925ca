"""The OAuth consent page: where a person lets Claude, ChatGPT or an editor use concierge as them.

/authorize (the MCP SDK's, `concierge.mcp.oauth`) sends the browser here with the request signed by this
server. The page is the web sign-in: a person already signed in to the chat only answers the question; anyone
else signs in on it (the same throttle, audit and sessions as the chat page) and answers in the same form.
It shows the client's name and where it sends the answer, the user and role it will act as, and what it may
do. Allowing sends the browser back to the client with a one-time code for that user; denying, with
``access_denied``. With the company's OpenID Connect provider configured (`concierge.web.oidc`), the page also
offers to sign in there, and the provider's sign-in comes back to this page.

Against forgery: the form carries a token bound to this browser (a cookie of its own, SameSite=Strict) and to
the request, and the app's `SameOrigin` edge refuses a form sent from another site. Against clickjacking: the
page may not be framed (CSP ``frame-ancestors 'none'`` and ``X-Frame-Options: DENY``).
"""

from __future__ import annotations

import hashlib
import hmac
import html
import secrets
from dataclasses import asdict
from typing import Any
from urllib.parse import urlencode, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from concierge import threads
from concierge.language.detect import Lang
from concierge.mcp.oauth import Pending, Provider
from concierge.pipeline import audit
from concierge.pipeline.access import User
from concierge.web import auth, oidc
from concierge.web.pages import request_lang, small_page
from concierge.web.security import PAGE_HEADERS

PATH = "/oauth/consent"
BROWSER_COOKIE = "concierge_consent"
TOOL = "oauth-consent"  # the audit's name for a consent given or refused
_FIELDS = tuple(Pending.__dataclass_fields__)

TEXT: dict[str, dict[str, str]] = {
    "en": {
        "title": "Allow access to concierge",
        "asks": "{client} wants to use concierge as you.",
        "as": "It will act as {user} (role: {role}): it may call the tools your role allows and see the rows "
              "you may see. A change is made only after you confirm it.",
        "client_id": "Client", "returns": "Answer sent to", "scopes": "Scopes",
        "sign_in": "Sign in to answer", "name": "User name", "password": "Password",
        "allow": "Allow", "deny": "Deny",
        "expired": "This request has expired or is not valid. Go back to your app and connect again.",
        "forged": "This form was not sent from this page. Go back to your app and connect again.",
    },
    "ja": {
        "title": "concierge へのアクセスの許可",
        "asks": "{client} が、あなたとして concierge を使おうとしています。",
        "as": "{user}（ロール: {role}）として動作します。あなたのロールで使えるツールを呼び出し、"
              "あなたが見られる行だけを見られます。変更は、あなたが確認してから行われます。",
        "client_id": "クライアント", "returns": "応答の送り先", "scopes": "スコープ",
        "sign_in": "サインインして回答してください", "name": "ユーザー名", "password": "パスワード",
        "allow": "許可する", "deny": "拒否する",
        "expired": "このリクエストは期限切れか無効です。アプリに戻って、もう一度接続してください。",
        "forged": "このフォームはこのページから送られていません。アプリに戻って、もう一度接続してください。",
    },
}
SCOPE_TEXT = {"tools": {"en": "the tools your role allows, as you",
                        "ja": "あなたのロールで使えるツールを、あなたとして"}}
SIGN_IN_REFUSED = {401: {"en": "Wrong user name or password.", "ja": "ユーザー名かパスワードが違います。"},
                   429: {"en": "Too many failed sign-ins: try again in {wait} seconds.",
                         "ja": "サインインの失敗が多すぎます。{wait} 秒後にもう一度お試しください。"}}


def consent_url(signer: auth.Signer, issuer: str):
    """The consent page's address for a pending request, signed so that nobody can alter what it asks."""
    def url(pending: Pending) -> str:
        return f"{issuer.rstrip('/')}{PATH}?" + urlencode({"request": signer.dump(asdict(pending))})
    return url


def _pending(request: Request, signed: str) -> Pending | None:
    payload = request.app.state.web.signer.load(signed)
    if payload is None or set(payload) != set(_FIELDS):
        return None
    payload["scopes"] = tuple(payload["scopes"])
    pending = Pending(**payload)
    return None if pending.expired else pending


def _form_token(request: Request, browser: str, signed: str) -> str:
    secret = request.app.state.web.signer.secret
    return hmac.new(secret, f"{browser}|{signed}".encode(), hashlib.sha256).hexdigest()


router = APIRouter()


@router.get(PATH, include_in_schema=False)
async def page(request: Request, again: bool = False) -> Response:
    signed = request.query_params.get("request", "")
    lang = request_lang(request)
    pending = _pending(request, signed)
    if pending is None:
        return _html(lang, f"<p role='alert'>{TEXT[lang]['expired']}</p>", status=400)
    user = await auth.signed_in_person(request)
    if user is None and not again:
        # Arriving from the client's site, the browser held back the chat's SameSite=Strict cookie; a refresh
        # from this page brings it, so a person already signed in is not asked for the password again.
        target = f"{PATH}?" + urlencode({"request": signed, "again": "1"})
        return _html(lang, "", refresh=target)
    browser = request.cookies.get(BROWSER_COOKIE) or secrets.token_urlsafe(16)
    answer = _html(lang, _form(lang, pending, user, signed, _form_token(request, browser, signed),
                               _company_sign_in(request, lang, signed)), form_target=pending.redirect_uri)
    answer.set_cookie(BROWSER_COOKIE, browser, httponly=True, samesite="strict", path=PATH,
                      secure=request.url.scheme == "https")
    return answer


@router.post(PATH, include_in_schema=False)
async def answer(request: Request) -> Response:
    form = await request.form()
    fields = {k: v for k, v in form.items() if isinstance(v, str)}
    signed, lang = fields.get("request", ""), request_lang(request)
    pending = _pending(request, signed)
    if pending is None:
        return _html(lang, f"<p role='alert'>{TEXT[lang]['expired']}</p>", status=400)
    browser = request.cookies.get(BROWSER_COOKIE, "")
    if not browser or not hmac.compare_digest(fields.get("csrf", ""), _form_token(request, browser, signed)):
        return _html(lang, f"<p role='alert'>{TEXT[lang]['forged']}</p>", status=403)
    provider: Provider = request.app.state.oauth
    allowed = fields.get("decision") == "allow"
    cookie, user = None, await auth.signed_in_person(request)
    if user is None and not allowed:  # saying no needs no sign-in
        return RedirectResponse(provider.deny(pending), status_code=303, headers={"Cache-Control": "no-store"})
    if user is None:
        try:
            cookie = await auth.password_sign_in(request, fields.get("name", "")[:50], fields.get("password", "")[:200])
        except auth.SignInRefused as refused:
            message = SIGN_IN_REFUSED[refused.status][lang].format(wait=refused.retry_after_s)
            body = f"<p role='alert'>{html.escape(message)}</p>" + _form(
                lang, pending, None, signed, _form_token(request, browser, signed),
                _company_sign_in(request, lang, signed))
            return _html(lang, body, status=refused.status, form_target=pending.redirect_uri)
        user = await threads.run(request.app.state.web.pipeline.user, fields.get("name", ""))
    assert user is not None
    target = await threads.run(provider.approve, pending, user.name) if allowed else provider.deny(pending)
    await threads.run(_audit, request, user, pending, allowed)
    redirect = RedirectResponse(target, status_code=303, headers={"Cache-Control": "no-store"})
    if cookie is not None:
        auth.set_session_cookie(request, redirect, cookie)
    return redirect


def _audit(request: Request, user: User, pending: Pending, allowed: bool) -> None:
    audit.record(request.app.state.web.pipeline.state, user=user.name, tool=TOOL, result_id="", rows=0, ms=0.0,
                 args={"client_id": pending.client_id, "client_name": pending.client_name,
                       "scopes": list(pending.scopes)},
                 decision="allowed" if allowed else "refused:denied_by_user",
                 message=f"{'allowed' if allowed else 'denied'} {pending.client_name} as {user.name}",
                 source=auth.source(request))


def _company_sign_in(request: Request, lang: str, signed: str) -> str:
    """The link to sign in with the company's provider and come back to this page; "" when that is off."""
    return oidc.sign_in_link(request, lang, f"{PATH}?" + urlencode({"request": signed}))


def _form(lang: str, pending: Pending, user: User | None, signed: str, csrf: str, other: str = "") -> str:
    t, e = TEXT[lang], html.escape
    who = user.display_name or user.name if user is not None else None
    parts = [
        f"<h1>{t['title']}</h1>",
        f"<p>{t['asks'].format(client='<strong>' + e(pending.client_name) + '</strong>')}</p>",
        "<dl>",
        f"<dt>{t['client_id']}</dt><dd><code>{e(pending.client_id)}</code></dd>",
        f"<dt>{t['returns']}</dt><dd><code>{e(_where(pending.redirect_uri))}</code></dd>",
        f"<dt>{t['scopes']}</dt><dd>" + ", ".join(
            f"<code>{e(scope)}</code>" + (f" ({SCOPE_TEXT[scope][lang]})" if scope in SCOPE_TEXT else "")
            for scope in pending.scopes) + "</dd>",
        "</dl>",
        f"<form method='post' action='{PATH}'>",
        f"<input type='hidden' name='request' value='{e(signed)}'><input type='hidden' name='csrf' value='{csrf}'>",
    ]
    if user is not None:
        parts.append(f"<p>{e(t['as'].format(user=who, role=user.role))}</p>")
    else:
        parts += [f"<p>{t['sign_in']}</p>",
                  f"<label>{t['name']} <input name='name' autocomplete='username' required></label>",
                  f"<label>{t['password']} <input name='password' type='password' autocomplete='current-password' "
                  "required></label>"]
    parts.append(f"<p><button name='decision' value='allow'>{t['allow']}</button> "
                 f"<button name='decision' value='deny' formnovalidate>{t['deny']}</button></p></form>")
    if user is None and other:
        parts.append(other)
    return "\n".join(parts)


def _where(uri: str) -> str:
    parts = urlsplit(uri)
    return f"{parts.scheme}://{parts.netloc}{parts.path}" if parts.netloc else f"{parts.scheme}:{parts.path}"


def _html(lang: Lang, body: str, *, status: int = 200, refresh: str | None = None,
          form_target: str | None = None) -> HTMLResponse:
    return small_page(lang, TEXT[lang]["title"], body, _headers(form_target), status=status, refresh=refresh)


def _headers(form_target: str | None) -> dict[str, Any]:
    """The page's own policy: its form may lead to the client's redirect URI, and to nowhere else; and it says
    where it comes from to this server only (with ``no-referrer`` a browser sends its form with ``Origin: null``,
    which the `SameOrigin` edge refuses)."""
    if form_target is None:
        return dict(PAGE_HEADERS)
    parts = urlsplit(form_target)
    target = f"{parts.scheme}://{parts.netloc}" if parts.netloc else f"{parts.scheme}:"
    policy = PAGE_HEADERS["Content-Security-Policy"].replace("form-action 'self'", f"form-action 'self' {target}")
    return {**PAGE_HEADERS, "Content-Security-Policy": policy, "Referrer-Policy": "same-origin",
            "Cache-Control": "no-store"}
