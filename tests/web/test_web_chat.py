"""The chat API in process: streamed progress, confirmed writes, conversations kept per user."""

from __future__ import annotations

from agent_fakes import ScriptedProvider, answer, calls
from web_fakes import events, farm_sales, running, sign_in

from concierge.agent.providers.interface import Provider
from concierge.errors import ProviderError
from concierge.web.auth import COOKIE

LAST_WEEK_0009 = {"code_customer": "0009", "date_sales_begin_str": "2025-05-05", "date_sales_end_str": "2025-05-11"}
SALE = {"code_customer": "0016", "products": "かぼちゃ4個", "price": 600, "date_sales_str": "2025-05-06"}
SALE_TEXT = "販売登録して。顧客コード0016のお客様に、先週火曜日、かぼちゃ4個を600円で売った。"


def _pending_sale(client, provider) -> str:
    """Ask for the sale; returns the session id of the conversation whose card waits for a yes."""
    provider.enqueue(calls(("add_sale", SALE)))
    got = events(client.post("/api/chat", json={"text": SALE_TEXT}))
    turn = got[-1][1]["turn"]
    assert turn["pending"]["tool"] == "add_sale"
    assert turn["pending"]["preview"]["price"] == 600
    return turn["session_id"]


def test_progress_streams_in_order_then_the_answer(web, provider):
    _pipeline, client = web
    c = sign_in(client(), "admin")
    provider.enqueue(calls(("get_sales", LAST_WEEK_0009)), answer("0009の先週の販売は1件、1050円です。"))
    got = events(c.post("/api/chat", json={"text": "顧客コード0009の先週の販売データを見せて。"}))
    assert [name for name, _ in got] == ["thinking", "tool_start", "tool_end", "thinking", "answer"]
    start, end, turn = got[1][1], got[2][1], got[-1][1]["turn"]
    assert start["id"] == end["id"] and start["name"] == end["name"] == "get_sales"
    assert start["args"] == LAST_WEEK_0009
    assert (end["status"], end["row_count"]) == ("ok", 1)
    [call] = turn["calls"]
    assert call["result_id"] == end["result_id"]
    assert [(r["date_sales"], r["products"], r["price"]) for r in call["result"]["rows"]] == [
        ("2025-05-10", "キュウリ15本", 1050)]
    assert turn["answer"] == "0009の先週の販売は1件、1050円です。"


def test_a_number_found_in_no_result_is_reported_ungrounded(web, provider):
    _pipeline, client = web
    c = sign_in(client(), "admin")
    provider.enqueue(calls(("get_sales", LAST_WEEK_0009)), answer("先週の合計は9,999円です。"))
    turn = events(c.post("/api/chat", json={"text": "顧客コード0009の先週の販売合計は？"}))[-1][1]["turn"]
    assert any("9,999" in n or "9999" in n for n in turn["ungrounded"]), turn["ungrounded"]


def test_a_confirmed_card_writes_exactly_one_row_and_cannot_be_replayed(any_web, provider):
    pipeline, client = any_web
    c = sign_in(client(), "admin")
    before = farm_sales(pipeline, "0016")
    session = _pending_sale(c, provider)
    assert farm_sales(pipeline, "0016") == before
    listed = {s["session_id"]: s for s in c.get("/api/sessions").json()}
    assert listed[session]["pending"] is True

    provider.enqueue(answer("登録しました。"))
    got = events(c.post(f"/api/sessions/{session}/confirm"))
    assert [name for name, _ in got] == ["tool_start", "tool_end", "thinking", "answer"]
    assert got[1][1]["status"] == "ok"
    after = farm_sales(pipeline, "0016")
    [new] = [r for r in after if r not in before]
    assert (str(new["sale_date"]), new["products"], new["price"]) == ("2025-05-06", "かぼちゃ4個", 600)

    replay = events(c.post(f"/api/sessions/{session}/confirm"))
    assert [name for name, _ in replay] == ["answer"]
    assert replay[-1][1]["turn"]["calls"] == []
    assert len(farm_sales(pipeline, "0016")) == len(before) + 1
    assert {s["session_id"]: s for s in c.get("/api/sessions").json()}[session]["pending"] is False


def test_a_cancelled_card_writes_nothing(web, provider):
    pipeline, client = web
    c = sign_in(client(), "admin")
    before = farm_sales(pipeline, "0016")
    session = _pending_sale(c, provider)
    res = c.post(f"/api/sessions/{session}/cancel")
    assert res.status_code == 200
    assert res.json()["pending"] is None and res.json()["calls"] == []
    confirm_after_cancel = events(c.post(f"/api/sessions/{session}/confirm"))
    assert confirm_after_cancel[-1][1]["turn"]["calls"] == []
    assert farm_sales(pipeline, "0016") == before


def test_the_browser_never_gets_a_confirmation_token(web, provider):
    _pipeline, client = web
    c = sign_in(client(), "admin")
    provider.enqueue(calls(("add_sale", SALE)))
    res = c.post("/api/chat", json={"text": SALE_TEXT})
    session = events(res)[-1][1]["turn"]["session_id"]
    shown = res.text + c.get(f"/api/sessions/{session}").text + c.get("/api/sessions").text
    assert "cf_" not in shown and "confirmation_token\": \"" not in shown


def test_one_user_cannot_read_or_continue_another_users_conversation(web, provider):
    pipeline, client = web
    admin = sign_in(client(), "admin")
    before = farm_sales(pipeline, "0016")
    session = _pending_sale(admin, provider)
    tanaka = sign_in(client(), "tanaka")
    assert tanaka.get("/api/sessions").json() == []
    assert tanaka.get(f"/api/sessions/{session}").status_code == 404
    assert tanaka.post(f"/api/sessions/{session}/confirm").status_code == 404
    assert tanaka.post(f"/api/sessions/{session}/cancel").status_code == 404
    assert tanaka.post("/api/chat", json={"text": "続けて", "session_id": session}).status_code == 404
    assert provider.script == [] and len(provider.requests) == 1  # tanaka's requests reached no model
    assert farm_sales(pipeline, "0016") == before
    mine = admin.get(f"/api/sessions/{session}").json()
    assert mine["pending"]["preview"]["products"] == "かぼちゃ4個"
    assert [s["session_id"] for s in admin.get("/api/sessions").json()] == [session]


def test_a_conversation_continues_after_a_restart(web_url):
    first = ScriptedProvider().enqueue(
        calls(("get_customers", {"name_str_customer": "佐藤"})), answer("0001 と 0009 です。"))
    with running(web_url, first) as (_pipeline, client):
        c = sign_in(client(), "admin")
        turn = events(c.post("/api/chat", json={"text": "佐藤さんの顧客コードを教えて。"}))[-1][1]["turn"]
        cookie = c.cookies[COOKIE]

    second = ScriptedProvider().enqueue(answer("0009 です。"))
    with running(web_url, second) as (_pipeline, client):
        c = client()
        c.cookies.set(COOKIE, cookie)  # the same browser, after the server restarted (same secret)
        [listed] = c.get("/api/sessions").json()
        assert (listed["session_id"], listed["title"]) == (turn["session_id"], "佐藤さんの顧客コードを教えて。")
        [exchange] = c.get(f"/api/sessions/{turn['session_id']}").json()["exchanges"]
        assert exchange["question"] == "佐藤さんの顧客コードを教えて。"
        assert exchange["answer"] == "0001 と 0009 です。"
        assert [r["code_customer"] for r in exchange["calls"][0]["result"]["rows"]] == ["0001", "0009"]
        events(c.post("/api/chat", json={"text": "2人目は？", "session_id": turn["session_id"]}))
        seen = [m.text for m in second.requests[0].messages if m.role == "user"]
        assert seen == ["佐藤さんの顧客コードを教えて。", "2人目は？"]


def test_a_provider_failure_streams_an_error(web_url):
    class Failing(Provider):
        name, model = "failing", "none"

        async def complete(self, request):
            raise ProviderError("the provider answered HTTP 500")

    with running(web_url, Failing()) as (_pipeline, client):
        c = sign_in(client(), "admin")
        got = events(c.post("/api/chat", json={"text": "佐藤さんの顧客コードを教えて。"}))
    assert [name for name, _ in got] == ["thinking", "error"]
    assert got[-1][1]["message"] == "the provider answered HTTP 500"


def test_an_empty_question_is_rejected(web):
    _pipeline, client = web
    c = sign_in(client(), "admin")
    assert c.post("/api/chat", json={"text": "   "}).status_code == 422
