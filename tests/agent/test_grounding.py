"""The grounding check, table-driven: which numbers of an answer are accounted for."""

from __future__ import annotations

from datetime import date

import pytest

from concierge.agent.grounding import sources, ungrounded
from concierge.sources.result import from_json

TODAY = date(2025, 5, 15)
SALES = {
    "result_id": "r_0123456789",
    "tool": "get_sales",
    "status": "ok",
    "args": {"code_customer": "0002", "date_sales_begin_str": "2025-04-01", "date_sales_end_str": "2025-05-31"},
    "rows": [
        {"code_sales": "S20250419112931", "date_sales": "2025-04-19", "products": "トマト2個とかぼちゃ1個",
         "price": 340},
        {"code_sales": "S20250422101931", "date_sales": "2025-04-22", "products": "トマト8個", "price": 640},
    ],
    "row_count": 2,
    "totals": {"count": 2, "price": 980},
}
COMPARE = {
    "result_id": "r_abcdefabcd",
    "tool": "compare_periods",
    "status": "ok",
    "rows": [],
    "summary": {"current_total": 635010, "previous_total": 647940, "change": -12930, "change_pct": -2.0,
                "top_decreases": [{"product": "ハンバーグ弁当", "change": -31900}]},
}
CUSTOMER = {"result_id": "r_1111111111", "tool": "get_customers", "status": "ok",
            "rows": [{"code_customer": "0001", "phone": "03-1234-5678"}], "row_count": 1}

RESULTS = [from_json(r) for r in (SALES, COMPARE, CUSTOMER)]


@pytest.mark.parametrize(
    ("answer", "missing"),
    [
        ("4月は2件、合計980円です [r_0123456789]。", []),
        ("合計 ９８０円 (340円 + 640円)", []),  # full-width digits
        ("合計 1,980円", ["1,980"]),
        ("S20250422101931 (2025-04-22) トマト8個 640円", []),
        ("S20250422101999 トマト8個", ["S20250422101999"]),
        ("4月19日と4/22に販売; 2025年4月の合計は980円", []),
        ("6月20日にも販売", ["6月20日"]),  # the question spans April and May only
        ("April 19, 2025 and 22 April: 980 yen", []),
        ("June 3rd: 240 yen", ["June 3rd", "240"]),
        ("今週の売上は635,010円で、前週比 -12,930円 (-2.0%) 減少、ハンバーグ弁当 -31,900円", []),
        ("前週比 -2.5%", ["2.5%"]),
        ("1. 0001 佐藤太郎 03-1234-5678\n2. 0009", ["0009"]),
        ("顧客 0001 の電話は 03-9999-5678", ["03-9999-5678"]),
        ("ご依頼の600円は登録できません", []),  # the user's own number
        ("今日は2025-05-15です", []),
        ("上位1商品", []),  # a list's length
        ("Answer in 7 sentences", ["7"]),
    ],
)
def test_numbers_of_an_answer_are_grounded_or_reported(answer, missing):
    found = sources(RESULTS, ["顧客コード0002の先月と今月の販売、600円の件"], TODAY)
    assert ungrounded(answer, found) == missing


def test_relative_dates_in_the_question_ground_every_day_of_that_period():
    found = sources([], ["先週の販売を見せて"], TODAY)
    assert ungrounded("先週(5月5日〜5月11日)の販売はありません", found) == []
    assert ungrounded("5月12日の販売はありません", found) == ["5月12日"]


def test_a_result_of_another_turn_does_not_ground_a_number():
    assert ungrounded("合計980円", sources([], ["0002の4月は？"], TODAY)) == ["980"]
