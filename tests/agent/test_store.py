"""Conversations in the database, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from concierge.agent.providers.interface import Message, ToolCall
from concierge.agent.store import ConversationStore
from concierge.sources.result import Rows
from concierge.storage.database import Database
from concierge.storage.migrate import ensure_state

TURN = [
    Message("user", text="佐藤さんの顧客コードを教えて。"),
    Message("assistant", tool_calls=[ToolCall("c1", "get_customers", {"name_str_customer": "佐藤"})]),
    Message("tool", tool_call_id="c1",
            result=Rows(result_id="r_1", tool="get_customers", rows=[{"code": "0001"}])),
    Message("assistant", text="0001と0009です [r_1]"),
]


@pytest.fixture
def store(db_url):
    db = Database(db_url)
    ensure_state(db)
    try:
        yield ConversationStore(db)
    finally:
        db.dispose()


def test_a_saved_turn_loads_back_in_order(store):
    store.save_turn("s_1", "admin", TURN)
    store.save_turn("s_1", "admin", [Message("user", text="ありがとう"), Message("assistant", text="どういたしまして")])
    loaded = store.load("s_1", "admin")
    assert loaded == [*TURN, Message("user", text="ありがとう"), Message("assistant", text="どういたしまして")]


def test_sessions_are_listed_newest_first_with_their_title(store):
    store.save_turn("s_old", "admin", TURN)
    store.save_turn("s_new", "admin", [Message("user", text="先週の売上は？"), Message("assistant", text="…")],
                    pending={"tool": "add_sale", "token": "cf_x"})
    listed = store.list_sessions("admin")
    assert [(s["session_id"], s["title"], s["messages"], s["pending"]) for s in listed] == [
        ("s_new", "先週の売上は？", 2, True), ("s_old", "佐藤さんの顧客コードを教えて。", 4, False)]
    assert store.list_sessions("suzuki") == []


def test_another_users_session_behaves_as_absent(store):
    store.save_turn("s_1", "admin", TURN, pending={"tool": "add_sale", "token": "cf_secret"})
    assert store.exists("s_1", "admin") and not store.exists("s_1", "tanaka")
    assert store.load("s_1", "tanaka") == [] and store.pending("s_1", "tanaka") is None
    assert store.delete("s_1", "tanaka") is False
    store.save_turn("s_1", "tanaka", [Message("user", text="hello")])  # the same id is tanaka's own
    assert [m.text for m in store.load("s_1", "tanaka")] == ["hello"]
    assert len(store.load("s_1", "admin")) == 4


def test_the_pending_write_is_set_cleared_and_deleted_with_the_session(store):
    store.save_turn("s_1", "admin", TURN, pending={"tool": "add_sale", "token": "cf_secret"})
    assert store.pending("s_1", "admin") == {"tool": "add_sale", "token": "cf_secret"}
    store.save_turn("s_1", "admin", [])
    assert store.pending("s_1", "admin") is None
    assert store.delete("s_1", "admin") is True
    assert store.load("s_1", "admin") == [] and store.list_sessions("admin") == []
