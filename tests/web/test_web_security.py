"""The web app's edge under attack, over real HTTP to a real uvicorn on 127.0.0.1 (issue 11).

Bounded bodies (413, read no further), validation errors that echo nothing, no change from
another origin of the same host (403), the page's headers wherever HTML is served, and a
database that is down answered 503 with a JSON message, recovering on its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing, contextmanager

import httpx2
import pytest
import sqlalchemy as sa
from agent_fakes import answer, calls
from db_faults import database_down
from demo_databases import with_demos
from web_fakes import PASSWORDS, events, farm_sales, live, with_passwords

from concierge.demo.bootstrap import open_pipeline
from concierge.pipeline.pipeline import Pipeline
from concierge.storage import state as schema
from concierge.web.security import MAX_API_BODY_BYTES

SALE = {"code_customer": "0016", "products": "かぼちゃ4個", "price": 600, "date_sales_str": "2025-05-06"}
SALE_TEXT = "販売登録して。顧客コード0016のお客様に、先週火曜日、かぼちゃ4個を600円で売った。"
MB = 1024 * 1024
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def served(web_url, provider) -> Iterator[str]:
    with live(web_url, provider) as base:
        yield base


@contextmanager
def signed_in(base: str, name: str = "tanaka") -> Iterator[httpx2.Client]:
    with httpx2.Client(base_url=base, timeout=60) as client:
        res = client.post("/api/login", json={"name": name, "password": PASSWORDS[name]})
        assert res.status_code == 200, res.text
        yield client


def test_a_100_mb_body_is_refused_with_413_without_being_read(served):
    body = b'{"name": "' + b"a" * (100 * MB) + b'", "password": "x"}'
    with httpx2.Client(base_url=served, timeout=60) as http:
        declared = http.post("/api/login", content=body, headers=JSON)

        def chunks() -> Iterator[bytes]:  # no Content-Length: the server must stop reading by itself
            for _ in range(100):
                yield b"a" * MB

        try:
            chunked = http.post("/api/chat", content=chunks(), headers=JSON)
        except httpx2.TransportError:  # the server answered and closed before the client finished
            chunked = None
        after = http.post("/api/login", json={"name": "tanaka", "password": PASSWORDS["tanaka"]})
    assert declared.status_code == 413
    assert len(declared.content) < 1000 and "KiB" in declared.json()["detail"]
    assert chunked is None or chunked.status_code == 413
    assert after.status_code == 200  # and it goes on serving


def test_a_body_just_over_the_limit_is_413_and_one_under_it_is_read(served):
    with httpx2.Client(base_url=served, timeout=60) as http:
        for path in ("/api/login", "/api/chat", "/api/logout"):
            over = http.post(path, content=b" " * (MAX_API_BODY_BYTES + 1), headers=JSON)
            assert over.status_code == 413, path
        under = http.post("/api/login", json={"name": "tanaka", "password": "p" * (MAX_API_BODY_BYTES // 2)})
    assert under.status_code == 422  # read, and refused for what it says


def test_a_validation_error_names_the_field_and_never_echoes_the_input(served, web_url):
    marker = "ECHO-" + "x" * 40_000
    with httpx2.Client(base_url=served, timeout=60) as http:
        login = http.post("/api/login", json={"name": marker, "password": 5})
        extra = http.post("/api/login", content=b'{"' + marker.encode() + b'": 1', headers=JSON)
    with signed_in(served) as client:
        chat = client.post("/api/chat", json={"text": marker})
    for res in (login, extra, chat):
        assert res.status_code == 422
        assert "ECHO-" not in res.text and len(res.content) < 2000, res.text[:300]
    fields = {tuple(p["loc"]) for p in login.json()["detail"]}
    assert fields == {("body", "name"), ("body", "password")}
    assert all(p["msg"] for p in login.json()["detail"])
    with closing(open_pipeline(["farm"], web_url)) as pipeline:  # each refusal audited, the signed-in one by name
        assert [user for user, _ in refusals(pipeline, "refused:invalid_request")] == ["?", "?", "tanaka"]


def test_a_form_posted_from_another_port_cannot_confirm_the_victims_write(served, web_url, provider):
    with signed_in(served) as victim, closing(open_pipeline(["farm"], web_url)) as pipeline:
        provider.enqueue(calls(("add_sale", SALE)))
        session = events(victim.post("/api/chat", json={"text": SALE_TEXT}))[-1][1]["turn"]["session_id"]
        before = farm_sales(pipeline, "0016")
        port = int(served.rsplit(":", 1)[1])
        attacks = [  # what a browser sends for a form on http://127.0.0.1:OTHERPORT (SameSite=Lax does not stop it)
            {"Origin": f"http://127.0.0.1:{port + 1}", "Sec-Fetch-Site": "same-site"},
            {"Origin": f"http://127.0.0.1:{port + 1}"},  # a browser without Fetch Metadata
            {"Origin": "null"},  # a sandboxed frame
            {"Sec-Fetch-Site": "cross-site"},
            {"Origin": f"https://127.0.0.1:{port}", "Sec-Fetch-Site": "same-site"},
        ]
        for headers in attacks:
            for path in (f"/api/sessions/{session}/confirm", f"/api/sessions/{session}/cancel", "/api/logout"):
                refused = victim.post(path, data={"yes": "1"}, headers=headers)
                assert refused.status_code == 403, (path, headers)
                assert "another site" in refused.json()["detail"]
        assert farm_sales(pipeline, "0016") == before
        assert victim.get("/api/me").status_code == 200  # the logout was refused too
        assert refusals(pipeline, "refused:cross_site") == [("tanaka", "web 127.0.0.1")] * 15  # each one audited

        provider.enqueue(answer("登録しました。"))
        own_page = {"Origin": f"http://127.0.0.1:{port}", "Sec-Fetch-Site": "same-origin"}
        done = events(victim.post(f"/api/sessions/{session}/confirm", headers=own_page))
        assert done[-1][1]["turn"]["calls"][0]["status"] == "ok"
        assert len(farm_sales(pipeline, "0016")) == len(before) + 1


def refusals(pipeline: Pipeline, decision: str) -> list[tuple[str, str]]:
    table = schema.audit
    with pipeline.state.read() as conn:
        rows = conn.execute(sa.select(table.c.user_name, table.c.source).where(table.c.decision == decision)
                            .order_by(table.c.id)).all()
    return [tuple(r) for r in rows]


def test_every_html_answer_has_the_page_headers_and_every_answer_nosniff(served):
    with httpx2.Client(base_url=served, timeout=60) as http:
        page = http.get("/")
        static_page = http.get("/static/index.html", follow_redirects=True)
        answers = [http.get("/static/app.js"), http.get("/api/me"), http.get("/no/such/page"),
                   http.post("/api/login", json={})]
    for res in (page, static_page):
        assert res.status_code == 200 and res.headers["content-type"].startswith("text/html")
        assert "frame-ancestors 'none'" in res.headers["content-security-policy"]
        assert res.headers["x-frame-options"] == "DENY"
        assert res.headers["x-content-type-options"] == "nosniff"
    assert str(static_page.url).endswith(":" + served.rsplit(":", 1)[1] + "/")  # one address for the app page
    for res in answers:
        assert res.headers["x-content-type-options"] == "nosniff", res.url


@pytest.mark.postgres
def test_the_database_down_is_503_with_a_json_message_and_then_it_works_again(pg_url, pg_server, provider):
    with_demos(pg_url, "farm", "pos")
    url = with_passwords(pg_url)
    with live(url, provider) as base, signed_in(base, "admin") as client:
        with database_down(pg_server, url):
            down = [client.get("/api/sessions"),
                    client.post("/api/login", json={"name": "tanaka", "password": PASSWORDS["tanaka"]})]
        for res in down:
            assert res.status_code == 503, res.text
            assert res.headers["content-type"] == "application/json"
            assert "unavailable" in res.json()["detail"] and "Traceback" not in res.text
            assert res.headers["retry-after"].isdigit()
        assert client.get("/api/sessions").status_code == 200
        with signed_in(base, "tanaka") as tanaka:
            assert tanaka.get("/api/me").json()["name"] == "tanaka"
