"""`concierge eval` on a company's own folder: generated cases, unknown users, answer-only turns, exit codes,
and a write that one case makes and the next never sees."""

from __future__ import annotations

import json
from datetime import date

import draft_shop
import pytest
import sqlalchemy as sa
from cli_runner import run_cli

from concierge.evaluation.databases import SettingsData
from concierge.settings import load_settings

BACKENDS = ["sqlite_url", pytest.param("pg_url", marks=pytest.mark.postgres)]


@pytest.fixture
def desk(request, tmp_path, monkeypatch):
    """An `init`ed folder on the draft shop, as the current folder (its settings, not the tests' database)."""
    url = request.getfixturevalue(request.param)
    draft_shop.create(url)
    folder = tmp_path / "shopdesk"
    assert run_cli("init", "--database", url, "--dir", str(folder), "--name", "shop").exit_code == 0
    monkeypatch.delenv("CONCIERGE_DATABASE", raising=False)
    monkeypatch.chdir(folder)
    return folder


def case(case_id: str, *turns: dict, user: str | None = None, kind: str | None = None) -> str:
    body = {"id": case_id, "domain": "shop", "today": "2025-07-01", "turns": list(turns)}
    body.update({"user": user} if user else {})
    body.update({"kind": kind} if kind else {})
    return json.dumps(body, ensure_ascii=False)


@pytest.mark.parametrize("desk", BACKENDS, indirect=True)
def test_generated_cases_run_on_the_folders_database_with_counts_per_kind(desk):
    result = run_cli("eval", "--generate", "16", "--out", "generated.jsonl")
    assert result.exit_code in (0, 1), result.output
    cases = [json.loads(line) for line in (desk / "generated.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(cases) == 16 and {c["domain"] for c in cases} == {"shop"}
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines[:16]] == ["PASS" if "PASS" in line else "FAIL" for line in lines[:16]]
    kinds = {c["kind"] for c in cases}
    for kind in kinds:
        total = sum(c["kind"] == kind for c in cases)
        assert any(line.startswith(f"kind {kind}: ") and line.endswith(f"/{total} passed") for line in lines)
    passed = sum(line.startswith("PASS") for line in lines)
    assert lines[-1] == f"{passed} passed, {16 - passed} failed"
    assert result.exit_code == (1 if passed < 16 else 0)
    if passed < 16:
        wrong = sum("[wrong figure]" in line for line in lines)
        assert f"failed: {wrong} stated a wrong figure, {16 - passed - wrong} answered nothing usable" in lines
    assert "stand-in 'admin'" in result.stdout  # no user added yet
    assert not (desk / "state.db").exists()  # a rehearsal leaves no audit line or conversation behind


@pytest.mark.parametrize("desk", ["sqlite_url"], indirect=True)
def test_an_unknown_user_fails_its_case_and_the_others_still_run(desk):
    assert run_cli("user", "add", "yamada", "--role", "staff", "--no-password").exit_code == 0
    customers = len(draft_shop.rows()[0])
    file = desk / "cases.jsonl"
    file.write_text("\n".join([
        case("first", {"say": "How many customers are there?", "answer_contains": [str(customers)]}, user="yamada",
             kind="count"),
        case("stranger", {"say": "How many customers are there?", "answer_contains": [str(customers)]}, user="x"),
        case("answer-only", {"say": "How many customers are there?", "answer_contains": [str(customers)]},
             kind="count"),
        case("wrong", {"say": "How many customers are there?", "answer_contains": [str(customers + 1)]},
             kind="count"),
    ]) + "\n", encoding="utf-8")
    result = run_cli("eval", str(file))
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert lines[0] == "PASS first"
    assert lines[1] == ("FAIL stranger: user 'x' is not a user of "
                        f"{desk / 'concierge.toml'} (users: yamada); add it with concierge user add x --role ROLE")
    assert lines[2] == "PASS answer-only"  # the only user acts where a case names none, as with `concierge ask`
    assert lines[3] == f"FAIL wrong [wrong figure]: turn 1: answer lacks '{customers + 1}'"
    assert "kind count: 2/3 passed" in lines
    assert "failed: 1 stated a wrong figure, 1 answered nothing usable" in lines
    assert lines[-1] == "2 passed, 2 failed"

    report = json.loads(run_cli("eval", str(file), "--json").output)
    assert [c["failure"] for c in report["cases"]] == [None, "nothing usable", None, "wrong figure"]
    assert report["kinds"] == {"count": [2, 3]}


@pytest.mark.parametrize("desk", ["sqlite_url"], indirect=True)
def test_the_command_asks_for_a_file_or_generate(desk):
    assert run_cli("eval").exit_code == 2
    assert run_cli("eval", "--out", "x.jsonl").exit_code == 2


WRITES = """\
catalog: shop_writes
description: {ja: 注文の状態を変えます, en: Change an order's status}
roles:
  admin: {all_rows: true}
tools:
  set_status:
    description: {ja: 注文の状態を変えます, en: Change an order's status}
    mode: write
    roles: [admin]
    params:
      id: {type: integer, required: true, description: {ja: 注文, en: the order}}
      status: {type: string, required: true, max_length: 20, description: {ja: 状態, en: the status}}
    sql: UPDATE orders SET status = :status WHERE id = :id
"""


@pytest.mark.parametrize("url_fixture", BACKENDS)
def test_a_case_that_writes_leaves_nothing_for_the_next(request, url_fixture, tmp_path):
    url = request.getfixturevalue(url_fixture)
    draft_shop.create(url)
    folder = tmp_path / "desk"
    assert run_cli("init", "--database", url, "--dir", str(folder), "--name", "shop").exit_code == 0
    (folder / "catalogs" / "writes.yaml").write_text(WRITES, encoding="utf-8")
    toml = folder / "concierge.toml"
    toml.write_text(toml.read_text().replace('catalogs = ["catalogs/shop.yaml"]',
                                             'catalogs = ["catalogs/shop.yaml", "catalogs/writes.yaml"]'))
    settings = load_settings(environ={}, cwd=folder)
    work = tmp_path / "work"
    work.mkdir()
    data = SettingsData(settings, work)
    read = "SELECT status FROM orders WHERE id = 1"
    try:
        assert data.writes and data.names == ["shop", "shop_writes"]
        for _ in range(2):  # the second case sees the data as it was before the first
            with data.pipeline("c", date(2025, 7, 1)) as pipeline:
                admin = pipeline.user("admin")
                with pipeline.db.read() as conn:
                    assert conn.execute(sa.text(read)).scalar() == draft_shop.rows()[1][0][2]
                assert pipeline.invoke("set_status", {"id": 1, "status": "lost"}, admin).status == "ok"
                with pipeline.db.read() as conn:  # the case reads its own write
                    assert conn.execute(sa.text(read)).scalar() == "lost"
    finally:
        data.close()
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        assert conn.execute(sa.text(read)).scalar() == draft_shop.rows()[1][0][2]
    engine.dispose()
