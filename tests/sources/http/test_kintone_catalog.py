"""examples/kintone/catalog.yaml through the real pipeline against a local server on 127.0.0.1 that speaks
kintone's REST API wire format (GET /k/v1/records.json) and checks it strictly; never the real kintone.

What the server (and the catalog) rely on, from kintone's public documentation:

- https://cybozu.dev/ja/kintone/docs/rest-api/records/get-records/ (read in its zh-tw edition,
  https://cybozu.dev/zh-tw/kintone/docs/rest-api/records/get-records): GET https://<subdomain>.cybozu.com/k/v1/
  records.json with `app` (required), `query`, `fields` (in a query string `fields[0]`, `fields[1]` ...,
  subscripts 0 to 99) and `totalCount`, URL-encoded as the query string; at most 500 records a request,
  given by the query's `limit` (100 when omitted); the query's `offset` is at most 10,000 (since July 2020).
- The answer: {"records": [{"<field code>": {"type": "...", "value": ...}}], "totalCount": null or "<n>"}:
  every value a string, a NUMBER field's too ("1200000"); `$id` is the record number's field code in a query.
- https://cybozu.dev/ja/kintone/docs/overview/query/ and its readers (qiita.com/_muraham/items/
  38279f7499f12a761aff, ribbit.konomi.app/kintone/rest/query-syntax): `field = "value"`, `in ("a", "b")`,
  `like`, `>=`, `and`/`or`, then `order by <field> asc|desc`, `limit n`, `offset n`, in that order
  (qiita.com/wv-sumichan/items/785915c9a643a11bd3ca); string values in double quotes, a `"` or `\\` inside
  one escaped with a backslash.
- API tokens are sent in the header `X-Cybozu-API-Token`, several joined with commas (zenn.dev/ak2ie/articles/
  9dff54b6b2c240 shows the header). Errors are a JSON body {"code": "...", "id": "...", "message": "..."};
  `CB_NO02` is "no permission" (toyokumo-blog.kintoneapp.com/kintone-error-code/). That a wrong token is
  `GAIA_IA02`, and the HTTP status it comes with (401 here; kintone has also used 520), is from memory, not
  confirmed in the documentation searched: the catalog maps the body's `code`, which holds either way.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import socket
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

EXAMPLE = Path(__file__).parents[3] / "examples" / "kintone" / "catalog.yaml"
TOKEN = "kt-secret-0123456789abcdef"
APP = "1"
STATUSES = ["商談中", "提案中", "受注", "失注"]
FIELDS = ["$id", "会社名", "担当者", "金額", "ステータス", "受注予定日"]


def deals() -> list[dict[str, Any]]:
    """2,600 deals: a status in a period is more than a page of 500."""
    out = []
    for n in range(1, 2601):
        out.append({"$id": n, "会社名": ["山田商事", "佐藤工業", "鈴木物産", 'A"B or 1 = 1'][n % 4],
                    "担当者": ["田中", "高橋"][n % 2], "金額": n * 1000 + (n % 5) * 7,
                    "ステータス": STATUSES[n % 4] if n % 7 else "受注",
                    "受注予定日": date(2026, 10 + n % 3, 1 + n % 28)})
    return out


# --- the kintone query language, as far as the catalog uses it ----------------------------------------
_TOKEN = re.compile(r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<num>\d+)|(?P<op>>=|<=|!=|=|<|>|\(|\)|,)'
                    r'|(?P<word>[^\s()=<>!,"]+))')


def tokens(text: str) -> list[tuple[str, Any]]:
    out, at = [], 0
    while at < len(text.rstrip()):
        m = _TOKEN.match(text, at)
        if m is None:
            raise SyntaxError(f"at {at}: {text[at:]!r}")
        kind = m.lastgroup or ""
        value: Any = m.group(kind)
        if kind == "str":
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        out.append((kind, value))
        at = m.end()
    return out


@dataclass
class Query:
    conditions: list[tuple[str, str, list[str]]]  # field, operator, values; joined by `and`
    order: list[tuple[str, str]]
    limit: int
    offset: int


class Parser:
    """A strict reading: conditions joined by `and`, then order by, limit, offset; anything else refused."""

    def __init__(self, text: str):
        self.toks, self.i = tokens(text), 0

    def peek(self) -> tuple[str, Any]:
        return self.toks[self.i] if self.i < len(self.toks) else ("end", None)

    def take(self, kind: str, value: str | None = None) -> Any:
        got = self.peek()
        if got[0] != kind or (value is not None and got[1] != value):
            raise SyntaxError(f"expected {value or kind} at token {self.i} of {self.toks}")
        self.i += 1
        return got[1]

    def parse(self) -> Query:
        conditions = []
        while self.peek()[0] != "end" and self.peek()[1] not in ("order", "limit", "offset"):
            conditions.append(self.condition())
            if self.peek() == ("word", "and"):
                self.i += 1
            elif self.peek()[1] not in (None, "order", "limit", "offset"):
                raise SyntaxError(f"only `and` joins conditions here, not {self.peek()[1]!r}")
        order = []
        if self.peek() == ("word", "order"):
            self.i += 1
            self.take("word", "by")
            order.append((self.take("word"), self.take("word")))
            while self.peek() == ("op", ","):
                self.i += 1
                order.append((self.take("word"), self.take("word")))
        limit = self.option("limit", 100)
        offset = self.option("offset", 0)
        if self.peek()[0] != "end":
            raise SyntaxError(f"left over: {self.toks[self.i:]}")
        return Query(conditions, order, limit, offset)

    def condition(self) -> tuple[str, str, list[str]]:
        name = self.take("word")
        if self.peek() == ("word", "in"):
            self.i += 1
            self.take("op", "(")
            values = [self.take("str")]
            while self.peek() == ("op", ","):
                self.i += 1
                values.append(self.take("str"))
            self.take("op", ")")
            return name, "in", values
        kind, op = self.peek()
        if kind != "op" and op != "like":
            raise SyntaxError(f"no operator after {name}")
        self.i += 1
        return name, op, [self.take("str")]

    def option(self, word: str, default: int) -> int:
        if self.peek() != ("word", word):
            return default
        self.i += 1
        return int(self.take("num"))


def parse(text: str) -> Query:
    return Parser(text).parse()


def matches(record: dict[str, Any], conditions: list[tuple[str, str, list[str]]]) -> bool:
    for name, op, values in conditions:
        got = str(record[name])
        if op == "in" and got not in values:
            return False
        if op == "like" and values[0] not in got:
            return False
        if op in (">=", "<=", "=") and not {">=": got >= values[0], "<=": got <= values[0],
                                            "=": got == values[0]}[op]:
            return False
    return True


# --- the server ---------------------------------------------------------------------------------------
@dataclass
class Kintone:
    base_url: str = ""
    records: list[dict[str, Any]] = field(default_factory=deals)
    requests: list[dict[str, Any]] = field(default_factory=list)
    queries: list[Query] = field(default_factory=list)


def error(code: str, message: str) -> dict[str, str]:
    return {"code": code, "id": "1505999166-897850006", "message": message}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    kintone: Kintone

    def log_message(self, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _send(self, status: int, doc: Any) -> None:
        data = json.dumps(doc, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json;charset=UTF-8")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError):
            self.wfile.write(data)

    def do_POST(self) -> None:
        self._send(405, error("CB_IL02", "不正なリクエストです。"))

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        params = parse_qsl(url.query, keep_blank_values=True, strict_parsing=bool(url.query))
        self.kintone.requests.append({"path": url.path, "params": params, "headers": dict(self.headers.items())})
        if url.path != "/k/v1/records.json":
            return self._send(404, error("CB_IL02", "不正なリクエストです。"))
        tokens_sent = (self.headers.get("X-Cybozu-API-Token") or "").split(",")
        if TOKEN not in tokens_sent:
            return self._send(401, error("GAIA_IA02", "指定したAPIトークンが不正です。"))
        if self.headers.get("Authorization") or self.headers.get("X-Cybozu-Authorization"):
            return self._send(400, error("CB_IL02", "認証の方法が多すぎます。"))
        got = dict(params)
        if len(got) != len(params) or got.get("app") != APP:
            return self._send(404 if got.get("app") else 400, error("GAIA_AP01", "指定したアプリが存在しません。"))
        fields = [v for k, v in params if re.fullmatch(r"fields\[\d{1,2}\]", k)]
        if sorted(k for k in got if k not in ("app", "query", "totalCount") and not k.startswith("fields[")):
            return self._send(400, error("CB_VA01", "入力内容が正しくありません。"))
        try:
            query = parse(got.get("query", ""))
        except SyntaxError as err:
            return self._send(400, error("GAIA_IQ03", f"クエリ記法が間違っています。({err})"))
        if query.limit > 500 or query.offset > 10_000:
            return self._send(400, error("CB_VA01", "入力内容が正しくありません。limit は 500 以下、"
                                                    "offset は 10000 以下です。"))
        self.kintone.queries.append(query)
        found = [r for r in self.kintone.records if matches(r, query.conditions)]
        for name, way in reversed(query.order):
            found.sort(key=lambda r, n=name: (str(r[n]) if n != "$id" else r[n]), reverse=way == "desc")
        page = found[query.offset:query.offset + query.limit]
        shown = fields or list(FIELDS)
        self._send(200, {"records": [{f: self._field(f, r[f]) for f in shown} for r in page],
                         "totalCount": str(len(found)) if got.get("totalCount") == "true" else None})

    @staticmethod
    def _field(name: str, value: Any) -> dict[str, Any]:
        kind = {"$id": "__ID__", "金額": "NUMBER", "受注予定日": "DATE", "ステータス": "DROP_DOWN"}.get(
            name, "SINGLE_LINE_TEXT")
        return {"type": kind, "value": value.isoformat() if isinstance(value, date) else str(value)}


@contextmanager
def serving() -> Iterator[Kintone]:
    kintone = Kintone()
    server = ThreadingHTTPServer(("127.0.0.1", 0), type("Bound", (Handler,), {"kintone": kintone}))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    kintone.base_url = f"127.0.0.1:{server.server_address[1]}"
    try:
        yield kintone
    finally:
        server.shutdown()
        server.server_close()


# --- the pipeline -------------------------------------------------------------------------------------
@pytest.fixture
def kintone():
    with serving() as running:
        yield running


def open_example(tmp_path, kintone: Kintone, token: str = TOKEN, *, pages: str = "size: 500") -> Pipeline:
    db = Database(f"sqlite:///{tmp_path / 'state.db'}")
    ensure_state(db)
    users.add(db, "sato", "sales")
    # the example's https:// becomes http:// for the local server; everything else is the file as shipped
    text = EXAMPLE.read_text(encoding="utf-8").replace("https://${KINTONE_DOMAIN}", "http://${KINTONE_DOMAIN}")
    assert "http://${KINTONE_DOMAIN}" in text
    text = text.replace("pages: {size: 500,", f"pages: {{{pages},")
    catalog = parse_catalog(text, str(EXAMPLE), {"KINTONE_DOMAIN": kintone.base_url, "KINTONE_API_TOKEN": token})
    return Pipeline([catalog], db, today=date(2026, 12, 4))


@pytest.fixture
def example(tmp_path, kintone):
    pipeline = open_example(tmp_path, kintone)
    yield pipeline
    pipeline.close()


def call(p: Pipeline, tool: str, args: dict[str, Any]):
    return p.invoke(tool, args, p.user("sato"))


def expected(kintone: Kintone, keep) -> list[dict[str, Any]]:
    return [r for r in kintone.records if keep(r)]


def test_deals_of_a_status_in_a_period_are_every_page_and_the_total_is_exact(example, kintone):
    result = call(example, "deals_by_status", {"status": "受注", "start": "2026-10-01", "end": "2026-11-30"})
    want = expected(kintone, lambda r: r["ステータス"] == "受注" and "2026-10-01" <= r["受注予定日"].isoformat()
                    <= "2026-11-30")
    assert len(want) > 500  # more than one page
    assert result.status == "ok" and result.row_count == len(want)
    assert result.totals["amount"] == sum(r["金額"] for r in want)
    first = sorted(want, key=lambda r: (r["受注予定日"], r["$id"]))[0]
    assert result.rows[0] == {"id": first["$id"], "company": first["会社名"], "person": first["担当者"],
                              "amount": first["金額"],
                              "status": "受注", "close_date": first["受注予定日"].isoformat()}
    assert [(q.limit, q.offset) for q in kintone.queries] == [(500, 0), (500, 500), (500, 1000)][: len(kintone.queries)]
    assert len(kintone.queries) == len(want) // 500 + 1
    sent = kintone.requests[-1]
    assert sent["path"] == "/k/v1/records.json" and sent["headers"]["X-Cybozu-API-Token"] == TOKEN
    assert [v for k, v in sent["params"] if k.startswith("fields[")] == FIELDS
    assert kintone.queries[0].conditions == [("ステータス", "in", ["受注"]), ("受注予定日", ">=", ["2026-10-01"]),
                                             ("受注予定日", "<=", ["2026-11-30"])]


def test_a_value_with_quotes_or_or_stays_one_string(example, kintone):
    result = call(example, "deals_of_company", {"company": 'A"B or 1 = 1'})
    want = expected(kintone, lambda r: 'A"B or 1 = 1' in r["会社名"])
    assert result.status == "ok" and result.row_count == len(want) > 0
    assert kintone.queries[-1].conditions == [("会社名", "like", ['A"B or 1 = 1'])]
    query = dict(kintone.requests[-1]["params"])["query"]
    assert query.startswith('会社名 like "A\\"B or 1 = 1" order by')
    for hostile in ['" or 会社名 like "', '\\" or $id > "0', 'x" limit 500 offset 0']:
        injected = call(example, "deals_of_company", {"company": hostile})
        assert injected.status == "ok" and injected.row_count == 0  # nothing matches: no condition was added
        assert kintone.queries[-1].conditions == [("会社名", "like", [hostile])]


def test_more_than_the_pages_allow_is_an_error_never_a_partial_total(example, kintone):
    kintone.records = [dict(r, **{"$id": n + 1, "ステータス": "受注", "受注予定日": date(2026, 11, 1)})
                       for n, r in enumerate(deals() * 4)]  # 10,400 records: over 20 pages of 500
    result = call(example, "deals_by_status", {"status": "受注", "start": "2026-11-01", "end": "2026-11-30"})
    assert result.status == "error" and "10000" in result.message
    assert "絞って" in result.message_ja
    assert max(q.offset for q in kintone.queries) == 9_500  # never past kintone's 10,000


def test_a_wrong_token_is_an_actionable_message_and_never_written_down(tmp_path, kintone, caplog):
    caplog.set_level(logging.DEBUG)
    p = open_example(tmp_path, kintone, token="kt-wrong-token-987654")
    result = call(p, "deals_by_status", {"status": "受注", "start": "2026-11-01", "end": "2026-11-30"})
    assert result.status == "error"
    assert "KINTONE_API_TOKEN" in result.message and "KINTONE_API_TOKEN" in result.message_ja
    assert kintone.requests[-1]["headers"]["X-Cybozu-API-Token"] == "kt-wrong-token-987654"
    written = str(result.to_json()) + str(audit.latest(p.state, 5)) + caplog.text
    written += p.catalogs[0].spec.model_dump_json() + repr(p.catalogs[0])
    assert "kt-wrong-token-987654" not in written and TOKEN not in written
    p.close()


def test_an_unknown_status_is_refused_before_anything_is_sent(example, kintone):
    result = call(example, "deals_by_status", {"status": '受注") or ("', "start": "2026-11-01", "end": "2026-11-30"})
    assert result.status == "refused" and kintone.requests == []


def test_the_loader_keeps_values_out_of_query_syntax():
    from concierge.errors import CatalogError

    bad = EXAMPLE.read_text(encoding="utf-8").replace("会社名 like {company:quoted}", "会社名 like \"{company}\"")
    with pytest.raises(CatalogError) as err:
        parse_catalog(bad, "bad.yaml", {"KINTONE_DOMAIN": "x", "KINTONE_API_TOKEN": "t"})
    assert any("{name:quoted}" in p.message for p in err.value.problems)


@pytest.mark.anyio
async def test_a_question_in_japanese_is_answered_from_every_page(example, kintone):
    agent = Agent(example, OfflineProvider(example))
    turn = await agent.ask("2026年11月の受注の案件の金額合計は？", example.user("sato"))
    want = expected(kintone, lambda r: r["ステータス"] == "受注" and r["受注予定日"].strftime("%Y-%m") == "2026-11")
    total = sum(r["金額"] for r in want)
    assert f"{len(want)}件" in turn.answer
    assert f"{total:,.0f}" in turn.answer or f"{total:,}" in turn.answer, turn.answer
    assert TOKEN not in json.dumps([c.__dict__ for c in turn.calls], default=str, ensure_ascii=False)


def test_a_page_over_kintones_limit_is_refused_by_the_server_and_said_plainly(tmp_path, kintone):
    p = open_example(tmp_path, kintone, pages="size: 501")
    result = call(p, "deals_by_status", {"status": "受注", "start": "2026-11-01", "end": "2026-11-30"})
    assert result.status == "error" and "field codes" in result.message and kintone.queries == []
    p.close()
