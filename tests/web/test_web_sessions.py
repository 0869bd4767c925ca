"""Sessions live in the state database: signing out, a password change, removing the user or
`concierge user sign-out NAME` end them at once, in every server process; the cookie is Secure over HTTPS."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from contextlib import ExitStack

import httpx2
import pytest
import sqlalchemy as sa
from cli_runner import run_cli
from web_fakes import PASSWORDS, live

from concierge.storage import state as schema
from concierge.storage.database import Database
from concierge.web.auth import COOKIE


@pytest.fixture
def two_processes(any_web_url, provider) -> Iterator[tuple[str, str]]:
    """Two servers on one state database, each with its own pipeline, engine and connections."""
    with ExitStack() as stack:
        yield stack.enter_context(live(any_web_url, provider)), stack.enter_context(live(any_web_url, provider))


_open: list[httpx2.Client] = []


@pytest.fixture(autouse=True)
def _close_clients() -> Iterator[None]:
    yield
    while _open:
        _open.pop().close()


def browser(base: str) -> httpx2.Client:
    client = httpx2.Client(base_url=base, timeout=30)
    _open.append(client)
    return client


def signed_in(base: str, name: str, password: str | None = None) -> httpx2.Client:
    client = browser(base)
    res = client.post("/api/login", json={"name": name, "password": password or PASSWORDS[name]})
    assert res.status_code == 200, res.text
    return client


def copied(base: str, client: httpx2.Client) -> httpx2.Client:
    """Another browser (an attacker's) with a copy of the cookie."""
    thief = browser(base)
    thief.cookies.set(COOKIE, client.cookies[COOKIE])
    return thief


def test_a_copied_cookie_stops_working_when_its_owner_signs_out_on_any_process(two_processes):
    a, b = two_processes
    owner = signed_in(a, "tanaka")
    thief_a, thief_b = copied(a, owner), copied(b, owner)
    assert thief_a.get("/api/me").json()["name"] == "tanaka" and thief_b.get("/api/me").status_code == 200
    assert owner.post("/api/logout").json() == {"signed_out": True}
    for client in (owner, thief_a, thief_b):
        assert client.get("/api/me").status_code == 401
        assert client.post("/api/chat", json={"text": "顧客一覧"}).status_code == 401
    assert signed_in(b, "tanaka").get("/api/me").status_code == 200  # signing in again works


def test_the_session_is_kept_server_side_and_only_as_a_hash(any_web_url, provider):
    with live(any_web_url, provider) as base:
        client = signed_in(base, "suzuki")
        cookie = client.cookies[COOKIE]
        db = Database(any_web_url)
        try:
            with db.read() as conn:
                rows = [dict(r) for r in conn.execute(sa.select(schema.web_sessions)).mappings()]
        finally:
            db.dispose()
        assert [r["user_name"] for r in rows] == ["suzuki"] and rows[0]["source"] == "web 127.0.0.1"
        session_id = json.loads(base64.urlsafe_b64decode(cookie.partition(".")[0] + "==="))["s"]
        assert all(session_id not in str(v) for v in rows[0].values())


@pytest.mark.parametrize("how", ["set-password", "remove", "sign-out"])
def test_an_admin_ends_every_session_of_a_user_at_once_in_every_process(two_processes, any_web_url, how):
    a, b = two_processes
    tanaka = [signed_in(a, "tanaka"), signed_in(b, "tanaka")]
    stolen = copied(b, tanaka[0])
    other = signed_in(a, "suzuki")
    command = {"set-password": ["user", "set-password", "tanaka", "--password-stdin"],
               "remove": ["user", "remove", "tanaka"], "sign-out": ["user", "sign-out", "tanaka"]}[how]
    done = run_cli(*command, "--database", any_web_url, stdin="a-brand-new-password\n")
    assert done.exit_code == 0, done.output
    if how == "sign-out":
        assert "signed tanaka out: 2 sessions ended" in done.output
    for client in (*tanaka, stolen):
        assert client.get("/api/me").status_code == 401, how
        assert client.get("/api/sessions").status_code == 401, how
    assert other.get("/api/me").status_code == 200  # nobody else is signed out
    if how != "remove":
        password = "a-brand-new-password" if how == "set-password" else None
        assert signed_in(b, "tanaka", password).get("/api/me").status_code == 200


def test_sign_out_of_an_unknown_user_names_the_users(any_web_url):
    done = run_cli("user", "sign-out", "nobody", "--database", any_web_url)
    assert done.exit_code == 2 and "nobody" in done.output and "tanaka" in done.output


def _set_cookie(base: str, **headers: str) -> str:
    res = browser(base).post("/api/login", json={"name": "admin", "password": PASSWORDS["admin"]}, headers=headers)
    assert res.status_code == 200, res.text
    return res.headers["set-cookie"].lower()


def test_the_cookie_is_secure_when_set_so_or_when_a_trusted_proxy_says_https(web_url, provider):
    with live(web_url, provider, secure_cookie=True) as base:
        assert "; secure" in _set_cookie(base)
    with live(web_url, provider) as base:  # no trusted proxy: a client cannot say it came over HTTPS
        assert "; secure" not in _set_cookie(base, **{"X-Forwarded-Proto": "https"})
    with live(web_url, provider, trusted_proxy="127.0.0.1") as base:
        assert "; secure" in _set_cookie(base, **{"X-Forwarded-Proto": "https"})
        assert "; secure" not in _set_cookie(base, **{"X-Forwarded-Proto": "http"})
