"""What a model's reply does to an order: calls that depend on each other run in the order it gave them."""

from __future__ import annotations

import time

import pytest
from agent_fakes import ScriptedProvider, answer, calls

from concierge.agent.loop import Agent

pytestmark = pytest.mark.anyio


async def test_a_reply_that_sets_the_time_and_confirms_reads_back_the_time_it_set(restaurant, phone, monkeypatch):
    """A model often asks for both at once; the read-back must include the pickup time just set, however long
    setting it takes (here a slow database: the write waits 0.3 s before it runs)."""
    invoke = restaurant.invoke

    def slow_pickup(name, *args, **kwargs):
        if name == "set_pickup_time":
            time.sleep(0.3)
        return invoke(name, *args, **kwargs)

    monkeypatch.setattr(restaurant, "invoke", slow_pickup)
    provider = ScriptedProvider().enqueue(
        calls(("add_item", {"item": "唐揚げ弁当", "quantity": 2})),
        answer("唐揚げ弁当を2つ承りました。"),
        calls(("set_pickup_time", {"pickup_time": "18:30"}), ("confirm_order", {})),
    )
    agent = Agent(restaurant, provider)
    first = await agent.ask("唐揚げ弁当を2つ", phone)
    turn = await agent.ask("18時半に取りに行きます。それで確定して", phone, session_id=first.session_id)

    assert [(c.name, c.status) for c in turn.calls] == [("set_pickup_time", "ok"), ("confirm_order", "confirm")]
    assert turn.pending is not None and turn.pending.preview["pickup_time"] == "18:30"


async def test_the_planner_reads_the_order_once_a_turn_and_no_rules_context(restaurant, phone):
    """The catalog's rules and the order state in words are for a model; the offline planner gets the order's
    lines once, as the turn begins (so that 「それ2つに」 edits what is there), read as the agent's own context, and
    only once something was put in the order."""
    from concierge.agent.providers.offline import OfflineProvider
    from concierge.pipeline import audit

    agent = Agent(restaurant, OfflineProvider(restaurant))
    before = len(audit.latest(restaurant.state, 1000))
    first = await agent.ask("唐揚げ弁当を2つください", phone)
    turn = await agent.ask("やっぱりそれ3つに", phone, session_id=first.session_id)

    assert [(c.name, c.args) for c in turn.calls] == [("change_item", {"item": "唐揚げ弁当", "quantity": 3})]
    after = audit.latest(restaurant.state, 1000)  # newest first
    made = after[: len(after) - before][::-1]
    assert [(line["tool"], line["source"]) for line in made] == [  # nothing ordered before the first: no read
        ("add_item", None), ("read_order", "context"), ("change_item", None)]
