"""The embedded chat: `<concierge-chat>` in a host page of another origin, signed in by the host's token.

One `concierge serve` (its embed settings from the environment, as an installation sets them) and one headless
Chromium for the module. The host app is a small server on loopback: its pages at http://localhost:PORT (the
configured origin, another site than concierge's http://127.0.0.1), the same pages at http://127.0.0.1:PORT (an
origin not configured), its token endpoint and its JWKS.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx2
import jwt
import pytest
import sqlalchemy as sa
from browsers import chromium
from cli_runner import run_cli
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from playwright.sync_api import Browser, FrameLocator, Page, expect
from web_fakes import PASSWORDS, Served, concierge_serve

from concierge.cli.config_cmd import shown_values
from concierge.errors import ConfigError
from concierge.settings import EmbedSettings, load_settings
from concierge.storage import state as schema
from concierge.web import create_app

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"
TIMEOUT_MS = 15_000
ISSUER = "https://app.example.test"
SECRET = "embed-test-secret-0123456789-abcdefghij"
KID = "host-key-1"


class Host:
    """The business's own web app: pages by path, a token endpoint per user, its published keys."""

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        self.tokens: dict[str, Callable[[], str]] = {}
        self.token_calls: list[str] = []
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        self.jwks = json.dumps({"keys": [{**jwk, "kid": KID, "alg": "RS256", "use": "sig"}]})
        host = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = self.path.split("?")[0]
                if path in host.tokens:
                    host.token_calls.append(path)
                    self._answer("application/json", json.dumps({"token": host.tokens[path]()}))
                elif path == "/jwks.json":
                    self._answer("application/json", host.jwks)
                elif path in host.pages:
                    self._answer("text/html; charset=utf-8", host.pages[path])
                else:
                    self.send_response(404)
                    self.end_headers()

            def _answer(self, kind: str, text: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(text.encode())

            def log_message(self, *_args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.origin = f"http://localhost:{self.port}"  # configured
        self.elsewhere = f"http://127.0.0.1:{self.port}"  # not configured: same server, another origin

    def page(self, concierge: str, *, token: str = "", token_url: str = "", lang: str = "ja") -> str:
        """A host page with the element; its path. The page records the element's events in `window.seen`."""
        path = f"/app-{uuid.uuid4().hex[:8]}.html"
        attributes = f'token="{token}"' if token else f'token-url="{token_url}"'
        self.pages[path] = f"""<!doctype html><html lang="{lang}"><head><meta charset="utf-8">
<link rel="icon" href="data:,"><title>Host app</title><script src="{concierge}/embed.js"></script></head>
<body><h1>Host app</h1><concierge-chat {attributes} style="height: 700px"></concierge-chat>
<script>
window.seen = [];
for (const name of ["concierge-signed-in", "concierge-error", "concierge-token-needed"]) {{
  document.addEventListener(name, (event) => window.seen.push([name, event.detail]));
}}
</script></body></html>"""
        return path


def token(user: str = "tanaka", *, key: object = SECRET, algorithm: str = "HS256", life_s: int = 120,
          issued_ago_s: int = 0, headers: dict | None = None, **claims: object) -> str:
    now = int(time.time()) - issued_ago_s
    body = {"iss": ISSUER, "aud": "concierge", "sub": user, "iat": now, "exp": now + life_s,
            "jti": uuid.uuid4().hex, **claims}
    return jwt.encode({k: v for k, v in body.items() if v is not None}, key, algorithm=algorithm, headers=headers)


@pytest.fixture(scope="module")
def host() -> Iterator[Host]:
    host = Host()
    thread = threading.Thread(target=host.server.serve_forever, daemon=True)
    thread.start()
    yield host
    host.server.shutdown()
    host.server.server_close()


@pytest.fixture(scope="module")
def served(host, _web_template, tmp_path_factory) -> Iterator[Served]:
    """`concierge serve` with the host's origin, issuer, shared secret and keys; tanaka and suzuki have no
    concierge password."""
    path = tmp_path_factory.mktemp("embed") / "concierge.db"
    path.write_bytes(_web_template.read_bytes())
    url = f"sqlite:///{path}"
    env = {"CONCIERGE_EMBED_ORIGINS": f"{host.origin}/", "CONCIERGE_EMBED_ISSUER": ISSUER,
           "CONCIERGE_EMBED_SECRET": SECRET, "CONCIERGE_EMBED_JWKS_URL": f"{host.elsewhere}/jwks.json"}
    with concierge_serve(url, env=env) as served:
        engine = sa.create_engine(url)
        with engine.begin() as conn:
            conn.execute(schema.users.update().where(schema.users.c.name.in_(["tanaka", "suzuki"]))
                         .values(password_hash=None))
        engine.dispose()
        yield served


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


@pytest.fixture
def page(browser, request) -> Iterator[Page]:
    context = browser.new_context(locale="ja-JP", viewport={"width": 1100, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        yield page
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"))
        assert context.cookies() == []  # the embedded chat keeps its session in memory, never in a cookie
        context.close()
    assert errors == []


def chat(page: Page) -> FrameLocator:
    return page.frame_locator("concierge-chat iframe")


def ask(frame: FrameLocator, text: str):
    before = frame.locator(".msg.assistant").count()
    frame.locator("#input").fill(text)
    frame.locator("#input").press("Enter")
    reply = frame.locator(".msg.assistant").nth(before)
    expect(reply.locator(".answer, .confirm-card").first).to_be_visible()
    return reply


def audit_lines(served: Served, user: str | None = None) -> list[tuple[str, str]]:
    table = schema.audit
    engine = sa.create_engine(served.database)
    with engine.connect() as conn:
        query = sa.select(table.c.user_name, table.c.decision).where(table.c.tool == "embed-sign-in")
        rows = conn.execute(query.where(table.c.user_name == user) if user else query).all()
    engine.dispose()
    return [tuple(r) for r in rows]


def live_sessions(served: Served, user: str) -> int:
    table = schema.web_sessions
    engine = sa.create_engine(served.database)
    with engine.connect() as conn:
        count = conn.scalar(sa.select(sa.func.count()).select_from(table).where(table.c.user_name == user))
    engine.dispose()
    return int(count or 0)


# --- in Chromium ---------------------------------------------------------------------------------------------------
def test_a_host_page_on_another_site_signs_tanaka_in_and_the_chat_answers_with_his_rows_only(page, host, served):
    before = audit_lines(served, "tanaka")
    page.goto(host.origin + host.page(served.url, token=token("tanaka")))
    frame = chat(page)
    expect(frame.locator("#who")).to_have_text("田中(営業)")
    expect(frame.locator("#signin")).to_be_hidden()
    expect(frame.locator("#signout")).to_be_hidden()  # the host signs its users in and out

    own = ask(frame, "顧客コード0017の販売データを見せて。")
    expect(own.locator(".result table tbody tr").first).to_be_visible()
    other = ask(frame, "顧客コード0002のお客様の先月の販売実績が欲しい。")
    expect(other.locator(".result table")).to_have_count(0)
    assert "John Smith" not in other.inner_text()

    assert page.evaluate("window.seen") == [["concierge-signed-in", {"name": "tanaka"}]]
    assert audit_lines(served, "tanaka")[len(before):] == [("tanaka", "signed_in")]


def test_a_token_from_the_hosts_token_url_signed_with_its_published_key_signs_in_again_when_the_session_ends(
        page, host, served):
    before = audit_lines(served, "suzuki")
    host.tokens["/token/suzuki"] = lambda: token("suzuki", key=host.key, algorithm="RS256", headers={"kid": KID})
    page.goto(host.origin + host.page(served.url, token_url="/token/suzuki", lang="en"))
    frame = chat(page)
    expect(frame.locator("#who")).to_have_text("鈴木(閲覧)")
    expect(frame.locator("#send")).to_have_text("Send")
    ask(frame, "How many customers do we have?")
    expect(frame.locator("#sessions .session")).to_have_count(1)  # the list asked for after the answer has come

    ended = run_cli("user", "sign-out", "suzuki", "--database", served.database)
    assert ended.exit_code == 0, ended.output
    frame.locator("#input").fill("Show the sales of customer 0017.")
    frame.locator("#input").press("Enter")  # refused (401): the page asks the element for a fresh token
    expect(frame.locator("#welcome")).to_be_visible()
    expect(frame.locator("#who")).to_have_text("鈴木(閲覧)")
    assert host.token_calls.count("/token/suzuki") == 2
    assert audit_lines(served, "suzuki")[len(before):] == [("suzuki", "signed_in")] * 2

    page.evaluate("document.querySelector('concierge-chat').signOut()")
    expect(frame.locator("#embed-message")).to_have_text("Signed out.")
    assert live_sessions(served, "suzuki") == 0


def _used(served: Served, host: Host) -> str:
    used = token("tanaka")
    res = httpx2.post(f"{served.url}/api/embed/session", json={"token": used, "origin": host.origin}, timeout=30)
    assert res.status_code == 200, res.text
    return used


REFUSED = {  # case -> (the token, the host page's language, what the chat says, the audit's code)
    "wrong signature": (lambda s, h: token("tanaka", key="another-secret-0123456789-abcdefghijkl"), "ja",
                        "サインイン用トークンの署名が正しくありません", "signature"),
    "wrong audience": (lambda s, h: token("tanaka", aud="someone-else"), "en",
                       'The sign-in token is meant for "someone-else", not for "concierge" (embed.audience).',
                       "audience"),
    "expired": (lambda s, h: token("tanaka", issued_ago_s=200), "ja", "サインイン用トークンの有効期限が切れています。"
                "ページを再読み込みして", "expired"),
    "replayed": (_used, "en", "This sign-in token was used already: each one signs in once. Reload the page",
                 "replayed"),
    "unknown user": (lambda s, h: token("nobody"), "ja", "concierge に \"nobody\" というユーザーはいません。"
                     "管理者に追加を依頼してください", "unknown_user"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_refused_token_signs_nobody_in_and_the_chat_says_why_in_the_users_language(case, page, host, served):
    make, lang, said, code = REFUSED[case]
    made = make(served, host)
    before = audit_lines(served)
    page.goto(host.origin + host.page(served.url, token=made, lang=lang))
    frame = chat(page)
    expect(frame.locator("#embed-error")).to_contain_text(said)
    expect(frame.locator("#embed-message")).to_have_text("サインインできませんでした。" if lang == "ja" else
                                                         "Could not sign in.")
    expect(frame.locator("#app")).to_be_hidden()
    assert [name for name, _detail in page.evaluate("window.seen")] == ["concierge-error"]
    assert page.evaluate("window.seen[0][1].code") == code
    assert audit_lines(served)[len(before):] == [("nobody" if code == "unknown_user" else "tanaka",
                                                  f"refused:{code}")]


def test_a_page_of_an_origin_not_configured_cannot_frame_the_chat(page, host, served):
    unused = token("admin")
    with page.expect_console_message(lambda m: "frame-ancestors" in m.text):
        page.goto(host.elsewhere + host.page(served.url, token=unused))
    assert [f.url for f in page.frames if f.url.startswith(served.url)] == []
    expect(chat(page).locator("#composer")).to_have_count(0)
    assert page.evaluate("window.seen") == []
    assert _refusal(served, {"token": unused, "origin": host.origin}) == (200, "")  # never handed over


# --- the edge, the token rules, the settings -----------------------------------------------------------------------
def test_only_the_embed_page_may_be_framed_and_only_by_the_configured_origin(host, served):
    with httpx2.Client(base_url=served.url, timeout=30) as http:
        embed, index = http.get("/embed"), http.get("/")
    assert f"frame-ancestors {host.origin};" in embed.headers["content-security-policy"]
    assert "x-frame-options" not in embed.headers
    assert "script-src 'self';" in embed.headers["content-security-policy"]
    assert embed.text == index.text  # the chat page itself, in embed mode
    assert "frame-ancestors 'none'" in index.headers["content-security-policy"]
    assert index.headers["x-frame-options"] == "DENY"


def test_only_the_script_is_readable_cross_origin_and_only_by_the_configured_origin(host, served):
    with httpx2.Client(base_url=served.url, timeout=30) as http:
        allowed = http.get("/embed.js", headers={"Origin": host.origin})
        other = http.get("/embed.js", headers={"Origin": host.elsewhere})
        api = http.get("/api/me", headers={"Origin": host.origin})
        preflight = http.options("/api/embed/session", headers={
            "Origin": host.origin, "Access-Control-Request-Method": "POST"})
    assert allowed.status_code == 200 and "customElements.define" in allowed.text
    assert allowed.headers["access-control-allow-origin"] == host.origin and allowed.headers["vary"] == "Origin"
    for res in (other, api, preflight):
        assert "access-control-allow-origin" not in res.headers, res.url


def test_a_host_origin_cannot_write_to_concierge_directly(host, served):
    """The framed page is concierge's own origin: a write a browser sends from the host's pages is still refused."""
    session = httpx2.post(f"{served.url}/api/embed/session", json={"token": token("admin"), "origin": host.origin},
                          timeout=30).json()["session"]
    cross = {"Origin": host.origin, "Sec-Fetch-Site": "cross-site", "X-Concierge-Session": session}
    with httpx2.Client(base_url=served.url, timeout=30) as http:
        assert http.get("/api/me", headers={"X-Concierge-Session": session}).json()["name"] == "admin"
        exchanged = http.post("/api/embed/session", headers=cross,
                              json={"token": token("admin"), "origin": host.origin})
        asked = http.post("/api/chat", headers=cross, json={"text": "顧客は何件？"})
    assert exchanged.status_code == 403 and asked.status_code == 403


def test_an_embedded_session_lasts_a_working_day_and_its_header_wins_over_a_cookie(host, served):
    """Tanaka has no password; the session the host's token started is his even in a browser where admin signed
    in to concierge itself (same site: the page's cookie comes along), and it ends after embed.session_s."""
    exchanged = httpx2.post(f"{served.url}/api/embed/session", json={"token": token("tanaka"), "origin": host.origin},
                            timeout=30).json()
    with httpx2.Client(base_url=served.url, timeout=30) as http:
        assert http.post("/api/login", json={"name": "admin", "password": PASSWORDS["admin"]}).status_code == 200
        assert http.get("/api/me").json()["name"] == "admin"
        assert http.get("/api/me", headers={"X-Concierge-Session": exchanged["session"]}).json()["name"] == "tanaka"
    table = schema.web_sessions
    engine = sa.create_engine(served.database)
    with engine.connect() as conn:
        row = conn.execute(sa.select(table.c.created_at, table.c.expires_at, table.c.fingerprint)
                           .where(table.c.user_name == "tanaka").order_by(table.c.created_at.desc())).first()
    engine.dispose()
    assert row is not None and row.fingerprint == "embedded"
    assert (row.expires_at - row.created_at).total_seconds() == 8 * 3600


def _refusal(served: Served, body: dict) -> tuple[int, str]:
    res = httpx2.post(f"{served.url}/api/embed/session", json=body, timeout=30)
    return res.status_code, res.json().get("code", "")


def _hs256(claims: dict, key: bytes) -> str:
    """A token signed with HS256 by hand, with any key (PyJWT refuses a public key as an HMAC secret)."""
    def part(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    signing = part(b'{"alg":"HS256","typ":"JWT"}') + "." + part(json.dumps(claims).encode())
    return signing + "." + part(hmac.new(key, signing.encode(), hashlib.sha256).digest())


def test_the_token_rules(host, served):
    origin, now = host.origin, int(time.time())
    claims = {"iss": ISSUER, "aud": "concierge", "sub": "admin", "iat": now, "exp": now + 60}
    public_pem = host.key.public_key().public_bytes(serialization.Encoding.PEM,
                                                    serialization.PublicFormat.SubjectPublicKeyInfo)
    jwks_json = host.jwks.encode()
    cases = {
        "none": (jwt.encode(claims, None, algorithm="none"), (401, "algorithm")),
        "hs256 with the published public key": (_hs256(claims, public_pem), (401, "signature")),
        "hs256 with the published key set": (_hs256(claims, jwks_json), (401, "signature")),
        "hs512": (jwt.encode(claims, SECRET * 2, algorithm="HS512"), (401, "algorithm")),
        "another key under the published kid": (
            token("admin", key=rsa.generate_private_key(public_exponent=65537, key_size=2048), algorithm="RS256",
                  headers={"kid": KID}), (401, "signature")),
        "a kid not published": (token("admin", key=host.key, algorithm="RS256", headers={"kid": "gone"}),
                                (401, "unknown_key")),
        "wrong issuer": (token("admin", iss="https://evil.example"), (401, "issuer")),
        "living an hour": (token("admin", life_s=3600), (401, "too_long")),
        "issued in the future": (token("admin", issued_ago_s=-600), (401, "not_yet")),
        "no iat": (token("admin", iat=None), (401, "claim")),
        "no user": (token(None), (401, "claim")),  # type: ignore[arg-type]
    }
    found = {case: _refusal(served, {"token": made, "origin": origin}) for case, (made, _want) in cases.items()}
    assert found == {case: want for case, (_made, want) in cases.items()}
    assert _refusal(served, {"token": token("admin"), "origin": host.elsewhere}) == (403, "origin")
    assert _refusal(served, {"token": "not.a.token", "origin": origin}) == (401, "malformed")


def test_embedding_is_off_unless_configured_and_a_configuration_that_cannot_check_tokens_does_not_start(web,
                                                                                                         provider):
    pipeline, client = web
    http = client()
    answers = [http.get("/embed"), http.get("/embed.js"),
               http.post("/api/embed/session", json={"token": token("admin"), "origin": "http://x.test"})]
    assert [a.status_code for a in answers] == [404, 404, 404]
    assert "embed.origins" in answers[0].json()["detail"]

    with pytest.raises(ConfigError) as bare:
        create_app(pipeline, provider=provider, secret=b"k",
                   embed=EmbedSettings(origins=("https://app.example.com",), secret="short"))
    said = str(bare.value)
    assert "embed.issuer" in said and "CONCIERGE_EMBED_SECRET has 5 characters" in said


def test_embed_settings_come_from_the_file_and_the_environment_and_the_secret_is_never_shown(tmp_path, monkeypatch):
    (tmp_path / "concierge.toml").write_text(
        '[embed]\norigins = ["HTTPS://App.Example.com:443/"]\nissuer = "https://app.example.com"\n', encoding="utf-8")
    settings = load_settings(environ={"CONCIERGE_EMBED_SECRET": SECRET}, cwd=tmp_path)
    assert settings.embed.origins == ("https://app.example.com",)
    assert settings.embed.secret is not None and settings.embed.secret.get_secret_value() == SECRET
    assert settings.sources["embed.secret"] == "env CONCIERGE_EMBED_SECRET"
    assert SECRET not in json.dumps(shown_values(settings)) and SECRET not in repr(settings)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONCIERGE_EMBED_SECRET", SECRET)
    shown = run_cli("config", "show")
    assert shown.exit_code == 0 and "embed.secret" in shown.output and SECRET not in shown.output

    (tmp_path / "concierge.toml").write_text(f'[embed]\nsecret = "{SECRET}"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as in_file:
        load_settings(environ={}, cwd=tmp_path)
    assert "CONCIERGE_EMBED_SECRET" in str(in_file.value) and SECRET not in str(in_file.value)

    (tmp_path / "concierge.toml").unlink()
    for key, value, problem in (("CONCIERGE_EMBED_ORIGINS", "https://*.example.com", "no wildcard"),
                                ("CONCIERGE_EMBED_ORIGINS", "https://app.example.com/chat", "no path"),
                                ("CONCIERGE_EMBED_JWKS_URL", "http://keys.example.com/jwks.json", "https://")):
        with pytest.raises(ConfigError) as bad:
            load_settings(environ={key: value}, cwd=tmp_path)
        assert problem in str(bad.value) and f"env {key}" in str(bad.value)
