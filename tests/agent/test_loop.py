"""The agent loop with a scripted provider, on the real pipeline and a real database."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa
from agent_fakes import ScriptedProvider, answer, calls, last_results
from demo_databases import with_demos

from concierge.agent.loop import Agent
from concierge.agent.providers.interface import Capabilities, ModelReply, Usage
from concierge.demo.bootstrap import open_pipeline
from concierge.demo.farm import tables as farm_tables
from concierge.errors import ProviderError
from concierge.pipeline.pipeline import Pipeline
from concierge.storage import state as schema

pytestmark = pytest.mark.anyio

LAST_WEEK = {"date_sales_begin_str": "2025-05-05", "date_sales_end_str": "2025-05-11"}


def sales_count(pipeline: Pipeline, code: str) -> int:
    with pipeline.db.read() as conn:
        return conn.scalar(sa.select(sa.func.count()).select_from(farm_tables.farm_sales)
                           .where(farm_tables.farm_sales.c.customer_code == code))


async def test_parallel_calls_run_together_and_both_results_reach_the_model(farm, provider):
    events = []

    async def on_event(event):
        events.append(event)

    def final(request):
        results = last_results(request)
        assert [r["args"]["code_customer"] for r in results] == ["0009", "0010"]
        r9, r10 = results
        return answer(f"0009: {r9['row_count']}件 {r9['totals']['price']}円 [{r9['result_id']}]、"
                      f"0010: {r10['row_count']}件 [{r10['result_id']}]")

    provider.enqueue(calls(("get_sales", {"code_customer": "0009", **LAST_WEEK}),
                           ("get_sales", {"code_customer": "0010", **LAST_WEEK})), final)
    turn = await Agent(farm, provider).ask("顧客コード0009と0010の、先週の販売データを見せて。",
                                           farm.user("admin"), on_event=on_event)

    assert [(c.id, c.status, c.row_count) for c in turn.calls] == [("c1", "ok", 1), ("c2", "ok", 0)]
    assert "1050" in turn.answer and turn.ungrounded == []
    kinds = [e["type"] for e in events]
    assert kinds == ["thinking", "tool_start", "tool_start", "tool_end", "tool_end", "thinking", "answer"]
    assert turn.steps == 2 and len(turn.timings.model_ms) == 2 and len(turn.timings.tool_ms) == 2
    assert turn.timings.total_ms >= sum(turn.timings.model_ms)


async def test_a_turn_of_a_provider_that_answers_from_this_process_runs_on_one_worker(farm):
    """The offline planner's kind (`Capabilities.local`): the turn runs on one worker thread, never on the event
    loop; the channel's handler still gets every event, in order, on the event loop."""
    loop_thread = threading.get_ident()
    provider = ScriptedProvider(capabilities=Capabilities(local=True, reads_context=False))
    planned: list[int] = []
    events: list[tuple[str, int]] = []

    async def on_event(event):
        events.append((event["type"], threading.get_ident()))

    def first(request):
        planned.append(threading.get_ident())
        return calls(("get_sales", {"code_customer": "0009", **LAST_WEEK}),
                     ("get_sales", {"code_customer": "0010", **LAST_WEEK}))

    def final(request):
        planned.append(threading.get_ident())
        r9, r10 = last_results(request)
        return answer(f"0009: {r9['totals']['price']}円 [{r9['result_id']}]、0010: {r10['row_count']}件")

    provider.enqueue(first, final)
    turn = await Agent(farm, provider).ask("顧客コード0009と0010の先週の販売データ", farm.user("admin"),
                                           on_event=on_event)
    assert "1050" in turn.answer and [c.row_count for c in turn.calls] == [1, 0]
    assert [kind for kind, _ in events] == ["thinking", "tool_start", "tool_start", "tool_end", "tool_end",
                                            "thinking", "answer"]
    assert {thread for _, thread in events} == {loop_thread}
    assert len(set(planned)) == 1 and loop_thread not in planned


async def test_a_chain_uses_the_first_result_in_the_second_call(farm, provider):
    def second(request):
        [customers] = last_results(request)
        code = customers["rows"][0]["code_customer"]
        return calls(("get_sales", {"code_customer": code, "date_sales_begin_str": "2025-04-01",
                                    "date_sales_end_str": "2025-04-30"}))

    def final(request):
        [sales] = last_results(request)
        return answer(f"{sales['args']['code_customer']}: {sales['totals']['price']}円 [{sales['result_id']}]")

    provider.enqueue(calls(("get_customers", {"name_str_customer": "山田"})), second, final)
    turn = await Agent(farm, provider).ask("山田様の4月の販売合計は？", farm.user("admin"))

    assert [c.name for c in turn.calls] == ["get_customers", "get_sales"]
    assert turn.calls[1].args["code_customer"] == "0003"  # found only in the first result
    assert turn.answer.startswith("0003: ") and turn.ungrounded == []


async def test_a_refused_call_goes_back_to_the_model_which_corrects_it(farm, provider):
    def corrected(request):
        [refusal] = last_results(request)
        assert refusal["status"] == "refused" and refusal["param"] == "code_customer"
        assert "pattern" in refusal["message"]
        return calls(("get_sales", {"code_customer": "0009", **LAST_WEEK}))

    provider.enqueue(calls(("get_sales", {"code_customer": "9", **LAST_WEEK})), corrected,
                     lambda r: answer(f"1件です [{last_results(r)[0]['result_id']}]"))
    turn = await Agent(farm, provider).ask("0009の先週の販売は？", farm.user("admin"))

    assert [(c.status, c.code) for c in turn.calls] == [("refused", "bad_argument"), ("ok", None)]
    assert turn.answer.startswith("1件です")


async def test_the_step_limit_ends_the_turn_with_a_clear_message_and_the_next_turn_works(farm, provider):
    looping = calls(("get_customers", {"code_customer": "0001"}))
    provider.enqueue(looping, looping, looping)
    agent = Agent(farm, provider, max_steps=3)
    turn = await agent.ask("佐藤さんを何度も調べて", farm.user("admin"))

    assert turn.steps == 3 and len(turn.calls) == 3
    assert "上限(3回)" in turn.answer
    provider.enqueue(answer("こんにちは"))
    follow = await agent.ask("こんにちは", farm.user("admin"), session_id=turn.session_id)
    assert follow.answer == "こんにちは" and follow.calls == []


async def test_a_write_waits_for_confirmation_and_runs_exactly_once(farm, provider):
    before = sales_count(farm, "0016")
    sale = {"code_customer": "0016", "products": "かぼちゃ4個", "price": 600, "date_sales_str": "2025-05-06"}
    provider.enqueue(calls(("add_sale", sale)))
    agent = Agent(farm, provider)
    admin = farm.user("admin")
    turn = await agent.ask("販売登録して。顧客コード0016のお客様に、先週火曜日、かぼちゃ4個を600円で売った。", admin)

    assert turn.pending is not None and turn.pending.tool == "add_sale"
    assert turn.pending.preview["price"] == 600 and turn.pending.preview["name_customer"] == "松本理恵"
    assert "まだ登録していません" in turn.pending.message and "600円" in turn.answer and "5/6(火)" in turn.answer
    assert "cf_" not in turn.model_dump_json()  # the token stays on the server
    assert sales_count(farm, "0016") == before
    with farm.state.read() as conn:  # and not even there as a token: the conversation keeps its hash only
        stored = " ".join(str(v) for v in conn.execute(sa.select(schema.conversations.c.pending)).scalars())
        stored += " ".join(conn.execute(sa.select(schema.conversation_messages.c.body)).scalars())
        issued = list(conn.execute(sa.select(schema.confirmations.c.token_hash)).scalars())
    assert "cf_" not in stored and issued and issued[-1] in stored

    def described(request):
        [written] = last_results(request)
        assert written["status"] == "ok" and "registered" in request.context
        row = written["rows"][0]
        return answer(f"登録しました: {row['code_sales']} {row['date_sales']} {row['price']}円 "
                      f"[{written['result_id']}]")

    provider.enqueue(described)
    done = await agent.confirm(turn.session_id, admin)

    assert sales_count(farm, "0016") == before + 1
    assert [(c.name, c.status) for c in done.calls] == [("add_sale", "ok")]
    assert "2025-05-06" in done.answer and "600円" in done.answer and done.ungrounded == []
    assert done.pending is None
    again = await agent.confirm(turn.session_id, admin)
    assert again.calls == [] and "確認待ち" in again.answer
    assert sales_count(farm, "0016") == before + 1


async def test_cancel_writes_nothing_and_the_model_hears_of_it(farm, provider):
    before = sales_count(farm, "0016")
    provider.enqueue(calls(("add_sale", {"code_customer": "0016", "products": "ナス3個", "price": 300})))
    agent = Agent(farm, provider)
    admin = farm.user("admin")
    turn = await agent.ask("0016にナス3個を300円で登録して", admin)
    cancelled = await agent.cancel(turn.session_id, admin)

    assert "取り消しました" in cancelled.answer and cancelled.pending is None
    assert sales_count(farm, "0016") == before
    provider.enqueue(answer("はい"))
    await agent.ask("今のはどうなった？", admin, session_id=turn.session_id)
    seen = [m.text for m in provider.requests[-1].messages if m.role in ("user", "assistant") and m.text]
    assert any("取り消しました" in t for t in seen)
    assert (await agent.confirm(turn.session_id, admin)).calls == []


async def test_a_new_question_drops_the_pending_write_and_says_so(farm, provider):
    provider.enqueue(calls(("add_sale", {"code_customer": "0016", "products": "ナス3個", "price": 300})),
                     answer("了解"))
    agent = Agent(farm, provider)
    admin = farm.user("admin")
    turn = await agent.ask("0016にナス3個を300円で登録して", admin)
    await agent.ask("やっぱり別の話", admin, session_id=turn.session_id)

    assert "add_sale call was neither confirmed nor cancelled" in provider.requests[-1].context
    assert agent.store.pending(turn.session_id, admin.name) is None


async def test_auto_confirm_writes_once_inside_ask(farm, provider):
    before = sales_count(farm, "0014")
    provider.enqueue(calls(("add_sale", {"code_customer": "0014", "products": "ナス20個", "price": 1800})),
                     lambda r: answer(f"{last_results(r)[0]['rows'][0]['price']}円で登録しました"))
    turn = await Agent(farm, provider).ask("0014にナス20個を1800円で販売登録", farm.user("admin"), auto_confirm=True)

    assert [c.status for c in turn.calls] == ["confirm", "ok"] and turn.pending is None
    assert turn.answer == "1800円で登録しました"
    assert sales_count(farm, "0014") == before + 1


async def test_a_conversation_continues_after_a_restart(db_url):
    first = ScriptedProvider().enqueue(calls(("get_customers", {"name_str_customer": "佐藤"})),
                                       answer("0001と0009です"))
    pipeline = open_pipeline(["farm"], db_url)
    try:
        turn = await Agent(pipeline, first).ask("佐藤さんの顧客コードを教えて。", pipeline.user("admin"))
    finally:
        pipeline.close()

    restarted = open_pipeline(["farm"], db_url)
    try:
        second = ScriptedProvider().enqueue(answer("0009の方ですね"))
        agent = Agent(restarted, second)
        await agent.ask("そのお客様のうち0009は？", restarted.user("admin"), session_id=turn.session_id)
        history = second.requests[0].messages
        assert [m.role for m in history] == ["user", "assistant", "tool", "assistant", "user"]
        assert history[0].text == "佐藤さんの顧客コードを教えて。"
        assert history[1].tool_calls[0].args == {"name_str_customer": "佐藤"}
        assert [r["code_customer"] for r in history[2].result.rows] == ["0001", "0009"]
        assert "0009" in second.requests[0].context  # the rows in focus
        listed = agent.store.list_sessions("admin")
        assert listed[0]["session_id"] == turn.session_id and listed[0]["messages"] == 6
        # another user's session behaves as absent
        assert agent.store.load(turn.session_id, "suzuki") == []
    finally:
        restarted.close()


async def test_a_made_up_number_is_reported_as_ungrounded(farm, provider):
    provider.enqueue(calls(("get_sales", {"code_customer": "0009", **LAST_WEEK})),
                     lambda r: answer(f"先週(5月5日〜5月11日)は1件、1,050円でした [{last_results(r)[0]['result_id']}]。"
                                      "前週より7,777円多いです。"))
    turn = await Agent(farm, provider).ask("0009の先週の販売は？", farm.user("admin"))
    assert turn.ungrounded == ["7,777"]


async def test_usage_is_summed_and_priced_for_a_known_model(farm):
    provider = ScriptedProvider(model="gpt-4.1-mini")
    provider.enqueue(calls(("get_customers", {"code_customer": "0001"}), usage=Usage(1000, 50)),
                     answer("0001 佐藤太郎", usage=Usage(1200, 30)))
    turn = await Agent(farm, provider).ask("0001は誰？", farm.user("admin"))
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (2200, 80)
    assert turn.usage.cost_usd == pytest.approx((2200 * 0.40 + 80 * 1.60) / 1e6)
    silent = ScriptedProvider().enqueue(answer("hello"))
    assert (await Agent(farm, silent).ask("hi", farm.user("admin"))).usage.cost_usd is None


async def test_a_provider_failure_keeps_what_already_ran(farm, provider):
    def fail(_request):
        raise ProviderError("anthropic: HTTP 529: overloaded")

    provider.enqueue(calls(("get_customers", {"code_customer": "0001"})), fail)
    agent = Agent(farm, provider)
    with pytest.raises(ProviderError):
        await agent.ask("0001は誰？", farm.user("admin"), session_id="s_kept")
    kept = agent.store.load("s_kept", "admin")
    assert [m.role for m in kept] == ["user", "assistant", "tool"]


async def test_the_model_sees_only_the_tools_the_user_may_call_and_the_rules(farm, provider):
    provider.enqueue(answer("hello"))
    await Agent(farm, provider).ask("hello", farm.user("suzuki"))
    request = provider.requests[0]
    assert sorted(t.name for t in request.tools) == ["get_customers", "get_sales"]
    assert "2025-05-15, Thursday" in request.system and "Monday to Sunday" in request.system
    assert "先週 / last week: 2025-05-05 .. 2025-05-11" in request.system
    assert request.messages[-1].text == "hello"  # the context travels beside it, not inside the store


async def test_a_model_reply_with_text_and_no_calls_on_an_unrelated_request(farm, provider):
    provider.enqueue(ModelReply(text="I help with the farm's customers and sales."))
    turn = await Agent(farm, provider).ask("What is the capital of France?", farm.user("admin"))
    assert turn.calls == [] and turn.lang == "en" and turn.steps == 1


@pytest.mark.parametrize("reads_context", [True, False])
async def test_the_rules_and_the_order_reach_a_provider_as_it_declares_it_reads_them(sqlite_url, reads_context):
    """`Capabilities.reads_context`: a model gets the catalog's rules and the order in words (`context`); a
    provider that reads the order's rows itself (the offline planner) gets them as `state`, and no rules."""
    restaurant = open_pipeline(["restaurant"], with_demos(sqlite_url, "restaurant"))
    try:
        provider = ScriptedProvider(capabilities=Capabilities(reads_context=reads_context)).enqueue(
            calls(("add_item", {"item": "唐揚げ弁当", "quantity": 2})), answer("承りました。"), answer("はい。"))
        agent = Agent(restaurant, provider)
        first = await agent.ask("唐揚げ弁当を2つ", restaurant.user("phone"))
        await agent.ask("以上です", restaurant.user("phone"), session_id=first.session_id)
    finally:
        restaurant.close()
    later = provider.requests[-1]
    if reads_context:
        assert "search_menu" in later.context and "唐揚げ弁当2つ" in later.context and later.state == {}
    else:
        assert "search_menu" not in later.context and "唐揚げ弁当2つ" not in later.context
        assert [row["item"] for row in later.state["read_order"]] == ["唐揚げ弁当"]
