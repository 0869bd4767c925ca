"""The guard as a table: requested call in, decision out, no database."""

from __future__ import annotations

from datetime import date

import pytest

from concierge.catalog.loader import load_catalogs
from concierge.errors import ResultCode
from concierge.pipeline.guard import Accepted, GuardContext, Refused, check

CATALOGS = load_catalogs(["farm", "pos"])
TOOLS = {n: t for c in CATALOGS for n, t in c.tools.items()}
POS_RANGE = TOOLS["compare_periods"].params["cur_start"].bounds.query
CATEGORIES = TOOLS["compare_periods"].params["category"].enum.query
PRODUCTS = TOOLS["daily_sales"].params["product"].enum.query
CTX = GuardContext(
    today=date(2025, 5, 15),
    enum_values={CATEGORIES: ["おにぎり", "デザート", "弁当", "飲料"], PRODUCTS: ["ハンバーグ弁当", "麦茶"]},
    date_ranges={POS_RANGE: (date(2026, 7, 1), date(2026, 8, 31))},
)
WEEK = {"cur_start": "2026-08-24", "cur_end": "2026-08-30", "prev_start": "2026-08-17", "prev_end": "2026-08-23"}

REFUSED = [
    # (tool, args, code, words the message must contain)
    ("run_sql", {"sql": "DROP TABLE farm_sales"}, ResultCode.UNKNOWN_TOOL, ["run_sql", "get_sales"]),
    ("get_sales", {"code_customer": 9}, ResultCode.BAD_ARGUMENT, ["code_customer", "string"]),
    ("get_sales", {"code_customer": "9"}, ResultCode.BAD_ARGUMENT, ["code_customer", "pattern"]),
    ("get_sales", {}, ResultCode.BAD_ARGUMENT, ["code_customer", "required"]),
    ("get_sales", {"code_customer": "0001", "limit": 5}, ResultCode.BAD_ARGUMENT, ["limit", "code_sales"]),
    ("get_sales", {"code_customer": "0001", "date_sales_begin_str": "2025/05/01"}, ResultCode.BAD_ARGUMENT,
     ["YYYY-MM-DD", "2025/05/01"]),
    ("get_sales", {"code_customer": "0001", "date_sales_begin_str": "2025-02-30"}, ResultCode.BAD_ARGUMENT,
     ["not a real date", "February 2025 has 28 days"]),
    ("get_sales", {"code_customer": "0001", "date_sales_begin_str": "2025-05-11", "date_sales_end_str": "2025-05-05"},
     ResultCode.BAD_ARGUMENT, ["after", "date_sales_end_str"]),
    ("add_sale", {"code_customer": "0016", "products": "ナス", "price": "600"}, ResultCode.BAD_ARGUMENT,
     ["price", "integer"]),
    ("add_sale", {"code_customer": "0016", "products": "ナス", "price": True}, ResultCode.BAD_ARGUMENT, ["integer"]),
    ("add_sale", {"code_customer": "0016", "products": "ナス", "price": -1}, ResultCode.BAD_ARGUMENT, ["between"]),
    ("add_sale", {"code_customer": "0016", "products": "", "price": 100}, ResultCode.BAD_ARGUMENT, ["products"]),
    ("add_sale", {"code_customer": "0016", "products": "ナス", "price": 100, "date_sales_str": "2025-05-16"},
     ResultCode.BAD_ARGUMENT, ["outside", "2025-05-15"]),
    ("compare_periods", {**WEEK, "category": "パン"}, ResultCode.BAD_ARGUMENT, ["パン", "おにぎり", "飲料"]),
    ("compare_periods", {**WEEK, "cur_end": "2026-09-06"}, ResultCode.BAD_ARGUMENT, ["2026-07-01", "2026-08-31"]),
    ("compare_periods", {**WEEK, "prev_start": "2026-06-30"}, ResultCode.BAD_ARGUMENT, ["outside", "2026-07-01"]),
    ("compare_periods", {k: v for k, v in WEEK.items() if k != "prev_end"}, ResultCode.BAD_ARGUMENT, ["prev_end"]),
    ("sales_ranking", {"start": "2026-08-01", "end": "2026-08-31", "top_n": 11}, ResultCode.BAD_ARGUMENT,
     ["top_n", "1", "10"]),
    ("sales_ranking", {"start": "2026-08-01", "end": "2026-08-31", "top_n": 0}, ResultCode.BAD_ARGUMENT, ["top_n"]),
    ("sales_ranking", {"start": "2026-08-01", "end": "2026-08-31", "order": "random"}, ResultCode.BAD_ARGUMENT,
     ["desc", "asc"]),
    ("daily_sales", {"start": "2026-08-31", "end": "2026-08-01"}, ResultCode.BAD_ARGUMENT, ["after"]),
    ("daily_sales", {"start": "2026-08-01", "end": "2026-08-31", "product": "ピザ"}, ResultCode.BAD_ARGUMENT,
     ["ピザ", "麦茶"]),
    ("get_customers", ["0001"], ResultCode.BAD_ARGUMENT, ["JSON object"]),
]


@pytest.mark.parametrize(("tool", "args", "code", "words"), REFUSED)
def test_refusals_say_what_is_wrong_and_what_is_valid(tool, args, code, words):
    decision = check(TOOLS, tool, args, CTX)
    assert isinstance(decision, Refused), decision
    assert decision.code == code
    for word in words:
        assert word in decision.message


ACCEPTED = [
    # (tool, args, expected normalised args (subset))
    ("get_customers", {}, {"code_customer": None, "name_str_customer": None}),
    ("get_customers", {"name_str_customer": "  佐藤 "}, {"name_str_customer": "佐藤"}),
    # the farm ledger's searches have no bounds: 今年 reaching past today is fine
    ("get_sales", {"code_customer": "0009", "date_sales_begin_str": "2025-01-01", "date_sales_end_str": "2025-12-31"},
     {"date_sales_end_str": date(2025, 12, 31)}),
    ("add_sale", {"code_customer": "0016", "products": "かぼちゃ4個", "price": 600},
     {"date_sales_str": date(2025, 5, 15)}),
    ("add_sale", {"code_customer": "0016", "products": "かぼちゃ4個", "price": 600.0, "date_sales_str": None},
     {"price": 600, "date_sales_str": date(2025, 5, 15)}),
    ("compare_periods", {**WEEK, "category": None}, {"category": None, "cur_start": date(2026, 8, 24)}),
    ("compare_periods", {**WEEK, "category": "drinks"}, {"category": "飲料"}),
    ("compare_periods", {**WEEK, "category": "Rice Balls"}, {"category": "おにぎり"}),
    ("sales_ranking", {"start": "2026-08-01", "end": "2026-08-31"}, {"top_n": 5, "order": "desc", "category": None}),
    ("sales_ranking", {"start": "2026-08-01", "end": "2026-08-31", "order": "worst", "top_n": 1},
     {"order": "asc", "top_n": 1}),
    ("daily_sales", {"start": "2026-08-24", "end": "2026-08-30", "product": "ハンバーグ弁当"},
     {"product": "ハンバーグ弁当"}),
]


@pytest.mark.parametrize(("tool", "args", "expected"), ACCEPTED)
def test_accepted_calls_are_normalised(tool, args, expected):
    decision = check(TOOLS, tool, args, CTX)
    assert isinstance(decision, Accepted), decision
    for key, value in expected.items():
        assert decision.args[key] == value
    assert set(decision.args) == set(TOOLS[tool].params)


def test_a_refused_enum_lists_the_valid_values():
    decision = check(TOOLS, "compare_periods", {**WEEK, "category": "パン"}, CTX)
    assert decision.valid == {"values": ["おにぎり", "デザート", "弁当", "飲料"]}


def test_a_refused_date_states_the_range():
    decision = check(TOOLS, "daily_sales", {"start": "2026-09-01", "end": "2026-09-30"}, CTX)
    assert decision.valid == {"min": "2026-07-01", "max": "2026-08-31"}
