"""A long message costs the planner time in proportion to its length, within a budget, off the event loop;
a message asking for more than the planner makes at once is told so, never cut short unsaid.

The red team's attack: a 4,000-character message of repeated ranking words (売上ランキング), Latin letters,
kana, amounts (1万) or times (7時) took the planner 11-91 s on the event loop, stalling every user.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from planner_helpers import TODAY, Planning

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider
from concierge.agent.turn import MESSAGE_CHARS
from concierge.demo.bootstrap import open_pipeline
from concierge.language.katakana import katakana
from concierge.pipeline import audit
from concierge.pipeline.pipeline import Pipeline
from concierge.planner import Planner, answer, budget, progress
from concierge.planner.plan import MAX_CALLS_PER_REQUEST, MAX_REQUESTS_PER_MESSAGE

CAP_S = 2.0  # CPU seconds for one 4,000-character message: the old planner took 11-91 s, this one 0.1-0.3 s
MIX = ("先週", "先月", "今月", "4月10日", "2025-05-01", "3個", "1,500円", "0009", "7時", "の", "と", "を", "は", "、",
       "。", " ", "売上", "ランキング", "top 3", "and")
PEOPLE = ("佐藤", "山﨑", "𠮷田", "高橋", "Smith")  # a catalog that reads no values from its data


def repeated(unit: str) -> Callable[[Pipeline], str]:
    return lambda _pipeline: (unit * (MESSAGE_CHARS // len(unit) + 1))[:MESSAGE_CHARS]


def mixed(pipeline: Pipeline) -> str:
    """The catalog's own values read from the data, numbers, dates and particles, drawn with a fixed seed."""
    values = [v for vs in pipeline.guard_context().enum_values.values() for v in vs]
    rng, out = random.Random(3), ""
    while len(out) < MESSAGE_CHARS:
        out += rng.choice(values) if values and rng.random() < 0.4 else rng.choice(MIX)
    return out[:MESSAGE_CHARS]


def named(pipeline: Pipeline) -> str:
    """Values of the data, each said as a person with an honorific and a particle, then a word of asking (佐藤さん
    の売上と…): every value found costs its own reading, never another reading of the whole message."""
    values = [v for vs in pipeline.guard_context().enum_values.values() for v in vs] or list(PEOPLE)
    rng, out = random.Random(5), ""
    while len(out) < MESSAGE_CHARS:
        out += rng.choice(values) + rng.choice(("さんの", "先生の", "の", "と")) + rng.choice(("売上と", "件数、", ""))
    return out[:MESSAGE_CHARS]


KINDS = {"ranking": repeated("売上ランキング"), "ranking+space": repeated("ランキング "), "latin": repeated("a "),
         "kana": repeated("あいうえおかきくけこ"), "amounts": repeated("1万"), "times": repeated("7時 "),
         "codes+and": repeated("0009と"), "periods+and": repeated("先週と"), "katakana": repeated("ハンバーグベントウ"),
         "mix": mixed, "named": named}


@pytest.fixture(scope="module")
def restaurant(tmp_path_factory) -> Iterator[Pipeline]:
    pipeline = open_pipeline(["restaurant"], f"sqlite:///{tmp_path_factory.mktemp('restaurant') / 'r.db'}")
    yield pipeline
    pipeline.close()


@pytest.fixture
def catalog(request, demo, restaurant) -> Planning:
    katakana("bike")  # e2k loads once, on the first English word read in katakana (0.3-1 s): no cost of a message
    if request.param == "restaurant":
        return Planning(restaurant, restaurant.today())
    return Planning(demo[request.param], TODAY[request.param])


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("catalog", ["farm", "pos", "restaurant"], indirect=True)
def test_a_4000_character_message_is_planned_within_the_cap(catalog, kind):
    text = KINDS[kind](catalog.pipeline)
    assert len(text) == MESSAGE_CHARS
    started = time.thread_time()
    plan = catalog.plan(text)
    used = time.thread_time() - started
    assert used < CAP_S, f"{kind}: {used:.2f} s of CPU for {len(text)} characters"
    calls, _ = progress.advance(plan, [], catalog.pipeline.tools)
    assert len(calls) <= MAX_CALLS_PER_REQUEST * MAX_REQUESTS_PER_MESSAGE


@pytest.fixture
def farm(sqlite_url) -> Iterator[Pipeline]:
    pipeline = open_pipeline(["farm"], sqlite_url, today=TODAY["farm"])
    yield pipeline
    pipeline.close()


@pytest.mark.anyio
async def test_a_request_past_the_budget_is_answered_too_long_and_audited(farm, monkeypatch):
    monkeypatch.setattr(budget, "CPU_S", -1.0)  # a budget spent before the plan starts
    turn = await Agent(farm, OfflineProvider(farm)).ask("顧客コード0009の先週の売上", farm.user("suzuki"))
    assert (turn.answer, turn.calls) == (budget.too_long_text("ja"), [])
    [row] = [r for r in audit.latest(farm.state, 50) if r["decision"] == "refused:too_long"]
    assert (row["user_name"], row["tool"]) == ("suzuki", "[too_long]")
    monkeypatch.undo()  # the budget as configured: a short request plans well within it
    english = await Agent(farm, OfflineProvider(farm)).ask("sales of customer 0009 last week", farm.user("suzuki"))
    assert english.answer != budget.too_long_text("en") and english.calls


@pytest.mark.anyio
async def test_the_offline_planner_plans_in_a_worker_thread(farm, monkeypatch):
    threads: list[int] = []
    reply = Planner.reply

    def recorded(self, request):
        threads.append(threading.get_ident())
        return reply(self, request)

    monkeypatch.setattr(Planner, "reply", recorded)
    turn = await Agent(farm, OfflineProvider(farm)).ask("顧客コード0009の先週の売上", farm.user("admin"))
    assert turn.calls and threads  # planned twice: the call, then the answer
    assert threading.get_ident() not in threads  # this test's thread runs the event loop


def _answer(planning: Planning, text: str, lang: str) -> tuple[list, str]:
    plan = planning.plan(text)
    calls, states = progress.advance(plan, [], planning.pipeline.tools)
    return calls, answer.compose(plan, states, lang, planning.pipeline.tools, [])


def test_more_calls_than_a_request_makes_are_asked_about_not_cut_short(farm_plan):
    codes = [f"{i:04d}" for i in range(1, MAX_CALLS_PER_REQUEST + 6)]
    calls, said = _answer(farm_plan, "と".join(codes) + "の先週の売上", "ja")
    assert calls == [] and f"{len(codes)}件" in said and f"{MAX_CALLS_PER_REQUEST}件まで" in said
    calls, said = _answer(farm_plan, "sales last week of customers " + " and ".join(codes), "en")
    assert calls == [] and f"{len(codes)} separate lookups" in said and f"at most {MAX_CALLS_PER_REQUEST}" in said
    allowed = "と".join(codes[:MAX_CALLS_PER_REQUEST]) + "の先週の売上"
    assert len(farm_plan.first_calls(allowed)) == MAX_CALLS_PER_REQUEST


def test_more_requests_than_a_message_may_make_are_refused_with_how_many(farm_plan):
    asks = [f"顧客コード{i:04d}の先週の売上" for i in range(1, MAX_REQUESTS_PER_MESSAGE + 2)]
    calls, said = _answer(farm_plan, "。".join(asks), "ja")
    assert calls == [] and f"{len(asks)}件のご依頼" in said and f"{MAX_REQUESTS_PER_MESSAGE}件まで" in said
    assert len(farm_plan.first_calls("。".join(asks[:MAX_REQUESTS_PER_MESSAGE]))) == MAX_REQUESTS_PER_MESSAGE
