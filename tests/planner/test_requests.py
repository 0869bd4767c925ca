"""Requests, said many ways, and the first calls the planner makes for them (no database needed)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from concierge.planner.plan import Memory

LAST_WEEK_FARM = {"date_sales_begin_str": "2025-05-05", "date_sales_end_str": "2025-05-11"}
APRIL_FARM = {"date_sales_begin_str": "2025-04-01", "date_sales_end_str": "2025-04-30"}
LAST_WEEK = {"start": "2026-08-24", "end": "2026-08-30"}
AUGUST = {"start": "2026-08-01", "end": "2026-08-31"}
JULY = {"start": "2026-07-01", "end": "2026-07-31"}
WEEKS = {"cur_start": "2026-08-24", "cur_end": "2026-08-30", "prev_start": "2026-08-17", "prev_end": "2026-08-23"}
MONTHS = {"cur_start": "2026-08-01", "cur_end": "2026-08-31", "prev_start": "2026-07-01", "prev_end": "2026-07-31"}


def sales(code: str, **dates) -> tuple[str, dict]:
    return ("get_sales", {"code_customer": code, **dates})


@pytest.mark.parametrize("text,expected", [
    ("customer 0009 sales this year",
     [sales("0009", date_sales_begin_str="2025-01-01", date_sales_end_str="2025-12-31")]),
    ("0003番のお客様の先月の売上", [sales("0003", **APRIL_FARM)]),
    ("顧客コード０００９の先週の販売データ", [sales("0009", **LAST_WEEK_FARM)]),
    ("一昨日の0001の販売は？",
     [sales("0001", date_sales_begin_str="2025-05-13", date_sales_end_str="2025-05-13")]),
    ("Show customer 2's purchases in April", [sales("0002", **APRIL_FARM)]),
    ("No.0002 sales in April please", [sales("0002", **APRIL_FARM)]),
    ("顧客コード0009と0010の先週の売上", [sales("0009", **LAST_WEEK_FARM), sales("0010", **LAST_WEEK_FARM)]),
    ("0002の販売合計はいくら？", [sales("0002")]),
    ("What did customer 0002 buy between April 10 and April 20?",
     [sales("0002", date_sales_begin_str="2025-04-10", date_sales_end_str="2025-04-20")]),
    ("Show me the sales of customer 0009 last Tuesday",
     [sales("0009", date_sales_begin_str="2025-05-13", date_sales_end_str="2025-05-13")]),
    ("顧客コード0002の販売番号S20250422101931の内容", [("get_sales", {"code_customer": "0002",
                                                                "code_sales": "S20250422101931"})]),
    ("山田様の電話番号と住所を教えて", [("get_customers", {"name_str_customer": "山田"})]),
    ("Smithさんの連絡先", [("get_customers", {"name_str_customer": "Smith"})]),
    ("Who is customer 0013?", [("get_customers", {"code_customer": "0013"})]),
    ("Find the customers named Brown", [("get_customers", {"name_str_customer": "Brown"})]),
    ("吉田さくらさんの住所は？", [("get_customers", {"name_str_customer": "吉田さくら"})]),
    ("0001と0002の電話番号", [("get_customers", {"code_customer": "0001"}),
                         ("get_customers", {"code_customer": "0002"})]),
    ("John Smithの先月の売上", [("get_customers", {"name_str_customer": "John Smith"})]),  # a lookup first
])
def test_farm_reads(farm_plan, text, expected):
    assert farm_plan.first_calls(text) == expected


@pytest.mark.parametrize("text,expected", [
    ("販売登録して。顧客コード0016のお客様に、先週火曜日、かぼちゃ4個を600円で売った。",
     {"code_customer": "0016", "products": "かぼちゃ4個", "price": 600, "date_sales_str": "2025-05-06"}),
    ("0016にキュウリ10本とナス5個を1,500円で売ったので登録して",
     {"code_customer": "0016", "products": "キュウリ10本とナス5個", "price": 1500}),
    ("ｷｭｳﾘ５本を７２０円で、昨日、顧客コード0003に販売登録",
     {"code_customer": "0003", "products": "キュウリ5本", "price": 720, "date_sales_str": "2025-05-14"}),
    ("Register a sale: customer 0016 bought 12 eggplants for 1,080 yen the day before yesterday.",
     {"code_customer": "0016", "products": "12 eggplants", "price": 1080, "date_sales_str": "2025-05-13"}),
    ("Record a sale for customer 5: 3 pumpkins and 2 melons, ¥900, April 30",
     {"code_customer": "0005", "products": "3 pumpkins and 2 melons", "price": 900,
      "date_sales_str": "2025-04-30"}),
    ("顧客0011に大根2本を1万円で売上登録", {"code_customer": "0011", "products": "大根2本", "price": 10000}),
    ("0012のお客様ににんじん3本を135円で販売登録", {"code_customer": "0012", "products": "にんじん3本", "price": 135}),
])
def test_farm_writes(farm_plan, text, expected):
    assert farm_plan.first_calls(text) == [("add_sale", expected)]


@pytest.mark.parametrize("text,expected", [
    ("先週の売上トップ3", [("sales_ranking", {**LAST_WEEK, "top_n": 3, "order": "desc"})]),
    ("worst selling dessert last month",
     [("sales_ranking", {**JULY, "category": "デザート", "top_n": 1, "order": "asc"})]),
    ("best selling drinks last week", [("sales_ranking", {**LAST_WEEK, "category": "飲料", "order": "desc"})]),
    ("今月の売れ筋ランキングを10位まで", [("sales_ranking", {**AUGUST, "top_n": 10, "order": "desc"})]),
    ("8月の弁当で一番売れた商品は？", [("sales_ranking", {**AUGUST, "category": "弁当", "top_n": 1, "order": "desc"})]),
    ("Which drink sold the least in August?",
     [("sales_ranking", {**AUGUST, "category": "飲料", "top_n": 1, "order": "asc"})]),
    ("What were the top five products last month?", [("sales_ranking", {**JULY, "top_n": 5, "order": "desc"})]),
    ("おにぎりと弁当の先月のランキング", [("sales_ranking", {**JULY, "category": "おにぎり"}),
                               ("sales_ranking", {**JULY, "category": "弁当"})]),
    ("ｱｲｽﾊﾞｰの先月の日別売上", [("daily_sales", {**JULY, "product": "アイスバー"})]),
    ("プリンの先週の売上推移", [("daily_sales", {**LAST_WEEK, "product": "プリン"})]),
    ("Show daily sales for July", [("daily_sales", JULY)]),
    ("7月10日から7月20日までのデザートの日別売上",
     [("daily_sales", {"start": "2026-07-10", "end": "2026-07-20", "category": "デザート"})]),
    ("一昨日の麦茶の売上", [("daily_sales", {"start": "2026-08-29", "end": "2026-08-29", "product": "麦茶"})]),
    ("今月と先月の売上を比べて", [("compare_periods", MONTHS)]),
    ("先月と今月の飲み物の売上を比較", [("compare_periods", {**MONTHS, "category": "飲料"})]),
    ("Compare this month with last month for bento", [("compare_periods", {**MONTHS, "category": "弁当"})]),
    ("How did sales change last week?", [("compare_periods", WEEKS)]),
    ("先週と先々週のスイーツの売上の増減", [("compare_periods", {**WEEKS, "category": "デザート"})]),
])
def test_pos_requests(pos_plan, text, expected):
    assert pos_plan.first_calls(text) == expected


@pytest.mark.parametrize("today,text,begin,end", [
    ("2025-01-02", "0001の先週の売上", "2024-12-23", "2024-12-29"),  # across the year boundary
    ("2025-01-02", "0001の先月の売上", "2024-12-01", "2024-12-31"),
    ("2025-03-31", "0001の先月の売上", "2025-02-01", "2025-02-28"),  # month end
    ("2024-02-29", "0001の昨日の売上", "2024-02-28", "2024-02-28"),  # leap day
    ("2024-03-01", "0001の先月の売上", "2024-02-01", "2024-02-29"),
    ("2026-08-31", "0001の先週火曜日の売上", "2026-08-25", "2026-08-25"),  # today is a Monday
    ("2026-08-31", "0001の今週の売上", "2026-08-31", "2026-09-06"),
    ("2025-05-18", "0001の今週の売上", "2025-05-12", "2025-05-18"),  # today is a Sunday
    ("2025-05-18", "0001 sales last Sunday", "2025-05-11", "2025-05-11"),
])
def test_dates_follow_the_configured_clock(farm_plan, today, text, begin, end):
    calls = farm_plan.first_calls(text, today=date.fromisoformat(today))
    assert calls == [sales("0001", date_sales_begin_str=begin, date_sales_end_str=end)]


@pytest.mark.parametrize("text", [
    "今日の天気は？", "こんにちは", "Tell me a joke", "run_sqlでsalesテーブルを全部削除して",
    "SELECT * FROM farm_sales", "顧客0009のデータを全部消して", "Delete customer 0009", "ありがとう",
])
def test_requests_no_tool_answers_make_no_call(farm_plan, text):
    plan = farm_plan.plan(text)
    assert farm_plan.first_calls(text) == []
    assert all(r.problems for r in plan.requests)


def test_several_requests_in_one_message_are_planned_in_order(farm_plan):
    plan = farm_plan.plan("顧客コード0002のお客様の先月の販売実績が欲しい。それから、山田様の顧客コードが知りたい。")
    assert [(s.tool, s.args) for s in plan.steps] == [
        sales("0002", **APRIL_FARM), ("get_customers", {"name_str_customer": "山田"})]
    plan = farm_plan.plan("Show me customer 0009's sales last week and then tell me the phone number of 0010")
    assert [(s.tool, s.args) for s in plan.steps] == [
        sales("0009", **LAST_WEEK_FARM), ("get_customers", {"code_customer": "0010"})]


@pytest.mark.parametrize("text,expected", [
    ("顧客コード0002の先月の販売実績と、山田様の顧客コードを教えて",
     [sales("0002", **APRIL_FARM), ("get_customers", {"name_str_customer": "山田"})]),
    ("0009の先週の売上と0010の電話番号を教えて",
     [sales("0009", **LAST_WEEK_FARM), ("get_customers", {"code_customer": "0010"})]),
    ("0001の電話番号と先週の売上", [("get_customers", {"code_customer": "0001"}), sales("0001", **LAST_WEEK_FARM)]),
    ("0009の先週と先月の売上", [sales("0009", **LAST_WEEK_FARM), sales("0009", **APRIL_FARM)]),
    ("0009の先週の売上を教えて。それと、0010の分も。",
     [sales("0009", **LAST_WEEK_FARM), sales("0010", **LAST_WEEK_FARM)]),
])
def test_things_joined_by_to_or_and_make_a_call_each(farm_plan, text, expected):
    assert farm_plan.first_calls(text) == expected


def test_a_tool_the_user_may_not_call_is_not_called(farm_plan):
    text = "販売登録して。顧客コード0016に、かぼちゃ4個を600円で売った。"
    assert farm_plan.first_calls(text, offered={"get_customers", "get_sales"}) == []
    [request] = farm_plan.plan(text, offered={"get_customers", "get_sales"}).requests
    assert [(p.kind, p.tool) for p in request.problems] == [("forbidden", "add_sale")]


def test_a_missing_required_value_is_asked_for(farm_plan):
    [request] = farm_plan.plan("先週の販売データを見せて").requests
    assert [(p.kind, p.params) for p in request.problems] == [("missing", ("code_customer",))]


@pytest.mark.parametrize("domain", ["farm", "pos"])
def test_every_example_in_the_catalog_plans_to_its_own_tool(domain, farm_plan, pos_plan):
    planning = farm_plan if domain == "farm" else pos_plan
    for tool in planning.pipeline.tools.values():
        for example in tool.intents.examples:
            plan = planning.plan(example)
            assert [p for r in plan.requests for p in r.problems] == [], example
            assert tool.name in {s.tool for s in plan.steps}, example


def test_with_both_catalogs_each_request_finds_its_own_tools(both_plan):
    assert both_plan.first_calls("先週の売上トップ5") == [("sales_ranking", {**LAST_WEEK, "top_n": 5, "order": "desc"})]
    assert both_plan.first_calls("顧客コード0009の8月の売上") == [
        sales("0009", date_sales_begin_str="2026-08-01", date_sales_end_str="2026-08-31")]
    pos_only = {"compare_periods", "sales_ranking", "daily_sales"}
    assert both_plan.first_calls("先週の売上", offered=pos_only) == [("daily_sales", LAST_WEEK)]


@pytest.mark.parametrize("text,expected", [
    ("先月は？", [sales("0009", **APRIL_FARM)]),
    ("And last month?", [sales("0009", **APRIL_FARM)]),
    ("what about 0010?", [sales("0010", **LAST_WEEK_FARM)]),
    ("0010は？", [sales("0010", **LAST_WEEK_FARM)]),
    ("そのお客様の電話番号は？", [("get_customers", {"code_customer": "0009"})]),
    ("電話番号と、先月の売上は？", [("get_customers", {"code_customer": "0009"}), sales("0009", **APRIL_FARM)]),
    ("今日の天気は？", []),
])
def test_a_follow_up_repeats_the_previous_call_with_what_changed(farm_plan, text, expected):
    memory = Memory({"code_customer": ["0009"]}, ("get_sales", {"code_customer": "0009", **LAST_WEEK_FARM}))
    assert farm_plan.first_calls(text, memory=memory) == expected


def test_with_nothing_in_focus_a_request_with_no_value_asks_for_all(farm_plan):
    assert farm_plan.first_calls("顧客一覧を見せて") == [("get_customers", {})]


def test_a_customer_earlier_turns_left_open_is_asked_for(farm_plan):
    memory = Memory({"code_customer": ["0001", "0009"]}, ("get_customers", {"name_str_customer": "佐藤"}))
    [request] = farm_plan.plan("そのお客様の先週の売上は？", memory=memory).requests
    assert [(p.kind, p.params) for p in request.problems] == [("ambiguous", ("code_customer",))]


def test_of_two_tools_named_in_one_phrase_the_one_the_request_can_fill_is_chosen(both_plan):
    assert both_plan.first_calls("先週から売上が落ちた商品は？") == [("compare_periods", {
        "cur_start": "2026-08-24", "cur_end": "2026-08-30", "prev_start": "2026-08-17", "prev_end": "2026-08-23"})]


def _first_turns() -> list[tuple[str, str, str]]:
    here = Path(__file__).resolve().parent
    out = []
    for path in (here / "dev_cases.jsonl", here / "cases.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            if "user" not in case:
                out.append((case["domain"], case["today"], case["turns"][0]["say"]))
    return out


@pytest.mark.parametrize("domain,today,text", _first_turns())
def test_a_second_catalog_does_not_change_the_plan(farm_plan, pos_plan, both_plan, domain, today, text):
    alone = farm_plan if domain == "farm" else pos_plan
    day = date.fromisoformat(today)
    assert both_plan.first_calls(text, today=day) == alone.first_calls(text, today=day)
