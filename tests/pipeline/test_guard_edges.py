"""Input edge cases through the real pipeline (SQLite and PostgreSQL): dates that are written right but do
not exist, digits of other scripts in codes, control and direction-override characters in free text."""

from __future__ import annotations

from datetime import date

import pytest
import sqlalchemy as sa

from concierge.catalog.loader import load_catalogs
from concierge.errors import ResultCode
from concierge.pipeline.guard import Accepted, GuardContext, Refused, check

TOOLS = {n: t for c in load_catalogs(["farm"]) for n, t in c.tools.items()}
CTX = GuardContext(today=date(2025, 5, 15))
SALE = {"code_customer": "0016", "products": "かぼちゃ4個", "price": 600, "date_sales_str": "2025-05-06"}


def stored_products(pipeline) -> list[str]:
    with pipeline.db.read() as conn:
        return list(conn.scalars(sa.text("SELECT products FROM farm_sales WHERE customer_code = '0016'")))


@pytest.mark.parametrize(("written", "why", "why_ja"), [
    ("2025-02-30", "February 2025 has 28 days", "2025年2月は28日までです"),
    ("2024-02-30", "February 2024 has 29 days", "2024年2月は29日までです"),
    ("2025-04-31", "April 2025 has 30 days", "2025年4月は30日までです"),
    ("2025-05-00", "May 2025 has 31 days", "2025年5月は31日までです"),
    ("2025-13-01", "there is no month 13", "13月はありません"),
    ("2025-00-10", "there is no month 00", "0月はありません"),
    ("0000-01-01", "there is no year 0000", "0000年はありません"),
])
def test_a_date_written_right_that_does_not_exist_is_not_a_real_date(pipeline, admin, written, why, why_ja):
    result = pipeline.invoke("get_sales", {"code_customer": "0009", "date_sales_begin_str": written}, admin)
    assert (result.status, result.code, result.param) == ("refused", ResultCode.BAD_ARGUMENT, "date_sales_begin_str")
    assert f"{written} is not a real date: {why}" in result.message
    assert "YYYY-MM-DD" not in result.message  # it is written so; the old message said it was not
    assert result.message_ja is not None and "存在しない日付" in result.message_ja and why_ja in result.message_ja


def test_a_date_written_otherwise_still_says_how_to_write_it(pipeline, admin):
    result = pipeline.invoke("get_sales", {"code_customer": "0009", "date_sales_begin_str": "2025/05/01"}, admin)
    assert result.status == "refused" and "YYYY-MM-DD" in result.message and "2025/05/01" in result.message


@pytest.mark.parametrize("code", ["０００９", "٠٠٠٩", "۰۰۰۹", "०००९"])
def test_digits_of_other_scripts_are_read_as_ascii_before_the_pattern(pipeline, admin, code):
    """Python's \\d matches any script's digits: the raw value passed ^\\d{4}$ and reached the SQL."""
    mine = pipeline.invoke("get_customers", {"code_customer": code}, admin)
    ascii_ = pipeline.invoke("get_customers", {"code_customer": "0009"}, admin)
    assert mine.status == "ok" and mine.args["code_customer"] == "0009"
    assert mine.rows == ascii_.rows and mine.row_count == 1


def test_a_code_that_passes_the_pattern_holds_ascii_digits_only():
    for code, read in [("０００９", "0009"), ("٠٠٠٩", "0009"), ("߀߀߀߉", "0009"), ("𝟎𝟎𝟎𝟗", "0009"),
                       ("0\u0660\u06f09", "0009"), ("①②③④", "1234")]:
        decision = check(TOOLS, "get_customers", {"code_customer": code}, CTX)
        assert isinstance(decision, Accepted), decision
        assert decision.args["code_customer"] == read
    for code in ["0009\u202e", "00٠", "0000９", "００٠٠9"]:
        decision = check(TOOLS, "get_customers", {"code_customer": code}, CTX)
        assert isinstance(decision, Refused), (code, decision)


def test_full_width_dates_are_read_and_other_scripts_dates_too():
    decision = check(TOOLS, "get_sales", {"code_customer": "0009", "date_sales_begin_str": "２０２５－０５－０１"}, CTX)
    assert isinstance(decision, Accepted) and decision.args["date_sales_begin_str"] == date(2025, 5, 1)
    decision = check(TOOLS, "get_sales", {"code_customer": "0009", "date_sales_begin_str": "٢٠٢٥-٠٥-٠١"}, CTX)
    assert isinstance(decision, Accepted) and decision.args["date_sales_begin_str"] == date(2025, 5, 1)


@pytest.mark.parametrize("override", ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067",
                                      "\u2068", "\u2069"])
def test_a_direction_override_in_free_text_is_refused_and_nothing_is_written(pipeline, admin, override):
    before = stored_products(pipeline)
    products = f"かぼちゃ{override}4個 001"
    preview = pipeline.invoke("add_sale", {**SALE, "products": products}, admin)
    assert (preview.status, preview.code, preview.param) == ("refused", ResultCode.BAD_ARGUMENT, "products")
    assert f"U+{ord(override):04X}" in preview.message and "remove it" in preview.message
    assert override not in preview.message  # named, never repeated where it would turn the message around
    assert preview.message_ja and "見えない文字" in preview.message_ja
    assert stored_products(pipeline) == before
    search = pipeline.invoke("get_customers", {"name_str_customer": f"佐藤{override}"}, admin)
    assert search.status == "refused" and search.param == "name_str_customer"


def test_control_characters_are_removed_from_stored_text_but_tab_and_newline_stay(pipeline, admin):
    products = "かぼちゃ\x1b[31m4個\x00\x07\r\n\tなす\x7f\x85\x9f2本"
    preview = pipeline.invoke("add_sale", {**SALE, "products": products}, admin)
    assert preview.status == "confirm", preview.message
    done = pipeline.invoke("add_sale", {**SALE, "products": products}, admin,
                           confirmation=preview.confirmation_token)
    assert done.status == "ok", done.message
    expected = "かぼちゃ[31m4個\n\tなす2本"
    assert done.rows[0]["products"] == expected
    assert expected in stored_products(pipeline)


def test_only_controls_is_empty_text(pipeline, admin):
    result = pipeline.invoke("add_sale", {**SALE, "products": "\x00\x1b\x07"}, admin)
    assert result.status == "refused" and result.param == "products"


def test_a_long_refused_value_is_not_echoed_whole():
    decision = check(TOOLS, "get_customers", {"code_customer": "9" * 10_000}, CTX)
    assert isinstance(decision, Refused)
    assert len(decision.message) < 300


def test_digits_sent_as_a_number_are_the_code_they_spell_or_refused_with_how_to_quote_them():
    accepted = check(TOOLS, "get_sales", {"code_customer": 1016}, CTX)  # --tool-arg code_customer=1016: a number
    assert isinstance(accepted, Accepted) and accepted.args["code_customer"] == "1016"
    refused = check(TOOLS, "get_sales", {"code_customer": 16}, CTX)  # 0016 that lost its zeros: never 0016
    assert isinstance(refused, Refused)
    assert "send it in quotes" in refused.message and '"0012", not 12' in refused.message
    assert isinstance(check(TOOLS, "get_sales", {"code_customer": True}, CTX), Refused)
