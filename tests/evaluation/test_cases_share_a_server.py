"""The cases of a demo share one pipeline, planner and agent, as a running server does: what one case did (a sale
registered, a light switched on) is never seen by the next, and each case plays on its own day."""

from __future__ import annotations

import json

import anyio

from concierge import evaluation

REGISTER = {"id": "registers", "domain": "farm", "today": "2025-05-15", "turns": [
    {"say": "0016のお客様に、一昨日、キャベツ2玉を1,500円で販売登録して",
     "calls": [{"tool": "add_sale", "args": {"code_customer": "0016", "products": "キャベツ2玉", "price": 1500,
                                             "date_sales_str": "2025-05-13"}}]}]}
READS = {"id": "reads", "domain": "farm", "today": "2025-05-15", "turns": [
    {"say": "顧客コード0016の今月の販売データを見せて",
     "calls": [{"tool": "get_sales", "args": {"code_customer": "0016", "date_sales_begin_str": "2025-05-01",
                                              "date_sales_end_str": "2025-05-31"}}]}]}


def _run(tmp_path, *cases):
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), encoding="utf-8")
    return anyio.run(evaluation.run, path)


def test_a_sale_registered_by_one_case_is_not_in_the_next_ones_figures(tmp_path):
    alone = _run(tmp_path, READS)
    after = _run(tmp_path, REGISTER, READS)
    assert [c.passed for c in after.cases] == [True, True], [c.line() for c in after.cases]
    registered, read = after.cases
    assert registered.turns[0].calls[0]["tool"] == "add_sale"  # confirmed and written, as a user would
    assert "キャベツ" not in alone.cases[0].turns[0].answer
    assert read.turns[0].answer == alone.cases[0].turns[0].answer


def test_each_case_plays_on_its_own_day(tmp_path):
    said = "顧客コード0016の先週火曜日の販売データを見せて"
    cases = [{"id": f"on-{today}", "domain": "farm", "today": today, "turns": [
        {"say": said, "calls": [{"tool": "get_sales", "args": {"code_customer": "0016",
                                                               "date_sales_begin_str": tuesday,
                                                               "date_sales_end_str": tuesday}}]}]}
             for today, tuesday in (("2025-05-15", "2025-05-06"), ("2025-06-10", "2025-06-03"),
                                    ("2025-05-15", "2025-05-06"))]
    report = _run(tmp_path, *cases)
    assert [c.passed for c in report.cases] == [True, True, True], [c.line() for c in report.cases]


def test_a_light_switched_on_by_one_case_is_off_again_for_the_next(tmp_path):
    status = {"id": "status", "domain": "home", "today": "2026-11-20", "turns": [
        {"say": "寝室の電気の状態は？", "calls": [{"tool": "light_status", "args": {"light": "寝室の電気"}}],
         "answer_contains": ["消えています"]}]}
    switch_on = {"id": "switches-on", "domain": "home", "today": "2026-11-20", "turns": [
        {"say": "寝室の電気つけて",
         "calls": [{"tool": "light_power", "args": {"light": "寝室の電気", "power": "turnOn"}}]},
        {"say": "寝室の電気の状態は？", "calls": [{"tool": "light_status", "args": {"light": "寝室の電気"}}],
         "answer_contains": ["ついています"]}]}
    report = _run(tmp_path, status, switch_on, status)
    assert [c.passed for c in report.cases] == [True, True, True], [c.line() for c in report.cases]
