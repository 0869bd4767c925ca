"""examples/freee/catalog.yaml through the real pipeline against a local server on 127.0.0.1 that speaks freee
会計's wire format (its token endpoint and GET /api/1/deals) and checks it strictly; never the real freee.

What the server (and the catalog) rely on, from freee's public documentation:

- https://raw.githubusercontent.com/freee/freee-api-schema/master/v2020_06_15/open-api-3/api-schema.json (freee
  会計 API's OpenAPI schema): the endpoint is https://api.freee.co.jp/ (https only), OAuth 2.0; the common error
  body is {"status_code": 400, "errors": [{"type": "status", "messages": ["不正なリクエストです。"]},
  {"type": "validation", "messages": ["Date は不正な日付フォーマットです。入力例:2019-12-17"]}]}; too many
  requests are answered 403 (usable again after about ten minutes), some endpoints 429.
- https://developer.freee.co.jp/tutorials/getting-access-token: Authorization Code Grant; the token request is a
  form-encoded POST to https://accounts.secure.freee.co.jp/public_api/token with grant_type, client_id and
  client_secret in the form (client_secret_post); a refresh token gets a new access token, and one refresh token
  cannot be used twice: keep the new one each time.
- https://developer.freee.co.jp/reference/faq/token_lifetime: an access token lasts 6 hours (expires_in 21600), a
  refresh token 90 days; a refresh that fails is answered 401.
- The deals list (the schema, and glama.ai/mcp/servers/wengbin21/mcp-server-freee/tools/list_deals):
  GET /api/1/deals with company_id (required), type (income/expense), status, partner_id, start_issue_date and
  end_issue_date (yyyy-mm-dd), offset, and limit (at most 100); the answer is {"deals": [{"id", "company_id",
  "issue_date", "due_date", "amount", "due_amount", "type", "partner_id", "partner_code", "ref_number", "status",
  "details": [...]}], "meta": {"total_count": n}} with amounts as JSON integers.

Not confirmed in the documentation searched (from memory, or assumed): the authorize URL
https://accounts.secure.freee.co.jp/public_api/authorize (an older guide shows secure.freee.co.jp/oauth/authorize);
that freee accepts a loopback callback URL http://127.0.0.1:8765/callback and the PKCE parameters; the token
endpoint's error body ({"error": "invalid_grant", ...} here); the messages of a 401 and of an unknown company and
its status (404 here); any bound on `offset`; the order of the deals (by issue date, then id, here); the scope
to ask for (`read` here: a 2019 reader's token answer shows "read write default_read", and freee may set an app's
permissions in its settings rather than by scope).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider
from concierge.catalog.loader import parse_catalog
from concierge.pipeline import audit
from concierge.pipeline.pipeline import Pipeline
from concierge.storage import users
from concierge.storage.database import Database
from concierge.storage.migrate import ensure_state
from concierge.storage.source_grants import GrantStore

EXAMPLE = Path(__file__).parents[3] / "examples" / "freee" / "catalog.yaml"
CLIENT_ID, CLIENT_SECRET = "freee-client-4411", "freee-secret-9d8c7b6a5f4e"
FIRST_REFRESH = "rt-first-0123456789abcdef"
COMPANY = "1234567"
SEALING_KEY = "test-sealing-key-freee-0123456789"
DEAL_PARAMS = {"company_id", "partner_id", "account_item_id", "partner_code", "status", "type", "start_issue_date",
               "end_issue_date", "start_due_date", "end_due_date", "start_renew_date", "end_renew_date", "offset",
               "limit"}
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def deals() -> list[dict[str, Any]]:
    """1,300 deals over three months: a type in a period is more than a page of 100."""
    out = []
    for n in range(1, 1301):
        amount = n * 1100 + (n % 9) * 13
        out.append({"id": 100_000 + n, "company_id": int(COMPANY), "issue_date": date(2026, 9 + n % 3, 1 + n % 28)
                    .isoformat(), "due_date": None, "amount": amount, "due_amount": amount if n % 4 == 0 else 0,
                    "type": "income" if n % 5 else "expense", "partner_id": 500 + n % 7, "partner_code": None,
                    "ref_number": f"R-{n}", "status": "unsettled" if n % 4 == 0 else "settled", "details": []})
    return out


def failure(status: int, *messages: str, validation: str | None = None) -> dict[str, Any]:
    errors: list[dict[str, Any]] = [{"type": "status", "messages": list(messages)}]
    if validation:
        errors.append({"type": "validation", "messages": [validation]})
    return {"status_code": status, "errors": errors}


@dataclass
class Freee:
    base_url: str = ""
    records: list[dict[str, Any]] = field(default_factory=deals)
    refresh: set[str] = field(default_factory=lambda: {FIRST_REFRESH})  # live refresh tokens, each good once
    access: set[str] = field(default_factory=set)
    token_requests: list[dict[str, str]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    always_401: bool = False


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    freee: Freee

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, doc: Any) -> None:
        data = json.dumps(doc, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        with contextlib.suppress(BrokenPipeError):
            self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        if urlsplit(self.path).path != "/public_api/token":
            return self._send(404, failure(404, "Not Found"))
        if not (self.headers.get("Content-Type") or "").startswith("application/x-www-form-urlencoded"):
            self.freee.problems.append("token request not form-encoded")
            return self._send(400, {"error": "invalid_request"})
        pairs = parse_qsl(body, keep_blank_values=True, strict_parsing=True)
        form = dict(pairs)
        self.freee.token_requests.append({**form, "authorization": self.headers.get("Authorization") or ""})
        if len(form) != len(pairs) or self.headers.get("Authorization"):
            self.freee.problems.append("a field twice, or Basic as well as the form")
            return self._send(400, {"error": "invalid_request"})
        if form.get("client_id") != CLIENT_ID or form.get("client_secret") != CLIENT_SECRET:
            return self._send(401, {"error": "invalid_client", "error_description": "client authentication failed"})
        if form.get("grant_type") != "refresh_token" or set(form) != {"grant_type", "client_id", "client_secret",
                                                                      "refresh_token"}:
            self.freee.problems.append(f"unexpected token request {sorted(form)}")
            return self._send(400, {"error": "unsupported_grant_type"})
        if form["refresh_token"] not in self.freee.refresh:  # used already, revoked or never issued
            return self._send(401, {"error": "invalid_grant", "error_description": "refresh token is invalid"})
        self.freee.refresh.discard(form["refresh_token"])
        access, renewed = "at-" + secrets.token_hex(16), "rt-" + secrets.token_hex(16)
        self.freee.access.add(access)
        self.freee.refresh.add(renewed)
        self._send(200, {"access_token": access, "token_type": "bearer", "expires_in": 21600,
                         "refresh_token": renewed, "scope": "read", "created_at": 1796342400,
                         "company_id": int(COMPANY)})

    def do_GET(self) -> None:  # noqa: N802
        url = urlsplit(self.path)
        pairs = parse_qsl(url.query, keep_blank_values=True, strict_parsing=bool(url.query))
        self.freee.requests.append({"path": url.path, "params": pairs, "headers": dict(self.headers.items())})
        if url.path != "/api/1/deals":
            return self._send(404, failure(404, "指定されたリソースが見つかりませんでした。"))
        bearer = self.headers.get("Authorization") or ""
        if not bearer.startswith("Bearer ") or bearer[7:] not in self.freee.access or self.freee.always_401:
            return self._send(401, failure(401, "不正なアクセストークンです。"))
        got = dict(pairs)
        unknown = set(got) - DEAL_PARAMS
        if len(got) != len(pairs) or unknown or "company_id" not in got:
            return self._send(400, failure(400, "不正なリクエストです。", validation=f"unknown or repeated: {unknown}"))
        if got["company_id"] != COMPANY:
            return self._send(404, failure(404, "事業所が見つかりません。"))
        for name in ("start_issue_date", "end_issue_date"):
            if name in got and not DATE.fullmatch(got[name]):
                return self._send(400, failure(400, "不正なリクエストです。",
                                               validation="Date は不正な日付フォーマットです。入力例:2019-12-17"))
        offset, limit = int(got.get("offset", "0")), int(got.get("limit", "20"))
        if not 1 <= limit <= 100 or offset < 0 or got.get("type", "income") not in ("income", "expense"):
            return self._send(400, failure(400, "不正なリクエストです。", validation="limit は 1 以上 100 以下です。"))
        found = [d for d in self.freee.records
                 if d["type"] == got.get("type", d["type"])
                 and got.get("start_issue_date", "0") <= d["issue_date"] <= got.get("end_issue_date", "9")]
        found.sort(key=lambda d: (d["issue_date"], d["id"]))
        self._send(200, {"deals": found[offset:offset + limit], "meta": {"total_count": len(found)}})


@contextmanager
def serving() -> Iterator[Freee]:
    freee = Freee()
    server = ThreadingHTTPServer(("127.0.0.1", 0), type("Bound", (Handler,), {"freee": freee}))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    freee.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield freee
    finally:
        server.shutdown()
        server.server_close()


# --- the pipeline -------------------------------------------------------------------------------------
@pytest.fixture
def freee(monkeypatch):
    monkeypatch.setenv("CONCIERGE_SECRET", SEALING_KEY)
    with serving() as running:
        yield running


def open_example(tmp_path, freee: Freee, secret: str = CLIENT_SECRET, *, grant: str | None = FIRST_REFRESH,
                 company: str = COMPANY) -> Pipeline:
    db = Database(f"sqlite:///{tmp_path / 'state.db'}")
    ensure_state(db)
    users.add(db, "suzuki", "accounting")
    # the example's https:// hosts become the local server; everything else is the file as shipped
    text = EXAMPLE.read_text(encoding="utf-8")
    for host in ("https://api.freee.co.jp", "https://accounts.secure.freee.co.jp"):
        assert host in text
        text = text.replace(host, freee.base_url)
    text = text.replace(f"company_id: {COMPANY}", f"company_id: {company}")
    catalog = parse_catalog(text, str(EXAMPLE), {"FREEE_CLIENT_ID": CLIENT_ID, "FREEE_CLIENT_SECRET": secret})
    p = Pipeline([catalog], db, today=date(2026, 12, 4))
    if grant is not None:  # as `concierge services authorize freee` leaves it
        GrantStore(p.state).put("freee", grant, "read")
    return p


@pytest.fixture
def example(tmp_path, freee):
    pipeline = open_example(tmp_path, freee)
    yield pipeline
    pipeline.close()


def call(p: Pipeline, args: dict[str, Any]):
    return p.invoke("deals_in_period", args, p.user("suzuki"))


def secrets_in(p: Pipeline, freee: Freee, *extra: str) -> list[str]:
    return [CLIENT_SECRET, FIRST_REFRESH, *freee.access, *freee.refresh, *extra]


def written(p: Pipeline, result, caplog) -> str:
    return (str(result.to_json()) + str(audit.latest(p.state, 10)) + caplog.text
            + p.catalogs[0].spec.model_dump_json() + repr(p.catalogs[0]) + repr(p.catalogs[0].sources))


NOVEMBER = {"type": "income", "start": "2026-10-01", "end": "2026-11-30"}


def test_deals_of_a_period_are_every_page_and_the_totals_are_exact(example, freee, caplog):
    caplog.set_level(logging.DEBUG)
    result = call(example, NOVEMBER)
    want = [d for d in freee.records if d["type"] == "income" and "2026-10-01" <= d["issue_date"] <= "2026-11-30"]
    assert len(want) > 500  # several pages of 100
    assert result.status == "ok", result.message
    assert result.row_count == len(want)
    assert result.totals["amount"] == sum(d["amount"] for d in want)
    assert result.totals["due_amount"] == sum(d["due_amount"] for d in want)
    first = sorted(want, key=lambda d: (d["issue_date"], d["id"]))[0]
    assert result.rows[0] == {k: first[k] for k in ("id", "issue_date", "type", "amount", "due_amount", "status",
                                                    "partner_id", "ref_number")}
    assert len(freee.requests) == len(want) // 100 + 1
    sent = [dict(r["params"]) for r in freee.requests]
    assert [(s["offset"], s["limit"]) for s in sent] == [(str(n * 100), "100") for n in range(len(sent))]
    assert sent[0] == {"company_id": COMPANY, "type": "income", "start_issue_date": "2026-10-01",
                       "end_issue_date": "2026-11-30", "offset": "0", "limit": "100"}
    assert {r["path"] for r in freee.requests} == {"/api/1/deals"}
    [asked] = freee.token_requests  # one refresh for all the pages
    assert asked == {"grant_type": "refresh_token", "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET,
                     "refresh_token": FIRST_REFRESH, "authorization": ""}
    [token] = freee.access
    assert {r["headers"]["Authorization"] for r in freee.requests} == {f"Bearer {token}"}
    grant = GrantStore(example.state).get("freee")
    assert grant is not None and grant.refresh_token in freee.refresh  # the rotated one is kept
    assert freee.problems == []
    shown = written(example, result, caplog)
    assert not [s for s in secrets_in(example, freee) if s in shown]


def test_an_expired_access_token_is_renewed_once_with_the_rotated_refresh_token(example, freee, caplog):
    caplog.set_level(logging.DEBUG)
    small = {"type": "expense", "start": "2026-11-01", "end": "2026-11-10"}
    assert call(example, small).status == "ok"
    freee.access.clear()  # freee ended the token before its 6 hours
    result = call(example, small)
    assert result.status == "ok"
    want = [d for d in freee.records if d["type"] == "expense" and "2026-11-01" <= d["issue_date"] <= "2026-11-10"]
    assert result.row_count == len(want) and result.totals["amount"] == sum(d["amount"] for d in want)
    assert [r["refresh_token"] for r in freee.token_requests][0] == FIRST_REFRESH
    assert len(freee.token_requests) == 2 and freee.token_requests[1]["refresh_token"] != FIRST_REFRESH
    assert len(freee.requests) == 3  # the one 401, then the request once more
    assert freee.problems == []
    assert not [s for s in secrets_in(example, freee) if s in written(example, result, caplog)]


def test_a_refresh_token_used_elsewhere_says_to_authorize_again(tmp_path, freee, caplog):
    caplog.set_level(logging.DEBUG)
    freee.refresh.clear()  # another process used it: freee refuses a refresh token the second time
    p = open_example(tmp_path, freee)
    result = call(p, NOVEMBER)
    assert result.status == "error" and freee.requests == []
    assert "concierge services authorize freee` again" in (result.message or "")
    assert "もう一度 `concierge services authorize freee`" in (result.message_ja or "")
    assert not [s for s in secrets_in(p, freee) if s in written(p, result, caplog)]
    p.close()


def test_without_a_grant_the_message_says_to_authorize(tmp_path, freee):
    p = open_example(tmp_path, freee, grant=None)
    result = call(p, NOVEMBER)
    assert result.status == "error" and "concierge services authorize freee" in (result.message or "")
    assert freee.requests == [] and freee.token_requests == []
    p.close()


def test_a_wrong_client_secret_is_actionable_and_never_written_down(tmp_path, freee, caplog):
    caplog.set_level(logging.DEBUG)
    p = open_example(tmp_path, freee, secret="freee-wrong-secret-1234")
    result = call(p, NOVEMBER)
    assert result.status == "error" and "client_id and client_secret" in (result.message or "")
    assert freee.requests == []
    assert "freee-wrong-secret-1234" not in written(p, result, caplog)
    p.close()


def test_an_unknown_company_is_freees_error_body_turned_into_what_to_check(tmp_path, freee, caplog):
    caplog.set_level(logging.DEBUG)
    p = open_example(tmp_path, freee, company="7654321")
    result = call(p, NOVEMBER)
    assert result.status == "error" and "company_id" in (result.message or "") and "company_id" in (
        result.message_ja or "")
    assert "事業所が見つかりません" not in (result.message or "")  # the body's words are not passed on raw
    assert len(freee.requests) == 1
    assert not [s for s in secrets_in(p, freee) if s in written(p, result, caplog)]
    p.close()


def test_a_401_that_stays_says_to_authorize_again_after_one_more_try(example, freee):
    freee.always_401 = True
    result = call(example, NOVEMBER)
    assert result.status == "error" and "concierge services authorize freee" in (result.message or "")
    assert len(freee.requests) == 2 and len(freee.token_requests) == 2


def test_an_unknown_type_is_refused_before_anything_is_sent(example, freee):
    result = call(example, {"type": "income&company_id=1", "start": "2026-11-01", "end": "2026-11-30"})
    assert result.status == "refused" and freee.requests == [] and freee.token_requests == []


@pytest.mark.anyio
@pytest.mark.parametrize(("question", "kind", "count_word"), [("2026年11月の収入の取引の合計は？", "income", "{n}件"),
                                                         ("Total of expense deals last month", "expense",
                                                          "{n} expense deals")])
async def test_a_question_is_answered_from_every_page(example, freee, question, kind, count_word):
    agent = Agent(example, OfflineProvider(example))
    turn = await agent.ask(question, example.user("suzuki"))
    want = [d for d in freee.records if d["type"] == kind and d["issue_date"].startswith("2026-11")]
    total = sum(d["amount"] for d in want)
    assert count_word.format(n=len(want)) in turn.answer, turn.answer
    assert f"{total:,}" in turn.answer, turn.answer
    shown = json.dumps([c.__dict__ for c in turn.calls], default=str, ensure_ascii=False)
    assert not [s for s in secrets_in(example, freee) if s in shown]
