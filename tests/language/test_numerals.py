"""Kanji numerals that count, date or price something become digits; words that hold a numeral stay."""

import unicodedata

import pytest

from concierge.language.numerals import in_tenths, kanji_to_digits


def digits(text: str) -> str:
    return kanji_to_digits(unicodedata.normalize("NFKC", text))


@pytest.mark.parametrize(("said", "written"), [
    ("鮭弁当を三つください", "鮭弁当を3つください"),
    ("幕の内 二つと 鮭弁当 一つ", "幕の内 2つと 鮭弁当 1つ"),
    ("味噌汁もう一つ追加で", "味噌汁もう1つ追加で"),
    ("カレーパン一個減らして", "カレーパン1個減らして"),
    ("じゃがいも五個を三百五十円で販売登録", "じゃがいも5個を350円で販売登録"),
    ("キャベツ十玉 千五百円 で登録", "キャベツ10玉 1500円 で登録"),
    ("大根三十本", "大根30本"),
    ("二千五百円", "2500円"),
    ("七千円でお願い", "7000円でお願い"),  # the analyser reads 七 as a prefix here
    ("一万二千円", "12000円"),
    ("1万2千円", "12000円"),
    ("１万円", "10000円"),
    ("1.5万円", "15000円"),
    ("四月十日から五月十日まで", "4月10日から5月10日まで"),
    ("十二月二十五日の売上", "12月25日の売上"),
    ("二〇二五年三月", "2025年3月"),
    ("三十日まで", "30日まで"),  # the analyser keeps 三十日 whole (晦日)
    ("過去二週間", "過去2週間"),
    ("二ヶ月前", "2ヶ月前"),
    ("直近七日", "直近7日"),
    ("ここ三日の売上", "ここ3日の売上"),
    ("今月の売上上位七つ", "今月の売上上位7つ"),
    ("先月のおにぎり ワースト三", "先月のおにぎり ワースト3"),
    ("ベスト十", "ベスト10"),
    ("三人で行きます", "3人で行きます"),
    ("二人", "2人"),  # one word to the analyser
    ("八時に取りに行きます", "8時に取りに行きます"),
    ("十二時十五分に", "12時15分に"),
    ("七時十分前に", "7時10分前に"),  # 十分 after an hour is its minutes
    ("三十分後に行きます", "30分後に行きます"),
    ("三十分で", "30分で"),  # the analyser reads 三|十分 here
    ("テレビの音 二つ小さくして", "テレビの音 2つ小さくして"),
])
def test_a_numeral_that_counts_is_written_in_digits(said, written):
    assert digits(said) == written


@pytest.mark.parametrize("said", [
    "一番売れた商品", "一緒に", "十分です", "一時的に止めて", "一時停止して", "三分の一", "六本木の店", "唯一の",
    "唯一つ", "今月一杯", "三日月", "二日酔い", "一日中", "一度", "一部だけ", "九州", "千葉", "八百屋", "一郎さん",
    "統一", "万一", "一人一人", "その時十分に", "一昨日", "四日市", "五月雨", "一本化", "第一", "一分の隙もない",
])
def test_a_word_that_holds_a_numeral_stays(said):
    assert digits(said) == said


def test_a_request_without_kanji_numerals_is_as_said():
    assert digits("鮭弁当を3つ") == "鮭弁当を3つ"
    assert digits("the 3 best sellers") == "the 3 best sellers"


@pytest.mark.parametrize(("said", "percent"), [
    ("7割くらいにしといて", 70), ("明るさを七割に", 70), ("10割", 100), ("３割で", 30),
])
def test_tenths_said_in_wari_are_a_percent(said, percent):
    assert in_tenths(digits(said), ["%", "パーセント"]) == percent


@pytest.mark.parametrize("said", ["7くらいにして", "割引して", "3割引", "割り勘で", "70%"])
def test_no_tenths_said_is_no_percent(said):
    assert in_tenths(digits(said), ["%"]) is None


def test_tenths_are_no_count_said_in_other_units():
    assert in_tenths("7割", ["つ", "個"]) is None
