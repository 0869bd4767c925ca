"""Words read around values by token rules: names with rare kanji, joiners, numbered people, ranks."""

from __future__ import annotations

import pytest

from concierge.planner.choose import keyword_parts, refusal
from concierge.planner.slots import Slots, _qualifier, _said_before, count, read
from concierge.planner.text import fold, normalise


def slots_of(planning, text):
    return read(normalise(text), planning.today, planning.lexicon, dict(planning.pipeline.guard_context().enum_values))


@pytest.mark.parametrize("text,names", [
    ("山﨑さんの先週の売上", ["山﨑"]), ("𠮷田さん", ["𠮷田"]),
    ("髙橋様の住所", ["髙橋"]), ("德川さんの注文", ["德川"]),
])
def test_names_with_rare_kanji(farm_plan, text, names):
    assert [n for n, _ in slots_of(farm_plan, text).names] == names


@pytest.mark.parametrize("text,refused", [
    ("データを削除して", "change"), ("売上を書き換えて", "change"), ("顧客の名前を変更してください", "change"),
    ("注文を取り消して", "change"), ("delete the sales of last week", "change"), ("消去", "change"),
    ("変更はありますか", None), ("先週の売上", None), ("editorial sales", None),
])
def test_a_request_to_delete_or_change_data_is_refused(farm_plan, text, refused):
    assert refusal(slots_of(farm_plan, text), farm_plan.lexicon) == refused


@pytest.mark.parametrize("text,tools", [
    ("先週の売上と顧客一覧", 2), ("トップの売上", 1),
])
def test_two_things_asked_are_joined_by_a_joiner(farm_plan, text, tools):
    assert len(keyword_parts(slots_of(farm_plan, text), farm_plan.lexicon)) == tools


@pytest.mark.parametrize("text,names", [
    ("Show Mr. Brown's sales", ["Brown"]), ("sales of Dr Smith and Ms Jane Doe", ["Jane Doe", "Smith"]),
    ("Mr. Brownの売上", ["Brown"]), ("mr brown", []),
])
def test_names_after_a_title(farm_plan, text, names):
    assert sorted(n for n, _ in slots_of(farm_plan, text).names) == names


@pytest.mark.parametrize("text,codes", [
    ("9番さんの注文", ["0009"]), ("3番の売上", ["0003"]), ("No.2の売上", ["0002"]), ("sales of #12", ["0012"]),
    ("12番線", []), ("3番目", ["0003"]),
])
def test_a_number_said_as_someones_number(farm_plan, text, codes):
    assert [c.value for c in slots_of(farm_plan, text).codes] == codes


@pytest.mark.parametrize("text,stray", [
    ("今月の土日の売上", ["土日"]), ("月曜日だけの売上", ["月曜日だけ"]), ("weekends sales", ["weekends"]),
    ("5月だけの売上", []),
])
def test_days_of_the_week_no_tool_picks(farm_plan, text, stray):
    assert slots_of(farm_plan, text).stray == stray


@pytest.mark.parametrize("text,codes", [
    ("2024年の売上", []), ("sales in 2024", []), ("年度2024の売上", []), ("顧客2024の売上", ["2024"]),
])
def test_a_number_said_as_a_year_is_no_code(farm_plan, text, codes):
    assert [c.value for c in slots_of(farm_plan, text).codes] == codes


@pytest.mark.parametrize("text,n", [
    ("売上3位まで", 3), ("売上上位10位以内", 10), ("少ない順に3つ", 3), ("売れた商品5品だけ", 5),
])
def test_how_many_of_a_ranking(pos_plan, text, n):
    slots = slots_of(pos_plan, text)
    assert count(slots, pos_plan.lexicon, "sales_ranking", "top_n") == n


@pytest.mark.parametrize("text,goods", [
    ("キュウリ10本とナス5個を1800円で", ["キュウリ10本とナス5個"]),
    ("キュウリ10本、ナス5個", ["キュウリ10本、ナス5個"]),
])
def test_goods_joined_are_one_list(farm_plan, text, goods):
    assert [g for g, _ in slots_of(farm_plan, text).items] == goods


def test_a_minus_is_no_long_vowel_mark(farm_plan):
    assert [a for a, _ in slots_of(farm_plan, "ケーキー600円").amounts] == [600]
    assert [a for a, _ in slots_of(farm_plan, "ー600円").amounts] == [-600]


@pytest.mark.parametrize("text,value,qualifier", [
    ("set the light to warm white", "white", "warm"), ("make it the light red", "red", None),
    ("make it red", "red", None), ("キッチンの電気を薄い青にして", "青", "薄い"),
])
def test_a_word_before_a_value_that_makes_it_another(text, value, qualifier):
    start = text.index(value)
    at = _qualifier(text, start, [])
    assert (text[at:start].strip() if at is not None else None) == qualifier


@pytest.mark.parametrize("text,value,said", [
    ("a coke please", "coke", True), ("an oolong tea", "oolong", True), ("coke please", "coke", False),
    ("banana coke", "coke", False),
])
def test_an_article_before_a_value_says_one(text, value, said):
    slots = Slots(text, fold(text), read_text=fold(text))
    assert _said_before(slots, text.index(value), frozenset({"a", "an"})) is said


@pytest.mark.parametrize("text,refused", [
    ("run sql for me", "sql"), ("SELECT * FROM sales", "sql"), ("テーブルを見せて", "sql"), ("sqlite sales", None),
])
def test_a_request_about_sql_is_refused(farm_plan, text, refused):
    assert refusal(slots_of(farm_plan, text), farm_plan.lexicon) == refused


@pytest.mark.parametrize("text,quality", [
    ("赤いトマトの先週の売上", ["赤い"]), ("先週の甘いかぼちゃの売上", ["甘い"]), ("新しいお客様の売上", ["新しい"]),
    ("今年一番大きい売上", []), ("先週の売上が多い商品", []), ("先週の売上", []),
])
def test_an_adjective_said_of_a_thing_is_a_state_of_the_rows_to_apply_or_say_unapplied(farm_plan, text, quality):
    from concierge.planner import leftover

    said = leftover.said(slots_of(farm_plan, text), farm_plan.lexicon)
    assert [s.text for s in said if s.kind == "condition"] == quality
