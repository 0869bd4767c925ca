"""Staff change a write before saying yes, the way they talk: the offline planner shows the card again with the
values said in place of its own, and the rest kept; a question about something else is not a change."""

from __future__ import annotations

import pytest

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider
from concierge.demo.bootstrap import open_pipeline

SALE_JA = "販売登録して。0016のお客様に先週火曜日かぼちゃ4個を600円で売った"
SALE_EN = "Register a sale for customer 0016, 3 pumpkins for 450 yen"
JA = {"code_customer": "0016", "products": "かぼちゃ4個", "price": 600, "date_sales_str": "2025-05-06"}
EN = {"code_customer": "0016", "products": "3 pumpkins", "price": 450, "date_sales_str": "2025-05-15"}

pytestmark = pytest.mark.anyio


async def _two_turns(farm, first: str, second: str):
    agent = Agent(farm, OfflineProvider(farm))
    admin = farm.user("admin")
    shown = await agent.ask(first, admin)
    assert shown.pending is not None
    return await agent.ask(second, admin, session_id=shown.session_id)


@pytest.mark.parametrize(("said", "changed"), [
    ("700円にして", {"price": 700}),
    ("金額は700円", {"price": 700}),
    ("0017のお客様で", {"code_customer": "0017"}),
    ("やっぱり昨日の日付で", {"date_sales_str": "2025-05-14"}),
    ("かぼちゃ5個にして", {"products": "かぼちゃ5個"}),
    ("5個にして", {"products": "かぼちゃ5個"}),
    ("いや、5個で", {"products": "かぼちゃ5個"}),
    ("はい、でも5個に", {"products": "かぼちゃ5個"}),  # a yes with more in it is a change, not a yes
    ("4個じゃなくて6個", {"products": "かぼちゃ6個"}),
    ("600円じゃなくて700円で", {"price": 700}),
    ("価格は６００円じゃなくて８００円", {"price": 800}),
    ("0017で700円", {"code_customer": "0017", "price": 700}),
])
async def test_a_value_said_before_the_yes_changes_the_card_and_keeps_the_rest(farm, said, changed):
    turn = await _two_turns(farm, SALE_JA, said)
    assert turn.pending is not None and turn.pending.args == {**JA, **changed}
    assert turn.settled == "replaced" and [c.status for c in turn.calls] == ["confirm"]


@pytest.mark.parametrize(("said", "changed"), [
    ("make it 5 pumpkins", {"products": "5 pumpkins"}),
    ("make it 5", {"products": "5 pumpkins"}),
    ("actually 500 yen", {"price": 500}),
    ("customer 0017", {"code_customer": "0017"}),
    ("yes but make it 5", {"products": "5 pumpkins"}),
    ("change the date to yesterday", {"date_sales_str": "2025-05-14"}),
])
async def test_in_english_too(farm, said, changed):
    turn = await _two_turns(farm, SALE_EN, said)
    assert turn.pending is not None and turn.pending.args == {**EN, **changed}


@pytest.mark.parametrize("said", ["0017の販売は？", "0017の販売", "ありがとう"])
async def test_another_question_is_not_a_change_and_writes_nothing(farm, said):
    turn = await _two_turns(farm, SALE_JA, said)
    assert turn.pending is None and turn.settled == "dropped"
    assert all(c.name != "add_sale" for c in turn.calls)


async def test_after_a_no_a_value_is_not_taken_as_a_change(farm):
    agent = Agent(farm, OfflineProvider(farm))
    admin = farm.user("admin")
    shown = await agent.ask(SALE_JA, admin)
    cancelled = await agent.ask("いいえ", admin, session_id=shown.session_id)
    assert cancelled.settled == "cancelled"
    later = await agent.ask("700円にして", admin, session_id=shown.session_id)
    assert later.pending is None and all(c.name != "add_sale" for c in later.calls)


@pytest.mark.parametrize("said", ["個数5で価格750円", "ok and also 0017", "はい、あと0017にも同じのを"])
async def test_what_cannot_be_placed_or_asks_for_one_more_leaves_no_card_with_a_value_dropped(farm, said):
    turn = await _two_turns(farm, SALE_JA if not said.isascii() else SALE_EN, said)
    assert turn.pending is None and turn.settled == "dropped"  # nothing written, and no card missing what was said
    assert all(c.name != "add_sale" for c in turn.calls)


async def test_a_number_no_value_took_is_said_so(farm):
    turn = await _two_turns(farm, SALE_JA, "個数5で価格750円")
    assert "『5』" in turn.answer and "何も書き込んでいません" in turn.answer


async def test_a_change_after_the_question_was_asked_again_still_changes_the_card(farm):
    agent = Agent(farm, OfflineProvider(farm))
    admin = farm.user("admin")
    shown = await agent.ask(SALE_JA, admin)
    again = await agent.ask("いいです", admin, session_id=shown.session_id)
    assert again.settled == "repeated" and again.pending is not None
    changed = await agent.ask("700円にして", admin, session_id=shown.session_id)
    assert changed.pending is not None and changed.pending.args == {**JA, "price": 700}
    done = await agent.ask("はい", admin, session_id=shown.session_id)
    assert done.settled == "confirmed" and done.calls[0].args == {**JA, "price": 700}


async def test_beside_another_business_a_change_of_the_date_and_a_yes_after_pardon_work(sqlite_url):
    both = open_pipeline(["farm", "pos"], sqlite_url)  # the POS tools have "change" and dates as their words too
    try:
        agent, admin = Agent(both, OfflineProvider(both)), both.user("admin")
        shown = await agent.ask(SALE_EN, admin)
        changed = await agent.ask("change the date to yesterday", admin, session_id=shown.session_id)
        assert changed.pending is not None and changed.pending.args == {**EN, "date_sales_str": "2025-05-14"}
        pardon = await agent.ask("yes?", admin, session_id=shown.session_id)
        assert pardon.settled == "repeated" and pardon.calls == []
        done = await agent.ask("yes", admin, session_id=shown.session_id)
        assert done.settled == "confirmed" and "Registered for customer 0016" in done.answer
    finally:
        both.close()
