"""Reading values out of a request: money, goods, codes, names, referents, counts (no database)."""

from __future__ import annotations

import pytest

from concierge.planner.slots import count, english_items, read
from concierge.planner.text import normalise


def slots_of(planning, text):
    return read(normalise(text), planning.today, planning.lexicon, dict(planning.pipeline.guard_context().enum_values))


@pytest.mark.parametrize("text,amounts", [
    ("1,500円で", [1500]), ("１５００円", [1500]), ("450 yen", [450]), ("¥1,200", [1200]), ("1.5万円", [15000]),
    ("3千円", [3000]), ("0016に600円", [600]), ("2025年5月", []), ("キュウリ15本", []),
])
def test_sums_of_money(farm_plan, text, amounts):
    assert [a for a, _ in slots_of(farm_plan, text).amounts] == amounts


@pytest.mark.parametrize("text,goods", [
    ("キュウリ10本とナス5個を1800円で", ["キュウリ10本とナス5個"]),
    ("0016のお客様にかぼちゃ4個を", ["かぼちゃ4個"]),
    ("0016ににんじん3本", ["にんじん3本"]),
    ("ｷｬﾍﾞﾂ2玉", ["キャベツ2玉"]),
    ("トマトを2個", ["トマト2個"]),
    ("今月の販売件数がまだ0件", []),
])
def test_goods_in_japanese(farm_plan, text, goods):
    assert [g for g, _ in slots_of(farm_plan, text).items] == goods


@pytest.mark.parametrize("text,goods", [
    ("customer 0016 bought 3 pumpkins for 450 yen", "3 pumpkins"),
    ("12 eggplants and 2 melons, 900 yen", "12 eggplants and 2 melons"),
    ("5 kg of tomatoes for 1000 yen", "5 kg of tomatoes"),
])
def test_goods_in_english(farm_plan, text, goods):
    assert english_items(slots_of(farm_plan, text)) == goods


def test_an_enum_value_is_not_goods(pos_plan):
    assert english_items(slots_of(pos_plan, "top 3 drinks")) is None


@pytest.mark.parametrize("text,codes", [
    ("顧客コード0009と0010", ["0009", "0010"]), ("customer 9", ["0009"]), ("customer no. 12", ["0012"]),
    ("０００３番のお客様", ["0003"]), ("販売番号S20250422101931", ["S20250422101931"]),
    ("2025年の1800円", []), ("トップ10", []),
])
def test_codes_by_pattern_and_label(farm_plan, text, codes):
    assert [c.value for c in slots_of(farm_plan, text).codes] == codes


@pytest.mark.parametrize("text,names", [
    ("佐藤さんの", ["佐藤"]), ("山田花子様の住所", ["山田花子"]), ("吉田さくらさん", ["吉田さくら"]),
    ("John Smithの売上", ["John Smith"]), ("Show Mr. Brown's sales", ["Brown"]), ("customers named Smith", ["Smith"]),
    ("0009のお客様", []), ("このお客様", []), ("皆様へ", []), ("Show me the sales", []),
])
def test_names(farm_plan, text, names):
    assert [n for n, _ in slots_of(farm_plan, text).names] == names


def test_referring_phrases_and_pronouns(farm_plan):
    assert slots_of(farm_plan, "そのお客様の電話番号").referred == {"code_customer"}
    assert slots_of(farm_plan, "that customer's sales").referred == {"code_customer"}
    assert slots_of(farm_plan, "what is their phone number").pronoun


@pytest.mark.parametrize("text,n", [
    ("トップ5", 5), ("売上上位3つ", 3), ("10位まで", 10), ("top three", 3), ("the 5 best", 5),
    ("いちばん売れた", 1), ("the worst selling dessert", 1), ("worst selling dessert", 1),
    ("best selling drinks", None), ("ランキング", None),
])
def test_counts(pos_plan, text, n):
    assert count(slots_of(pos_plan, text), pos_plan.lexicon, "sales_ranking", "top_n") == n
