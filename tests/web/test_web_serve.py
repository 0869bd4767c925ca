"""`concierge serve` from a fresh start: the first run prints the passwords once, and they work."""

from __future__ import annotations

import httpx2
from web_fakes import concierge_serve


def test_the_first_serve_prints_the_passwords_once_and_they_sign_in(sqlite_url):
    with concierge_serve(sqlite_url) as served:
        assert sorted(served.passwords) == ["admin", "pos_analyst", "suzuki", "tanaka"]
        with httpx2.Client(base_url=served.url) as http:
            assert http.post("/api/login", json={"name": "admin", "password": "wrong"}).status_code == 401
            res = http.post("/api/login", json={"name": "admin", "password": served.passwords["admin"]})
            assert res.status_code == 200 and res.json()["provider"] == "offline"
            assert http.get("/api/me").json()["name"] == "admin"
            assert http.post("/mcp", json={}).status_code == 401  # MCP wants a bearer token, not the cookie
        first = served.passwords
    with concierge_serve(sqlite_url) as served:
        assert served.passwords == {}
        assert "password" not in "".join(served.output).lower().replace("set-password", "")
        with httpx2.Client(base_url=served.url) as http:
            assert http.post("/api/login", json={"name": "tanaka", "password": first["tanaka"]}).status_code == 200
