"""The CLI contract: names and options other tools rely on, run as a user would."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from cli_runner import run_cli

COMPARE = ["compare_periods", json.dumps({"cur_start": "2026-08-24", "cur_end": "2026-08-30",
                                          "prev_start": "2026-08-17", "prev_end": "2026-08-23", "category": None})]


def run(*args: str) -> tuple[int, str]:
    result = run_cli(*args)
    return result.exit_code, result.output


@pytest.mark.parametrize("url_fixture", ["sqlite_url", pytest.param("pg_url", marks=pytest.mark.postgres)])
def test_invoke_compare_periods_reports_the_demo_facts(request, url_fixture):
    url = request.getfixturevalue(url_fixture)
    code, out = run("db", "init", "--catalog", "pos", "--database", url)
    assert code == 0, out
    code, out = run("invoke", *COMPARE, "--catalog", "pos", "--database", url, "--json")
    assert code == 0, out
    summary = json.loads(out)["summary"]
    assert (summary["current_total"], summary["previous_total"], summary["change"], summary["change_pct"]) == (
        635010, 647940, -12930, -2.0)
    assert [d["product"] for d in summary["top_decreases"]] == ["ハンバーグ弁当", "明太子おにぎり", "麦茶"]
    assert [d["product"] for d in summary["top_increases"]] == ["幕の内弁当", "鮭おにぎり", "アイスバー"]


def test_the_embedded_default_is_created_on_first_use():
    code, out = run("invoke", "get_sales", '{"code_customer": "0009", "date_sales_begin_str": "2025-05-05", '
                    '"date_sales_end_str": "2025-05-11"}')
    assert code == 0, out
    assert "キュウリ15本" in out and "1050" in out


def test_a_refusal_exits_1_and_says_why():
    code, out = run("invoke", "run_sql", '{"sql": "DROP TABLE farm_sales"}')
    assert code == 1
    assert "there is no tool 'run_sql'" in out


def test_bad_json_and_unknown_user_are_clear_errors():
    code, out = run("invoke", "get_sales", "{code: 1}")
    assert code == 2 and "not valid JSON" in out
    code, out = run("invoke", "get_sales", '{"code_customer": "0001"}', "--user", "nobody")
    assert code == 2 and "unknown user 'nobody'" in out and "Traceback" not in out


def test_a_write_needs_yes_and_then_happens_once():
    sale = '{"code_customer": "0016", "products": "かぼちゃ4個", "price": 600, "date_sales_str": "2025-05-06"}'
    code, out = run("invoke", "add_sale", sale)
    assert code == 0 and "Cancelled: nothing was written" in out and "松本理恵" in out
    code, out = run("invoke", "add_sale", sale, "--yes", "--json")
    assert code == 0, out
    number = json.loads(out)["rows"][0]["code_sales"]
    code, out = run("invoke", "get_sales", json.dumps({"code_customer": "0016", "code_sales": number}), "--json")
    assert json.loads(out)["row_count"] == 1


def test_tools_list_and_audit():
    code, out = run("tools", "list", "--catalog", "farm", "--catalog", "pos")
    assert code == 0
    for tool in ("get_customers", "get_sales", "add_sale", "compare_periods", "sales_ranking", "daily_sales"):
        assert tool in out
    run("invoke", "get_customers", '{"code_customer": "0001"}', "--user", "suzuki")
    code, out = run("audit", "--limit", "1")
    assert code == 0 and "suzuki" in out and "get_customers" in out


def test_a_broken_catalog_stops_the_command_with_file_and_key(tmp_path):
    bad = tmp_path / "bad.yaml"
    text = "catalog: x\ndescription: {ja: a, en: b}\nroles: {}\ntools:\n  t:\n    roles: [r]\n    sql: SELECT 1\n"
    bad.write_text(text, encoding="utf-8")
    code, out = run("tools", "list", "--catalog", str(bad))
    assert code == 2
    assert f"{bad}: tools.t.description: Field required" in out and "Traceback" not in out


def test_the_console_script_runs():
    out = subprocess.run([sys.executable, "-m", "concierge", "--help"], capture_output=True, text=True, check=True)
    assert "invoke" in out.stdout
