"""Both demo catalogs in one deployment with no --today: each tool's dates follow its own catalog's clock."""

from __future__ import annotations

import anyio
from planner_helpers import offline_agent

from concierge.demo.bootstrap import open_pipeline


def test_each_request_resolves_dates_on_its_catalogs_clock(tmp_path):
    pipeline = open_pipeline(["farm", "pos"], f"sqlite:///{tmp_path / 'both.db'}")  # no clock given
    try:
        agent = offline_agent(pipeline)
        admin = pipeline.user("admin")
        farm = anyio.run(agent.ask, "顧客コード0009と0010の、先週の販売データを見せて。", admin)
        pos = anyio.run(agent.ask, "先週から売上が落ちた商品は？", admin)
    finally:
        pipeline.close()
    assert [(c.name, c.args["date_sales_begin_str"], c.args["date_sales_end_str"]) for c in farm.calls] == [
        ("get_sales", "2025-05-05", "2025-05-11"), ("get_sales", "2025-05-05", "2025-05-11")]
    assert "1,050円" in farm.answer and "先週（5/5〜5/11）" in farm.answer  # on the farm's own clock
    assert [(c.name, c.args["cur_start"], c.args["prev_end"]) for c in pos.calls] == [
        ("compare_periods", "2026-08-24", "2026-08-23")]
    assert "31,900" in pos.answer or "31900" in pos.answer
    assert farm.ungrounded == [] and pos.ungrounded == []
