"""A new company's first five minutes, on a schema nobody here designed: the dbt Jaffle Shop.

The acceptance flow of the README's "Use your own database", run as a user
runs it: the installed `concierge` command in a fresh folder, with its own
HOME and none of our environment variables, on SQLite, PostgreSQL and MariaDB:

    concierge init --database URL --dir shopdesk
    cd shopdesk
    concierge catalog check
    concierge user add yamada --role staff --password-stdin
    concierge ask "How many customers do we have?"
    concierge serve                      # then the web chat API, signed in as yamada
    concierge mcp config --client claude-desktop   # then tools/list over stdio, as the host starts it

Every figure an answer must contain is computed here, independently, with
plain SQL on the loaded database.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tomllib
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx2
import jaffle
import pytest
import sqlalchemy as sa
import yaml
from mcp import Client, StdioServerParameters
from mysql_databases import fresh_database as fresh_mysql_database
from pytest_postgresql.janitor import DatabaseJanitor
from sqlalchemy.engine import make_url
from web_fakes import serving_process

CONCIERGE = str(Path(sys.executable).with_name("concierge"))
PASSWORD = "yamada-pass-1"
TIMEOUT = 120


@dataclass
class Shop:
    backend: str
    url: str  # the business database, as the company's URL
    root: Path  # where the company runs `concierge init`
    home: Path
    steps: dict[str, subprocess.CompletedProcess] = field(default_factory=dict)

    @property
    def folder(self) -> Path:
        return self.root / "shopdesk"

    @property
    def env(self) -> dict[str, str]:
        """A user's shell: their own HOME, none of the test run's CONCIERGE_* or XDG_* variables."""
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("CONCIERGE_", "XDG_"))}
        return {**keep, "HOME": str(self.home)}

    def run(self, *args: str, cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([CONCIERGE, *args], cwd=cwd or self.folder, env=self.env, input=stdin,
                              capture_output=True, text=True, timeout=TIMEOUT)

    def settings(self) -> dict:
        return tomllib.loads((self.folder / "concierge.toml").read_text())

    def catalogs(self) -> list[dict]:
        return [yaml.safe_load((self.folder / ref).read_text()) for ref in self.settings()["catalogs"]]

    def tool_names(self) -> set[str]:
        return {name for catalog in self.catalogs() for name in catalog["tools"]}

    def rows(self, sql: str) -> list[tuple]:
        """Plain SQL on the business database, with no concierge code in the way."""
        engine = sa.create_engine(driven(self.url))
        try:
            with engine.connect() as conn:
                return [tuple(r) for r in conn.execute(sa.text(sql))]
        finally:
            engine.dispose()

    def scalar(self, sql: str) -> object:
        ((value,),) = self.rows(sql)
        return value


def driven(url: str) -> str:
    """The company's URL with the driver SQLAlchemy is to use named."""
    return url.replace("postgresql://", "postgresql+psycopg://", 1).replace("mysql://", "mysql+pymysql://", 1)


def said(process: subprocess.CompletedProcess) -> str:
    return f"exit {process.returncode}\nstdout:\n{process.stdout}\nstderr:\n{process.stderr}"


# --- the data ------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def jaffle_rows() -> jaffle.Rows:
    return jaffle.generate()


@contextmanager
def _business_database(backend: str, folder: Path, rows: jaffle.Rows, request) -> Iterator[str]:
    if backend == "sqlite":
        path = folder / "jaffle.db"
        jaffle.load(f"sqlite:///{path}", rows)
        yield f"sqlite:///{path}"
        return
    if backend == "mysql":
        with fresh_mysql_database(request.getfixturevalue("mariadb_server"), "jaffle") as driver_url:
            url = driver_url.replace("mysql+pymysql://", "mysql://", 1)  # as a company writes it
            jaffle.load(driven(url), rows)
            yield url
        return
    server = request.getfixturevalue("pg_server")
    name = f"jaffle_{uuid.uuid4().hex[:10]}"
    janitor = DatabaseJanitor(user=server["user"], host=server["host"], port=server["port"], dbname=name,
                              password=server["password"])
    janitor.init()
    auth = server["user"] + (f":{server['password']}" if server["password"] else "")
    url = f"postgresql://{auth}@{server['host']}:{server['port']}/{name}"
    try:
        jaffle.load(url.replace("postgresql://", "postgresql+psycopg://", 1), rows)
        yield url
    finally:
        janitor.drop()


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def shop(request, jaffle_rows, tmp_path_factory) -> Iterator[Shop]:
    """The Jaffle Shop's database, and the first steps of the flow already run on it (each step's outcome kept);
    on MariaDB in test_jaffle_flow_mysql.py, so that a third database runs on another test worker."""
    with opened_shop(request, jaffle_rows, tmp_path_factory) as s:
        yield s


@contextmanager
def opened_shop(request, jaffle_rows, tmp_path_factory) -> Iterator[Shop]:
    root = tmp_path_factory.mktemp(f"jaffle-{request.param}")
    data = tmp_path_factory.mktemp(f"jaffle-data-{request.param}")
    with _business_database(request.param, data, jaffle_rows, request) as url:
        s = Shop(request.param, url, root, tmp_path_factory.mktemp("home"))
        s.steps["init"] = s.run("init", "--database", url, "--dir", "shopdesk", cwd=root)
        assert s.steps["init"].returncode == 0, said(s.steps["init"])
        s.steps["check"] = s.run("catalog", "check")
        s.steps["user add"] = s.run("user", "add", "yamada", "--role", "staff", "--password-stdin",
                                    stdin=PASSWORD + "\n")
        yield s


# --- init, check, users ----------------------------------------------------------------------------
def test_init_writes_the_settings_and_a_draft_of_every_table(shop):
    settings = shop.settings()
    database, state = make_url(settings["database"]), make_url(settings["state_database"])
    assert (database.get_backend_name(), database.database) == (make_url(shop.url).get_backend_name(),
                                                                make_url(shop.url).database)
    assert state.database != database.database  # concierge's own tables kept apart from the business data
    (catalog,) = shop.catalogs()
    sql = " ".join(tool["sql"] for tool in catalog["tools"].values())
    for table in ("customers", "orders", "items", "products", "stores", "supplies", "tweets"):
        assert re.search(rf"\b{table}\b", sql), f"no drafted tool reads {table}"
    assert all(tool.get("mode", "read") == "read" for tool in catalog["tools"].values())
    assert set(catalog["roles"]) == {"admin", "staff"}
    assert catalog["review"], "the drafted texts are not marked for review"
    assert "shopdesk" in shop.steps["init"].stdout + shop.steps["init"].stderr


def test_the_draft_is_checked_against_the_live_database_and_passes(shop):
    check = shop.steps["check"]
    assert check.returncode == 0, said(check)
    summary = (check.stdout.strip().splitlines() or [""])[-1]
    assert re.search(r"\b\d+ tools?\b", summary), said(check)


def test_rerunning_init_keeps_the_reviewed_draft_and_writes_the_new_one_beside_it(shop, tmp_path):
    copy = tmp_path / "shopdesk"
    shutil.copytree(shop.folder, copy)
    (path,) = [copy / ref for ref in shop.settings()["catalogs"]]
    edited = path.read_text() + "\n# reviewed by yamada\n"
    path.write_text(edited)
    again = shop.run("init", "--database", shop.url, "--dir", "shopdesk", cwd=tmp_path)
    assert again.returncode == 0, said(again)
    assert path.read_text() == edited
    beside = [p for p in path.parent.iterdir() if p != path]
    assert beside, f"init wrote no new draft beside {path.name}"
    assert any(p.name in again.stdout + again.stderr for p in beside), said(again)


def test_the_user_is_added_with_a_role_of_the_catalog(shop):
    assert shop.steps["user add"].returncode == 0, said(shop.steps["user add"])
    listed = shop.run("user", "list")
    assert listed.returncode == 0, said(listed)
    assert re.search(r"^\s*yamada\b.*\bstaff\b", listed.stdout, flags=re.M), said(listed)
    wrong = shop.run("user", "add", "sato", "--role", "manager", "--password-stdin", stdin="x-pass-12345\n")
    assert wrong.returncode != 0 and "staff" in wrong.stderr, said(wrong)


# --- ask ------------------------------------------------------------------------------------------
MARCH = "ordered_at >= '2019-03-01' AND ordered_at < '2019-04-01'"  # timestamps: a month is [1st, next 1st)
APRIL = "ordered_at >= '2019-04-01' AND ordered_at < '2019-05-01'"

QUESTIONS = {  # question -> the SQL of the figure its answer must state
    "How many orders were placed in March 2019?": f"SELECT count(*) FROM orders WHERE {MARCH}",
    "What was the total order total in March 2019?": f"SELECT sum(order_total) FROM orders WHERE {MARCH}",
    "How many orders did the Brooklyn store have in April 2019?":
        f"SELECT count(*) FROM orders o JOIN stores s ON s.id = o.store_id WHERE s.name = 'Brooklyn' AND {APRIL}",
    "How many products of type beverage are there?": "SELECT count(*) FROM products WHERE type = 'beverage'",
    "How many tweets are there?": "SELECT count(*) FROM tweets",
}


def numbers(text: str) -> set[int]:
    """The whole numbers a text states (1,234 and 1234 alike); not the digits inside ids, dates or decimals."""
    found = re.findall(r"(?<![0-9A-Za-z.,:_-])(\d{1,3}(?:,\d{3})+|\d+)(?![0-9A-Za-z_:-]|[.,]\d)", text)
    return {int(n.replace(",", "")) for n in found}


def first_line_naming(text: str, candidates: list[str]) -> str:
    """The first line of an answer that names one of the candidates (a ranking's first entry; not a period's
    first and last day)."""
    return next((line for line in text.splitlines() if sum(c in line for c in candidates) == 1), "")


def ask(shop: Shop, question: str) -> dict:
    asked = shop.run("ask", question, "--user", "yamada", "--json")
    assert asked.returncode == 0, said(asked)
    return json.loads(asked.stdout)


def test_numbers_reads_figures_as_a_person_does():
    assert numbers("641 row(s); Totals: orders 7,034, order_total 7,976,654.") == {641, 7034, 7976654}
    assert numbers("id ba2d54b1-d124-452d on 2019-03-27 12:46:00, $12.50") == set()
    assert numbers("| 2019-03-27 | 360 |\n1752件") == {360, 1752}


def test_ask_as_written_answers_how_many_customers(shop):
    """The README's line exactly: no --user, no flags."""
    asked = shop.run("ask", "How many customers do we have?")
    expected = shop.scalar("SELECT count(*) FROM customers")
    assert asked.returncode == 0, said(asked)
    assert expected in numbers(asked.stdout), f"expected {expected}\n" + said(asked)


@pytest.mark.parametrize("question", list(QUESTIONS))
def test_ask_answers_with_the_figure_plain_sql_gives(shop, question):
    expected = shop.scalar(QUESTIONS[question])
    turn = ask(shop, question)
    calls = [(c["name"], c["args"], c["status"], c.get("message")) for c in turn["calls"]]
    assert turn["calls"] and all(c["status"] == "ok" for c in turn["calls"]), f"calls: {calls}"
    assert expected in numbers(turn["answer"]), f"expected {expected}; answered: {turn['answer']!r}; calls: {calls}"


def test_ask_counts_the_orders_of_one_customer_named_in_words(shop):
    name, expected = shop.rows(
        "SELECT c.name, count(*) FROM orders o JOIN customers c ON c.id = o.customer GROUP BY c.id, c.name "
        "HAVING c.name IN (SELECT name FROM customers GROUP BY name HAVING count(*) = 1) "
        "ORDER BY count(*) DESC, c.name LIMIT 1")[0]
    turn = ask(shop, f"How many orders did {name} place?")
    calls = [(c["name"], c["args"]) for c in turn["calls"]]
    assert expected in numbers(turn["answer"]), (
        f"expected {expected} for {name}; answered: {turn['answer'][:1500]!r}; calls: {calls}")


def test_ask_names_the_busiest_day_first(shop):
    """A top-N by day: the day of March 2019 with the most orders, and how many, first."""
    by_day: dict[str, int] = {}
    for (at,) in shop.rows(f"SELECT ordered_at FROM orders WHERE {MARCH}"):
        by_day[str(at)[:10]] = by_day.get(str(at)[:10], 0) + 1
    top = max(by_day.values())
    best = [d for d, n in by_day.items() if n == top]
    turn = ask(shop, "Which day had the most orders in March 2019?")
    line = first_line_naming(turn["answer"], list(by_day))
    calls = [(c["name"], c["args"]) for c in turn["calls"]]
    assert any(d in line for d in best) and top in numbers(line), (
        f"expected {best} with {top} orders first; first day named: {line!r}; calls: {calls}")


def test_ask_names_the_product_ordered_most_often_first(shop):
    """A top-N by a name one join away: order lines counted per product over a month."""
    ranking = shop.rows(
        f"SELECT p.name, count(*) FROM items i JOIN products p ON p.sku = i.sku JOIN orders o ON o.id = i.order_id "
        f"WHERE {APRIL.replace('ordered_at', 'o.ordered_at')} GROUP BY p.name ORDER BY count(*) DESC")
    (name, expected), runner_up = ranking[0], ranking[1][1]
    assert expected > runner_up  # one clear answer
    turn = ask(shop, "Which product was ordered most often in April 2019?")
    line = first_line_naming(turn["answer"], [n.strip() for n, _ in ranking])
    calls = [(c["name"], c["args"]) for c in turn["calls"]]
    assert name.strip() in line and expected in numbers(line), (
        f"expected {name!r} with {expected} first; first product named: {line!r}; calls: {calls}")


def test_orders_are_compared_by_customer_over_two_months_with_the_figures_plain_sql_gives(shop):
    """The comparison tool is drafted where a table has a date, an amount and an item (orders: ordered_at,
    their total, the customer they point at; items keep no amount of their own and products no date), and a
    question comparing two months gets each customer's two sums and change as plain SQL gives them; two customers
    of one name are two rows, each named with its id."""
    (catalog,) = shop.catalogs()
    assert {n for n in catalog["tools"] if n.endswith("_compare")} == {"orders_compare"}
    def month(start: str, end: str) -> dict[str, tuple[str, int]]:  # by customer: two of one name stay two
        return {str(i): (n, int(v)) for i, n, v in shop.rows(
            f"SELECT c.id, c.name, sum(o.order_total) FROM orders o JOIN customers c ON c.id = o.customer "
            f"WHERE o.ordered_at >= '{start}' AND o.ordered_at < '{end}' GROUP BY c.id, c.name")}
    april, march = month("2019-04-01", "2019-05-01"), month("2019-03-01", "2019-04-01")
    shared = {n for (n,) in shop.rows("SELECT name FROM customers GROUP BY name HAVING count(*) > 1")}
    names = {i: f"{name} #{i}" if name in shared else name  # two Sean Yangs, each told by their id
             for i, (name, _sum) in [*march.items(), *april.items()]}
    assert len(set(names.values())) == len(names)
    expected = sorted((april.get(i, ("", 0))[1] - march.get(i, ("", 0))[1], names[i], april.get(i, ("", 0))[1],
                       march.get(i, ("", 0))[1]) for i in names)
    turn = ask(shop, "Which customers dropped in April 2019 compared with March 2019?")
    (call,) = turn["calls"]
    assert (call["name"], call["args"]) == ("orders_compare", {"cur_start": "2019-04-01", "cur_end": "2019-04-30",
                                                               "prev_start": "2019-03-01", "prev_end": "2019-03-31"})
    rows = [(int(r["change"]), r["item"], int(r["cur_amount"]), int(r["prev_amount"])) for r in call["result"]["rows"]]
    # 636 customers, cut to the first 200 (marked truncated); ties in change may come in any order of names
    assert len(rows) == min(len(expected), 200) and call["result"]["truncated"] == (len(expected) > 200)
    assert [r[0] for r in rows] == [e[0] for e in expected][:len(rows)]  # the largest fall first
    assert set(rows) <= set(expected)
    summary = call["result"]["summary"]
    assert (int(summary["current_total"]), int(summary["previous_total"])) == (
        sum(v for _n, v in april.values()), sum(v for _n, v in march.values()))


def test_ask_counts_the_items_of_a_product_whose_name_has_a_hyphen(shop):
    """A value read from the data, written as the data has it ("mel-bun"), is a filter like any other."""
    expected = shop.scalar(
        "SELECT count(*) FROM items i JOIN products p ON p.sku = i.sku JOIN orders o ON o.id = i.order_id "
        f"WHERE p.name = 'mel-bun' AND {APRIL.replace('ordered_at', 'o.ordered_at')}")
    turn = ask(shop, "How many mel-bun were ordered in April 2019?")
    calls = [(c["name"], c["args"]) for c in turn["calls"]]
    assert expected in numbers(turn["answer"]), (
        f"expected {expected}; answered: {turn['answer'][:1500]!r}; calls: {calls}")


# --- serve: the web chat ----------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(shop: Shop) -> Iterator[str]:
    """`concierge serve` started in the shop's folder, as its staff would, on a free port."""
    port = _free_port()
    process = subprocess.Popen([CONCIERGE, "serve", "--port", str(port)], cwd=shop.folder, env=shop.env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with serving_process(process, f"http://127.0.0.1:{port}") as (url, _output):
        yield url


def answer_of(response) -> dict:
    """The turn of the `answer` event of a chat stream."""
    assert response.status_code == 200, response.text
    for block in response.text.replace("\r\n", "\n").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":"))
        if fields.get("event") == "answer":
            return json.loads(fields["data"])["turn"]
        assert fields.get("event") != "error", fields.get("data")
    raise AssertionError(f"no answer in the stream: {response.text[:2000]}")


def test_serve_answers_the_same_questions_in_the_web_chat(shop):
    customers = shop.scalar("SELECT count(*) FROM customers")
    march = shop.scalar(QUESTIONS["How many orders were placed in March 2019?"])
    with serving(shop) as url, httpx2.Client(base_url=url, timeout=60) as http:
        assert http.post("/api/login", json={"name": "yamada", "password": "wrong"}).status_code == 401
        signed = http.post("/api/login", json={"name": "yamada", "password": PASSWORD})
        assert signed.status_code == 200, signed.text
        assert http.get("/api/me").json()["name"] == "yamada"
        first = answer_of(http.post("/api/chat", json={"text": "How many customers do we have?"}))
        second = answer_of(http.post("/api/chat", json={"text": "How many orders were placed in March 2019?"}))
    assert customers in numbers(first["answer"]), first["answer"]
    assert march in numbers(second["answer"]), second["answer"]


# --- MCP: the host's configuration, then tools/list over stdio ----------------------------------------
@pytest.mark.anyio
async def test_mcp_config_starts_a_server_that_lists_the_drafted_tools(shop, tmp_path):
    printed = shop.run("mcp", "config", "--client", "claude-desktop")
    assert printed.returncode == 0, said(printed)
    entry = json.loads(printed.stdout)["mcpServers"]["concierge"]
    acting = entry["args"][entry["args"].index("--user") + 1] if "--user" in entry["args"] else None
    listed = shop.run("user", "list").stdout
    assert acting is None or re.search(rf"^\s*{acting}\b", listed, flags=re.M), (
        f"the printed configuration acts as {acting!r}, who is not a user:\n{listed}\n{printed.stderr}")
    host = {"HOME": str(shop.home), "PATH": os.environ["PATH"]}  # a host starts it elsewhere, with little env
    if os.environ.get("PYTHONPATH"):  # a run from a checkout (PYTHONPATH=src) has the server import the same code
        host["PYTHONPATH"] = os.environ["PYTHONPATH"]
    params = StdioServerParameters(command=entry["command"], args=entry["args"],
                                   env={**host, **entry.get("env", {})}, cwd=str(tmp_path))
    async with Client(params) as client:
        tools = (await client.list_tools()).tools
    assert {t.name for t in tools} == shop.tool_names()
    assert all(t.description for t in tools)
