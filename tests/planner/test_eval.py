"""`concierge eval`: the scoring rules of docs/eval-format.md, and the offline planner over the cases."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio
import pytest
from cli_runner import run_cli

from concierge import evaluation as evaluation

HERE = Path(__file__).resolve().parent
CASES = HERE / "dev_cases.jsonl"  # a copy of the published dev cases (FORMAT: docs/eval-format.md)


def call(tool: str, **args) -> dict:
    return {"tool": tool, "args": args}


@pytest.mark.parametrize("expected,got,matches", [
    (call("add_sale", price=600), call("add_sale", price="600"), True),  # numbers compare as numbers
    (call("get_sales", code_customer="0009"), call("get_sales", code_customer="9"), False),  # codes do not
    (call("get_sales", code_customer="０００９"), call("get_sales", code_customer=" 0009"), True),  # NFKC, spaces
    (call("x", category="Drinks"), call("x", category="drinks"), True),
    (call("get_sales", code_customer="0009"), call("get_sales", code_customer="0009", code_sales=None), True),
    (call("get_sales", code_customer="0009"), call("get_sales", code_customer="0009", code_sales="S1"), False),
    (call("get_sales", code_customer="0009"), call("get_customers", code_customer="0009"), False),
    ({**call("r", start="1"), "may_add": {"top_n": "*"}}, call("r", start="1", top_n=7), True),
    ({**call("r", start="1"), "may_add": {"order": "desc"}}, call("r", start="1", order="desc"), True),
    ({**call("r", start="1"), "may_add": {"order": "desc"}}, call("r", start="1", order="asc"), False),
    ({**call("r", start="1"), "may_add": {"order": "desc"}}, call("r", start="1"), True),
    (call("r", start="1", end="2"), call("r", start="1"), False),
])
def test_one_call_is_compared_as_the_format_says(expected, got, matches):
    assert evaluation.call_matches(expected, got) is matches


def test_calls_are_a_multiset_unless_ordered():
    a, b = call("t", n=1), call("t", n=2)
    assert evaluation.calls_match([a, b], [b, a], ordered=False)
    assert not evaluation.calls_match([a, b], [b, a], ordered=True)
    assert not evaluation.calls_match([a, a], [a, b], ordered=False)
    assert not evaluation.calls_match([a], [a, a], ordered=False)
    assert evaluation.calls_match([], [], ordered=False)


def test_a_turn_is_scored_on_calls_and_answer():
    turn = {"say": "…", "calls_any": [[], [call("daily_sales", start="2026-09-01")]],
            "answer_contains": ["2180", "ナス"], "answer_lacks": ["S2025"]}
    assert evaluation.score_turn(turn, [], "合計 2,180円、ﾅｽ") == []
    assert evaluation.score_turn(turn, [call("daily_sales", start="2026-09-01")], "2180 ナス") == []
    differences = evaluation.score_turn(turn, [call("daily_sales", start="2026-09-02")], "S20250101 2,18 ナス")
    assert differences == ['unexpected call daily_sales{"start": "2026-09-02"}', "answer lacks '2180'",
                           "answer contains 'S2025'"]


def test_the_offline_planner_passes_every_case():
    report = anyio.run(evaluation.run, CASES)
    failed = [c.line() for c in report.cases if not c.passed]
    assert failed == []
    assert report.turns_passed == report.turns > 0 and report.ungrounded == 0
    assert 0 < report.turn_ms_p50 <= report.turn_ms_p95


def test_the_command_prints_a_line_per_case_and_the_totals(tmp_path):
    own = HERE / "cases.jsonl"
    result = run_cli(*["eval", str(own)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    count = sum(1 for line in own.read_text(encoding="utf-8").splitlines() if line.strip())
    assert lines[-1] == f"{count} passed, 0 failed"
    assert [line.split()[0] for line in lines[:count]] == ["PASS"] * count
    assert "ungrounded numbers: 0" in lines and any(line.startswith("turn time: p50 ") for line in lines)

    failing = tmp_path / "failing.jsonl"
    failing.write_text(json.dumps({"id": "wrong", "domain": "farm", "today": "2025-05-15", "turns": [
        {"say": "顧客コード0009の先週の販売データを見せて", "calls": [call("get_sales", code_customer="0010")],
         "answer_contains": ["9999"]}]}, ensure_ascii=False) + "\n", encoding="utf-8")
    result = run_cli(*["eval", str(failing), "--json"])
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert (report["passed"], report["failed"]) == (0, 1)
    [turn] = report["cases"][0]["turns"]
    assert turn["differences"][0].startswith("missing call get_sales")
    assert "answer lacks '9999'" in turn["differences"]


def test_a_malformed_case_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "domain": "shop", "today": "2025-05-15", "turns": []}\n', encoding="utf-8")
    result = run_cli(*["eval", str(bad)])
    assert result.exit_code == 2 and "line 1: domain must be one of farm, home, pos" in result.output


class _ChatServer:
    """A local server speaking Chat Completions: asks for one call, then answers with the codes it got back."""

    def __init__(self):
        self.bodies: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the http.server API)
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                outer.bodies.append(body)
                results = [m["content"] for m in body["messages"] if m["role"] == "tool"]
                if results:
                    codes = sorted(set(re.findall(r'"code_customer": ?"(\d{4})"', " ".join(results))))
                    message = {"role": "assistant", "content": "顧客コード: " + ", ".join(codes)}
                else:
                    message = {"role": "assistant", "content": None, "tool_calls": [{
                        "id": "call_1", "type": "function", "function": {
                            "name": "get_customers", "arguments": json.dumps({"name_str_customer": "佐藤"})}}]}
                data = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                                   "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                                   "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data.encode())))
                self.end_headers()
                self.wfile.write(data.encode())

            def log_message(self, *_args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)


def test_the_command_runs_a_model_provider_with_its_model_and_address(tmp_path):
    case = tmp_path / "case.jsonl"
    case.write_text(json.dumps({"id": "sato", "domain": "farm", "today": "2025-05-15", "turns": [
        {"say": "佐藤さんの顧客コードを教えて。", "calls": [call("get_customers", name_str_customer="佐藤")],
         "answer_contains": ["0001", "0009"]}]}, ensure_ascii=False) + "\n", encoding="utf-8")
    server = _ChatServer()
    server.thread.start()
    try:
        result = run_cli(*["eval", str(case), "--provider", "openai-chat", "--model", "local-m",
                                           "--base-url", server.url])
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "1 passed, 0 failed"
    assert [b["model"] for b in server.bodies] == ["local-m", "local-m"]
