"""Sign-in: the session cookie decides who asks; without it every API request is 401."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
from web_fakes import PASSWORDS, sign_in

from concierge.storage import passwords
from concierge.web.auth import COOKIE

API_ROUTES = [
    ("GET", "/api/me"),
    ("GET", "/api/sessions"),
    ("GET", "/api/sessions/s_0123456789abcdef"),
    ("POST", "/api/chat"),
    ("POST", "/api/sessions/s_0123456789abcdef/confirm"),
    ("POST", "/api/sessions/s_0123456789abcdef/cancel"),
]
STATIC = Path(__file__).resolve().parents[2] / "src" / "concierge" / "web" / "static"


def _all_401(client) -> list[str]:
    wrong = []
    for method, path in API_ROUTES:
        res = client.request(method, path, json={"text": "顧客コード0009の先週の販売データを見せて。"})
        if res.status_code != 401:
            wrong.append(f"{method} {path}: {res.status_code}")
    return wrong


def test_signed_out_requests_get_401(web):
    _pipeline, client = web
    assert _all_401(client()) == []


@pytest.mark.parametrize("name, password", [("admin", "wrong-password"), ("nobody", "admin-pass-1"),
                                            ("tanaka", PASSWORDS["admin"])])
def test_a_wrong_name_or_password_is_refused_the_same_way(web, name, password):
    _pipeline, client = web
    c = client()
    res = c.post("/api/login", json={"name": name, "password": password})
    assert res.status_code == 401
    assert res.json() == {"detail": "wrong user name or password"}
    assert COOKIE not in c.cookies
    assert c.get("/api/me").status_code == 401


def test_signing_in_names_the_user_and_what_they_may_use(web):
    _pipeline, client = web
    res = client().post("/api/login", json={"name": "admin", "password": PASSWORDS["admin"]})
    assert res.status_code == 200
    cookie = res.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    assert res.json()["name"] == "admin" and res.json()["catalogs"] == ["farm", "pos"]
    assert res.json()["today"] == {"farm": "2025-05-15", "pos": "2026-08-31"}
    suzuki = sign_in(client(), "suzuki").get("/api/me").json()
    assert (suzuki["name"], suzuki["role"], suzuki["catalogs"]) == ("suzuki", "viewer", ["farm"])


def test_signing_out_ends_the_session(web):
    _pipeline, client = web
    c = sign_in(client(), "admin")
    assert c.post("/api/logout").status_code == 200
    assert _all_401(c) == []


def test_a_forged_or_altered_cookie_is_401(web):
    _pipeline, client = web
    c = sign_in(client(), "tanaka")
    body, _, signature = c.cookies[COOKIE].partition(".")
    payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    assert payload["u"] == "tanaka"
    as_admin = base64.urlsafe_b64encode(json.dumps({**payload, "u": "admin"}).encode()).rstrip(b"=").decode()
    for value in (f"{as_admin}.{signature}", body, f"{body}.{signature[:-2]}"):
        forged = client()
        forged.cookies.set(COOKIE, value)
        assert _all_401(forged) == [], value


def test_a_password_change_signs_out_earlier_sessions(web):
    pipeline, client = web
    c = sign_in(client(), "admin")
    assert c.get("/api/me").status_code == 200
    passwords.set_password(pipeline.db, "admin", "a-new-password")
    assert _all_401(c) == []
    assert sign_in(client(), "admin", "a-new-password").get("/api/me").status_code == 200


def test_a_user_without_a_password_cannot_sign_in(web):
    _pipeline, client = web
    res = client().post("/api/login", json={"name": "pos_analyst", "password": "anything-at-all"})
    assert res.status_code == 401


def test_the_page_loads_only_from_this_server(web):
    _pipeline, client = web
    c = client()
    page = c.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    policy = page.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "connect-src 'self'" in policy
    for ref in re.findall(r'(?:src|href)="([^"]+)"', page.text):
        assert ref.startswith(("/static/", "data:")), ref
        if ref.startswith("/static/"):
            assert c.get(ref).status_code == 200, ref
    for source in STATIC.rglob("*.js"):
        if "vendor" not in source.parts:
            assert not re.search(r"https?://", source.read_text(encoding="utf-8")), source
