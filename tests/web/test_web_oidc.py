"""Sign-in with the company's account: a real OpenID Connect provider (the certified oidc-provider, tests/web/oidc),
concierge's chat and consent pages, and a person in Chromium signing in at the provider's own pages.

One provider and one browser for the module. Two concierge servers sign in with the provider: one configured with
its issuer, and one with a "mix-up" issuer whose discovery document sends everything to the real provider, so that
the answers and ID tokens it gets are another issuer's. The provider's accounts carry a `groups` claim that
oidc.roles maps to the farm catalog's roles.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
import secrets
import shutil
import socket
import subprocess
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
import pytest
import sqlalchemy as sa
from browsers import chromium
from in_process_server import served_in_thread
from playwright.sync_api import Browser, Page, expect
from pydantic import SecretStr
from web_fakes import SECRET, with_passwords

from concierge.demo.bootstrap import open_pipeline
from concierge.errors import ConfigError
from concierge.pipeline.pipeline import Pipeline
from concierge.settings import OidcSettings
from concierge.storage import oauth, sessions, users
from concierge.storage import state as schema
from concierge.web import create_app
from concierge.web.oidc import CALLBACK, Oidc, Refused, safe_next

PROVIDER = Path(__file__).resolve().parent / "oidc"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"
TIMEOUT_MS = 15_000
CLIENT_SECRET = "concierge-test-client-secret"  # the client tests/web/oidc/provider.js registers
ROLES = {"farm-sales": "sales_rep", "farm-readers": "viewer"}
HOST_CALLBACK = "https://host.example.test/callback"  # the MCP host's redirect URI; the browser never leaves


@dataclass
class World:
    issuer: str  # the real provider
    mixup_issuer: str  # the discovery document that names itself but sends everything to the real provider
    good: str  # concierge with oidc.issuer = issuer
    mixup: str  # concierge with oidc.issuer = mixup_issuer
    oidc: dict[str, Oidc]  # each server's, by "good" and "mixup"
    pipeline: Pipeline


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _settings(issuer: str) -> OidcSettings:
    return OidcSettings(issuer=issuer, client_id="concierge", client_secret=SecretStr(CLIENT_SECRET),
                        role_claim="groups", roles=ROLES, label="Example Co")


@contextmanager
def _provider(folder: Path, port: int, mixup_port: int, redirects: list[str]) -> Iterator[dict[str, str]]:
    """tests/web/oidc/provider.js on 127.0.0.1 until the block ends: its issuer and the mix-up issuer."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: apt-get install -y nodejs npm (bash .ci/run does)")
    if not (PROVIDER / "node_modules" / "oidc-provider").exists():
        pytest.fail(f"{PROVIDER / 'node_modules' / 'oidc-provider'} is missing: run npm ci --prefix tests/web/oidc")
    log = folder / "provider.log"
    with log.open("w") as stderr:
        process = subprocess.Popen([node, "provider.js", str(port), str(mixup_port), *redirects], cwd=PROVIDER,
                                   stdout=subprocess.PIPE, stderr=stderr, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line, f"the OpenID Connect provider did not start:\n{log.read_text()}"
        yield json.loads(line)
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("oidc")
    url = with_passwords(f"sqlite:///{folder / 'web.db'}")
    ports = {"good": _free_port(), "mixup": _free_port()}
    bases = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
    with ExitStack() as stack:
        found = stack.enter_context(_provider(folder, _free_port(), _free_port(),
                                              [base + CALLBACK for base in bases.values()]))
        issuers = {"good": found["issuer"], "mixup": found["mixup"]}
        oidc: dict[str, Oidc] = {}
        for name, base in bases.items():
            pipeline = open_pipeline(["farm", "pos"], url)
            stack.callback(pipeline.close)
            app = create_app(pipeline, secret=SECRET, public_url=base, oidc=_settings(issuers[name]))
            oidc[name] = app.state.oidc
            stack.enter_context(served_in_thread(app, port=ports[name], proxy_headers=False))
        yield World(found["issuer"], found["mixup"], bases["good"], bases["mixup"], oidc, pipeline)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def _fresh(browser: Browser, request, locale: str) -> Iterator[Page]:
    """A fresh browser (no cookie of concierge or of the provider); nothing may leave 127.0.0.1."""
    ctx = browser.new_context(locale=locale)
    ctx.set_default_timeout(TIMEOUT_MS)
    ctx.route(re.compile(r"^https?://(?!127\.0\.0\.1[:/])"), lambda route: route.abort())
    page = ctx.new_page()
    try:
        yield page
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"))
        ctx.close()


@pytest.fixture
def page(browser, request) -> Iterator[Page]:
    yield from _fresh(browser, request, "en-US")


@pytest.fixture
def page_ja(browser, request) -> Iterator[Page]:
    yield from _fresh(browser, request, "ja-JP")


def _at_provider(page: Page, world: World, account: str) -> None:
    """The person signs in on the provider's own pages (any password) and lets concierge have their claims."""
    page.wait_for_url(f"{world.issuer}/interaction/**")
    page.fill("input[name=login]", account)
    page.fill("input[name=password]", "whatever they type")
    page.click("button[type=submit]")
    page.click("button:has-text('Continue')")


def _me(page: Page) -> dict[str, Any]:
    """/api/me as the page's own script asks for it: its status and its answer."""
    return page.evaluate("fetch('/api/me').then(async (r) => ({status: r.status, body: await r.json()}))")


def _me_of(client: httpx2.Client) -> int:
    return client.get("/api/me").status_code


def _audit(world: World, decision: str) -> list[dict[str, Any]]:
    table = schema.audit
    with world.pipeline.state.read() as conn:
        rows = conn.execute(sa.select(table).where(table.c.tool == "oidc-sign-in", table.c.decision == decision)
                            .order_by(table.c.id)).mappings().all()
    return [dict(r) for r in rows]


def _run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """An async call of concierge's, from a test that Playwright's event loop runs in."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _ask(page: Page, text: str):
    before = page.locator(".msg.assistant").count()
    page.fill("#input", text)
    page.press("#input", "Enter")
    reply = page.locator(".msg.assistant").nth(before)
    expect(reply.locator(".answer, .confirm-card").first).to_be_visible()
    expect(page.locator("#send")).to_be_enabled()
    return reply


def test_the_chat_page_signs_in_with_the_company_account_and_the_claim_gives_the_role(world, page_ja):
    page = page_ja
    state = world.pipeline.state
    users.set_role(state, "tanaka", "viewer")  # concierge has another role for him: the provider's claim decides
    page.goto(world.good + "/")
    company = page.locator("#signin-company")
    expect(company).to_have_text("Example Co でサインイン")
    company.click()
    _at_provider(page, world, "tanaka")
    expect(page.locator("#app")).to_be_visible()
    me = _me(page)
    assert me["status"] == 200 and (me["body"]["name"], me["body"]["role"]) == ("tanaka", "sales_rep")
    assert users.get(state, "tanaka").role == "sales_rep"
    # a sales rep's rows: his customer 0017, not 0002 (which a viewer, the role he had, sees)
    expect(_ask(page, "顧客コード0017の販売データを見せて。").locator(".result table")).to_have_count(1)
    other = _ask(page, "顧客コード0002のお客様の先月の販売実績が欲しい。")
    expect(other.locator(".result table")).to_have_count(0)
    assert "John Smith" not in other.inner_text()
    [line] = [r for r in _audit(world, "signed_in") if r["user_name"] == "tanaka"]
    assert json.loads(line["args"]) == {"issuer": world.issuer, "sub": "sub-tanaka", "role": "sales_rep"}
    assert "role viewer changed to sales_rep" in line["message"]
    assert sessions.end_all(state, "tanaka") == 1  # concierge user sign-out tanaka
    assert _me(page)["status"] == 401


def test_the_consent_page_signs_in_with_the_company_and_comes_back_to_allow(world, page):
    state = world.pipeline.state
    assert users.find(state, "sato") is None  # the provider knows him; concierge does not yet
    client = httpx2.post(f"{world.good}/register", timeout=20, json={
        "client_name": "Test host", "redirect_uris": [HOST_CALLBACK], "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]}).json()
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    authorize = httpx2.get(f"{world.good}/authorize?" + urlencode({
        "response_type": "code", "client_id": client["client_id"], "redirect_uri": HOST_CALLBACK, "state": "st",
        "code_challenge": challenge, "code_challenge_method": "S256"}), timeout=20)
    assert authorize.status_code == 302, authorize.text
    page.route(HOST_CALLBACK + "*", lambda route: route.fulfill(status=200, body="back at the host"))
    page.goto(authorize.headers["location"])
    page.get_by_role("link", name="Sign in with Example Co").click()
    _at_provider(page, world, "sato")
    expect(page.locator("main")).to_contain_text("It will act as Sato Jiro (role: sales_rep)")
    with page.expect_request(lambda r: r.url.startswith(HOST_CALLBACK)) as answered:
        page.get_by_role("button", name="Allow").click()
    code = parse_qs(urlsplit(answered.value.url).query)["code"][0]
    token = httpx2.post(f"{world.good}/token", timeout=20, data={
        "grant_type": "authorization_code", "client_id": client["client_id"], "code": code,
        "code_verifier": verifier, "redirect_uri": HOST_CALLBACK})
    assert token.status_code == 200, token.text
    access = oauth.check_access(state, token.json()["access_token"])
    assert access is not None and access.consent.user_name == "sato"
    sato = users.get(state, "sato")
    assert (sato.role, sato.display_name, sato.can_sign_in) == ("sales_rep", "Sato Jiro", False)


def test_an_answer_from_another_issuer_is_refused(world, page):
    page.goto(f"{world.mixup}/auth/oidc/start?next=/")
    _at_provider(page, world, "suzuki")
    expect(page.get_by_role("alert")).to_contain_text(
        f'came from "{world.issuer}", not from "{world.mixup_issuer}" (oidc.issuer)')
    assert _me(page)["status"] == 401
    assert any(line["user_name"] == "?" for line in _audit(world, "refused:mixup"))


def test_an_id_token_from_another_issuer_is_refused(world, page):
    """A real ID token of the provider, for this client and this sign-in's nonce: taken by the concierge whose
    issuer it is, refused by the one that expects another issuer."""
    mixup = world.oidc["mixup"]
    metadata = _run(mixup.metadata())
    url, cookie = mixup.begin(metadata, world.mixup + CALLBACK, "/")
    flow = mixup.flow(cookie)
    page.route(f"{world.mixup}{CALLBACK}*", lambda route: route.fulfill(status=200, body="caught"))
    with page.expect_request(lambda r: r.url.startswith(world.mixup + CALLBACK)) as answered:
        page.goto(url)
        _at_provider(page, world, "suzuki")
    token = _run(mixup.exchange(parse_qs(urlsplit(answered.value.url).query)["code"][0], flow))
    with pytest.raises(Refused) as refused:
        _run(mixup.claims(token, flow))
    assert refused.value.code == "issuer"
    assert f'issued by "{world.issuer}", not by "{world.mixup_issuer}" (oidc.issuer)' in refused.value.en
    assert _run(world.oidc["good"].claims(token, flow))["preferred_username"] == "suzuki"
    with pytest.raises(Refused) as replayed:
        _run(world.oidc["good"].claims(token, {**flow, "n": "another sign-in's nonce"}))
    assert replayed.value.code == "nonce"


def test_a_callback_this_browser_did_not_start_is_refused(world):
    with httpx2.Client(base_url=world.good, follow_redirects=False, timeout=20) as browser:
        started = browser.get("/auth/oidc/start", params={"next": "/"})
        assert started.status_code == 303
        cookie = started.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "path=/auth/oidc" in cookie
        sent = parse_qs(urlsplit(started.headers["location"]).query)
        assert started.headers["location"].startswith(world.issuer + "/")
        assert (sent["code_challenge_method"], sent["client_id"]) == (["S256"], ["concierge"])
        assert sent["nonce"][0] and sent["redirect_uri"] == [world.good + CALLBACK]
        wrong = browser.get(CALLBACK, params={"code": "stolen", "state": "a state of another browser",
                                              "iss": world.issuer})
        assert wrong.status_code == 400
        assert "This sign-in was not started in this browser" in wrong.text
        assert _me_of(browser) == 401
    with httpx2.Client(base_url=world.good, follow_redirects=False, timeout=20) as stranger:
        right = stranger.get(CALLBACK, params={"code": "stolen", "state": sent["state"][0], "iss": world.issuer})
        assert right.status_code == 400 and "concierge_session" not in right.headers.get("set-cookie", "")
    assert len(_audit(world, "refused:state")) >= 2


def test_a_claim_that_gives_no_role_of_the_catalogs_is_refused(world, page_ja):
    page = page_ja
    page.goto(f"{world.good}/auth/oidc/start?next=/")
    _at_provider(page, world, "visitor")
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("groups は")
    expect(alert).to_contain_text("everyone")
    assert users.find(world.pipeline.state, "visitor") is None
    [line] = [r for r in _audit(world, "refused:role") if r["user_name"] == "visitor"]
    assert "farm-readers (viewer), farm-sales (sales_rep)" in line["message"]


@pytest.mark.parametrize("asked, kept", [
    ("/", "/"), ("/oauth/consent?request=a.b", "/oauth/consent?request=a.b"), ("//evil.example/x", "/"),
    ("https://evil.example/", "/"), ("/\\evil.example", "/"), ("javascript:alert(1)", "/"), ("", "/"),
    ("/a\r\nSet-Cookie: x=1", "/"), ("/auth/oidc/callback?code=x", "/")])
def test_the_page_to_return_to_is_a_path_of_this_server(asked, kept):
    assert safe_next(asked) == kept


def test_settings_that_would_grant_an_undeclared_role_stop_the_server():
    roles, issuer = {"admin", "sales_rep", "viewer"}, "https://login.example.com/realms/staff"
    with pytest.raises(ConfigError, match="oidc.roles gives superuser, which no catalog in use declares"):
        Oidc(OidcSettings(issuer=issuer, client_id="concierge", role_claim="groups", roles={"it": "superuser"}),
             roles, SECRET)
    with pytest.raises(ConfigError, match="oidc.client_id is not set"):
        Oidc(OidcSettings(issuer=issuer), roles, SECRET)


@pytest.mark.parametrize("mapping, claim, role", [
    (ROLES, ["everyone", "farm-readers", "farm-sales"], "sales_rep"),  # the first value oidc.roles lists wins
    (ROLES, "farm-readers", "viewer"),
    ({}, "viewer", "viewer"),  # without oidc.roles the value is the role
    ({}, ["everyone", "viewer"], "viewer"),
    ({}, ["viewer", "admin"], None),  # two roles and nothing to choose between them
    ({}, "superuser", None),  # never a role the catalogs do not declare
    (ROLES, "viewer", None),  # with oidc.roles only the values it lists count
    (ROLES, None, None), (ROLES, 7, None)])
def test_the_role_claim_gives_exactly_one_declared_role(mapping, claim, role):
    oidc = Oidc(OidcSettings(issuer="https://login.example.com", client_id="concierge", role_claim="groups",
                             roles=mapping), {"admin", "sales_rep", "viewer"}, SECRET)
    claims = {} if claim is None else {"groups": claim}
    if role is not None:
        assert oidc.role(claims) == role
    else:
        with pytest.raises(Refused) as refused:
            oidc.role(claims)
        assert refused.value.code == "role" and refused.value.status == 403


def test_without_oidc_settings_the_page_offers_passwords_only(web):
    _pipeline, client = web
    c = client()
    assert c.get("/api/sign-in-options").json() == {"oidc": None}
    off = c.get("/auth/oidc/start")
    assert off.status_code == 404 and "set oidc.issuer and oidc.client_id" in off.json()["detail"]
