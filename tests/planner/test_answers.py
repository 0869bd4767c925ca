"""Answers in sentences: what a person reads for every demo tool and outcome, in Japanese and English.

Figures come from the result (count, totals, summary), the period is said in words and dates, and no
answer shows a tool name, a raw column name or a result id.
"""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import pytest
from planner_helpers import TODAY

from concierge import evaluation
from concierge.catalog.loader import load_catalog, parse_catalog
from concierge.errors import CatalogError, ResultCode
from concierge.planner import answer
from concierge.planner.answer.template import fill
from concierge.planner.plan import Problem
from concierge.sources.result import Confirmation, Failure, Refusal, Rows, ToolResult

HERE = Path(__file__).resolve().parent
FARM = load_catalog("farm").tools
POS = load_catalog("pos").tools
TOOLS = {**FARM, **POS}
LAST_WEEK = {"date_sales_begin_str": "2025-05-05", "date_sales_end_str": "2025-05-11"}


def sales(code: str, rows: list[dict], **args) -> ToolResult:
    return Rows(tool="get_sales", args={"code_customer": code, **args},
                columns=["code_sales", "code_customer", "name_customer", "date_sales", "products", "price"],
                rows=rows, row_count=len(rows),
                totals={"count": len(rows), "price": sum(r["price"] for r in rows)})


def sale(day: str, products: str, price: int, code: str = "0009", name: str = "佐藤次郎") -> dict:
    return {"code_sales": f"S{day.replace('-', '')}1", "code_customer": code, "name_customer": name,
            "date_sales": day, "products": products, "price": price}


def say(result: ToolResult, lang: str = "ja", today=TODAY["farm"]) -> str:
    return answer.render(result, lang, TOOLS.get(result.tool), today=today)


# --- farm ------------------------------------------------------------------------------------------
def test_one_sale_is_one_sentence_with_who_when_and_what():
    result = sales("0009", [sale("2025-05-10", "キュウリ15本", 1050)], **LAST_WEEK)
    assert say(result) == "佐藤次郎様（0009）の先週（5/5〜5/11）の販売は1件、5/10のキュウリ15本 1,050円です。"
    assert say(result, "en") == ("佐藤次郎 (0009) has one sale last week (May 5–11): "
                                 "キュウリ15本 on May 10, ¥1,050.")


def test_a_few_sales_are_listed_with_the_total_from_the_result():
    rows = [sale("2025-04-19", "トマト2個とかぼちゃ1個", 340, "0002", "John Smith"),
            sale("2025-04-22", "トマト8個", 640, "0002", "John Smith")]
    text = say(sales("0002", rows, date_sales_begin_str="2025-04-01", date_sales_end_str="2025-04-30"))
    assert text == ("John Smith様（0002）の先月（4/1〜4/30）の販売は2件、4/19のトマト2個とかぼちゃ1個 340円、"
                    "4/22のトマト8個 640円です。合計980円です。")


def test_many_sales_become_a_labelled_table_after_the_sentence():
    rows = [sale(f"2025-03-{d:02d}", "ナス1個", 100) for d in range(1, 8)]
    text = say(sales("0009", rows))
    first, *table = text.splitlines()
    assert first == "佐藤次郎様（0009）の販売は7件です。合計700円です。"
    assert table[0] == "| 販売番号 | 販売日 | 商品 | 金額 |"  # the customer, said once, is not repeated
    assert "| 2025-03-07 |" in table[-1]


def test_no_sale_says_so_with_the_period():
    assert say(sales("0010", [], **LAST_WEEK)) == "顧客コード0010のお客様の先週（5/5〜5/11）の販売はありません（0件）。"
    assert say(sales("0010", [], **LAST_WEEK), "en") == "Customer 0010 has no sales last week (May 5–11) (0 sales)."


def test_a_failed_read_says_why_in_the_users_language():
    why = "この顧客コードのお客様は見つかりません。顧客コード（4桁）を確かめてください"
    failed = Failure(tool="get_sales", code=ResultCode.NOT_FOUND, args={"code_customer": "0003"},
                     message="customer not found", message_ja=why)
    assert say(failed) == f"顧客コード0003のお客様の販売は照会できません: {why}。"
    assert say(failed, "en") == "I cannot look up the sales of customer 0003: customer not found."


def customers(rows: list[dict], **args) -> ToolResult:
    return Rows(tool="get_customers", args=args, rows=rows, row_count=len(rows),
                columns=["code_customer", "name_customer", "address", "phone"], totals={"count": len(rows)})


def customer(code: str, name: str) -> dict:
    return {"code_customer": code, "name_customer": name, "address": "東京都", "phone": "03-0000-0000"}


def test_customer_lookups_name_each_customer_with_the_code():
    two = customers([customer("0001", "佐藤太郎"), customer("0009", "佐藤次郎")], name_str_customer="佐藤")
    text = say(two)
    assert text.startswith("『佐藤』に当たるお客様は2名です: 佐藤太郎様（顧客コード0001、")
    assert "佐藤次郎様（顧客コード0009、" in text
    one = say(customers([customer("0003", "山田花子")], code_customer="0003"), "en")
    assert one == "Customer 0003 is 山田花子 (customer code 0003, address 東京都, phone 03-0000-0000)."
    assert say(customers([], name_str_customer="鈴木")).startswith("『鈴木』に当たるお客様は見つかりません（0名）。")


def test_a_write_is_previewed_then_confirmed_with_its_own_values():
    fields = {"code_customer": "0016", "name_customer": "松本理恵", "date_sales": "2025-05-06",
              "products": "かぼちゃ4個", "price": 600}
    args = {"code_customer": "0016", "products": "かぼちゃ4個", "price": 600, "date_sales_str": "2025-05-06"}
    preview = Confirmation(tool="add_sale", args=args, preview=fields)
    assert say(preview) == \
        "松本理恵様（0016）に、5/6(火)の販売「かぼちゃ4個」600円を登録します（まだ登録していません）。"
    row = {"code_sales": "S1", "code_customer": "0016", "date_sales": "2025-05-06", "products": "かぼちゃ4個",
           "price": 600}
    done = Rows(tool="add_sale", args=args, rows=[row], row_count=1, totals={"count": 1})
    assert say(done) == "顧客コード0016のお客様に、2025-05-06の販売「かぼちゃ4個」600円を登録しました（販売番号 S1）。"
    assert say(done, "en") == "Registered for customer 0016: かぼちゃ4個, ¥600 on 2025-05-06 (sales number S1)."


# --- pos -------------------------------------------------------------------------------------------
WEEK = {"cur_start": "2026-08-24", "cur_end": "2026-08-30", "prev_start": "2026-08-17", "prev_end": "2026-08-23"}


def test_a_comparison_says_both_totals_the_change_and_the_largest_moves():
    summary = {"current_total": 635010, "previous_total": 647940, "change": -12930, "change_pct": -2.0,
               "top_decreases": [{"product": "ハンバーグ弁当", "change": -31900}, {"product": "麦茶", "change": -8540}],
               "top_increases": [{"product": "幕の内弁当", "change": 19140}]}
    result = Rows(tool="compare_periods", args={**WEEK, "category": None}, summary=summary,
                  rows=[{"product": "麦茶", "cur_amount": 1, "prev_amount": 2, "change": -1}], row_count=20)
    text = say(result, today=TODAY["pos"])
    assert text.startswith("先週（8/24〜8/30）の売上は635,010円で、")
    assert "の647,940円から12,930円（-2.0%）減りました。" in text
    assert "減少が大きいのはハンバーグ弁当（-31,900円）、麦茶（-8,540円）です。" in text
    assert text.endswith("増加が大きいのは幕の内弁当（+19,140円）です。") and "|" not in text
    english = say(result, "en", TODAY["pos"])
    assert english.startswith("Sales last week (Aug 24–30) were ¥635,010, down ¥12,930 (-2.0%) from ¥647,940")


def ranking(rows: list[tuple[str, int]], **args) -> ToolResult:
    return Rows(tool="sales_ranking", args={"start": "2026-08-01", "end": "2026-08-31", **args},
                rows=[{"product": p, "category": "飲料", "quantity": 3, "amount": a} for p, a in rows],
                row_count=len(rows), columns=["product", "category", "quantity", "amount"])


def test_a_ranking_names_the_products_in_order_and_a_superlative_names_the_one():
    top = ranking([("緑茶", 189150), ("麦茶", 171220)], order="desc", top_n=2, category="飲料")
    assert say(top, today=TODAY["pos"]) == \
        "飲料の今月（8/1〜8/31）の売上が多い順に2商品です: 緑茶 189,150円、麦茶 171,220円。"
    worst = ranking([("オレンジジュース", 95880)], order="asc", top_n=1, category="飲料")
    assert say(worst, today=TODAY["pos"]) == \
        "飲料で今月（8/1〜8/31）にいちばん売れなかったのはオレンジジュース（売上95,880円、数量3）です。"
    best = say(ranking([("幕の内弁当", 71340)], order="desc", top_n=1), "en", TODAY["pos"])
    assert best == "The best selling product this month (Aug 1–31) was 幕の内弁当 (¥71,340, 3 sold)."


def test_daily_sales_give_the_total_and_a_table_of_the_days():
    rows = [{"date": f"2026-08-{d:02d}", "quantity": d, "amount": d * 100} for d in range(24, 31)]
    result = Rows(tool="daily_sales", rows=rows, row_count=7,
                  args={"start": "2026-08-24", "end": "2026-08-30", "product": "プリン"},
                  columns=["date", "quantity", "amount"], totals={"count": 7, "amount": 18900, "quantity": 189})
    first, header, _, *days = say(result, today=TODAY["pos"]).splitlines()
    assert first == "プリンの先週（8/24〜8/30）の日別売上は7日分、合計18,900円（数量189）です。"
    assert header == "| 日付 | 数量 | 売上金額 |" and days[0] == "| 2026-08-24 | 24 | 2,400 |"


def test_a_refused_period_says_what_is_valid():
    refused = Refusal(tool="daily_sales", code=ResultCode.BAD_ARGUMENT, param="start",
                      args={"start": "2026-09-01", "end": "2026-09-30"},
                      message="daily_sales: start 2026-09-01 is outside the allowed range",
                      valid={"min": "2026-07-01", "max": "2026-08-31"})
    text = say(refused, "en", TODAY["pos"])
    assert text.startswith("I cannot give the sales for next month (Sep 1–30): first day of the period 2026-09-01")
    assert text.endswith("The valid range is 2026-07-01 to 2026-08-31.") and "daily_sales" not in text


# --- a tool without templates ------------------------------------------------------------------------
def test_a_tool_without_templates_says_its_arguments_in_a_sentence_and_labels_its_table():
    bare = FARM["get_sales"].model_copy(update={"answer": None})
    rows = [sale(f"2025-05-{d:02d}", "ナス1個", 100) for d in range(5, 10)]
    text = answer.render(sales("0009", rows, **LAST_WEEK), "ja", bare, today=TODAY["farm"])
    lines = text.splitlines()
    assert lines[0] == "先週（5/5〜5/11）の顧客コードが0009の販売は5件です。"
    assert lines[1] == "| 販売番号 | 氏名 | 販売日 | 商品 | 金額 |" and lines[-1] == "金額の合計は500です。"
    english = answer.render(sales("0009", rows[:1], **LAST_WEEK), "en", bare.model_copy(
        update={"result": bare.result.model_copy(update={"labels": {}})}), today=TODAY["farm"])
    head, columns = english.splitlines()[:2]
    assert head == "There is 1 sale with customer code 0009 last week (May 5–11)."
    assert columns.startswith("| sales number | customer code | name customer |")  # descriptions, else words


# --- problems -----------------------------------------------------------------------------------------
def problem(kind: str, **fields) -> str:
    return answer.problems.problem_text(Problem(kind, **fields), fields.pop("lang", "ja"), TOOLS)


@pytest.mark.parametrize("lang,expected", [
    ("ja", "『お茶』に当たる商品名が複数あります: 麦茶、緑茶。どれですか？"),
    ("en", '"お茶" matches several product name values: 麦茶, 緑茶. Which one do you mean?'),
])
def test_a_word_that_fits_several_values_is_asked_about_with_the_candidates(lang, expected):
    text = answer.problems.problem_text(Problem("which_value", "daily_sales", ("product",), said="お茶",
                                                candidates=("麦茶", "緑茶")), lang, TOOLS)
    assert text == expected


def test_unknown_impossible_and_out_of_scope_requests_read_as_plain_sentences():
    unknown = Problem("unknown_value", "daily_sales", ("product",), said="カレー")
    assert answer.problems.problem_text(unknown, "ja", TOOLS) == \
        "『カレー』に当たる商品名が見つかりません。商品名をもう一度教えてください。"
    impossible = Problem("impossible_value", "add_sale", ("date_sales_str",), said="2025-02-30",
                         reason=(("ja", "2025年2月30日という日はありません"), ("en", "February has no 30th")))
    assert answer.problems.problem_text(impossible, "ja", TOOLS) == \
        "2025年2月30日という日はありません。販売日を確かめてもう一度どうぞ。"
    assert answer.problems.problem_text(impossible, "en", TOOLS) == \
        "February has no 30th. Please check the date of the sale and ask again."
    change = answer.problems.problem_text(Problem("cannot_change"), "ja", TOOLS)
    assert change.startswith("登録済みのデータはここでは変更・取り消しできません。") and "照会" in change
    forecast = Problem("out_of_scope", reason=(("ja", "売上の予測はできません。"), ("en", "I cannot forecast sales.")))
    assert answer.problems.problem_text(forecast, "en", TOOLS) == "I cannot forecast sales."


def test_a_request_no_tool_answers_says_what_can_be_done(farm_plan):
    plan = farm_plan.plan("今日の天気は？")
    text = answer.compose(plan, [], "ja", farm_plan.pipeline.tools, ["顧客の検索ができます。"], today=TODAY["farm"])
    assert text.endswith("できること: 顧客の検索ができます。")


# --- the template language ------------------------------------------------------------------------------
def test_segments_are_left_out_when_a_value_is_missing():
    values = {"a": "A", "n": "3"}

    def resolve(name: str, fmt: str) -> str | None:
        return values.get(name)

    assert fill("[{a}の][{b}の]{n}件", resolve) == "Aの3件"
    assert fill("{b}!", resolve) == "!"


def test_an_unknown_placeholder_stops_the_catalog_with_what_the_template_may_use():
    text = (Path(load_catalog("farm").file).read_text(encoding="utf-8")
            .replace("合計{total.price}円です。", "合計{total.prce}円です。", 1))
    with pytest.raises(CatalogError) as err:
        parse_catalog(text, "farm.yaml")
    [found] = err.value.problems
    assert found.key == "tools.get_sales.answer.ok.ja"
    assert "unknown placeholder {total.prce}" in found.message and "total.<price>" in found.message


def test_a_bad_format_or_an_unclosed_segment_is_a_catalog_error():
    original = Path(load_catalog("pos").file).read_text(encoding="utf-8")
    for wrong, said in (("{date:md}", "{date:ymd}"), ("[{rows}。]", "[{rows}。")):
        with pytest.raises(CatalogError) as err:
            parse_catalog(original.replace(wrong, said, 1), "pos.yaml")
        assert err.value.problems[0].key == "tools.daily_sales.answer." + ("row.ja" if "ymd" in said else "ok.ja")


# --- every case: no tool names, raw column names or result ids in what people read ----------------------
NAMES = sorted({*TOOLS, *(n for t in TOOLS.values() for n in [*t.params, *t.result.labels] if "_" in n)},
               key=len, reverse=True)


@pytest.mark.parametrize("cases", ["dev_cases.jsonl", "cases.jsonl"])
def test_no_answer_shows_a_tool_name_a_raw_name_or_a_result_id(cases):
    report = anyio.run(evaluation.run, HERE / cases)
    for case in report.cases:
        for turn in case.turns:
            leaked = [n for n in NAMES if re.search(rf"(?<![A-Za-z_]){n}(?![A-Za-z_])", turn.answer)]
            assert leaked == [] and "[r_" not in turn.answer, (case.id, turn.answer)


def test_a_ranking_longer_than_a_sentence_says_how_many_and_shows_the_table():
    ten = ranking([(f"商品{i}", 1000 * (10 - i)) for i in range(10)], order="desc", top_n=10)
    lines = say(ten, today=TODAY["pos"]).splitlines()
    assert lines[0] == "今月（8/1〜8/31）の売上が多い順に10商品です。"
    assert [line.split(" | ")[0] for line in lines[3:]] == [f"| 商品{i}" for i in range(10)]
