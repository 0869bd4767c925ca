"""A question about data the user's role may not read is told so, never answered with the nearest tool they have:
a sales rep asking the POS question is not asked for a customer code."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from concierge.agent.loop import Agent
from concierge.agent.providers.offline import OfflineProvider
from concierge.demo.bootstrap import open_pipeline
from concierge.pipeline.pipeline import Pipeline

pytestmark = pytest.mark.anyio


@pytest.fixture
def both(sqlite_url) -> Iterator[Pipeline]:
    pipeline = open_pipeline(["farm", "pos"], sqlite_url)
    yield pipeline
    pipeline.close()


@pytest.mark.parametrize("question", ["先週から売上が落ちた商品は？", "今月の日別売上の推移を見せて。",
                                      "Which product sold best last week?"])
async def test_a_sales_rep_is_told_the_pos_data_is_not_theirs(both, question):
    turn = await Agent(both, OfflineProvider(both)).ask(question, both.user("tanaka"))
    assert turn.calls == []
    assert "権限では実行できません" in turn.answer or "not permitted" in turn.answer
    assert "顧客コード" not in turn.answer and "customer code" not in turn.answer


async def test_the_sales_reps_own_questions_still_run(both):
    turn = await Agent(both, OfflineProvider(both)).ask("佐藤さんの顧客コードを教えて。", both.user("tanaka"))
    assert [c.name for c in turn.calls] == ["get_customers"]
