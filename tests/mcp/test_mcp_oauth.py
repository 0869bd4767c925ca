"""A remote MCP host signs in with OAuth: `concierge serve` as a user runs it, the MCP SDK's own OAuth client, and a
person answering the consent page in Chromium.

The client finds the authorization server from the 401 of /mcp, registers (RFC 7591) or is known by its client
ID metadata document (served by this test over HTTPS on loopback), sends the person's browser to /authorize,
exchanges the code with PKCE, and calls the tools as that person: their role and rows. Then refresh, rotation,
revocation, and what must be refused.
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import hashlib
import json
import os
import re
import secrets
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
import pytest
from browsers import async_chromium
from cli_runner import run_cli
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from in_process_server import served_in_thread
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from mcp_servers import free_port, node_bin
from playwright.async_api import Browser, BrowserContext
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route
from web_fakes import Served, concierge_serve

from concierge.storage import oauth
from concierge.storage.database import Database

pytestmark = pytest.mark.anyio

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "raw", "version": "1"}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


# --- the test's own HTTPS server of client metadata documents ------------------------------------------------


def _certificate(folder: Path) -> tuple[Path, Path, Path]:
    """A CA, and a certificate for 127.0.0.1 signed by it: (ca.pem, cert.pem, key.pem)."""
    now = dt.datetime.now(dt.UTC)

    def made(subject: str, issuer_name: str, key, signer, *, ca: bool) -> x509.Certificate:
        builder = (x509.CertificateBuilder()
                   .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
                   .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer_name)]))
                   .public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=1))
                   .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if not ca:
            import ipaddress

            builder = builder.add_extension(
                x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        return builder.sign(signer, hashes.SHA256())

    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_cert = made("test CA", "test CA", ca_key, ca_key, ca=True)
    cert = made("127.0.0.1", "test CA", key, ca_key, ca=False)
    paths = folder / "ca.pem", folder / "cert.pem", folder / "key.pem"
    paths[0].write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return paths


class Documents:
    """Client metadata documents on https://127.0.0.1:PORT, and what was asked of it."""

    def __init__(self, base: str, callback: str):
        self.base, self.callback = base, callback
        self.hits: list[str] = []

    def url(self, name: str) -> str:
        return f"{self.base}/{name}"

    def app(self) -> Starlette:
        async def document(request: Request) -> Response:
            name = request.path_params["name"]
            self.hits.append(name)
            if name == "moved.json":
                return RedirectResponse(self.url("host.json"), status_code=302)
            if name == "huge.json":
                chunk = b" " * 65536
                return StreamingResponse(iter([b'{"client_id": "'] + [chunk] * 160), media_type="application/json")
            return JSONResponse({"client_id": self.url(name), "client_name": "Test host (metadata document)",
                                 "redirect_uris": [self.callback], "grant_types": ["authorization_code",
                                                                                    "refresh_token"],
                                 "response_types": ["code"], "token_endpoint_auth_method": "none"})

        return Starlette(routes=[Route("/{name}", document)])


@pytest.fixture(scope="module")
def documents(tmp_path_factory) -> Iterator[tuple[Documents, Path]]:
    folder = tmp_path_factory.mktemp("tls")
    ca, cert, key = _certificate(folder)
    docs = Documents("", f"http://127.0.0.1:{free_port()}/callback")
    with served_in_thread(docs.app(), ssl_certfile=str(cert), ssl_keyfile=str(key)) as url:
        docs.base = url.replace("http://", "https://", 1)  # the documents name themselves by the address served
        yield docs, ca


@pytest.fixture(scope="module")
def served(documents, tmp_path_factory) -> Iterator[Served]:
    """`concierge serve` on loopback (so OAuth is on, issuer http://127.0.0.1:PORT), trusting the test's CA."""
    _docs, ca = documents
    url = f"sqlite:///{tmp_path_factory.mktemp('oauth') / 'concierge.db'}"
    with concierge_serve(url, "--today", "2025-05-15", env={"SSL_CERT_FILE": str(ca)}) as served:
        yield served


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with async_chromium() as launched:
        yield launched


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


# --- the host: the SDK's OAuth client, with a person at the browser -----------------------------------------


class Memory:
    """The SDK's TokenStorage, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


class Person:
    """A person at the browser: opens what the client opens, signs in if asked, answers the consent page."""

    def __init__(self, context: BrowserContext, callback: str, name: str, password: str):
        self.context, self.callback, self.name, self.password = context, callback, name, password
        self.returned: str | None = None
        self.pages: list[str] = []

    async def redirect(self, url: str) -> None:
        page = await self.context.new_page()
        await page.route(self.callback + "*", self._landed)
        await page.goto(url)
        await page.wait_for_selector("button[value=allow]")  # after the page's one refresh that brings the cookie
        self.pages.append(await page.content())
        if await page.locator("input[name=password]").count():
            await page.fill("input[name=name]", self.name)
            await page.fill("input[name=password]", self.password)
        async with page.expect_request(self.callback + "*") as landed:
            await page.click("button[value=allow]")
        self.returned = (await landed.value).url
        await page.close()

    @staticmethod
    async def _landed(route) -> None:
        await route.fulfill(status=200, body="done")

    async def callback_result(self) -> AuthorizationCodeResult:
        assert self.returned is not None, "the browser never came back to the client"
        query = parse_qs(urlsplit(self.returned).query)
        return AuthorizationCodeResult(code=query["code"][0], state=query.get("state", [None])[0])


def metadata(callback: str, name: str) -> OAuthClientMetadata:
    return OAuthClientMetadata(client_name=name, redirect_uris=[callback],  # type: ignore[list-item]
                               grant_types=["authorization_code", "refresh_token"], response_types=["code"],
                               token_endpoint_auth_method="none")


@asynccontextmanager
async def connected(served: Served, auth: OAuthClientProvider) -> AsyncIterator[Client]:
    async with httpx2.AsyncClient(auth=auth, timeout=30) as http, Client(
            streamable_http_client(f"{served.url}/mcp", http_client=http)) as client:
        yield client


async def call_mcp(served: Served, token: str) -> int:
    async with httpx2.AsyncClient() as http:
        answer = await http.post(f"{served.url}/mcp", json=INITIALIZE,
                                 headers={**HEADERS, "Authorization": f"Bearer {token}"})
    return answer.status_code


# --- the flows ----------------------------------------------------------------------------------------------


async def test_a_host_that_registers_itself_signs_in_a_person_and_calls_as_them(served, browser, documents):
    docs, _ca = documents
    async with httpx2.AsyncClient() as http:
        refused = await http.post(f"{served.url}/mcp", json=INITIALIZE, headers=HEADERS)
        described = (await http.get(f"{served.url}/.well-known/oauth-protected-resource/mcp")).json()
        server = (await http.get(f"{served.url}/.well-known/oauth-authorization-server")).json()
    assert refused.status_code == 401
    assert f'resource_metadata="{served.url}/.well-known/oauth-protected-resource/mcp"' in \
        refused.headers["www-authenticate"]
    assert described["resource"] == f"{served.url}/mcp"
    assert "none" in server["token_endpoint_auth_methods_supported"]
    assert server["code_challenge_methods_supported"] == ["S256"]
    assert server["client_id_metadata_document_supported"] is True

    context = await browser.new_context(locale="ja-JP")
    person = Person(context, docs.callback, "tanaka", served.passwords["tanaka"])
    storage = Memory()
    auth = OAuthClientProvider(f"{served.url}/mcp", metadata(docs.callback, "Test host (registered)"), storage,
                               redirect_handler=person.redirect, callback_handler=person.callback_result)
    async with connected(served, auth) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        hidden = await client.call_tool("get_sales", {"code_customer": "0002"})
        own = await client.call_tool("get_customers", {"code_customer": "0015"})
    assert names == {"get_customers", "get_sales", "add_sale"}  # tanaka's role, not admin's
    assert hidden.is_error and hidden.structured_content["code"] == "not_found"  # tanaka's rows only
    assert own.structured_content["row_count"] == 1
    consent = person.pages[-1]
    assert "Test host (registered)" in consent and "あなたとして concierge を使おうとしています" in consent
    assert "<code>tools</code> (あなたのロールで使えるツールを、あなたとして)" in consent  # the scopes asked for
    assert storage.client is not None and storage.tokens is not None and storage.tokens.refresh_token

    # refresh with rotation: the new pair works, the old refresh token presented again ends the grant
    form = {"grant_type": "refresh_token", "client_id": storage.client.client_id}
    async with httpx2.AsyncClient() as http:
        renewed = await http.post(f"{served.url}/token", data={**form, "refresh_token": storage.tokens.refresh_token})
        fresh = renewed.json()
        assert renewed.status_code == 200 and fresh["refresh_token"] != storage.tokens.refresh_token
        assert await call_mcp(served, fresh["access_token"]) == 200
        reused = await http.post(f"{served.url}/token", data={**form, "refresh_token": storage.tokens.refresh_token})
    assert reused.status_code == 400 and reused.json()["error"] == "invalid_grant"
    assert await call_mcp(served, fresh["access_token"]) == 401  # a stolen refresh token ends the whole grant
    await context.close()


async def test_a_host_known_by_its_metadata_document_signs_in_a_person_already_signed_in(served, browser,
                                                                                           documents):
    docs, _ca = documents
    context = await browser.new_context()
    page = await context.new_page()  # the person signed in to the chat page earlier
    await page.goto(served.url)
    await page.fill("#signin-name", "suzuki")
    await page.fill("#signin-password", served.passwords["suzuki"])
    await page.click("#signin-form button[type=submit]")
    await page.wait_for_selector("#input", state="visible")
    person = Person(context, docs.callback, "suzuki", "not-needed")
    storage = Memory()
    auth = OAuthClientProvider(f"{served.url}/mcp", metadata(docs.callback, "ignored"), storage,
                               redirect_handler=person.redirect, callback_handler=person.callback_result,
                               client_metadata_url=docs.url("host.json"))
    async with connected(served, auth) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        write = await client.call_tool("add_sale", {"code_customer": "0002", "products": "x", "price": 1})
    assert names == {"get_customers", "get_sales"}  # suzuki reads only
    assert write.is_error and write.structured_content["code"] == "not_permitted"
    consent = person.pages[-1]
    assert "Test host (metadata document)" in consent and "input" not in consent.split("csrf")[-1].split("</form>")[0]
    assert storage.client is not None and storage.client.client_id == docs.url("host.json")

    listed = run_cli("token", "list", "--database", served.database, "--json")
    grants = [g for g in json.loads(listed.output) if g["user"] == "suzuki"]
    assert [g["label"] for g in grants] == ["Test host (metadata document)"] and grants[0]["state"] == "active"
    assert run_cli("token", "revoke", grants[0]["id"], "--database", served.database).exit_code == 0
    assert storage.tokens is not None
    assert await call_mcp(served, storage.tokens.access_token) == 401  # the next call after revocation
    await context.close()


async def test_a_client_revokes_its_own_token(served, documents):
    docs, _ca = documents
    issued = _grant(served, docs, f"{served.url}/mcp")
    assert await call_mcp(served, issued.access_token) == 200
    async with httpx2.AsyncClient() as http:
        answer = await http.post(f"{served.url}/revoke", data={"token": issued.refresh_token,
                                                               "client_id": docs.url("host.json")})
    assert answer.status_code == 200
    assert await call_mcp(served, issued.access_token) == 401


async def test_the_mcp_inspector_signs_in_with_oauth_and_lists_the_persons_tools(served, browser, tmp_path):
    """The Inspector 2.x CLI (a client no one here wrote): it registers, prints where the person must go, listens
    on its own loopback callback, and lists the tools once the person allowed it in the browser."""
    callback = f"http://127.0.0.1:{free_port()}/oauth/callback"
    inspector = await asyncio.create_subprocess_exec(
        str(node_bin("mcp-inspector")), "--cli", "--format", "json", "--transport", "http",
        "--server-url", f"{served.url}/mcp", "--method", "tools/list", "--callback-url", callback,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "HOME": str(tmp_path), "MCP_AUTO_OPEN_ENABLED": "true", "BROWSER": "true",
             "MCP_INSPECTOR_SECRET_STORE": "memory"})
    try:
        assert inspector.stderr is not None and inspector.stdout is not None
        told = ""
        while "Please navigate to:" not in told:
            line = await asyncio.wait_for(inspector.stderr.readline(), 30)
            assert line, f"the Inspector ended before it asked for the browser: {told}"
            told += line.decode()
        authorize = re.search(r"Please navigate to: (\S+)", told)
        assert authorize is not None
        context = await browser.new_context()
        page = await context.new_page()
        await page.goto(authorize.group(1))
        await page.fill("input[name=name]", "tanaka")
        await page.fill("input[name=password]", served.passwords["tanaka"])
        await page.click("button[value=allow]")
        listed = json.loads(await asyncio.wait_for(inspector.stdout.read(), 60))
        await context.close()
    finally:
        if inspector.returncode is None:
            inspector.kill()
        await inspector.wait()
    assert {t["name"] for t in listed["result"]["tools"]} == {"get_customers", "get_sales", "add_sale"}  # tanaka's role


# --- what must be refused -----------------------------------------------------------------------------------


def _code(served: Served, docs: Documents, resource: str, challenge: str = "x") -> str:
    """An authorization code of admin's, made in the state database as the consent page makes it (for what is
    not about consent)."""
    db = Database(served.database)
    try:
        consent = oauth.Consent(docs.url("host.json"), "Test", "admin", ("tools",), resource)
        return oauth.issue_code(db, consent, code_challenge=challenge, redirect_uri=docs.callback,
                                redirect_explicit=True)
    finally:
        db.dispose()


def _grant(served: Served, docs: Documents, resource: str) -> oauth.Issued:
    db = Database(served.database)
    try:
        issued = oauth.exchange_code(db, _code(served, docs, resource))
        assert issued is not None
        return issued
    finally:
        db.dispose()


async def test_a_token_issued_for_another_server_is_refused(served, documents):
    issued = _grant(served, documents[0], "https://elsewhere.example/mcp")
    assert await call_mcp(served, issued.access_token) == 401


async def test_a_wrong_pkce_verifier_gets_no_token(served, documents):
    docs, _ca = documents
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    code = _code(served, docs, f"{served.url}/mcp", challenge)
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": docs.callback,
            "client_id": docs.url("host.json")}
    async with httpx2.AsyncClient() as http:
        wrong = await http.post(f"{served.url}/token", data={**form, "code_verifier": secrets.token_urlsafe(48)})
        right = await http.post(f"{served.url}/token", data={**form, "code_verifier": verifier})
        again = await http.post(f"{served.url}/token", data={**form, "code_verifier": verifier})
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"
    assert right.status_code == 200 and right.json()["access_token"].startswith("coa_")
    assert again.status_code == 400  # a code works once


def _authorize(served: Served, client_id: str, redirect_uri: str) -> str:
    return f"{served.url}/authorize?" + urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri, "state": "s",
        "code_challenge": "E9Melhoa2OwvFrEMTJguCQaoWN9ceShpL9gd-uULxPU", "code_challenge_method": "S256"})


async def test_an_unregistered_redirect_uri_is_refused_without_redirecting(served, documents):
    docs, _ca = documents
    async with httpx2.AsyncClient() as http:
        answer = await http.get(_authorize(served, docs.url("host.json"), "http://127.0.0.1:9/stolen"))
        registered = await http.post(f"{served.url}/register", json={
            "client_name": "bad", "redirect_uris": ["http://evil.example/callback"],
            "token_endpoint_auth_method": "none"})
    assert answer.status_code == 400 and "location" not in answer.headers
    assert "not registered" in answer.json()["error_description"]
    assert registered.status_code == 400 and registered.json()["error"] == "invalid_redirect_uri"


@pytest.mark.parametrize("document", ["moved.json", "huge.json"])
async def test_a_metadata_document_that_redirects_or_is_huge_is_refused(served, documents, document):
    docs, _ca = documents
    async with httpx2.AsyncClient(timeout=30) as http:
        answer = await http.get(_authorize(served, docs.url(document), docs.callback))
    assert answer.status_code == 400 and "location" not in answer.headers
    assert docs.hits.count(document) >= 1
    assert "host.json" not in docs.hits[docs.hits.index(document):]  # the redirect was not followed


async def test_the_consent_page_cannot_be_framed_or_answered_from_another_site(served, documents):
    docs, _ca = documents
    async with httpx2.AsyncClient() as http:
        start = await http.get(_authorize(served, docs.url("host.json"), docs.callback))
        consent = await http.get(start.headers["location"] + "&again=1")
        signed = parse_qs(urlsplit(start.headers["location"]).query)["request"][0]
        forged = await http.post(f"{served.url}/oauth/consent", data={"request": signed, "decision": "allow",
                                                                      "csrf": "0" * 64})
        cross = await http.post(f"{served.url}/oauth/consent", data={"request": signed, "decision": "allow"},
                                headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"})
    assert start.status_code == 302 and start.headers["location"].startswith(f"{served.url}/oauth/consent?")
    assert consent.status_code == 200 and "Test host (metadata document)" in consent.text
    assert consent.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in consent.headers["content-security-policy"]
    assert forged.status_code == 403 and "location" not in forged.headers
    assert cross.status_code == 403


async def test_a_person_who_is_not_signed_in_can_say_no_without_signing_in(served, documents):
    docs, _ca = documents
    async with httpx2.AsyncClient() as http:
        start = await http.get(_authorize(served, docs.url("host.json"), docs.callback))
        consent = await http.get(start.headers["location"] + "&again=1")
        signed = parse_qs(urlsplit(start.headers["location"]).query)["request"][0]
        csrf = re.search(r"name='csrf' value='(\w+)'", consent.text)
        assert csrf is not None
        said_no = await http.post(f"{served.url}/oauth/consent", data={
            "request": signed, "csrf": csrf.group(1), "decision": "deny"})
    assert said_no.status_code == 303
    back = parse_qs(urlsplit(said_no.headers["location"]).query)
    assert said_no.headers["location"].startswith(docs.callback) and back["error"] == ["access_denied"]
    assert back["state"] == ["s"] and "code" not in back
