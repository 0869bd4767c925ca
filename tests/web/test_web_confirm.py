"""A write waiting for a yes, as staff meet it: confirmed or cancelled by the card's buttons or by typing, a card
that says what became of it, and a preview in words (labels, 円, the weekday, the customer's name)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from agent_fakes import answer, calls
from web_fakes import events, farm_sales, sign_in

from concierge.agent.store import ConversationStore
from concierge.pipeline.confirm import TOKEN_TTL

SALE = {"code_customer": "0016", "products": "かぼちゃ4個", "price": 600, "date_sales_str": "2025-05-06"}
SALE_TEXT = "販売登録して。顧客コード0016のお客様に、先週火曜日、かぼちゃ4個を600円で売った。"
LAST_WEEK_0009 = {"code_customer": "0009", "date_sales_begin_str": "2025-05-05", "date_sales_end_str": "2025-05-11"}


def _ask(client, text: str, session: str | None = None) -> dict:
    return events(client.post("/api/chat", json={"text": text, "session_id": session}))[-1][1]["turn"]


def _card(client, provider) -> dict:
    provider.enqueue(calls(("add_sale", SALE)))
    turn = _ask(client, SALE_TEXT)
    assert turn["pending"]["tool"] == "add_sale"
    return turn


def test_the_card_reads_as_words_with_labels_yen_and_the_weekday(web, provider):
    _pipeline, client = web
    turn = _card(sign_in(client(), "admin"), provider)
    pending = turn["pending"]
    assert [(f["label"], f["value"]) for f in pending["fields"]] == [
        ("顧客コード", "0016"), ("氏名", "松本理恵"), ("販売日", "2025年5月6日(火)"), ("商品", "かぼちゃ4個"),
        ("金額", "600円")]
    assert pending["message"].startswith("松本理恵様（0016）に、5/6(火)の販売「かぼちゃ4個」600円を登録します")
    assert pending["message"].endswith("よろしいですか？")
    assert "add_sale" not in pending["message"] and "code_customer" not in turn["answer"]
    assert pending["warning"] is None


def test_typing_yes_confirms_the_card_and_writes_once(web, provider):
    pipeline, client = web
    c = sign_in(client(), "admin")
    before = farm_sales(pipeline, "0016")
    session = _card(c, provider)["session_id"]
    provider.enqueue(answer("登録しました。"))
    done = _ask(c, "はい、お願いします。", session)
    assert done["settled"] == "confirmed" and done["calls"][0]["status"] == "ok"
    assert len(farm_sales(pipeline, "0016")) == len(before) + 1
    provider.enqueue(answer("ほかにご用件はありますか？"))
    again = _ask(c, "はい", session)  # nothing waits now: the yes is a new message, and writes nothing more
    assert again["settled"] is None and len(farm_sales(pipeline, "0016")) == len(before) + 1
    history = c.get(f"/api/sessions/{session}").json()
    assert history["exchanges"][0]["ended"] == "confirmed"
    assert history["exchanges"][1]["question"] == "はい、お願いします。"


def test_typing_no_cancels_the_card_in_either_language(web, provider):
    pipeline, client = web
    c = sign_in(client(), "admin")
    before = farm_sales(pipeline, "0016")
    for no in ("キャンセルしてください", "no thanks"):
        session = _card(c, provider)["session_id"]
        cancelled = _ask(c, no, session)
        assert cancelled["settled"] == "cancelled" and cancelled["calls"] == [] and cancelled["pending"] is None
        assert "何も書き込んでいません" in cancelled["answer"] or "nothing was written" in cancelled["answer"]
        assert c.get(f"/api/sessions/{session}").json()["exchanges"][0]["ended"] == "cancelled"
    assert farm_sales(pipeline, "0016") == before


def test_a_stale_card_says_it_is_gone_and_writes_nothing(web, provider):
    pipeline, client = web
    c = sign_in(client(), "admin")
    before = farm_sales(pipeline, "0016")
    session = _card(c, provider)["session_id"]
    provider.enqueue(calls(("get_sales", LAST_WEEK_0009)), answer("0009の先週の販売は1件です。"))
    other = _ask(c, "顧客コード0009の先週の販売データを見せて。", session)
    assert other["settled"] == "dropped"  # the page marks the card: nothing was written
    pressed = events(c.post(f"/api/sessions/{session}/confirm"))[-1][1]["turn"]
    assert pressed["settled"] == "gone" and pressed["calls"] == []
    assert "確認待ちの操作はありません" in pressed["answer"] and "何も書き込んでいません" in pressed["answer"]
    assert farm_sales(pipeline, "0016") == before
    assert c.get(f"/api/sessions/{session}").json()["exchanges"][0]["ended"] == "dropped"


def test_a_new_card_replaces_the_one_waiting(web, provider):
    _pipeline, client = web
    c = sign_in(client(), "admin")
    session = _card(c, provider)["session_id"]
    provider.enqueue(calls(("add_sale", {**SALE, "price": 700})))
    turn = _ask(c, "700円にして", session)
    assert turn["settled"] == "replaced" and turn["pending"]["args"]["price"] == 700
    assert ("金額", "700円") in [(f["label"], f["value"]) for f in turn["pending"]["fields"]]


def test_the_same_sale_entered_again_minutes_later_is_pointed_out_before_the_yes(web, provider):
    pipeline, client = web
    c = sign_in(client(), "admin")
    session = _card(c, provider)["session_id"]
    provider.enqueue(answer("登録しました。"))
    events(c.post(f"/api/sessions/{session}/confirm"))
    again = _card(c, provider)
    warning = again["pending"]["warning"]
    assert warning and "まったく同じ内容" in warning and "分前" in warning
    assert warning in again["answer"]
    provider.enqueue(calls(("add_sale", {**SALE, "price": 700})))
    other = _ask(c, "700円にして", again["session_id"])
    assert other["pending"]["warning"] is None  # another amount is another sale
    assert len(farm_sales(pipeline, "0016")) >= 1


def test_a_yes_after_the_card_ran_out_writes_nothing_and_says_so(web, provider):
    pipeline, client = web
    c = sign_in(client(), "admin")
    before = farm_sales(pipeline, "0016")
    session = _card(c, provider)["session_id"]
    store = ConversationStore(pipeline.state)
    messages, pending = store.resume(session, "admin")
    pending["at"] = (datetime.now(UTC) - TOKEN_TTL - timedelta(minutes=1)).isoformat()  # an hour and a minute ago
    store.save_turn(session, "admin", [], pending=pending)
    late = _ask(c, "はい", session)
    assert late["settled"] == "expired" and late["calls"] == [] and late["pending"] is None
    assert "有効期限" in late["answer"] and "何も書き込んでいません" in late["answer"]
    assert farm_sales(pipeline, "0016") == before
    assert c.get(f"/api/sessions/{session}").json()["exchanges"][0]["ended"] == "expired"


def test_a_reply_neither_yes_nor_no_asks_again_and_the_card_keeps_waiting(web, provider):
    pipeline, client = web
    c = sign_in(client(), "admin")
    before = farm_sales(pipeline, "0016")
    session = _card(c, provider)["session_id"]
    for unclear in ("いいです", "はい？"):
        again = _ask(c, unclear, session)
        assert again["settled"] == "repeated" and again["calls"] == [] and again["pending"]["args"] == SALE
        assert "「はい」か「いいえ」" in again["answer"]
    assert farm_sales(pipeline, "0016") == before
    provider.enqueue(answer("登録しました。"))
    assert _ask(c, "はい", session)["settled"] == "confirmed"
    assert len(farm_sales(pipeline, "0016")) == len(before) + 1
