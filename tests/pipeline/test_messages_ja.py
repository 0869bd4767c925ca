"""Refusals read in the user's language: every guard refusal has a Japanese message that names the
parameter in words (never the tool or the parameter's name) and says what would be valid."""

from __future__ import annotations

import re
from datetime import date

import pytest

from concierge.catalog.loader import load_catalogs
from concierge.errors import ResultCode
from concierge.pipeline.guard import GuardContext, Refused, check
from concierge.sources.result import Confirmation, Failure, Refusal

TOOLS = {n: t for c in load_catalogs(["farm", "pos"]) for n, t in c.tools.items()}
CTX = GuardContext(
    today=date(2025, 5, 15),
    enum_values={TOOLS["compare_periods"].params["category"].enum.query: ["おにぎり", "デザート", "弁当", "飲料"],
                 TOOLS["daily_sales"].params["product"].enum.query: ["ハンバーグ弁当", "麦茶"]},
    date_ranges={TOOLS["compare_periods"].params["cur_start"].bounds.query: (date(2026, 7, 1), date(2026, 8, 31))},
)
WEEK = {"cur_start": "2026-08-24", "cur_end": "2026-08-30", "prev_start": "2026-08-17", "prev_end": "2026-08-23"}
REFUSED = [  # (tool, args, code): one of each kind of refusal
    ("run_sql", {"sql": "DROP TABLE farm_sales"}, ResultCode.UNKNOWN_TOOL),
    ("get_customers", ["0001"], ResultCode.BAD_ARGUMENT),
    ("get_sales", {"code_customer": 9}, ResultCode.BAD_ARGUMENT),
    ("get_sales", {"code_customer": "9"}, ResultCode.BAD_ARGUMENT),
    ("get_sales", {}, ResultCode.BAD_ARGUMENT),
    ("get_sales", {"code_customer": "0001", "limit": 5}, ResultCode.BAD_ARGUMENT),
    ("get_sales", {"code_customer": "0001", "date_sales_begin_str": "2025/05/01"}, ResultCode.BAD_ARGUMENT),
    ("get_sales", {"code_customer": "0001", "date_sales_begin_str": "2025-02-30"}, ResultCode.BAD_ARGUMENT),
    ("get_sales", {"code_customer": "0001", "date_sales_begin_str": "2025-05-11", "date_sales_end_str": "2025-05-05"},
     ResultCode.BAD_ARGUMENT),
    ("get_customers", {"code_customer": "0001\u202e"}, ResultCode.BAD_ARGUMENT),
    ("get_customers", {"name_str_customer": "x" * 60}, ResultCode.BAD_ARGUMENT),
    ("add_sale", {"code_customer": "0016", "products": "ナス", "price": "600"}, ResultCode.BAD_ARGUMENT),
    ("add_sale", {"code_customer": "0016", "products": "ナス", "price": -1}, ResultCode.BAD_ARGUMENT),
    ("add_sale", {"code_customer": "0016", "products": "", "price": 100}, ResultCode.BAD_ARGUMENT),
    ("add_sale", {"code_customer": "0016", "products": "ナス", "price": 100, "date_sales_str": "2025-05-16"},
     ResultCode.BAD_ARGUMENT),
    ("compare_periods", {**WEEK, "category": "パン"}, ResultCode.BAD_ARGUMENT),
    ("compare_periods", {**WEEK, "category": 3}, ResultCode.BAD_ARGUMENT),
    ("sales_ranking", {"start": "2026-08-01", "end": "2026-08-31", "top_n": 11}, ResultCode.BAD_ARGUMENT),
    ("daily_sales", {"start": "2026-08-31", "end": "2026-08-01"}, ResultCode.BAD_ARGUMENT),
]

_PARAM_NAMES = {p for t in TOOLS.values() for p in t.params}
_ENGLISH_SENTENCE = re.compile(r"[A-Za-z]{3,}(?: [A-Za-z]{2,}){2,}")


@pytest.mark.parametrize(("tool", "args", "code"), REFUSED)
def test_every_refusal_has_a_japanese_message_without_names(tool, args, code):
    decision = check(TOOLS, tool, args, CTX)
    assert isinstance(decision, Refused)
    ja = decision.message_ja
    assert ja and ja.endswith("。"), decision
    assert tool not in ja or code == ResultCode.UNKNOWN_TOOL  # the unknown name itself is quoted back
    assert not [p for p in _PARAM_NAMES if re.search(rf"\b{p}\b", ja) and p not in str(args)], ja
    assert not _ENGLISH_SENTENCE.search(ja), ja


@pytest.mark.parametrize(("tool", "args", "said"), [
    ("get_sales", {}, "顧客コードを指定してください（4桁）。"),
    ("get_sales", {"code_customer": "9"}, "顧客コードの「9」は形が違います。4桁の形で指定してください。"),
    ("get_sales", {"code_customer": "0001", "date_sales_begin_str": "2025-02-30"},
     "期間の開始日の 2025-02-30 は存在しない日付です（2025年2月は28日までです）。"
     "日付を確かめてもう一度指定してください。"),
    ("get_sales", {"code_customer": "0001", "date_sales_begin_str": "2025-05-11", "date_sales_end_str": "2025-05-05"},
     "期間の開始日（5/11）が期間の終了日（5/5）より後になっています。期間は始まりの日から終わりの日の順に指定してください。"),
    ("add_sale", {"code_customer": "0016", "products": "ナス", "price": -500},
     "販売金額は0から100,000,000までで指定してください（-500は範囲の外です）。"),
    ("add_sale", {"code_customer": "0016", "products": "", "price": 100},
     "商品と数量が空です。指定してください（例 かぼちゃ4個）。"),
    ("add_sale", {"code_customer": "0016", "products": "ナス", "price": 100, "date_sales_str": "2025-05-16"},
     "販売日の5/16は指定できる範囲の外です。2000/1/1から今日（5/15）までの日付で指定してください。"),
    ("compare_periods", {**WEEK, "category": "パン"},
     "カテゴリの「パン」は選べません。選べるのは おにぎり、デザート、弁当、飲料 です。"),
    ("daily_sales", {"start": "2026-09-01", "end": "2026-09-30"},
     "期間の開始日の2026/9/1は指定できる範囲の外です。2026/7/1〜8/31の日付で指定してください。"),
])
def test_japanese_refusals_say_what_would_be_valid(tool, args, said):
    decision = check(TOOLS, tool, args, CTX)
    assert isinstance(decision, Refused) and decision.message_ja == said


@pytest.mark.parametrize(("code", "message", "words"), [
    (ResultCode.NOT_PERMITTED, "user viewer (role viewer) is not permitted to call add_sale", "権限がありません"),
    (ResultCode.CONFIRMATION_INVALID, "this confirmation token was already used; the write it confirmed has been done",
     "登録は済んでいます"),
    (ResultCode.CONFIRMATION_INVALID, "this confirmation token has expired; call the tool without a token", "期限"),
    (ResultCode.CONFIRMATION_INVALID, "this confirmation token is unknown; call the tool without a token", "もう一度"),
    (None, "something broke", "もう一度"),
])
def test_a_failure_without_a_japanese_message_is_still_said_in_japanese(code, message, words):
    failure = (Failure if code is None else Refusal)(tool="add_sale", code=code, message=message)
    ja = failure.text("ja")
    assert words in ja and not _ENGLISH_SENTENCE.search(ja)
    assert failure.text("en") == message


def test_a_preview_tells_the_person_nothing_is_registered_yet():
    preview = Confirmation(tool="add_sale", message="Nothing is written yet. Show this preview")
    assert "まだ登録していません" in preview.text("ja")
    assert "Nothing is registered yet" in preview.text("en")
