"""X-Forwarded-For/-Proto/-Host are believed from a configured trusted proxy only; from anyone else they are dropped."""

from __future__ import annotations

import httpx2
import pytest
from cli_runner import run_cli
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient
from web_fakes import PASSWORDS, live

from concierge.storage import tokens
from concierge.storage.database import Database
from concierge.web.proxy import TrustedProxy, parse_trusted


async def _echo(request: Request) -> JSONResponse:
    return JSONResponse({"client": request.client.host if request.client else None, "scheme": request.url.scheme,
                         "host": request.headers.get("host"),
                         "forwarded": request.headers.get("x-forwarded-for")})


def seen(trusted: str, peer: str, headers: dict[str, str]) -> dict:
    app = TrustedProxy(Starlette(routes=[Route("/", _echo)]), trusted=trusted)
    with TestClient(app, client=(peer, 40000), base_url="http://upstream:8000") as client:
        return client.get("/", headers=headers).json()


NGINX = {"X-Forwarded-For": "203.0.113.7", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "concierge.example"}


@pytest.mark.parametrize("trusted, peer, headers, expected", [
    ("", "10.0.0.5", NGINX, ("10.0.0.5", "http", "upstream:8000", None)),
    ("10.0.0.1", "10.0.0.5", NGINX, ("10.0.0.5", "http", "upstream:8000", None)),
    ("10.0.0.5", "10.0.0.5", NGINX, ("203.0.113.7", "https", "concierge.example", "203.0.113.7")),
    ("10.0.0.0/24", "10.0.0.5", NGINX, ("203.0.113.7", "https", "concierge.example", "203.0.113.7")),
    ("*", "10.0.0.5", NGINX, ("203.0.113.7", "https", "concierge.example", "203.0.113.7")),
    # a client's own X-Forwarded-For before the proxy's entry: the proxy's (rightmost) entry counts
    ("10.0.0.5", "10.0.0.5", {"X-Forwarded-For": "198.51.100.1, 203.0.113.7"}, ("203.0.113.7", "http",
                                                                                "upstream:8000", None)),
    # two trusted proxies in a row: the first address from the right that is not one of them
    ("10.0.0.0/24", "10.0.0.5", {"X-Forwarded-For": "203.0.113.7, 10.0.0.9"}, ("203.0.113.7", "http",
                                                                              "upstream:8000", None)),
    ("10.0.0.5", "10.0.0.5", {"X-Forwarded-For": "not-an-address", "X-Forwarded-Proto": "gopher",
                              "X-Forwarded-Host": "evil.example/../x"}, ("10.0.0.5", "http", "upstream:8000", None)),
])
def test_forwarded_headers_count_only_from_a_trusted_proxy(trusted, peer, headers, expected):
    got = seen(trusted, peer, headers)
    assert (got["client"], got["scheme"], got["host"]) == expected[:3]
    believed = trusted not in ("", "10.0.0.1")
    # from an untrusted peer the headers are dropped: nothing downstream can read a client's claim
    assert got["forwarded"] == (headers.get("X-Forwarded-For") if believed else None)


def test_a_bad_trusted_proxy_setting_is_refused_with_the_forms_it_takes(tmp_path):
    with pytest.raises(ValueError, match=r"'proxy\.local' is not an IP address or network"):
        parse_trusted("127.0.0.1, proxy.local")
    served = run_cli("serve", "--trusted-proxy", "proxy.local", "--port", "0",
                     "--database", f"sqlite:///{tmp_path / 'x.db'}")
    assert served.exit_code == 2 and "10.0.0.0/8" in served.output and "from flag" in served.output


def _mcp(base: str, token: str, **headers: str) -> int:
    with httpx2.Client(base_url=base, timeout=30) as http:
        return http.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                         headers={"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {token}",
                                  **headers}).status_code


def test_the_host_a_trusted_proxy_names_is_the_one_checked(web_url, provider):
    db = Database(web_url)
    try:
        token = tokens.create(db, "admin")
    finally:
        db.dispose()
    options = {"allowed_hosts": ["concierge.example"]}
    with live(web_url, provider, trusted_proxy="127.0.0.1", **options) as base:
        assert _mcp(base, token, **{"X-Forwarded-Host": "evil.example"}) == 421  # DNS rebinding through the proxy
        assert _mcp(base, token, **{"X-Forwarded-Host": "concierge.example"}) != 421
        with httpx2.Client(base_url=base, timeout=30) as http:  # the page's origin is the proxy's
            behind = {"X-Forwarded-Host": "concierge.example", "X-Forwarded-Proto": "https",
                      "Origin": "https://concierge.example"}
            res = http.post("/api/login", json={"name": "admin", "password": PASSWORDS["admin"]}, headers=behind)
            assert res.status_code == 200 and "; secure" in res.headers["set-cookie"].lower()
    with live(web_url, provider, **options) as base:  # no trusted proxy: the header is nobody's to believe
        assert _mcp(base, token, **{"X-Forwarded-Host": "evil.example"}) != 421
