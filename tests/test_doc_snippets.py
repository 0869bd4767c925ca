"""Every Python and shell block of README.md and docs/*.md runs here (one test per block, `FILE:LINE`), so a
wrong one fails. The tables below say how, and why a command is not run; the mechanics are in
tests/support/doc_snippets.py and tests/support/doc_fork.py.

- A shell block (bash, sh, shell; of a console block the `$ ` lines) runs in bash, its commands one by one in
  one shell, so `cd` and `export` carry to the next line. Each command must exit 0 (or as STATUS says) and
  match OUTPUT (and what its comment claims, CLAIMS); the first one that does not ends the block, as `set -e`
  would. The block starts in a fresh folder that looks like the clone (the repository's top-level entries
  linked into it: `.venv/bin/python`, `tests/...` resolve) with a fresh HOME whose embedded database already
  holds the demos (their first use was made once, before). PATH has a stand-in `concierge` first, then the
  virtualenv's bin: the stand-in runs the same console script in a fork of a process that imported it
  already, so a command costs what it does rather than a second of imports first
  (CONCIERGE_DOCS_NO_FORK=1 runs the real script instead).
- A server (SERVERS) starts in the background, must answer on its port, and is stopped; one the next lines
  use (KEEP_UP, or written with a trailing `&`) is stopped when its block ends. What a server prints as
  `export NAME=VALUE` lines is exported, as the reader is told to do.
- A Python block runs as `python FILE` in such a folder (through the same fork server).
- An LLM provider is the local fake model (its key and base URL in the environment, where the SDKs read
  them); a local model's base URL a block names is rewritten to the fake's port.
- What the docs name of the reader's (their database, their ports) is rewritten to what stands for it here
  (REWRITES, PORTS); a file a block names is made (FILES); BEFORE runs what a section asks the reader to do in
  words before a block; a document read as one terminal session (CONTEXTS) carries its folder and exports
  from block to block.

The tables name commands without their comments. NOT_RUN is exactly the commands that do not run, each with
its reason: every other command runs, one of a kind that cannot run here (NEVER) fails until it is listed,
and an entry that names no command of the docs fails (as does a stale entry of any other table). No test
skips.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import doc_fork
import pytest
from doc_snippets import (
    Block,
    Command,
    FakeModel,
    Outcome,
    Step,
    blocks,
    commands,
    first_line,
    outcomes,
    shell_script,
    strip_comment,
)
from doc_snippets import snippets as find_snippets
from pg_databases import fresh_database

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
SNIPPETS = find_snippets(ROOT)
PASSWORD = "docs-password-1"
TWICE = f"{PASSWORD}\n{PASSWORD}\n"

# --- what is not run, and why ----------------------------------------------------------------------------------
ANOTHER_PART = "runs another part of this suite, which CI runs as itself"
HELD_OUT = "a held-out set (3 s of CPU, exit 1 by design); tests/planner/test_held_out_sets.py runs it with a floor"
INSPECTOR = ("placeholders (`...`, `/abs/concierge`) for what `concierge mcp config --client inspector` prints, and "
             "npx downloads the Inspector (network); tests/mcp/test_mcp_interop.py runs the Inspector CLI")
NOT_RUN: dict[tuple[str, str], str] = {  # (document, command without its comment) -> why it is not run
    ("README.md", "python3 -m venv .venv && .venv/bin/pip install -e '.[all]' && .venv/bin/concierge serve"):
        "installs from the package index (network); these tests run in the environment it made",
    ("README.md", "bash .ci/run"): "the CI itself: installs system packages as root, then runs this whole suite",
    ("README.md", ".venv/bin/python -m pytest tests/pipeline -q"): ANOTHER_PART,
    ("docs/agent.md", "ollama serve & ollama pull qwen3:8b"):
        "Ollama is not installed here, and it pulls a model from the network; the fake model answers at its address",
    ("docs/agent.md", "llama-server -m model.gguf --jinja --port 8080"):
        "llama.cpp and a model file are not here; the fake model answers at its port",
    ("docs/faq.md", "lsof -i :8000"):
        "an operating-system tool that shows which program holds a port on the reader's machine: nothing of concierge",
    ("docs/mcp.md", "npx -y @modelcontextprotocol/inspector@2.12.0 --cli --method tools/list "
                    "-e CONCIERGE_DATABASE=... -- /abs/concierge mcp ..."): INSPECTOR,
    ("docs/mcp.md", "npx -y @modelcontextprotocol/inspector@2.12.0 --cli --method tools/call --tool-name get_sales "
                    "--tool-args-json '{\"code_customer\": \"0009\"}' -e CONCIERGE_DATABASE=... "
                    "-- /abs/concierge mcp ..."): INSPECTOR,
    ("docs/mcp.md", "npm ci --prefix tests/mcp/interop"):
        "downloads the Node clients from the npm registry (network); .ci/run does it",
    ("docs/mcp.md", ".venv/bin/python -m pytest tests/mcp"): ANOTHER_PART,
    ("docs/mcp.md", ".venv/bin/python bench/mcp_overhead.py"):
        "a benchmark: 1,000-call loops against six servers, minutes of CPU",
    ("docs/onboarding.md", "concierge init --database URL --dir DIR [--name NAME] [--lang ja|en]"):
        "the command's synopsis (placeholders, [optional] parts), not a command",
    ("docs/planner.md", ".venv/bin/python -m pytest tests/planner -q"): ANOTHER_PART,
    ("docs/restaurant.md", ".venv/bin/python -m pytest tests/restaurant -q"): ANOTHER_PART,
    # What would take this file past its time (about 40 s on two cores), and is run elsewhere in the suite:
    ("README.md", ".venv/bin/python bench/phone.py --transcript --calls 1"):
        "a benchmark: a whole call paced as a caller speaks (about 18 s); tests/phone/ run the same relay",
    ("docs/restaurant.md", "concierge eval tests/restaurant/callers_cases.jsonl"): HELD_OUT,
    ("docs/restaurant.md", "concierge eval tests/restaurant/edits_cases.jsonl"): HELD_OUT,
    ("docs/restaurant.md", "concierge eval tests/restaurant/attack_cases.jsonl"): HELD_OUT,
    ("docs/restaurant.md", "concierge eval tests/restaurant/regulars_cases.jsonl"): HELD_OUT,
}
# A command of these kinds never runs here: one NOT_RUN does not name fails its block unrun.
NEVER = (r"\bpytest\b|\.ci/run|\bpip install\b|\bnpm\b|\bnpx\b|\bapt(-get)?\b|\bgit clone\b|\bollama\b"
         r"|llama-server|bench/")

# --- how a command that runs is run ------------------------------------------------------------------------------
EXAMPLE_ID = "an example ID: no such token here, which `token revoke` says"
STATUS: dict[tuple[str, str], tuple[int, str]] = {  # an exit status other than 0, and why
    ("README.md", "concierge token revoke 3f9a0c1b22de"): (2, EXAMPLE_ID),
    ("docs/mcp.md", "concierge token revoke 3f9a0c1b22de"): (2, EXAMPLE_ID),
    ("README.md", "concierge eval tests/planner/cases.jsonl --provider anthropic --json"):
        (1, "the fake model stands in for Claude: it answers no case right, and eval says so"),
}
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "docs", "version": "1"}}}) + "\n"
STDIN: dict[tuple[str, str], str] = {  # what a command reads from its standard input (else nothing: /dev/null)
    ("README.md", "concierge user add yamada --role staff"): TWICE,  # the password, and again
    ("README.md", "concierge user set-password tanaka"): TWICE,
    ("README.md", "concierge user add yamada --role sales_rep --display-name 山田"): TWICE,
    ("README.md", "concierge mcp --catalog farm --catalog pos"): INITIALIZE,  # an MCP host's first message
    ("README.md", "concierge chat --provider openai-chat --base-url http://127.0.0.1:11434/v1 --model qwen3:8b"):
        "先週の売上は？\n",
    ("docs/agent.md", "concierge chat --provider anthropic --user tanaka"): "0016のお客様の名前は？\nexit\n",
    ("docs/agent.md", "concierge chat --provider openai-chat --base-url http://127.0.0.1:8080/v1 --model local"):
        "先週の売上は？\n",
    ("docs/faq.md", "concierge user set-password admin"): TWICE,
    ("docs/onboarding.md", "concierge user add yamada --role staff"): TWICE,
    ("docs/onboarding.md", "concierge chat --user yamada"): "How many customers do we have?\n",
    ("docs/settings.md", "concierge user add yamada --role staff --display-name 山田"): TWICE,
    ("docs/web.md", "concierge user set-password tanaka"): TWICE,
}
LOGIN = "curl -c jar -H 'Content-Type: application/json' -d '{\"name\":\"admin\",\"password\":\"...\"}' " \
        "http://127.0.0.1:8000/api/login"
OUTPUT: dict[tuple[str, str], str] = {  # what the command's output must match (a regular expression), and so do
    ("README.md", "concierge mcp --catalog farm --catalog pos"): '"capabilities"',  # the answer to INITIALIZE
    ("README.md", "concierge devices show --state home.json"): r"リビングの電気\s+\[Color Bulb\]\s+power off",
    ("docs/web.md", LOGIN): '"name": ?"admin"',
    ("docs/web.md", "curl -b jar -N -H 'Content-Type: application/json' "
                    "-d '{\"text\":\"先週から売上が落ちた商品は？\"}' http://127.0.0.1:8000/api/chat"): "event: answer",
}
CLAIMS = (  # what the comment of a `concierge eval` line claims -> what its output must hold
    (r"(\d+) passed, (\d+) failed", "{0} passed, {1} failed"),
    (r"(\d+) of (\d+)", "turns: {0}/{1} passed"),
    (r"(\d+) passed\b", "{0} passed, 0 failed"),
)
SERVERS = {  # a command that serves until stopped -> the port it listens on unless it says --port
    r"^concierge (-v )?serve\b": 8000,
    r"^concierge (-v )?mcp (?!config\b).*--transport http\b": 8765,
    r"^concierge (-v )?devices simulate\b": 8787,
}
KEEP_UP = (r"^concierge (-v )?devices simulate\b",)  # servers the next lines of their block talk to


def _writes_declared(block_of: Callable[[str, str], Block]) -> list[str]:
    """onboarding.md's section 10 as the reader does it: the write catalog into its file, its name into the
    `catalogs` line of concierge.toml (both as the docs write them)."""
    catalog = block_of("yaml", "# catalogs/writes.yaml").code
    line = block_of("toml", "catalogs =").code.strip()
    return [f"cat > catalogs/writes.yaml <<'WRITES'\n{catalog}\nWRITES",
            f"sed -i 's|^catalogs = .*|{line}|' concierge.toml"]


BEFORE: dict[tuple[str, str], tuple[list[str] | Callable, str]] = {  # the block with this command -> lines run first
    ("docs/deploy.md", "concierge db downgrade 0001 --state-database postgresql://concierge@db.example/concierge_state"):
        (["concierge db upgrade --state-database postgresql://concierge@db.example/concierge_state"],
         "the state database of an installation: at the newest revision"),
    ("docs/web.md", LOGIN): ([f"echo {PASSWORD} | concierge user set-password admin --password-stdin",
                              "concierge serve &"], "the server the requests go to, with a password for admin"),
    ("docs/onboarding.md", "concierge invoke set_product_price '{\"sku\": \"BEV-001\", \"price\": 650}' --user sato"):
        (_writes_declared, "the write catalog and the settings line that section 10 writes before this block"),
}
REWRITES: dict[str, tuple[str, str]] = {  # text of the docs naming something of the reader's -> what stands for it
    "postgresql://shop_ro@db.example/shop": (
        "{shop}", "the reader's business database: a small shop made here, on SQLite (the README's alternative)"),
    "postgresql://postgres@127.0.0.1:5432/shop": ("{postgres}", "a fresh database on the tests' PostgreSQL server"),
    "postgresql://concierge@db.example/concierge_state": (
        "{postgres}", "a fresh database on the tests' PostgreSQL server"),
    '"password":"..."': ('"password":"' + PASSWORD + '"', "the password BEFORE gave admin"),
}
PORTS: dict[int, str | None] = {  # a port the docs name -> the variable that sets it as a default (a free port here)
    8000: "CONCIERGE_WEB_PORT", 8765: "CONCIERGE_MCP_PORT", 8001: None, 8002: None, 8010: None,
    11434: "model", 8080: "model",  # a local model server's: the fake model's port
}


@dataclass(frozen=True)
class Context:
    project: bool = False  # the block runs in a project folder `concierge init` wrote from the shop database
    terminal: bool = False  # the document is one terminal session: a block goes on where the one before left
    alone: tuple[str, ...] = ()  # blocks (their first command) out of the session, in a plain folder of their own
    apart: tuple[str, ...] = ()  # blocks out of the session, in a project of their own (what they read is as new)


CONTEXTS = {
    "docs/onboarding.md": Context(  # the steps of one project, in order, after the summary of them all (alone);
        project=True, terminal=True,  # the checks of section 4 read the draft as init wrote it (apart)
        alone=("concierge init --database postgresql://shop_ro@db.example/shop --dir shopdesk",),
        apart=("concierge eval --generate 40",)),
    "docs/settings.md": Context(project=True),  # "a new project has no user until you add one"
}


def _context(block: Block) -> Context:
    context = CONTEXTS.get(block.doc, Context())
    first = _key(block)[0][1] if _key(block) else ""
    if first in context.alone:
        return Context()
    return Context(project=context.project) if first in context.apart else context


# --- the tests ---------------------------------------------------------------------------------------------------
def _key(block: Block) -> list[tuple[str, str]]:
    if block.lang == "python":
        return [(block.doc, first_line(block))]
    return [(block.doc, c.key) for c in commands(block)]


def _uses_postgres(block: Block) -> bool:
    return any(old in block.code for old, (new, _why) in REWRITES.items() if new == "{postgres}")


def _params():
    for block in SNIPPETS:
        marks = [pytest.mark.postgres] if _uses_postgres(block) else []
        yield pytest.param(block, id=block.id, marks=marks)


@pytest.mark.parametrize("block", list(_params()))
def test_snippet(block: Block, docs_run) -> None:
    problems = docs_run.result(block)
    assert problems == [], "\n\n".join(problems)


def test_not_run_is_exactly_the_commands_not_run() -> None:
    """Every command of the docs runs but those NOT_RUN names, each of which is in the docs; a command of a kind
    that cannot run here (NEVER) is among them, so a new one fails here, not only in its block."""
    found = {k for b in SNIPPETS for k in _key(b)}
    assert sorted(set(NOT_RUN) - found) == [], "stale: no such command in the docs"
    assert sorted(k for k in found - set(NOT_RUN) if re.search(NEVER, k[1])) == [], "cannot run here: list it"


def test_the_other_tables_match_the_docs() -> None:
    found = {k for b in SNIPPETS for k in _key(b)}
    stale = {name: sorted(set(table) - found) for name, table in
             (("STATUS", STATUS), ("STDIN", STDIN), ("OUTPUT", OUTPUT), ("BEFORE", BEFORE))}
    stale["REWRITES"] = [old for old in REWRITES if not any(old in b.code for b in SNIPPETS)]
    stale["PORTS"] = [p for p in PORTS if not any(re.search(rf"[:\s]{p}\b", b.code) for b in SNIPPETS)]
    stale["CONTEXTS"] = [doc for doc, c in CONTEXTS.items() if not any(b.doc == doc for b in SNIPPETS)
                         or {*c.alone, *c.apart} - {k for d, k in found if d == doc}]
    assert {name: entries for name, entries in stale.items() if entries} == {}
    assert not set(NOT_RUN) & (set(STATUS) | set(STDIN) | set(OUTPUT)), "a command not run has no other entry"


def test_a_block_is_read_as_a_reader_runs_it() -> None:
    """A console block runs its `$ ` lines only (their `> ` continuations joined); a shell block every line but the
    comments, a trailing backslash joining the next; a table names a command without its comment."""
    console = Block("docs/x.md", 10, "console", "$ concierge user list   # who\nname  role\n$ echo a \\\n> b\nb")
    shell = Block("docs/x.md", 20, "bash", "# setup\nconcierge ask \"a # b\"  # asks\n\nnpx x \\\n    --y 1")
    assert [(c.line, c.key) for c in commands(console)] == [(11, "concierge user list"), (13, "echo a b")]
    assert [(c.line, c.key) for c in commands(shell)] == [(22, 'concierge ask "a # b"'), (24, "npx x --y 1")]


def test_the_blocks_that_run_are_all_found() -> None:
    """Every fenced block is of a language that runs, or of one that is data; a new word (`zsh`,
    `shell-session`) must be added to one of the two."""
    data = {"", "json", "yaml", "toml", "sql", "nginx", "xml", "html"}
    assert SNIPPETS and {b.info for b in blocks(ROOT) if not b.lang} <= data


# --- running them ------------------------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _clone_like(folder: Path) -> Path:
    """A working folder where the docs' relative paths (`.venv/bin/python`, `tests/...`, `bench/...`) resolve."""
    folder.mkdir(parents=True)
    for entry in ROOT.iterdir():
        if entry.name not in (".git",) and not entry.name.endswith((".db", ".db-wal", ".db-shm")):
            (folder / entry.name).symlink_to(entry)
    return folder


def _shop(path: Path) -> None:
    """A small shop as companies keep one (customers, stores, products with SKUs and prices in cents, orders
    from 2018-09 to 2019-04 and their items): the business database the onboarding blocks point `init` at."""
    import random

    rnd = random.Random(20180901)
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE stores (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, opened_at DATE NOT NULL);
        CREATE TABLE products (sku TEXT PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL,
                               price INTEGER NOT NULL, description TEXT);
        CREATE TABLE orders (id TEXT PRIMARY KEY, customer TEXT NOT NULL REFERENCES customers(id),
                             store_id TEXT NOT NULL REFERENCES stores(id), ordered_at TIMESTAMP NOT NULL,
                             subtotal INTEGER NOT NULL, tax_paid INTEGER NOT NULL, order_total INTEGER NOT NULL);
        CREATE TABLE items (id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id),
                            sku TEXT NOT NULL REFERENCES products(sku));
        CREATE INDEX orders_customer ON orders (customer);
        CREATE INDEX items_order ON items (order_id);
    """)
    first = ["Anna", "Ben", "Chika", "Dai", "Emma", "Felix", "Grace", "Hiro", "Ivy", "Jun"]
    last = ["Smith", "Sato", "Jones", "Suzuki", "Brown", "Tanaka"]
    db.executemany("INSERT INTO customers VALUES (?, ?)",
                   [(f"c{i:03d}", f"{first[i % 10]} {last[i % 6]}") for i in range(1, 61)])
    db.executemany("INSERT INTO stores VALUES (?, ?, ?)", [("s1", "Philadelphia", "2018-09-01"),
                                                          ("s2", "Brooklyn", "2019-03-12")])
    products = [("JAF-001", "nutellaphone who dis?", "jaffle", 1100), ("JAF-002", "doctor stew", "jaffle", 1100),
                ("JAF-003", "the krautback", "jaffle", 1200), ("JAF-004", "flame impala", "jaffle", 1400),
                ("BEV-001", "tangaroo", "beverage", 600), ("BEV-002", "chai and mighty", "beverage", 500),
                ("BEV-003", "vanilla ice", "beverage", 600), ("BEV-004", "for richer or pourover", "beverage", 700)]
    db.executemany("INSERT INTO products VALUES (?, ?, ?, ?, '')", products)
    orders, items = [], []
    for i in range(1, 481):
        day = 1535760000 + i * 13 * 3600 + rnd.randrange(3600)  # 2018-09-01 onwards, about two a day
        chosen = [products[rnd.randrange(len(products))] for _ in range(rnd.randrange(1, 4))]
        subtotal = sum(p[3] for p in chosen)
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(day))
        orders.append((f"o{i:04d}", f"c{rnd.randrange(1, 61):03d}", "s2" if when >= "2019-03-12" and i % 2 else "s1",
                       when, subtotal, subtotal * 6 // 100, subtotal + subtotal * 6 // 100))
        items += [(f"o{i:04d}-{n}", f"o{i:04d}", p[0]) for n, p in enumerate(chosen)]
    db.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?)", orders)
    db.executemany("INSERT INTO items VALUES (?, ?, ?)", items)
    db.commit()
    db.close()


def _pos_export(database: Path, path: Path) -> None:
    """The demo store's sales as a POS export, as README.md describes the file (UTF-8 with BOM and these headers)."""
    import csv

    db = sqlite3.connect(database)
    rows = db.execute("SELECT sale_date, store, product, category, unit_price, quantity, amount FROM pos_sales "
                      "ORDER BY store, sale_date, product").fetchall()
    db.close()
    with path.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["日付", "店舗", "商品名", "カテゴリ", "単価", "数量", "売上金額"])
        writer.writerows(rows)


FILES: dict[str, Callable[[Path, Path], None]] = {  # a file a block names, made in its folder: (home, path)
    "export.csv": lambda home, path: _pos_export(home / ".local/share/concierge/concierge.db", path),
}


@dataclass
class Place:
    """Where one block (or one terminal's blocks) runs: its folder, HOME, ports and rewrites."""

    root: Path
    home: Path
    work: Path
    ports: dict[int, int]
    values: dict[str, str] = field(default_factory=dict)  # a rewritten text -> what stands for it here
    carried: Path | None = None  # a terminal's folder and exports, as its last block left them


class DocsRun:
    """Runs the blocks the selected tests need, in parallel, once; `result(block)` waits for one block's."""

    def __init__(self, tmp: Path, stack: ExitStack, pg_server: dict | None):
        self.tmp, self.stack, self.pg_server = tmp, stack, pg_server
        self.model = stack.enter_context(FakeModel())
        self.bin = self._fork_server()
        self.template = tmp / "template-home"
        self._first_use(self.template)
        self.shop = tmp / "shop.db"
        _shop(self.shop)
        self.futures: dict[str, Future] = {}

    def _fork_server(self) -> Path:
        if os.environ.get("CONCIERGE_DOCS_NO_FORK"):
            return VENV_BIN
        path = str(self.tmp / "fork.sock")
        preload = ["fastapi", "uvicorn", "mcp.server.lowlevel", "openai", "anthropic"]
        env = {**self._base_env(self.tmp), **{k: v for k, v in os.environ.items() if k == "DOC_FORK_CPU_LOG"}}
        server = subprocess.Popen([sys.executable, doc_fork.__file__, path, *preload], stdout=subprocess.PIPE,
                                  env=env, start_new_session=True, text=True)
        self.stack.callback(server.stdout.close)
        self.stack.callback(lambda: (server.terminate(), server.wait(10)))
        assert server.stdout is not None and server.stdout.readline().strip() == "ready", "the fork server failed"
        return doc_fork.stand_ins(self.tmp / "bin", path)

    def _base_env(self, home: Path) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()  # none of the reader's settings, keys or tokens
               if not k.startswith(("CONCIERGE_", "XDG_", "VIRTUAL_ENV", "PYTHONPATH", "PYTEST_", "SWITCHBOT_"))
               and not k.endswith(("_API_KEY", "_BASE_URL", "_AUTH_TOKEN"))}
        return {**env, "HOME": str(home), "LANG": "C.UTF-8"}

    def _first_use(self, home: Path) -> None:
        """The embedded database as a reader's first command leaves it: the demos installed."""
        home.mkdir()
        self._concierge(home, "invoke", "get_customers", "{}")

    def _concierge(self, home: Path, *args: str) -> str:
        done = _run_group([str(self.bin / "concierge"), *args], cwd=home, env=self.env(home, {}))
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def env(self, home: Path, ports: dict[int, int]) -> dict[str, str]:
        env = self._base_env(home)
        env["PATH"] = f"{self.bin}:{VENV_BIN}:{env.get('PATH', '/usr/bin:/bin')}"
        env.update({"OPENAI_API_KEY": "sk-docs-fake", "OPENAI_BASE_URL": f"{self.model.url}/v1",
                    "ANTHROPIC_API_KEY": "sk-ant-docs-fake", "ANTHROPIC_BASE_URL": self.model.url})
        env.update({var: str(ports[port]) for port, var in PORTS.items() if var and var != "model" and port in ports})
        return env

    # scheduling: a terminal's blocks in order, every other block on its own; WORKERS at once
    def start(self, wanted: set[str]) -> None:
        chains: list[list[Block]] = []
        for block in SNIPPETS:
            if _context(block).terminal and chains and _context(chains[-1][-1]).terminal \
                    and chains[-1][-1].doc == block.doc:
                chains[-1].append(block)
            else:
                chains.append([block])
        pool = self.stack.enter_context(ThreadPoolExecutor(max_workers=WORKERS))
        for chain in sorted(chains, key=_cost, reverse=True):  # the long ones first
            if any(b.id in wanted for b in chain):
                future = pool.submit(self._chain, chain)
                for block in chain:
                    self.futures[block.id] = future

    def result(self, block: Block) -> list[str]:
        return self.futures[block.id].result()[block.id]

    def _chain(self, chain: list[Block]) -> dict[str, list[str]]:
        place = self._place(chain[0])
        results = {}
        for block in chain:
            try:
                results[block.id] = self._run(block, place)
            except Exception as err:  # the runner's own failure is this block's
                results[block.id] = [f"{type(err).__name__}: {err}"]
        return results

    def _place(self, block: Block) -> Place:
        root = self.tmp / re.sub(r"\W", "_", block.id)
        home = root / "home"
        shutil.copytree(self.template, home, symlinks=True)
        work = _clone_like(root / "work")
        ports = {port: self.model.port if var == "model" else _free_port() for port, var in PORTS.items()}
        place = Place(root, home, work, ports)
        if _context(block).project:
            shutil.copy(self.shop, work / "shop.db")
            self._concierge(work, "init", "--database", f"sqlite:///{work / 'shop.db'}", "--dir", str(work))
        return place

    def _run(self, block: Block, place: Place) -> list[str]:
        if block.lang == "python":
            return self._python(block, place)
        return self._shell(block, place)

    def _python(self, block: Block, place: Place) -> list[str]:
        if (block.doc, first_line(block)) in NOT_RUN:
            return []
        path = place.work / f"snippet_{block.line}.py"
        path.write_text(block.code + "\n", encoding="utf-8")
        python = self.bin / "doc-python" if (self.bin / "doc-python").exists() else Path(sys.executable)
        done = _run_group([str(python), path.name], cwd=place.work, env=self.env(place.home, place.ports))
        if done.returncode != 0:
            return [f"{block.id}: python exited {done.returncode}\n{done.stdout}{done.stderr}"]
        return []

    def _shell(self, block: Block, place: Place) -> list[str]:
        unlisted = [c for c in commands(block) if re.search(NEVER, c.key) and (block.doc, c.key) not in NOT_RUN]
        if unlisted:
            return [f"{block.doc}:{c.line}: not run: a command of a kind NEVER runs here, and NOT_RUN does not "
                    f"say why: {c.key}" for c in unlisted]
        steps = [*self._before(block), *self._steps(block)]
        for step in steps:
            step.text = self._rewrite(step.text, place)
            self._make_files(step.text, place)
            step.server_port = self._server_port(step, place)
        logs = place.root / f"logs_{block.line}"
        logs.mkdir()
        script = shell_script(steps, logs, start=place.carried)
        done = _run_group(["bash", "-c", script], cwd=place.work, env=self.env(place.home, place.ports))
        if _context(block).terminal:
            place.carried = logs
        ran = outcomes(steps, logs)
        problems = [p for o in ran if (p := _problem(block, o))]
        if not problems and any(o.status is None for o in ran):
            problems.append(f"{block.id}: the script ended before its last command\n{done.stderr[-2000:]}")
        if done.returncode != 0:
            problems.append(f"{block.id}: bash exited {done.returncode}: {done.stderr[-2000:]}")
        return problems[:1] + problems[-1:] if len(problems) > 2 else problems

    def _before(self, block: Block) -> list[Step]:
        entry = next((BEFORE[k] for k in _key(block) if k in BEFORE), None)
        if entry is None:
            return []
        lines = entry[0]
        if callable(lines):
            lines = lines(lambda info, start: next(b for b in blocks(ROOT) if b.doc == block.doc and b.info == info
                                                    and b.code.lstrip().startswith(start)))
        return [Step(Command(0, line), line, keep=True) for line in lines]

    def _steps(self, block: Block) -> list[Step]:
        steps = []
        for command in commands(block):
            key = (block.doc, command.key)
            if key in NOT_RUN:
                continue
            keep = any(re.match(p, command.text) for p in KEEP_UP) or strip_comment(command.text).endswith("&")
            steps.append(Step(command, command.text, expect=STATUS.get(key, (0, ""))[0], stdin=STDIN.get(key),
                              keep=keep))
        return steps

    def _rewrite(self, text: str, place: Place) -> str:
        for old, (new, _why) in REWRITES.items():
            if old in text:
                if old not in place.values:
                    place.values[old] = self._stand_in(new, place)
                text = text.replace(old, place.values[old])
        return re.sub(r"(?<=[:\s])(\d{4,5})\b", lambda m: str(place.ports.get(int(m[1]), m[1])), text)

    def _stand_in(self, new: str, place: Place) -> str:
        if new == "{shop}":
            shutil.copy(self.shop, place.work / "shop.db")
            return f"sqlite:///{place.work / 'shop.db'}"
        if new == "{postgres}":
            assert self.pg_server is not None, "a block that uses PostgreSQL, and no server"
            return self.stack.enter_context(fresh_database(self.pg_server, prefix="concierge_docs"))
        return new

    def _make_files(self, text: str, place: Place) -> None:
        for name, make in FILES.items():
            if re.search(rf"(?<![\w/.]){re.escape(name)}\b", text) and not (place.work / name).exists():
                make(place.home, place.work / name)

    def _server_port(self, step: Step, place: Place) -> int | None:
        text = strip_comment(step.text)
        default = next((port for pattern, port in SERVERS.items() if re.match(pattern, text)), None)
        if default is None:
            return None
        given = re.search(r"--port[ =](\d+)", text)
        return int(given[1]) if given else place.ports.get(default, default)


def _run_group(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 240) -> subprocess.CompletedProcess:
    """`args` in a session of its own (no terminal: a password prompt reads stdin), killed whole after `timeout`."""
    with subprocess.Popen(args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, start_new_session=True) as process:
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
            err += f"\n(killed after {timeout} s)"
    return subprocess.CompletedProcess(args, process.returncode, out, err)


WORKERS = 4  # blocks at once: most of a block's time is a command's own work, on two cores; the rest waits


def _cost(chain: list[Block]) -> int:
    """About how long a chain takes, to start the long ones first: its commands, evals and servers weigh more."""
    text = "\n".join(b.code for b in chain)
    return len(text.splitlines()) + 8 * len(re.findall(r"\beval\b|bench/", text)) + 3 * text.count(" serve")


def _problem(block: Block, outcome: Outcome) -> str | None:
    step = outcome.step
    where = f"{block.doc}:{step.command.line}" if step.command.line else f"{block.id} (prepared by BEFORE)"
    if outcome.status is None:
        return None
    if outcome.status != step.expect:
        return f"{where}: exit {outcome.status}, expected {step.expect}: {step.text}\n{outcome.output[-3000:]}"
    for pattern in _expected(block, step.command):
        if not re.search(pattern, outcome.output):
            return f"{where}: the output does not match {pattern!r}: {step.text}\n{outcome.output[-3000:]}"
    return None


def _expected(block: Block, command: Command) -> list[str]:
    """What the output of a command must match: its OUTPUT entry, and what its comment claims (CLAIMS)."""
    patterns = [OUTPUT[(block.doc, command.key)]] if (block.doc, command.key) in OUTPUT else []
    comment = command.text[len(strip_comment(command.text)):]
    if command.key.startswith("concierge eval"):
        claim = next(((m, text) for pattern, text in CLAIMS if (m := re.search(pattern, comment))), None)
        if claim:
            patterns.append(re.escape(claim[1].format(*claim[0].groups())))
    return patterns


@pytest.fixture(scope="module")
def docs_run(request, tmp_path_factory) -> Iterator[DocsRun]:
    wanted = {item.callspec.params["block"].id for item in request.session.items
              if item.module is sys.modules[__name__] and item.originalname == "test_snippet"}
    pg = any(_uses_postgres(b) for b in SNIPPETS if b.id in wanted)
    began = time.monotonic()
    with ExitStack() as stack:
        run = DocsRun(tmp_path_factory.mktemp("docs"), stack, request.getfixturevalue("pg_server") if pg else None)
        run.start(wanted)
        yield run
        for future in set(run.futures.values()):
            future.result()
        print(f"\ndoc snippets: {len(wanted)} blocks in {time.monotonic() - began:.1f} s")
