"""Red-team checks of concierge as the OAuth 2.1 authorization server of its /mcp, as a hostile client, website or
stranger on the network would try them. Each test asserts the SAFE behaviour: a failing test is a hole.

One app for the module, served by uvicorn in a thread on a free loopback port (its `public_url`, so OAuth is on as
`concierge serve` turns it on by itself there), with the embedded chat on too (for the embedded session that must
not answer the consent page). The module's own loopback HTTP server serves client metadata documents, slow and
trickling ones included, and counts the connections it gets.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
import secrets
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
import jwt
import pytest
from agent_fakes import ScriptedProvider
from cli_runner import run_cli
from demo_databases import with_demos
from in_process_server import served_in_thread
from pydantic import SecretStr
from web_fakes import PASSWORDS, with_passwords

from concierge.demo.bootstrap import open_pipeline
from concierge.mcp import client_documents
from concierge.mcp.client_documents import ClientDocuments, DocumentRefused
from concierge.mcp.oauth import Provider
from concierge.pipeline.pipeline import Pipeline
from concierge.settings import EmbedSettings
from concierge.storage import oauth, passwords, users
from concierge.storage.database import Database
from concierge.web import create_app

CALLBACK = "https://client.example.test/callback"
OTHER_CALLBACK = "https://other.example.test/callback"
HOST_ORIGIN = "https://app.example.test"
EMBED_SECRET = "embed-attack-secret-0123456789-abcdefghij"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "raw", "version": "1"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
SLOW_S = 1.2


# --- the stranger's document server ---------------------------------------------------------------------------


class Documents:
    """Client metadata documents on http://127.0.0.1:PORT/<kind>/<name>: `doc` answers at once, `slow` after
    `SLOW_S`, `trickle` a byte at a time; `js` and `cleartext` list redirect URIs a registration may not."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        self.connections = 0
        docs = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = self.path
                docs.hits.append(path)
                kind = path.strip("/").split("/")[0]
                redirects = {"js": ["javascript:alert(document.domain)//"],
                             "cleartext": ["http://evil.example.test/callback"]}.get(kind, [CALLBACK])
                body = json.dumps({"client_id": docs.base + path, "client_name": f"Doc {kind}",
                                   "redirect_uris": redirects, "token_endpoint_auth_method": "none"}).encode()
                if kind == "slow":
                    time.sleep(SLOW_S)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                step = max(1, len(body) // 8)
                try:
                    if kind == "trickle":  # a piece every 0.15 s, well under any per-read timeout
                        for i in range(0, len(body), step):
                            self.wfile.write(body[i:i + step])
                            self.wfile.flush()
                            time.sleep(0.15)
                    else:
                        self.wfile.write(body)
                except OSError:  # the fetch gave up: what the test wants
                    pass

            def log_message(self, *_args) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def verify_request(self, request, client_address) -> bool:
                docs.connections += 1
                return True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def url(self, kind: str, name: str | None = None) -> str:
        return f"{self.base}/{kind}/{name or uuid.uuid4().hex[:10]}"


@pytest.fixture(scope="module")
def documents() -> Iterator[Documents]:
    docs = Documents()
    thread = threading.Thread(target=docs.server.serve_forever, daemon=True)
    thread.start()
    yield docs
    docs.server.shutdown()
    docs.server.server_close()


# --- the server under attack ----------------------------------------------------------------------------------


@dataclass
class Served:
    url: str
    database: str
    pipeline: Pipeline

    @property
    def db(self) -> Database:
        return self.pipeline.state


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[Served]:
    url = with_passwords(f"sqlite:///{tmp_path_factory.mktemp('oauth-attacks') / 'concierge.db'}")
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    pipeline = open_pipeline(["farm", "pos"], url)
    embed = EmbedSettings(origins=(HOST_ORIGIN,), issuer=HOST_ORIGIN, secret=SecretStr(EMBED_SECRET))
    app = create_app(pipeline, provider=ScriptedProvider(), secret=b"oauth-attack-secret", public_url=base,
                     embed=embed)
    try:
        with served_in_thread(app, port=port, proxy_headers=False) as started:
            assert started == base
            yield Served(base, url, pipeline)
    finally:
        pipeline.close()


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


# --- a client, a browser, a person -----------------------------------------------------------------------------


def _browser(served: Served) -> httpx2.Client:
    return httpx2.Client(base_url=served.url, follow_redirects=False, timeout=20)


@contextmanager
def _signed_in(served: Served, name: str, password: str | None = None) -> Iterator[httpx2.Client]:
    with _browser(served) as browser:
        answer = browser.post("/api/login", json={"name": name, "password": password or PASSWORDS[name]})
        assert answer.status_code == 200, answer.text
        yield browser


def _register(served: Served, name: str = "Attack host", redirect: str = CALLBACK, method: str = "none") -> dict:
    answer = httpx2.post(f"{served.url}/register", timeout=20, json={
        "client_name": name, "redirect_uris": [redirect], "token_endpoint_auth_method": method,
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]})
    assert answer.status_code == 201, answer.text
    return answer.json()


def _pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    return verifier, base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


def _authorize(client_id: str, redirect: str = CALLBACK, challenge: str | None = None, **extra: str) -> str:
    query = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect, "state": "st",
             "code_challenge": challenge or _pkce()[1], "code_challenge_method": "S256", **extra}
    return "/authorize?" + urlencode({k: v for k, v in query.items() if v is not None})


def _form(page: str) -> tuple[str, str]:
    """The consent form's (request, csrf)."""
    signed = re.search(r"name='request' value='([^']+)'", page)
    csrf = re.search(r"name='csrf' value='([0-9a-f]+)'", page)
    assert signed and csrf, page
    return signed.group(1), csrf.group(1)


def _consent_page(browser: httpx2.Client, client_id: str, redirect: str = CALLBACK,
                  challenge: str | None = None, **headers: str) -> httpx2.Response:
    started = browser.get(_authorize(client_id, redirect, challenge))
    assert started.status_code == 302 and "/oauth/consent?" in started.headers["location"], started.text
    return browser.get(started.headers["location"] + "&again=1", headers=headers)


def _allowed(browser: httpx2.Client, client_id: str, redirect: str = CALLBACK) -> tuple[str, str]:
    """A person signed in on `browser` allows the client: (code, PKCE verifier)."""
    verifier, challenge = _pkce()
    page = _consent_page(browser, client_id, redirect, challenge)
    signed, csrf = _form(page.text)
    answer = browser.post("/oauth/consent", data={"request": signed, "csrf": csrf, "decision": "allow"})
    assert answer.status_code == 303, answer.text
    return parse_qs(urlsplit(answer.headers["location"]).query)["code"][0], verifier


def _token(served: Served, client: dict, **form: str) -> httpx2.Response:
    data = {"client_id": client["client_id"], **form}
    if client.get("client_secret"):
        data["client_secret"] = client["client_secret"]
    return httpx2.post(f"{served.url}/token", data=data, timeout=20)


def _exchange(served: Served, client: dict, code: str, verifier: str, redirect: str = CALLBACK) -> httpx2.Response:
    return _token(served, client, grant_type="authorization_code", code=code, code_verifier=verifier,
                  redirect_uri=redirect)


def _tokens(served: Served, browser: httpx2.Client, client: dict) -> dict:
    code, verifier = _allowed(browser, client["client_id"])
    answer = _exchange(served, client, code, verifier)
    assert answer.status_code == 200, answer.text
    return answer.json()


def _mcp(served: Served, access: str) -> int:
    return httpx2.post(f"{served.url}/mcp", json=INITIALIZE, timeout=20,
                       headers={**MCP_HEADERS, "Authorization": f"Bearer {access}"}).status_code


def _person(served: Served, name: str) -> AbstractContextManager[httpx2.Client]:
    """A user of the test's own (tanaka's role, a password), signed in on a fresh browser."""
    role = served.pipeline.user("tanaka").role
    users.add(served.db, name, role)
    passwords.set_password(served.db, name, f"{name}-pass-123456")
    return _signed_in(served, name, f"{name}-pass-123456")


# --- the protocol: PKCE, codes, redirect URIs, clients ----------------------------------------------------------


def test_pkce_plain_or_missing_never_reaches_the_consent_page(served):
    client = _register(served)
    with _browser(served) as browser:
        plain = browser.get(_authorize(client["client_id"], code_challenge_method="plain"))
        missing = browser.get(_authorize(client["client_id"]).replace("code_challenge=", "x="))
    for answer in (plain, missing):
        assert "/oauth/consent" not in answer.headers.get("location", ""), answer.headers


def test_a_code_is_bound_to_its_client_its_redirect_uri_and_its_verifier(served):
    mine, theirs = _register(served, "Mine"), _register(served, "Theirs")
    with _signed_in(served, "tanaka") as browser:
        code, verifier = _allowed(browser, mine["client_id"])
    stolen = _exchange(served, theirs, code, verifier)
    redirected = _exchange(served, mine, code, verifier, redirect=OTHER_CALLBACK)
    no_verifier = _token(served, mine, grant_type="authorization_code", code=code, redirect_uri=CALLBACK)
    assert stolen.status_code == 400 and redirected.status_code == 400 and no_verifier.status_code == 400
    assert _exchange(served, mine, code, verifier).status_code == 200  # none of those spent it


def test_a_reused_code_ends_the_tokens_it_gave(served):
    """OAuth 2.1 §4.1.3: a code presented twice SHOULD revoke what it gave (someone else holds it)."""
    client = _register(served)
    with _signed_in(served, "tanaka") as browser:
        code, verifier = _allowed(browser, client["client_id"])
    first = _exchange(served, client, code, verifier)
    assert first.status_code == 200
    again = _exchange(served, client, code, verifier)
    assert again.status_code == 400
    assert _mcp(served, first.json()["access_token"]) == 401


def test_another_client_can_neither_refresh_nor_revoke_a_grant(served):
    mine, theirs = _register(served, "Mine"), _register(served, "Theirs")
    with _signed_in(served, "tanaka") as browser:
        issued = _tokens(served, browser, mine)
    refreshed = _token(served, theirs, grant_type="refresh_token", refresh_token=issued["refresh_token"])
    for token in (issued["access_token"], issued["refresh_token"]):
        revoked = httpx2.post(f"{served.url}/revoke", data={"token": token, "client_id": theirs["client_id"]})
        assert revoked.status_code == 200  # RFC 7009: nothing said about another's token
    assert refreshed.status_code == 400
    assert _mcp(served, issued["access_token"]) == 200
    renewed = _token(served, mine, grant_type="refresh_token", refresh_token=issued["refresh_token"])
    assert renewed.status_code == 200  # the refusals did not spend it


def test_a_confidential_client_must_send_its_secret_to_refresh_and_revoke(served):
    client = _register(served, "Confidential", method="client_secret_post")
    assert client.get("client_secret")
    with _signed_in(served, "tanaka") as browser:
        issued = _tokens(served, browser, client)
    public = {**client, "client_secret": None}
    refreshed = _token(served, public, grant_type="refresh_token", refresh_token=issued["refresh_token"])
    revoked = httpx2.post(f"{served.url}/revoke", data={"token": issued["access_token"],
                                                        "client_id": client["client_id"]})
    assert refreshed.status_code == 401
    assert revoked.status_code == 401
    assert _mcp(served, issued["access_token"]) == 200


def test_an_access_token_is_no_refresh_token_and_a_refresh_token_no_access_token(served):
    client = _register(served)
    with _signed_in(served, "tanaka") as browser:
        issued = _tokens(served, browser, client)
    assert _mcp(served, issued["refresh_token"]) == 401
    with _browser(served) as browser:  # an OAuth token is no web session
        assert browser.get("/api/me", headers={"Authorization": f"Bearer {issued['access_token']}"}).status_code == 401
    swapped = _token(served, client, grant_type="refresh_token", refresh_token=issued["access_token"])
    assert swapped.status_code == 400
    other_resource = _token(served, client, grant_type="refresh_token", refresh_token=issued["refresh_token"],
                            resource="https://elsewhere.example.test/mcp")
    if other_resource.status_code == 200:  # a token for another resource must not come of it
        assert oauth.check_access(served.db, other_resource.json()["access_token"]).consent.resource == \
            f"{served.url}/mcp"


# --- the people behind the grants ----------------------------------------------------------------------------


def test_a_user_removed_and_added_again_inherits_no_grant(served):
    """users.remove promises that someone added later under the same name inherits nothing they could sign in
    with; an OAuth grant (a refresh token lives 30 days, and rotates) is such a thing."""
    client = _register(served, "Ex-employee's Claude")
    with _person(served, "leaver") as browser:
        issued = _tokens(served, browser, client)
    assert _mcp(served, issued["access_token"]) == 200
    users.remove(served.db, "leaver")
    assert _mcp(served, issued["access_token"]) == 401
    users.add(served.db, "leaver", served.pipeline.user("admin").role)  # a new person, an admin, same name
    assert _mcp(served, issued["access_token"]) == 401
    refreshed = _token(served, client, grant_type="refresh_token", refresh_token=issued["refresh_token"])
    assert refreshed.status_code == 400
    assert [g.state for g in oauth.list_grants(served.db, "leaver")] in ([], ["revoked"])


def test_a_password_change_ends_the_users_oauth_grants(served):
    """A grant came from a password sign-in on the consent page; the password changed (stolen, or the person left
    the team) ends the web sessions of that password, and a demanding admin expects the hosts' grants too."""
    client = _register(served)
    with _person(served, "rotated") as browser:
        issued = _tokens(served, browser, client)
    passwords.set_password(served.db, "rotated", "a-brand-new-password-42")
    assert _mcp(served, issued["access_token"]) == 401
    refreshed = _token(served, client, grant_type="refresh_token", refresh_token=issued["refresh_token"])
    assert refreshed.status_code == 400


# --- the consent page --------------------------------------------------------------------------------------------


def test_the_consent_page_escapes_a_hostile_client_name_and_redirect_uri(served):
    hostile = "\"'><script>alert(1)</script><img src=x onerror=alert(2)>"
    redirect = "https://client.example.test/cb?x='\"><svg/onload=alert(3)>"
    client = _register(served, hostile, redirect=redirect)
    with _signed_in(served, "tanaka") as browser:
        page = _consent_page(browser, client["client_id"], redirect)
    assert page.status_code == 200
    assert "<script>alert" not in page.text and "<img" not in page.text and "<svg" not in page.text
    policy = page.headers["content-security-policy"]
    assert "form-action 'self' https://client.example.test" in policy and "frame-ancestors 'none'" in policy
    assert page.headers["x-frame-options"] == "DENY"


def test_the_consent_form_is_bound_to_its_browser_and_its_request(served):
    mine, other = _register(served, "Mine"), _register(served, "Other")
    with _signed_in(served, "tanaka") as victim, _signed_in(served, "suzuki") as attacker:
        signed, csrf = _form(_consent_page(attacker, mine["client_id"]).text)
        theirs = victim.post("/oauth/consent", data={"request": signed, "csrf": csrf, "decision": "allow"})
        other_signed, _ = _form(_consent_page(attacker, other["client_id"]).text)
        swapped = attacker.post("/oauth/consent", data={"request": other_signed, "csrf": csrf, "decision": "allow"})
        tampered = attacker.post("/oauth/consent", data={"request": signed[:-2] + "AA", "csrf": csrf,
                                                         "decision": "allow"})
        cross = attacker.post("/oauth/consent", data={"request": signed, "csrf": csrf, "decision": "allow"},
                              headers={"Origin": "https://evil.example.test", "Sec-Fetch-Site": "cross-site"})
    assert theirs.status_code == 403 and swapped.status_code == 403 and tampered.status_code == 400
    assert cross.status_code == 403
    for answer in (theirs, swapped, tampered, cross):
        assert "code=" not in answer.headers.get("location", "")


def test_a_session_the_host_apps_token_started_cannot_answer_the_consent_page(served):
    """The embedded chat's session (no password, started by the host app's JWT, sent as X-Concierge-Session)
    must not turn into an OAuth grant: a 30-day, self-renewing token for any client, outliving the session."""
    now = int(time.time())
    host_token = jwt.encode({"iss": HOST_ORIGIN, "aud": "concierge", "sub": "tanaka", "iat": now, "exp": now + 60,
                             "jti": uuid.uuid4().hex}, EMBED_SECRET, algorithm="HS256")
    exchanged = httpx2.post(f"{served.url}/api/embed/session", json={"token": host_token, "origin": HOST_ORIGIN})
    assert exchanged.status_code == 200, exchanged.text
    header = {"X-Concierge-Session": exchanged.json()["session"]}
    client = _register(served, "Someone's client")
    with _browser(served) as browser:
        page = _consent_page(browser, client["client_id"], **header)
        if "name='csrf'" not in page.text:
            return  # the page refused that session outright
        signed, csrf = _form(page.text)
        answer = browser.post("/oauth/consent", data={"request": signed, "csrf": csrf, "decision": "allow"},
                              headers=header)
    assert "code=" not in answer.headers.get("location", ""), "an embedded session granted an OAuth client"


# --- client metadata documents: what a stranger's URL can make the server do ------------------------------------


@pytest.mark.anyio
async def test_one_slow_document_does_not_hold_up_another_clients_authorization(served, documents):
    """`ClientDocuments` fetches under one asyncio.Lock: a stranger's document that answers slowly (or a queue of
    them) makes every other host's /authorize and /token wait. Claude's must not wait for it."""
    slow, quick = documents.url("slow"), documents.url("doc")
    async with httpx2.AsyncClient(base_url=served.url, timeout=30) as http:
        stalled = asyncio.create_task(http.get(_authorize(slow)))
        await asyncio.sleep(0.3)  # the slow fetch holds the lock now
        began = time.monotonic()
        answer = await http.get(_authorize(quick))
        waited = time.monotonic() - began
        await stalled
    assert answer.status_code == 302
    assert waited < 0.6, f"another client's /authorize waited {waited:.1f} s for a stranger's slow document"


@pytest.mark.anyio
async def test_a_trickling_document_is_cut_off_at_the_timeout(monkeypatch, documents):
    """The docs promise a document within TIMEOUT_S; httpx's timeout is per read, so a byte every so often keeps a
    fetch (and the lock above) for as long as the stranger likes."""
    monkeypatch.setattr(client_documents, "TIMEOUT_S", 0.4)
    began = time.monotonic()
    with pytest.raises(DocumentRefused):
        await ClientDocuments(["tools"]).client(documents.url("trickle"))  # 1.2 s of trickle
    assert time.monotonic() - began < 0.9


@pytest.mark.anyio
async def test_a_public_server_fetches_no_document_from_loopback_or_private_addresses(served, documents, caplog,
                                                                                     monkeypatch):
    """With a public https issuer (behind a proxy), a stranger's client ID must not make the server call its own
    loopback services (http:// is allowed there for a client on the same machine) or a private address."""
    monkeypatch.setattr(client_documents, "TIMEOUT_S", 0.3)
    provider = Provider(served.db, issuer="https://concierge.example.test",
                        resource="https://concierge.example.test/mcp", consent_url=lambda _pending: "")
    before, probe = documents.connections, documents.url("doc", "ssrf-probe")
    found = await provider.get_client(probe)
    assert found is None and documents.connections == before, "a stranger's URL made the server call loopback"
    caplog.set_level("WARNING", logger=client_documents.log.name)
    for url in ("https://10.0.0.1/client.json", "https://169.254.169.254/latest/meta-data",
                "https://[fd00::1]/client.json", "https://[::ffff:10.0.0.1]/client.json"):
        assert await provider.get_client(url) is None
    tried = [r.getMessage() for r in caplog.records if "could not be read" in r.getMessage()]
    assert not tried, f"the server tried to fetch from private addresses: {tried}"


@pytest.mark.parametrize("kind", ["js", "cleartext"])
def test_a_documents_redirect_uris_follow_the_rules_of_a_registered_one(served, documents, kind):
    """A registration may not name javascript: or a plain-http network host as redirect URI; a document must not
    either (docs/mcp.md: https://, a loopback http:// address, or a private-use scheme)."""
    url = documents.url(kind)
    redirect = {"js": "javascript:alert(document.domain)//", "cleartext": "http://evil.example.test/callback"}[kind]
    with _browser(served) as browser:
        answer = browser.get(_authorize(url, redirect))
    assert answer.status_code == 400 and "location" not in answer.headers, answer.headers.get("location")


def test_a_client_id_with_control_characters_is_refused_cleanly(served, documents):
    bad = documents.url("doc") + "\nINJECTED line"
    authorize = httpx2.get(served.url + _authorize(bad), timeout=20)
    token = httpx2.post(f"{served.url}/token", timeout=20, data={"client_id": bad, "grant_type": "refresh_token",
                                                                 "refresh_token": "cor_x"})
    assert authorize.status_code == 400 and token.status_code in (400, 401), (authorize.status_code,
                                                                              token.status_code)


def test_an_authorization_error_of_a_strangers_client_is_not_an_open_redirect(served, documents):
    """Anyone can make a client (a document on their site, or /register) whose redirect URI is their own page:
    /authorize must not send a browser there by itself, before any person allowed that client (RFC 9700
    §4.11.2, the authorization server as open redirector): a link on concierge's own address would land on it."""
    stranger = documents.url("doc")
    with _browser(served) as browser:
        for extra in ({"scope": "nothing"}, {"code_challenge_method": "plain"}, {"resource": "https://x.test/"}):
            answer = browser.get(_authorize(stranger, **extra))
            assert not answer.headers.get("location", "").startswith(CALLBACK), (extra, answer.headers["location"])


# --- registration ----------------------------------------------------------------------------------------------


def test_a_registration_is_bounded_in_size(served):
    """/register is outside the app's 64 KiB body limit: a stranger may store a client as large as they like,
    10,000 times over (MAX_CLIENTS)."""
    answer = httpx2.post(f"{served.url}/register", timeout=30, json={
        "client_name": "x" * 512 * 1024, "redirect_uris": [CALLBACK], "token_endpoint_auth_method": "none"})
    assert answer.status_code in (400, 413), f"{answer.status_code}: a 512 KiB client name was registered"


def test_a_registration_flood_evicts_no_client_with_a_grant(served, monkeypatch):
    kept = _register(served, "In use")
    with _signed_in(served, "tanaka") as browser:
        issued = _tokens(served, browser, kept)
    monkeypatch.setattr(oauth, "MAX_CLIENTS", 3)
    flood = [_register(served, f"flood {i}") for i in range(6)]
    assert oauth.registered_client(served.db, kept["client_id"]) is not None
    assert oauth.registered_client(served.db, flood[-1]["client_id"]) is not None
    renewed = _token(served, kept, grant_type="refresh_token", refresh_token=issued["refresh_token"])
    assert renewed.status_code == 200


# --- what the admin reads -----------------------------------------------------------------------------------------


def test_token_list_prints_no_terminal_escape_a_client_chose(served):
    """The grant's label is the client's name, chosen by whoever registered it; `concierge token list` prints it
    to the admin's terminal."""
    registered = httpx2.post(f"{served.url}/register", timeout=20, json={
        "client_name": "Nice host\x1b]0;owned\x07\x1b[2J\x1b[31m", "redirect_uris": [CALLBACK],
        "token_endpoint_auth_method": "none"})
    if registered.status_code == 400:
        return  # refused at the door
    client = registered.json()
    with _signed_in(served, "tanaka") as browser:
        _tokens(served, browser, client)
    listed = run_cli("token", "list", "--database", served.database)
    assert listed.exit_code == 0, listed.output
    assert "Nice host" in listed.output and "\x1b" not in listed.output and "\x07" not in listed.output


def test_a_registered_clients_secret_is_not_kept_in_the_clear(served):
    client = _register(served, "Confidential", method="client_secret_post")
    stored = oauth.registered_client(served.db, client["client_id"])
    assert stored is not None and client["client_secret"] not in stored


# --- the state database under two processes -----------------------------------------------------------------------


@pytest.mark.postgres
def test_a_refresh_token_raced_by_two_processes_gives_one_pair_on_postgresql(pg_url, monkeypatch):
    """Rotation reads the token, then marks it used, in READ COMMITTED: a thief racing the client must not get a
    second, undetected chain of tokens (one of the two must be refused, or the grant ended)."""
    url = with_demos(pg_url, "farm", "pos")
    db, other = Database(url), Database(url)  # two server processes
    try:
        consent = oauth.Consent("https://host.example.test/c.json", "Host", "tanaka", ("tools",),
                                "https://concierge.example.test/mcp")
        code = oauth.issue_code(db, consent, code_challenge="c", redirect_uri=CALLBACK, redirect_explicit=True)
        issued = oauth.exchange_code(db, code)
        assert issued is not None
        real_issue, results = oauth._issue, []

        def racing() -> None:
            try:
                results.append(oauth.refresh(other, issued.refresh_token, ("tools",)))
            except oauth.GrantReused:
                results.append("reused")

        thief = threading.Thread(target=racing)

        def slow_issue(conn, *args):
            if not thief.is_alive() and not results:
                thief.start()
                time.sleep(0.5)  # the thief reads the token as not used yet, and waits on its row
            return real_issue(conn, *args)

        monkeypatch.setattr(oauth, "_issue", slow_issue)
        try:
            results.append(oauth.refresh(db, issued.refresh_token, ("tools",)))
        except oauth.GrantReused:
            results.append("reused")
        thief.join(timeout=10)
        pairs = [r for r in results if isinstance(r, oauth.Issued)]
        live = [p for p in pairs if oauth.check_access(db, p.access_token) is not None]
        assert len(live) <= 1, "two live token chains came of one refresh token"
    finally:
        db.dispose()
        other.dispose()
