"""The conversation list as staff keep it: renamed, deleted, searched, and only ever their own."""

from __future__ import annotations

from agent_fakes import answer, calls
from web_fakes import events, sign_in

LAST_WEEK_0009 = {"code_customer": "0009", "date_sales_begin_str": "2025-05-05", "date_sales_end_str": "2025-05-11"}


def _talk(client, provider, text: str) -> str:
    provider.enqueue(calls(("get_sales", LAST_WEEK_0009)), answer("1件です。"))
    return events(client.post("/api/chat", json={"text": text}))[-1][1]["turn"]["session_id"]


def test_a_conversation_is_renamed_searched_and_deleted_by_its_owner_only(web, provider):
    _pipeline, client = web
    admin = sign_in(client(), "admin")
    pumpkins = _talk(admin, provider, "顧客コード0009の先週の販売データを見せて。")
    other = _talk(admin, provider, "Show last week's sales of customer 0009")
    assert admin.patch(f"/api/sessions/{pumpkins}", json={"title": "  佐藤さんの件  "}).status_code == 200
    listed = {s["session_id"]: s["title"] for s in admin.get("/api/sessions").json()}
    assert listed == {pumpkins: "佐藤さんの件", other: "Show last week's sales of customer 0009"}

    assert [s["session_id"] for s in admin.get("/api/sessions", params={"q": "佐藤"}).json()] == [pumpkins]
    assert [s["session_id"] for s in admin.get("/api/sessions", params={"q": "SALES OF"}).json()] == [other]
    assert [s["session_id"] for s in admin.get("/api/sessions", params={"q": "先週の販売"}).json()] == [pumpkins]
    assert admin.get("/api/sessions", params={"q": "100%"}).json() == []  # a wildcard is taken as written

    tanaka = sign_in(client(), "tanaka")
    assert tanaka.patch(f"/api/sessions/{pumpkins}", json={"title": "mine"}).status_code == 404
    assert tanaka.delete(f"/api/sessions/{pumpkins}").status_code == 404
    assert admin.patch(f"/api/sessions/{pumpkins}", json={"title": "   "}).status_code == 422

    assert admin.delete(f"/api/sessions/{pumpkins}").status_code == 204
    assert [s["session_id"] for s in admin.get("/api/sessions").json()] == [other]
    assert admin.get(f"/api/sessions/{pumpkins}").status_code == 404
