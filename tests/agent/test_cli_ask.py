"""`concierge ask` and `concierge chat` against a local server speaking Chat Completions."""

from __future__ import annotations

import json

import pytest
from cli_runner import run_cli

SALE = {"code_customer": "0016", "products": "かぼちゃ4個", "price": 600, "date_sales_str": "2025-05-06"}


def chat_reply(message: dict) -> tuple[int, dict]:
    return 200, {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "local-model",
                 "choices": [{"index": 0, "message": {"role": "assistant", **message},
                              "finish_reason": "tool_calls" if "tool_calls" in message else "stop"}],
                 "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


def tool_call(call_id: str, name: str, args: dict) -> tuple[int, dict]:
    return chat_reply({"content": None, "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]})


def text(content: str) -> tuple[int, dict]:
    return chat_reply({"content": content})


def run(server, *args: str, stdin: str | None = None):
    base = ["--provider", "openai-chat", "--base-url", server.url + "/v1", "--model", "local-model"]
    return run_cli(*args, *base, stdin=stdin)


@pytest.fixture(autouse=True)
def _no_openai_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def test_ask_json_prints_the_turn(wire_server):
    wire_server.enqueue(tool_call("call_1", "get_sales", {"code_customer": "0009",
                                                          "date_sales_begin_str": "2025-05-05",
                                                          "date_sales_end_str": "2025-05-11"}),
                        text("先週は1件、1050円でした。"))
    result = run(wire_server, "ask", "0009の先週の販売は？", "--json")

    assert result.exit_code == 0, result.output
    turn = json.loads(result.stdout)
    assert turn["answer"] == "先週は1件、1050円でした。" and turn["ungrounded"] == []
    [call] = turn["calls"]
    assert (call["name"], call["decision"], call["row_count"]) == ("get_sales", "ok", 1)
    assert call["result_id"].startswith("r_") and call["ms"] > 0
    assert len(turn["timings"]["model_ms"]) == 2 and turn["pending"] is None
    assert wire_server.requests[0]["headers"]["authorization"] == "Bearer not-needed"


def test_ask_shows_ungrounded_numbers_and_continues_a_session(wire_server):
    wire_server.enqueue(text("合計は9,999円です。"), text("はい"))
    first = run(wire_server, "ask", "こんにちは")
    assert first.exit_code == 0, first.output
    assert first.stdout.strip() == "合計は9,999円です。"
    assert "ungrounded numbers (not found in this turn's results): 9,999" in first.stderr
    session = first.stderr.split("--session ")[1].split(")")[0]

    second = run(wire_server, "ask", "続けて", "--session", session)
    assert second.exit_code == 0, second.output
    history = [m["content"] for m in wire_server.requests[1]["body"]["messages"][1:]]
    assert history[:2] == ["こんにちは", "合計は9,999円です。"]


def test_a_write_without_yes_is_not_made_and_with_yes_is_made_once(wire_server):
    wire_server.enqueue(tool_call("call_1", "add_sale", SALE))
    waiting = run(wire_server, "ask", "0016にかぼちゃ4個を600円で先週火曜日に販売登録して")
    assert waiting.exit_code == 0, waiting.output
    assert "- 金額: 600円" in waiting.stdout and "- 販売日: 2025年5月6日(火)" in waiting.stdout
    assert "Not confirmed: nothing was written" in waiting.stderr

    wire_server.enqueue(tool_call("call_1", "add_sale", SALE), text("登録しました。"))
    done = run(wire_server, "ask", "0016にかぼちゃ4個を600円で先週火曜日に販売登録して", "--yes", "--json")
    assert done.exit_code == 0, done.output
    assert [c["decision"] for c in json.loads(done.stdout)["calls"]] == ["confirm", "ok"]

    listed = run_cli(*["invoke", "get_sales", json.dumps(
        {"code_customer": "0016", "date_sales_begin_str": "2025-05-06", "date_sales_end_str": "2025-05-06"}),
        "--json"])
    assert json.loads(listed.stdout)["row_count"] == 1


def test_chat_answers_line_by_line_in_one_conversation(wire_server):
    wire_server.enqueue(text("こんにちは。"), text("0001です。"))
    result = run(wire_server, "chat", stdin="こんにちは\n\n0001は？\nexit\n")
    assert result.exit_code == 0, result.output
    assert "こんにちは。" in result.stdout and "0001です。" in result.stdout
    assert len(wire_server.requests[1]["body"]["messages"]) == 4  # system, user, assistant, user


def test_a_missing_key_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    result = run_cli(*["ask", "hi", "--provider", "anthropic"])
    assert result.exit_code == 2
    assert "set ANTHROPIC_API_KEY" in result.stderr and "--provider offline" in result.stderr
