"""Red-team checks of the embedded chat (`<concierge-chat>`, the host app's JWT), as a hostile website, a thief of
a token or a stranger on the network would try them. Each test asserts the SAFE behaviour: a failing test is a
hole. The app runs in process (one for the module), embedding on for one host origin with a shared secret.
"""

from __future__ import annotations

import shutil
import time
import uuid
from collections.abc import Iterator

import jwt
import pytest
from agent_fakes import ScriptedProvider
from cli_runner import run_cli
from cryptography.hazmat.primitives.asymmetric import rsa
from pydantic import SecretStr
from starlette.testclient import TestClient

from concierge.demo.bootstrap import open_pipeline
from concierge.settings import EmbedSettings
from concierge.web import create_app
from concierge.web.embed import Embedding, Refused

HOST = "https://app.example.test"
EVIL = "https://evil.example.test"
SECRET = "embed-attack-secret-0123456789-abcdefghij"
SESSION = "X-Concierge-Session"


@pytest.fixture(scope="module")
def client(_web_template, tmp_path_factory) -> Iterator[TestClient]:
    path = tmp_path_factory.mktemp("embed-attacks") / "web.db"
    shutil.copyfile(_web_template, path)
    pipeline = open_pipeline(["farm", "pos"], f"sqlite:///{path}")
    app = create_app(pipeline, provider=ScriptedProvider(), secret=b"embed-attack-app-secret",
                     embed=EmbedSettings(origins=(HOST,), issuer=HOST, secret=SecretStr(SECRET)))
    try:
        with TestClient(app) as test_client:
            yield test_client
    finally:
        pipeline.close()


def _token(user: object = "tanaka", *, jti: bool = True, **claims: object) -> str:
    now = int(time.time())
    body = {"iss": HOST, "aud": "concierge", "sub": user, "iat": now, "exp": now + 60, **claims}
    if jti:
        body["jti"] = uuid.uuid4().hex
    return jwt.encode(body, SECRET, algorithm="HS256")


def _exchange(client: TestClient, token: str, origin: str = HOST, **headers: str):
    return client.post("/api/embed/session", json={"token": token, "origin": origin}, headers=headers)


def _flipped_last_char(token: str) -> str:
    """The same token, its signature's last base64url character changed in a bit that encodes nothing (an HS256
    signature is 32 bytes: the last of 43 characters carries 2 spare bits)."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    return token[:-1] + alphabet[alphabet.index(token[-1]) ^ 1]


def test_a_token_signs_in_once_whatever_its_encoding(client):
    """"A token signs in once: its jti (else its digest)": the digest of the text, while a JWT has other spellings
    of the same signed token (a spare bit of the last base64url character, a padding '=')."""
    for jti in (True, False):
        token = _token(jti=jti)
        assert _exchange(client, token).status_code == 200
        for copy in (token, _flipped_last_char(token), token + "="):
            again = _exchange(client, copy)
            assert again.status_code == 401, f"jti={jti}: a copy of a used token signed in again ({copy[-3:]})"


def test_no_other_site_can_send_the_session_header_or_exchange_a_token(client):
    session = _exchange(client, _token()).json()["session"]
    for origin in (HOST, EVIL):
        for path in ("/api/me", "/api/chat", "/api/embed/session", "/api/logout"):
            preflight = client.options(path, headers={
                "Origin": origin, "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "x-concierge-session,content-type"})
            assert "access-control-allow-origin" not in preflight.headers, (origin, path)
            assert "access-control-allow-headers" not in preflight.headers, (origin, path)
    cross = _exchange(client, _token(), HOST, Origin=HOST, **{"Sec-Fetch-Site": "cross-site"})
    write = client.post("/api/logout", headers={SESSION: session, "Origin": EVIL, "Sec-Fetch-Site": "cross-site"})
    assert cross.status_code == 403 and write.status_code == 403
    assert client.get("/api/me", headers={SESSION: session}).status_code == 200  # the refused sign-out did nothing


def test_only_the_embed_page_may_be_framed_and_only_by_the_host(client):
    embed, index = client.get("/embed"), client.get("/")
    assert embed.status_code == 200
    assert f"frame-ancestors {HOST}" in embed.headers["content-security-policy"]
    assert "x-frame-options" not in embed.headers  # it cannot name the host; the CSP does
    assert index.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in index.headers["content-security-policy"]
    for origin, allowed in ((HOST, True), (EVIL, False), ("null", False)):
        script = client.get("/embed.js", headers={"Origin": origin})
        assert (script.headers.get("access-control-allow-origin") == origin) is allowed


def test_a_huge_or_hostile_token_is_refused_cleanly(client):
    big = _token(padding="x" * 9000)
    assert _exchange(client, big).status_code == 422
    hostile = jwt.encode({"iss": HOST, "aud": "concierge", "sub": "tanaka", "iat": int(time.time()),
                          "exp": int(time.time()) + 60}, SECRET, algorithm="HS256",
                         headers={"kid": "../../../../etc/passwd", "jku": f"{EVIL}/jwks.json",
                                  "jwk": {"kty": "oct", "k": "QUFB"}})
    assert _exchange(client, hostile).status_code == 200  # the key comes from the settings, never the header
    for user in ("admin' OR '1'='1", "x" * 5000, ["tanaka"], {"name": "tanaka"}):
        refused = _exchange(client, _token(user))
        assert refused.status_code in (401, 403, 422), (user, refused.status_code)


def test_a_refusal_shows_no_credential_of_the_host_key_url(tmp_path, monkeypatch):
    """A refusal is answered to whoever posted the token (anyone): it names `embed.jwks_url`, which may carry the
    host's credentials (https://user:password@..., a signed query); so does `concierge config show`."""
    url = "http://keys:hunter2-key-password@127.0.0.1:9/jwks.json?sig=hunter2-signature"
    embedding = Embedding(EmbedSettings(origins=(HOST,), issuer=HOST, jwks_url=url))
    now = int(time.time())
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    token = jwt.encode({"iss": HOST, "aud": "concierge", "sub": "tanaka", "iat": now, "exp": now + 60}, key,
                       algorithm="RS256", headers={"kid": "k1"})
    with pytest.raises(Refused) as refused:
        embedding.claims(token)
    said = " ".join(refused.value.body().values())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONCIERGE_EMBED_JWKS_URL", url)
    shown = run_cli("config", "show")
    assert shown.exit_code == 0, shown.output
    leaks = {where: [line for line in text.splitlines() if "hunter2" in line]
             for where, text in (("the refusal anyone gets", said), ("concierge config show", shown.output))}
    assert not any(leaks.values()), leaks


def test_a_host_token_signs_in_only_the_roles_embed_roles_lists(tmp_path, _web_template):
    """`embed.roles`: a leaked signing key of the host app must not open an administrator's session."""
    shutil.copyfile(_web_template, tmp_path / "web.db")
    pipeline = open_pipeline(["farm", "pos"], f"sqlite:///{tmp_path / 'web.db'}")
    settings = EmbedSettings(origins=(HOST,), issuer=HOST, secret=SecretStr(SECRET), roles=("sales_rep",))
    try:
        with TestClient(create_app(pipeline, provider=ScriptedProvider(), secret=b"s", embed=settings)) as client:
            admin, tanaka = _exchange(client, _token("admin")), _exchange(client, _token("tanaka"))
    finally:
        pipeline.close()
    assert admin.status_code == 403 and admin.json()["code"] == "role"
    assert "embed.roles" in admin.json()["detail_ja"]
    assert tanaka.status_code == 200
