"""Whatever is typed, the planner plans without failing, and asks only for declared tools with valid shapes."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from concierge.planner import answer, progress

WORDS = ["顧客コード", "0009", "先週", "先月", "と", "、", "。", "売上", "販売登録", "佐藤さん", "John Smith",
         "かぼちゃ4個", "1,500円", "の場合", "0件", "それから", "If", "customer", "last week", "and then",
         "top 3", "worst", "比べて", "日別", "おにぎり", "ﾌﾟﾘﾝ", "その", "お客様", "delete", "SQL", "？", "０００９",
         "between", "〜", "4/10", "¥", "3 pumpkins", "only if", "has no sales", "their", "Mr.", "S20250422101931"]
TEXT = st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=4)), max_size=12).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT)
def test_any_text_is_planned_and_answered(farm_plan, pos_plan, text):
    for planning in (farm_plan, pos_plan):
        plan = planning.plan(text)
        calls, states = progress.advance(plan, [], planning.pipeline.tools)
        for name, args in calls:
            assert set(args) <= set(planning.pipeline.tools[name].params)
        assert isinstance(answer.compose(plan, states, "ja", planning.pipeline.tools, []), str)
