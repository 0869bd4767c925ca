"""Readings of Japanese from the analyser's dictionary: a name said in kana or another reading finds the value
written in kanji, a Japanese column name is named in romaji, and the demo menu is found by any of its spellings."""

from __future__ import annotations

import pytest
from planner_helpers import PRODUCTS

from concierge.demo.restaurant.data import MENU, search_text
from concierge.language.readings import reading, readings, romaji, sound_key
from concierge.onboarding.naming import romanised, slug
from concierge.planner.fuzzy import Matcher

MENU_NAMES = [name for _, name, *_ in MENU]


def test_every_reading_the_dictionary_lists_for_a_kanji():
    assert {"さけ", "しゃけ"} <= set(readings("鮭"))
    assert readings("鮭")[0] == "さけ"  # the analyser's own reading first
    assert readings("ぬ鮭") == ()  # no such word


def test_a_long_vowel_of_a_word_in_kanji_is_also_read_as_kana_spell_it():
    assert readings("餃子") == ("ぎょーざ", "ぎょうざ")
    assert reading("餃子") == "ぎょーざ" and reading("餃子", spelt=True) == "ぎょうざ"


def test_shake_finds_the_salmon_item():
    products = Matcher(PRODUCTS)
    assert products.containing("しゃけ") == ["鮭おにぎり"]
    assert [(c.value, c.how) for c in products.match("しゃけおにぎり")] == [("鮭おにぎり", "reading")]
    assert [(c.value, c.how) for c in Matcher(MENU_NAMES).match("しゃけ弁当")] == [("鮭弁当", "reading")]


@pytest.mark.parametrize("said,item", [
    ("からあげべんとう", "唐揚げ弁当"),
    ("カラアゲベントウ", "唐揚げ弁当"),
    ("からあげ弁当", "唐揚げ弁当"),
    ("みそしる", "味噌汁"),
    ("ミソシル", "味噌汁"),
    ("ぎょうざ", "餃子"),
    ("ギョーザ", "餃子"),
    ("はるまき", "春巻き"),  # its okurigana read once
    ("かいせんどん", "海鮮丼"),
    ("かいせんどんぶり", "海鮮丼"),  # every reading of 丼
])
def test_a_kana_spelling_finds_its_menu_item_written_in_kanji(said, item):
    assert [(c.value, c.how) for c in Matcher(MENU_NAMES).match(said)] == [(item, "reading")]


@pytest.mark.parametrize("name,spelt", [
    ("来店", "raiten"),
    ("顧客ID", "kokyaku ID"),
    ("施術明細", "shijutsu meisai"),
    ("スタッフID", "sutaffu ID"),
    ("メニュー名", "menyuu mei"),  # ー as the vowel before it
    ("店舗名", "tenpo mei"),
    ("氏名", "shimei"),
    ("料金", "ryoukin"),
    ("customer_id", "customer_id"),
])
def test_a_japanese_column_name_in_hepburn_romaji(name, spelt):
    assert romanised(name) == spelt


def test_a_japanese_name_names_its_tool_in_romaji():
    assert [slug(n, "table") for n in ("来店", "顧客ID", "施術明細", "メニューID")] == [
        "raiten", "kokyaku_id", "shijutsu_meisai", "menyuu_id"]


def test_passport_romaji_writes_a_final_long_vowel_once_and_m_before_b():
    assert romaji("ハンバーグ弁当") == "hanbaagu bentou"
    assert romaji("ハンバーグ弁当", passport=True) == "hambaagu bento"
    assert romaji("きっちん") == "kitchin"


@pytest.mark.parametrize("name,english,found", [
    ("唐揚げ弁当", "karaage bento",
     ["唐揚げ弁当", "からあげべんとう", "カラアゲベントウ", "karaagebentou", "karaagebento", "karaage bento"]),
    ("餃子", "gyoza", ["ぎょうざ", "ぎょーざ", "ギョウザ", "gyouza", "gyoza"]),
    ("ハンバーグ弁当", "hamburg steak bento", ["はんばーぐべんとう", "hanbaagubentou", "hambaagubento"]),
])
def test_the_menu_is_searched_by_every_spelling_of_an_item(name, english, found):
    text = search_text(name, english)
    assert all(f.lower() in text for f in found), text


@pytest.mark.parametrize(("japanese", "latin"), [
    ("大阪", "Osaka"), ("京都", "Kyoto"), ("東京", "Tokyo"), ("神戸", "Kobe"), ("大野", "Ohno"), ("新橋", "Shimbashi"),
    ("佐藤", "Sato"), ("伊藤", "Itoh"), ("札幌", "Sapporo"), ("世田谷", "Setagaya")])
def test_a_word_sounds_as_its_romaji_however_the_long_vowels_and_n_are_written(japanese, latin):
    assert sound_key(romaji(japanese)) == sound_key(latin)


@pytest.mark.parametrize(("japanese", "latin"), [("大阪", "Osaki"), ("京都", "Kyushu"), ("田中", "Tanabe")])
def test_words_that_sound_otherwise_are_told_apart(japanese, latin):
    assert sound_key(romaji(japanese)) != sound_key(latin)
