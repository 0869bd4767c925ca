"""Rights are read at the moment they are used: `user set-role` and `user remove` count at the next request of an
open session, in every server process, and for a user a caller has held since before the change."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack

import httpx2
import pytest
from agent_fakes import ScriptedProvider, answer, calls
from cli_runner import run_cli
from web_fakes import PASSWORDS, events, farm_sales, live

from concierge.agent.loop import Agent
from concierge.demo.bootstrap import open_pipeline

SALE = {"code_customer": "0016", "products": "かぼちゃ4個", "price": 600, "date_sales_str": "2025-05-06"}
SALE_TEXT = "販売登録して。顧客コード0016のお客様に、先週火曜日、かぼちゃ4個を600円で売った。"


@pytest.fixture
def provider() -> ScriptedProvider:
    return ScriptedProvider()


@pytest.fixture
def two_processes(any_web_url, provider) -> Iterator[tuple[str, str]]:
    with ExitStack() as stack:
        yield stack.enter_context(live(any_web_url, provider)), stack.enter_context(live(any_web_url, provider))


def _signed_in(stack: ExitStack, base: str, name: str) -> httpx2.Client:
    client = stack.enter_context(httpx2.Client(base_url=base, timeout=30))
    assert client.post("/api/login", json={"name": name, "password": PASSWORDS[name]}).status_code == 200
    return client


def _cli(*args: str, url: str) -> None:
    done = run_cli(*args, "--database", url, stdin="tanaka-pass-2\n")
    assert done.exit_code == 0, done.output


def test_a_role_taken_away_stops_the_open_sessions_write_in_every_process(two_processes, any_web_url, provider):
    a, b = two_processes
    with ExitStack() as stack:
        on_a, on_b = _signed_in(stack, a, "tanaka"), _signed_in(stack, b, "tanaka")
        assert on_a.get("/api/me").json()["role"] == on_b.get("/api/me").json()["role"] == "sales_rep"
        provider.enqueue(calls(("add_sale", SALE)))
        turn = events(on_a.post("/api/chat", json={"text": SALE_TEXT}))[-1][1]["turn"]
        assert turn["pending"]["tool"] == "add_sale"
        pipeline = open_pipeline(["farm"], any_web_url)
        stack.callback(pipeline.close)
        before = farm_sales(pipeline, "0016")

        _cli("user", "set-role", "tanaka", "viewer", url=any_web_url)

        assert on_a.get("/api/me").json()["role"] == on_b.get("/api/me").json()["role"] == "viewer"
        provider.enqueue(answer("登録できませんでした。"))
        confirmed = events(on_a.post(f"/api/sessions/{turn['session_id']}/confirm"))[-1][1]["turn"]
        [call] = confirmed["calls"]
        assert (call["status"], call["code"]) == ("refused", "not_permitted")
        assert farm_sales(pipeline, "0016") == before  # the card shown before the change wrote nothing
        provider.enqueue(calls(("add_sale", SALE)), answer("できません。"))
        again = events(on_b.post("/api/chat", json={"text": SALE_TEXT}))[-1][1]["turn"]
        assert again["pending"] is None and again["calls"][0]["code"] == "not_permitted"
        assert farm_sales(pipeline, "0016") == before


def test_a_user_removed_and_added_again_has_the_new_roles_rights_in_every_process(any_web_url):
    first, second = open_pipeline(["farm", "pos"], any_web_url), open_pipeline(["farm", "pos"], any_web_url)
    try:
        held = first.user("tanaka")
        assert {t.name for t in first.tools_for(held)} == {t.name for t in second.tools_for(second.user("tanaka"))}
        assert "add_sale" in {t.name for t in first.tools_for(held)}

        _cli("user", "remove", "tanaka", url=any_web_url)
        removed = first.invoke("get_customers", {}, held)
        assert (removed.status, removed.code) == ("refused", "not_permitted")
        assert "no longer exists" in (removed.message or "")
        _cli("user", "add", "tanaka", "--role", "viewer", "--password-stdin", url=any_web_url)

        for pipeline in (first, second):
            assert pipeline.user("tanaka").role == "viewer"
            assert "add_sale" not in {t.name for t in pipeline.tools_for(pipeline.user("tanaka"))}
            assert pipeline.as_now(held) == pipeline.user("tanaka")  # a held User is read anew at each call
        write = first.invoke("add_sale", SALE, held)  # the User a long-lived caller kept still says sales_rep
        assert (write.status, write.code) == ("refused", "not_permitted")
        assert "viewer" in (write.message or "")
    finally:
        first.close()
        second.close()


@pytest.mark.anyio
async def test_someone_added_under_a_removed_users_name_inherits_no_conversation_and_no_card(any_web_url,
                                                                                             provider):
    pipeline = open_pipeline(["farm"], any_web_url)
    try:
        agent = Agent(pipeline, provider)
        provider.enqueue(calls(("add_sale", SALE)))
        card = await agent.ask(SALE_TEXT, pipeline.user("tanaka"))
        assert card.pending is not None
        before = farm_sales(pipeline, "0016")
        _cli("user", "remove", "tanaka", url=any_web_url)
        _cli("user", "add", "tanaka", "--role", "sales_rep", "--password-stdin", url=any_web_url)
        newcomer = pipeline.user("tanaka")
        assert agent.store.list_sessions("tanaka") == []
        confirmed = await agent.confirm(card.session_id, newcomer)
        assert confirmed.calls == [] and farm_sales(pipeline, "0016") == before  # nothing was waiting for them
    finally:
        pipeline.close()


def test_a_role_read_for_a_turn_serves_its_calls_for_milliseconds_only(any_web_url, monkeypatch):
    """A turn reads the role as it begins (its offer of tools) and its calls, made within milliseconds, are decided
    on that read; a `User` read longer ago than ROLE_FRESH_S, or never read, is read again at its call."""
    from concierge.pipeline import pipeline as module

    pipeline = open_pipeline(["farm", "pos"], any_web_url)
    clock = [1000.0]
    monkeypatch.setattr(module, "_clock", lambda: clock[0])
    try:
        held = pipeline.user("tanaka")
        fresh = pipeline.as_now(held)
        assert fresh == held and fresh is not None and fresh.read_at == 1000.0
        _cli("user", "set-role", "tanaka", "viewer", url=any_web_url)
        clock[0] += module.ROLE_FRESH_S / 2
        assert pipeline.invoke("add_sale", SALE, fresh).status == "confirm"  # read 25 ms ago: still the role
        refused = pipeline.invoke("add_sale", SALE, held)  # never read by the pipeline: read now
        assert (refused.status, refused.code) == ("refused", "not_permitted")
        clock[0] += module.ROLE_FRESH_S
        late = pipeline.invoke("add_sale", SALE, fresh)  # read longer ago: read again
        assert (late.status, late.code) == ("refused", "not_permitted") and "viewer" in (late.message or "")
    finally:
        pipeline.close()
