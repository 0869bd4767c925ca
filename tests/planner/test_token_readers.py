"""Numerals, kana auxiliaries of aspect and filler words, read from the request's tokens (issue 21)."""

from __future__ import annotations

import unicodedata
from types import SimpleNamespace

import pytest

from concierge.language.dates import normalise
from concierge.language.numerals import kanji_to_digits
from concierge.language.tokens import tokenise
from concierge.planner.choose import beyond_filler, says_only_values
from concierge.planner.text import fold


@pytest.mark.parametrize(("said", "written"), [
    ("二千五百円でお願い", "2500円でお願い"), ("1万2千円", "12000円"), ("1.5万円", "15000円"),
    ("七千円で", "7000円で"), ("三十分で", "30分で"), ("二人で行きます", "2人で行きます"), ("上位三つ", "上位3つ"),
])
def test_a_kanji_numeral_that_counts_is_read_as_its_digits(said, written):
    assert kanji_to_digits(unicodedata.normalize("NFKC", said)) == written


@pytest.mark.parametrize("said", ["十分です", "今月一杯", "六本木の店", "唯一つ", "一人一人", "1,五百円"])
def test_a_numeral_inside_a_word_or_a_number_stays_as_said(said):
    assert kanji_to_digits(said) == said


@pytest.mark.parametrize(("said", "plainly", "verb"), [
    ("けしといて", "けして", "消す"), ("つけちゃって", "つけて", "つける"),
    ("でんきとめちゃって", "でんきとめて", "とめる"), ("エアコンとめどいて", "エアコンとめて", "とめる"),
])
def test_a_kana_verb_loses_its_auxiliary_of_aspect(said, plainly, verb):
    assert normalise(said) == plainly
    assert verb in {t.normal for t in tokenise(plainly).tokens if t.is_verb}


@pytest.mark.parametrize("said", ["きっといて", "しといて", "ねちゃった", "まどきりとって"])
def test_kana_that_reads_as_no_verb_without_it_keeps_what_looks_like_an_auxiliary(said):
    assert normalise(said) == said


def _slots(said: str, value: str) -> SimpleNamespace:
    start = said.index(value)
    value_said = SimpleNamespace(start=start, end=start + len(value))
    return SimpleNamespace(read_text=fold(said), unsure=[], enums=[value_said], dates=[], codes=[], amounts=[],
                           items=[], times=[])


@pytest.mark.parametrize(("said", "value"), [
    ("えっと麦茶です", "麦茶"), ("じゃあ『麦茶』で", "麦茶"), ("あのー、麦茶お願いします", "麦茶"),
    ("and the iced tea?", "iced tea"), ("iced tea as well please", "iced tea"),
])
def test_a_request_saying_a_value_and_filler_says_only_values(said, value):
    assert says_only_values(_slots(said, value))


@pytest.mark.parametrize(("said", "value"), [
    ("麦茶を2つ追加", "麦茶"), ("麦茶はいくら", "麦茶"), ("cancel the iced tea", "iced tea"),
])
def test_a_request_saying_more_than_values_does_not(said, value):
    assert not says_only_values(_slots(said, value))


@pytest.mark.parametrize(("said", "rest"), [("じゃ100で", "100"), ("100でいいよ", "100"), ("ok 100 then", "100")])
def test_a_bare_number_is_what_is_left_of_the_filler(said, rest):
    assert beyond_filler(fold(said)) == rest
