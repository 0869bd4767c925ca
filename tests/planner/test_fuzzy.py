"""Matching words of a request against values read from the data: tiers, ambiguity, spans (no database;
how fast: bench/fuzzy_find.py)."""

from __future__ import annotations

import pytest
from planner_helpers import GLOSSES, PRODUCTS, many_products

from concierge.planner.fuzzy import Candidate, Matcher, candidates, contains_value, fold_word
from concierge.planner.loose import _verb_in, in_words

# The convenience store's products and glosses (PRODUCTS, GLOSSES) are in tests/support/planner_helpers.py.
CATEGORIES = ["おにぎり", "デザート", "弁当", "飲料"]
# Another business altogether: nothing in the matcher knows either.
BAKERY = ["クロワッサン", "メロンパン", "あんパン", "食パン", "カレーパン", "チョココロネ", "バゲット"]
BAKERY_GLOSSES = {"croissant": "クロワッサン", "melon bread": "メロンパン"}
ORDINARY = ["売上", "先週", "見せて", "教えて", "比較", "トップ", "ランキング", "合計", "今月", "カテゴリ",
            "sales", "last week", "show", "top", "best"]


@pytest.fixture(scope="module")
def products() -> Matcher:
    return Matcher(PRODUCTS, GLOSSES)


@pytest.fixture(scope="module")
def bakery() -> Matcher:
    return Matcher(BAKERY, BAKERY_GLOSSES)


def said(found: list[Candidate]) -> list[tuple[str, str]]:
    return [(c.value, c.how) for c in found]


@pytest.mark.parametrize("word,value,how", [
    ("鮭おにぎり", "鮭おにぎり", "exact"),
    ("ぷりん", "プリン", "exact"),  # katakana and hiragana fold together
    ("ﾌﾟﾘﾝ", "プリン", "exact"),  # half-width katakana
    ("ハンバーグ 弁当", "ハンバーグ弁当", "exact"),
    ("pudding", "プリン", "synonym"),
    ("Puddings", "プリン", "synonym"),
    ("Green Tea", "緑茶", "synonym"),
    ("しゃけおにぎり", "鮭おにぎり", "reading"),  # every reading of 鮭, not only the first
    ("さけおにぎり", "鮭おにぎり", "reading"),
    ("海苔弁当", "のり弁当", "reading"),
    ("からあげべんとう", "唐揚げ弁当", "reading"),
    ("ハンバーグ", "ハンバーグ弁当", "part"),
    ("明太子", "明太子おにぎり", "part"),
    ("めんたいこ", "明太子おにぎり", "part"),  # a part, by its reading
    ("コーヒー", "ブラックコーヒー", "part"),
    ("梅", "梅おにぎり", "part"),
    ("杏仁", "杏仁豆腐", "part"),
    ("鮭のおにぎり", "鮭おにぎり", "part"),  # the value is the word without its particle
    ("ハンバーク弁当", "ハンバーグ弁当", "typo"),
    ("ぷりんん", "プリン", "typo"),
    ("puding", "プリン", "typo"),  # a misspelt gloss
    ("シュークリー厶", "シュークリーム", "typo"),  # 厶 (a kanji radical) for ム
])
def test_one_value_by_the_first_tier_that_matches(products, word, value, how):
    assert said(products.match(word)) == [(value, how)]


@pytest.mark.parametrize("word,values", [
    ("お茶", ["麦茶", "緑茶"]),
    ("茶", ["麦茶", "緑茶"]),
    ("おにぎり", ["鮭おにぎり", "梅おにぎり", "昆布おにぎり", "明太子おにぎり", "ツナマヨおにぎり"]),
    ("弁当", ["焼肉弁当", "のり弁当", "幕の内弁当", "唐揚げ弁当", "ハンバーグ弁当"]),
])
def test_a_word_that_fits_several_values_returns_them_all_to_ask(products, word, values):
    found = products.match(word)
    assert sorted(c.value for c in found) == sorted(values)
    assert {c.how for c in found} == {"part"}
    assert [c.score for c in found] == sorted((c.score for c in found), reverse=True)


def test_the_best_tier_wins_over_a_weaker_one(products):
    # ハンバーグ弁当 is also one edit from nothing else and contains the part 弁当: exact only
    assert said(products.match("ハンバーグ弁当")) == [("ハンバーグ弁当", "exact")]
    # the category's gloss is not a product: a product matcher does not know it
    assert products.match("rice ball") == []


@pytest.mark.parametrize("word", ORDINARY)
def test_ordinary_words_match_nothing(products, bakery, word):
    assert products.match(word) == []
    assert bakery.match(word) == []
    assert Matcher(CATEGORIES, GLOSSES).match(word) == []


@pytest.mark.parametrize("word", ["おに", "ンバ", "リン", "ケー", "ー", "の", "ア", "アイ", "ぎり", "ーム"])
def test_a_fragment_that_is_no_unit_of_a_value_matches_nothing(products, word):
    assert products.match(word) == []


def test_a_category_is_exact_among_categories_and_a_part_among_products(products):
    assert said(Matcher(CATEGORIES).match("おにぎり")) == [("おにぎり", "exact")]
    assert len(products.match("おにぎり")) == 5


def test_a_longer_word_that_contains_a_value_is_told_apart():
    assert contains_value("しゃけおにぎり", CATEGORIES) == "おにぎり"
    assert contains_value("ハンバーグ弁当", CATEGORIES) == "弁当"
    assert contains_value("おにぎり", CATEGORIES) is None  # the value itself is no longer word
    assert contains_value("売上", CATEGORIES) is None


@pytest.mark.parametrize("word,value,how", [
    ("くろわっさん", "クロワッサン", "exact"),
    ("croissants", "クロワッサン", "synonym"),
    ("メロン", "メロンパン", "part"),
    ("しょくぱん", "食パン", "reading"),
    ("クロワッサソ", "クロワッサン", "typo"),
    ("チョコ", "チョココロネ", "part"),
])
def test_another_business_is_matched_the_same_way(bakery, word, value, how):
    assert said(bakery.match(word)) == [(value, how)]


def test_another_business_asks_among_its_own_values(bakery):
    assert sorted(c.value for c in bakery.match("パン")) == ["あんパン", "カレーパン", "メロンパン", "食パン"]


def test_candidates_builds_and_reuses_a_matcher_for_one_value_set():
    assert said(candidates("ハンバーク弁当", PRODUCTS)) == [("ハンバーグ弁当", "typo")]
    assert said(candidates("pudding", PRODUCTS, GLOSSES)) == [("プリン", "synonym")]
    assert candidates("pudding", PRODUCTS) == []


def test_folding_keeps_letters_digits_and_kana_only():
    assert fold_word("ツナ・マヨ おにぎり") == "つなまよおにぎり"
    assert fold_word("Ｂｌａｃｋ Coffee") == "blackcoffee"


def spans(matcher: Matcher, text: str, known: frozenset[str] = frozenset()) -> list[tuple[str, list[str]]]:
    return [(f.said, [c.value for c in f.candidates]) for f in matcher.find(text, known)]


@pytest.mark.parametrize("text,expected", [
    ("しゃけおにぎりの先週の売上を見せて", [("しゃけおにぎり", ["鮭おにぎり"])]),
    ("ハンバーク弁当と明太子の売上を比較して",
     [("ハンバーク弁当", ["ハンバーグ弁当"]), ("明太子", ["明太子おにぎり"])]),
    ("先週のお茶の売上トップ3", [("お茶", ["麦茶", "緑茶"])]),
    ("鮭のおにぎりを教えて", [("鮭のおにぎり", ["鮭おにぎり"])]),
    ("ハンバーグ弁当売上", [("ハンバーグ弁当", ["ハンバーグ弁当"])]),  # not a misspelling of the longer run
    ("ぷりんんの売上", [("ぷりんん", ["プリン"])]),
    ("ブラックコーヒーとプリンの売上", [("ブラックコーヒー", ["ブラックコーヒー"]), ("プリン", ["プリン"])]),
    ("show me pudding sales last week", [("pudding", ["プリン"])]),
    ("めんたいこおにぎり10個", [("めんたいこおにぎり", ["明太子おにぎり"])]),
    ("茶の売上", [("茶", ["麦茶", "緑茶"])]),
])
def test_find_reads_the_value_words_of_a_request(products, text, expected):
    assert spans(products, text) == expected


def test_find_gives_positions_in_the_text(products):
    text = "昨日の焼肉弁当は？"
    (found,) = products.find(text)
    assert (found.start, found.end, text[found.start:found.end]) == (3, 7, "焼肉弁当")
    assert found.candidates[0].how == "exact"


@pytest.mark.parametrize("text", [
    "先週の売上を見せて", "今月の売上トップ3を教えて", "先月と今月の売上を比較", "当日の売上", "青森のりんごの売上",
    "アイテム別の合計", "show me the best sales last week",
])
def test_find_reads_nothing_in_a_request_without_value_words(products, text):
    assert spans(products, text) == []


def test_find_in_another_business(bakery):
    assert spans(bakery, "昨日のメロンパンとくろわっさんの売上") == [("メロンパン", ["メロンパン"]),
                                                                    ("くろわっさん", ["クロワッサン"])]
    ((word, values),) = spans(bakery, "パンの売上")
    assert (word, sorted(values)) == ("パン", ["あんパン", "カレーパン", "メロンパン", "食パン"])


def test_find_leaves_known_words_to_the_caller(bakery):
    assert spans(bakery, "パンの売上", frozenset({"パン"})) == []


FIVE_REQUESTS = ["しゃけおにぎりの先週の売上を見せて", "ハンバーク弁当と明太子の売上を比較して", "今月の飲料の売上は？",
                 "先週のお茶の売上トップ3", "show me pudding sales last week"]


def test_find_among_a_few_thousand_values_still_finds_the_products():
    """The values of a big catalog; how long `find` takes on them is bench/fuzzy_find.py's (no time asserted here)."""
    matcher = Matcher(many_products(), GLOSSES)
    assert len(matcher.values) > 1800
    for text in FIVE_REQUESTS:
        matcher.find(text)  # the dictionary readings of these kanji are looked up once
    assert spans(matcher, FIVE_REQUESTS[0] + "ね") == [("しゃけおにぎり", ["鮭おにぎり"])]
    assert spans(matcher, FIVE_REQUESTS[1] + "ね") == [("ハンバーク弁当", ["ハンバーグ弁当"]),
                                                      ("明太子", ["明太子おにぎり"])]
    assert spans(matcher, FIVE_REQUESTS[2] + "ね") == []
    teas = {value for _, values in spans(matcher, FIVE_REQUESTS[3] + "ね") for value in values}
    assert {"麦茶", "緑茶"} <= teas
    assert spans(matcher, FIVE_REQUESTS[4] + "ね") == [("pudding", ["プリン"])]


CUSTOMERS = ["佐藤太郎", "John Smith", "山田花子", "佐藤次郎", "斉藤明", "松本理恵"]


@pytest.mark.parametrize("word,expected", [
    ("佐藤さん", [("佐藤太郎", "part"), ("佐藤次郎", "part")]),  # the honorific is no part of the name
    ("山田様", [("山田花子", "part")]),
    ("smith", [("John Smith", "part")]),
    ("john smyth", [("John Smith", "typo")]),
    ("斎藤明", [("斉藤明", "reading")]),  # another kanji of the same reading
    ("さとうたろう", [("佐藤太郎", "reading")]),
])
def test_customer_names(word, expected):
    assert said(Matcher(CUSTOMERS).match(word)) == expected


def test_find_customer_names_with_their_honorific():
    assert spans(Matcher(CUSTOMERS), "佐藤さんの先週の販売") == [("佐藤さん", ["佐藤太郎", "佐藤次郎"])]
    assert spans(Matcher(CUSTOMERS), "customer smith sales in April") == [("smith", ["John Smith"])]


@pytest.mark.parametrize("text", ["2025年9月の請求額の合計はいくら？", "売上はいくつ？", "担当はだれ？"])
def test_a_question_word_is_never_a_value_or_its_typo(text):
    """いくら is how much, not the patient さくら one letter away; nor いくつ, だれ anyone's name."""
    names = Matcher(("さくら", "いくこ", "だい", "たれ"))
    assert names.find(text) == []


@pytest.mark.parametrize("text,expected", [
    ("ラーメンじゃなくてうどんにして", [("ラーメン", ["醤油ラーメン"]), ("うどん", ["かけうどん", "きつねうどん"])]),
    ("それじゃなくてうどん", [("うどん", ["かけうどん", "きつねうどん"])]),  # て|うどん: a word starts after a particle
])
def test_a_word_in_hiragana_starts_where_the_analyser_ends_a_particle(text, expected):
    menu = Matcher(["醤油ラーメン", "かけうどん", "きつねうどん"], {})
    assert spans(menu, text) == expected


def test_a_value_inside_a_katakana_word_is_found_only_as_a_word_of_it():
    assert in_words("ラーメンじゃなくて", 2, 4) is False  # メン (麺) is no word of ラーメン
    assert in_words("ラーメンじゃなくて", 0, 4) is True
    assert in_words("麺の売上", 0, 1) is True  # not inside katakana: found as ever


def test_words_with_a_verb_are_no_misspelt_value():
    assert _verb_in("入って") and not _verb_in("サンドイッチ") and not _verb_in("りびんぐ")  # kana alone: left alone


def test_a_japanese_word_finds_the_value_the_data_writes_in_romaji():
    cities = Matcher(["Osaka", "Kyoto", "Kobe", "Tokyo DC"])
    assert cities.sounded("osaka") == ["Osaka"]
    assert cities.sounded("tokyo", part=True) == ["Tokyo DC"]  # 東京: a word of the value
    assert cities.sounded("tokyo") == [] and cities.sounded("tokyosoko", part=True) == []  # 東京倉庫 is no value
    assert cities.sounded("nagoya") == [] and cities.sounded("nagoya", part=True) == []


def test_words_in_romaji_find_the_values_the_data_writes_in_japanese():
    names = Matcher(["田中 太郎", "田中 花子", "目黒区", "渋谷区"])
    assert names.in_japanese(["hanako", "tanaka"]) == ["田中 花子"]  # in either order
    assert names.in_japanese(["tanaka"]) == ["田中 太郎", "田中 花子"]  # both: asked which
    assert names.in_japanese(["meguro"]) == ["目黒区"]
    assert names.in_japanese(["shinjuku"]) == []
