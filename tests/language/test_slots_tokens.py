"""Values read from a request word by word (planner/slots.py, planner/focus.py): sums of money, codes after their
labels, names, keys, goods said in English, counts, and what an amended request gives in place of a value."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from concierge.planner.focus import _count_alone, instead_text
from concierge.planner.slots import (
    Slots,
    _a_year,
    _amounts,
    _code_after_label,
    _count_after,
    _japanese_items,
    _keys,
    _labelled_numbers,
    _names,
    _next_word,
    _number_after_cue,
    _number_just_before,
    _which_plural,
    english_item_groups,
)
from concierge.planner.text import Phrases


class _NoLabels:
    def find(self, text: str) -> list:
        return []


@dataclass
class _Lexicon:
    vocabulary: set[str] = field(default_factory=set)
    name_labels: _NoLabels = field(default_factory=_NoLabels)


def _slots(text: str, read: str | None = None) -> Slots:
    slots = Slots(text, text.lower())
    slots.read_text = text.lower() if read is None else read
    return slots


@pytest.mark.parametrize(("said", "amounts"), [
    ("1,500円で", [1500]), ("450 yen", [450]), ("1,500 yen", [1500]), ("¥1,200", [1200]), ("¥ 1,500", [1500]),
    ("¥3万", [30000]), ("1.5万円の", [15000]), ("3万 yen", [30000]), ("-600円", [-600]), ("▲600円", [-600]),
    ("マイナス600円", [-600]), ("minus 600 yen", [-600]), ("売上ー600円", [-600]), ("ケーキー600円", [600]),
    ("600 dollars", []), ("total 1,500円 and 300 JPY", [1500, 300]), ("1.5 yen", [1]),
])
def test_sums_of_money_with_their_sign(said, amounts):
    assert [a for a, _ in _amounts(said, said)] == amounts


def test_a_sum_already_read_is_not_read_again():
    assert _amounts("0009の600円", "\x00\x00\x00\x00の600円") == [(600, (5, 9))]
    assert _amounts("600円", "\x00\x00\x00\x00") == []


@pytest.mark.parametrize(("said", "label_end", "code"), [
    ("顧客コード0009の注文", 5, "0009"), ("顧客コードは0009", 5, "0009"), ("customer no. 5 orders", 8, "5"),
    ("ID: 12", 2, "12"), ("customer #9", 8, "9"), ("予約番号R-5005の", 4, "R-5005"),
    ("code=AB-12x please", 4, "AB-12x"),
    ("顧客コード", 5, None), ("customer, 5", 8, None),
])
def test_a_code_is_read_after_its_label(said, label_end, code):
    found = _code_after_label(said, label_end)
    assert (found[0] if found else None) == code


@pytest.mark.parametrize(("said", "year"), [
    ("2024-02 sales", True), ("2024/2の売上", True), ("2024 customers", False), ("2024-123", False),
])
def test_a_number_with_a_month_after_it_is_a_year(said, year):
    assert _a_year(said, 0, 4, "2024") == year


@pytest.mark.parametrize(("said", "names"), [
    ("佐藤さんと山田様の注文", ["佐藤", "山田"]), ("吉田さくらさん", ["吉田さくら"]), ("のりこさん", ["のりこ"]),
    ("これはたなかさんの", ["たなか"]), ("お客様", []), ("店の様子", []), ("Show orders of John Smith", ["John Smith"]),
    ("sales of Mary Ann Lee Brown", ["Mary Ann Lee", "Brown"]), ("AC/DCの曲", ["AC/DC"]),
    ("B-52s and U2 songs", ["B-52s", "U2"]), ("AT&T's bill", ["AT&T"]), ("R2D2 toys", []), ("Tanakaの予約", []),
])
def test_names_are_read_by_words(said, names):
    assert [n for n, _ in _names(said, said.lower(), [], _Lexicon())] == names  # type: ignore[arg-type]


@pytest.mark.parametrize(("said", "keys"), [
    ("ALFKIの注文", ["ALFKI"]), ("show orders of ALFKI", ["ALFKI"]), ("ALFKI's orders", ["ALFKI"]),
    ("BX12 please", ["BX12"]), ("AC/DC songs", []), ("AT&T", []), ("OK", []), ("ABCDEFGHIJKLMN", []),
])
def test_keys_in_capitals(said, keys):
    assert [k for k, _ in _keys(said, said, _Lexicon())] == keys  # type: ignore[arg-type]


def test_a_word_of_the_catalog_is_no_key():
    assert _keys("show the CSV", "show the CSV", _Lexicon({"csv"})) == []  # type: ignore[arg-type]


@pytest.mark.parametrize(("said", "groups"), [
    ("12 eggplants", ["12 eggplants"]), ("3 pumpkins and 2 melons", ["3 pumpkins and 2 melons"]),
    ("5 kg of tomatoes for 300 yen", ["5 kg of tomatoes"]), ("a dozen eggs please", ["a dozen eggs"]),
    ("3 pumpkins for 450 yen, and sold 5 tomatoes", ["3 pumpkins", "5 tomatoes"]),
    ("three red apples yesterday", ["three red apples"]),
    ("sold 4 bok-choy and 2 carrots.", ["4 bok-choy and 2 carrots"]),
    ("5kg tomatoes", []), ("1,500 tomatoes", []), ("I sold 3 of them", []), ("ten sales yesterday", []),
])
def test_goods_said_in_english(said, groups):
    assert english_item_groups(_slots(said)) == groups


@pytest.mark.parametrize(("said", "cue_end", "n"), [
    ("トップ5を見せて", 3, "5"), ("上位の3つ", 2, "3"), ("top 3 products", 3, "3"), ("top three", 3, "three"),
    ("top 2024", 3, None), ("top products", 3, None),
])
def test_the_number_after_a_cue(said, cue_end, n):
    assert _number_after_cue(_slots(said), cue_end) == n


def test_the_number_before_a_word():
    assert _number_just_before(_slots("two karaage bento"), 4, spaced=True) == "two"
    assert _number_just_before(_slots("the 5 best"), 6, spaced=False) == "5"
    assert _number_just_before(_slots("1.5 bento"), 4, spaced=True) is None


@pytest.mark.parametrize(("said", "n"), [
    ("nori bento x2", "2"), ("nori bento × 2", "2"), ("nori bento two please", "two"),
    ("nori bento, two of them", "two"), ("nori bento 2 yen", None), ("nori bento 6:30", None),
    ("nori bento 2nd", None), ("nori bento 2 tomorrow", None),
])
def test_a_count_said_after_a_value(said, n):
    assert _count_after(_slots(said), len("nori bento")) == n


@pytest.mark.parametrize(("said", "plural"), [
    ("which products sold best", True), ("which dessert products sold best", True), ("which day was best", False),
    ("what is best", False),
])
def test_which_and_a_plural_asks_for_several(said, plural):
    assert _which_plural(_slots(said)) == plural


@pytest.mark.parametrize(("said", "end", "number"), [
    ("the worst selling dessert", 9, "singular"), ("best selling drinks", 4, "plural"),
    ("best-selling products", 4, "plural"), ("best by far", 4, None), ("best", 4, None),
])
def test_the_noun_after_a_superlative(said, end, number):
    assert _next_word(_slots(said), end) == number


@pytest.mark.parametrize(("said", "rest"), [
    ("はい、でも5個に", "5個に"), ("yes but make it 5", "make it 5"), ("not 600 yen but 700", "700"),
    ("instead of $1,500 make it 1,200", "make it 1,200"), ("700 yen, not 600", "700 yen,"),
    ("butter please", "butter please"), ("not the coke", "not the coke"),
])
def test_an_amendment_without_its_lead_and_the_figure_not_meant(said, rest):
    assert instead_text(said) == rest


@pytest.mark.parametrize(("value", "n"), [
    ("5", "5"), ("5個", "5"), ("5 pieces", "5"), ("5 of them", "5"), ("12345", None), ("5 cats", None),
])
def test_a_count_said_alone(value, n):
    assert _count_alone(f"make it {value}", value) == n


@pytest.mark.parametrize(("said", "stray"), [
    ("会員番号123の", ["会員番号123"]), ("電話番号: 0901234", ["電話番号: 0901234"]),
    ("お客様番号123", ["客様番号123"]), ("ポイントカードNo.5", ["ポイントカードNo.5"]), ("社員ID#12", ["社員ID#12"]),
    ("the member number 123", ["number 123"]),
    ("IDが12", []), ("number one", []),
])
def test_a_number_after_a_label_no_catalog_knows(said, stray):
    assert _labelled_numbers(said, said) == stray


class _NameLabels:
    def find(self, text: str) -> list:
        return Phrases({"名前": "名前", "name": "name", "アーティスト": "アーティスト"}).find(text)


@pytest.mark.parametrize(("said", "names"), [
    ("名前は佐藤の注文", ["佐藤"]), ("名前：山田花子", ["山田花子"]), ("アーティスト「Queen」の曲", ["Queen"]),
    ("name: Smith-Jones please", ["Smith-Jones"]), ("name is the best", []), ("name isn't", []),
])
def test_a_name_after_its_label(said, names):
    lexicon = _Lexicon(name_labels=_NameLabels())  # type: ignore[arg-type]
    assert [n for n, _ in _names(said, said.lower(), [], lexicon)] == names  # type: ignore[arg-type]


@pytest.mark.parametrize(("said", "goods"), [
    ("お客様にかぼちゃ4個を600円で売った", ["かぼちゃ4個"]), ("\x00\x00\x00\x00\x00かぼちゃ4個を", ["かぼちゃ4個"]),
    ("キュウリ10本とナス5個", ["キュウリ10本とナス5個"]), ("トマトを2個", ["トマト2個"]),
    ("にんじん 3本", ["にんじん3本"]), ("りんご1.5kg", ["りんご1.5kg"]), ("0016のかぼちゃ4個", ["かぼちゃ4個"]),
    ("大根30本 \x00\x00\x00で", ["大根30本"]),
    ("売上上位3つ", []), ("かぼちゃ4個入り", ["かぼちゃ4個"]), ("かぼちゃ4kgs", [])])
def test_goods_are_the_words_written_before_their_count_and_counter(said, goods):
    found = _japanese_items(said, ("個", "本", "kg", "つ"), {"上位"})
    assert [g for g, _ in found] == goods
