"""What the model is told: the system prompt and the dynamic context."""

from __future__ import annotations

from datetime import date

import pytest

from concierge.agent.prompts import dynamic_context, system_prompt
from concierge.agent.providers.interface import Message, ToolCall
from concierge.demo.bootstrap import open_pipeline
from concierge.language.detect import language
from concierge.sources.result import from_json


@pytest.fixture
def pos(sqlite_url):
    p = open_pipeline(["pos"], sqlite_url)
    try:
        yield p
    finally:
        p.close()


def test_the_system_prompt_carries_the_clock_the_week_and_the_data(pos):
    user = pos.user("pos_analyst")
    prompt = system_prompt(pos, user, pos.tools_for(user))
    assert "Today is 2026-08-31, Monday." in prompt
    assert "先週 / last week: 2026-08-24 .. 2026-08-30" in prompt
    assert "Weeks run Monday to Sunday" in prompt
    assert "category (in compare_periods): one of おにぎり, デザート, 弁当, 飲料" in prompt
    assert "compare_periods.cur_start: the data covers 2026-07-01 .. 2026-08-31" in prompt
    assert "POSアナリスト (pos_analyst, role analyst)" in prompt
    assert "without calling any tool" in prompt and "Never stop to ask" in prompt


def test_a_configured_clock_wins(sqlite_url):
    p = open_pipeline(["farm"], sqlite_url, today=date(2025, 5, 20))
    try:
        prompt = system_prompt(p, p.user("admin"), p.tools_for(p.user("admin")))
    finally:
        p.close()
    assert "Today is 2025-05-20, Tuesday." in prompt and "今月 / this month: 2025-05-01 .. 2025-05-31" in prompt


def test_the_context_shows_the_focus_and_only_this_turns_instructions():
    earlier = {"result_id": "r_old", "tool": "get_sales", "status": "ok", "row_count": 0,
               "args": {"code_customer": "0010"}, "rows": [], "ai_instruction": "Say that the count is 0."}
    latest = {"result_id": "r_new", "tool": "get_customers", "status": "ok", "row_count": 2,
              "args": {"name_str_customer": "佐藤", "code_customer": None}, "columns": ["code_customer", "name"],
              "rows": [{"code_customer": "0001", "name": "佐藤太郎"}, {"code_customer": "0009", "name": "佐藤次郎"}],
              "ai_instruction": "No customer matches? Say so."}
    messages = [
        Message("user", text="0010の販売は？"),
        Message("assistant", tool_calls=[ToolCall("c1", "get_sales", {"code_customer": "0010"})]),
        Message("tool", tool_call_id="c1", result=from_json(earlier)),
        Message("assistant", text="0件です"),
        Message("user", text="佐藤さんは？"),
        Message("assistant", tool_calls=[ToolCall("c2", "get_customers", {"name_str_customer": "佐藤"})]),
        Message("tool", tool_call_id="c2", result=from_json(latest)),
    ]
    context = dynamic_context(messages, turn_start=4)
    assert "get_sales(code_customer=0010) -> 0 row(s) [r_old]" in context
    assert "get_customers(name_str_customer=佐藤) -> 2 row(s) [r_new]: 0001 佐藤太郎; 0009 佐藤次郎" in context
    assert "r_new (get_customers): No customer matches? Say so." in context
    assert "Say that the count is 0." not in context


@pytest.mark.parametrize(("text", "lang"), [("先週の売上は？", "ja"), ("ｶﾎﾞﾁｬ", "ja"), ("Sales last week?", "en"),
                                            ("0009", "en")])
def test_the_language_follows_the_users_words(text, lang):
    assert language(text) == lang
