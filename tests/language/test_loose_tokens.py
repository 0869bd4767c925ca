"""Loose words, leftovers, rankings, counts and owners read from a request's tokens (planner/words/questions.toml
[how_many], [whose], [ranked_subject], [leftover], [loose])."""

from __future__ import annotations

import pytest

from concierge.language.tokens import tokenise
from concierge.planner import counting, leftover, loose, ranking, whose
from concierge.planner.slots import Slots
from concierge.planner.text import fold


@pytest.mark.parametrize(("said", "counter"), [
    ("アルバムは何枚ある？", "枚"), ("得意先は何社", "社"), ("何人来た", "人"), ("営業担当は何人いますか", "人"),
    ("何種類ある", "種類"),
    ("在庫はいくつ", None), ("受注件数を教えて", None), ("来店数は", None), ("顧客の数は", None),
    ("How many albums", None), ("the number of the orders", None)])
def test_a_question_of_how_many_is_read_with_its_counter(said, counter):
    asked = counting.how_many(said)
    assert asked is not None and asked.counter == counter and asked["counter"] == counter


@pytest.mark.parametrize("said", ["商品の数量", "the number 5", "many thanks", "数量を変えて"])
def test_words_of_quantity_alone_ask_no_count(said):
    assert counting.how_many(said) is None


@pytest.mark.parametrize(("said", "owner"), [
    ("AC/DCのアルバム", True), ("AC/DCのアルバム一覧", True), ("AC/DCのアルバム数は？", True),
    ("AC/DCのアルバムを見せて", True), ("AC/DCのアルバム3枚", True), ("AC/DCのアルバムコード", False),
    ("AC/DCの曲", False)])
def test_a_name_before_the_rows_noun_in_japanese_owns_them(said, owner):
    assert whose._owner_in_japanese(tokenise(said), (0, 5), fold("アルバム")) == owner


@pytest.mark.parametrize(("said", "name", "owner"), [
    ("albums of the AC/DC", "AC/DC", True), ("albums by Queen", "Queen", True), ("an album from Queen", "Queen", True),
    ("songs of Queen", "Queen", False), ("Queen albums", "Queen", True), ("Queen's albums", "Queen", True),
    ("Queen’s albums", "Queen", True), ("Queen's phone", "Queen", False)])
def test_a_name_said_with_the_rows_noun_in_english_owns_them(said, name, owner):
    start = said.index(name)
    span, utterance = (start, start + len(name)), tokenise(said)
    assert (whose._owner_before(utterance, span, "album") or whose._owner_after(utterance, span, "album")) == owner


@pytest.mark.parametrize(("said", "subject"), [
    ("Top 3 countries by sales", "countries"), ("which customer spent most", "customer"),
    ("the cheapest wine", "wine"), ("the biggest customer", "customer"), ("top 3", None)])
def test_the_noun_an_english_superlative_asks_for_is_read(said, subject):
    assert ranking._subject(said) == subject


@pytest.mark.parametrize(("noun", "said", "found"), [
    ("国", "注文がいちばん多い国は？", True), ("国", "国別の売上", True), ("国", "中国の売上", False),
    ("国", "出身国は", False), ("country", "sales by country", True), ("country", "top countries", False),
    ("countries", "top countries", True), ("product category", "by product category", True),
    ("得意先", "得意先ごと", True)])
def test_a_groups_noun_is_found_as_whole_words(noun, said, found):
    assert ranking._find(noun, fold(said)) == found


@pytest.mark.parametrize(("said", "counted"), [
    ("受注件数は？", True), ("受注の数", True), ("受注の金額", False), ("the number of orders", True),
    ("number of sales orders", True), ("orders", False)])
def test_the_rows_counted_by_name_are_read(said, counted):
    assert ranking._counted_in_japanese(tokenise(fold(said)), "受注") or \
        any(ranking._number_of(n).search(tokenise(fold(said))) for n in ("orders", "sales orders")) == counted


@pytest.mark.parametrize(("said", "states"), [
    ("orders that are still backordered", ["backordered"]), ("the refunded ones", ["refunded"]),
    ("Backordered orders", ["backordered"]), ("it is red", []), ("orders are backordered", ["backordered"])])
def test_a_state_said_of_the_rows_is_read(said, states):
    assert [word for _, word in leftover._states(said, fold(said))] == states


@pytest.mark.parametrize(("said", "places", "counted"), [
    ("3階の部屋", ["3階"], []), ("5番線", ["5番線"], []), ("3号館の会議室", ["3号館"], []),
    ("人数を3名にして", [], ["3名"]), ("2泊で2部屋", [], ["2泊", "2部屋"]), ("12345階", [], []),
    ("3 階", ["3 階"], [])])
def test_a_number_with_a_counter_of_a_place_or_of_how_many_is_read(said, places, counted):
    slots = Slots(text=said, folded=fold(said), read_text=fold(said))
    assert [said[s:e] for s, e in leftover._counted_numbers(slots, "places")] == places
    assert [said[s:e] for s, e in leftover._counted_numbers(slots, "counted")] == counted


@pytest.mark.parametrize(("said", "key", "words"), [
    ("green tea sales", "before_sales", ["tea"]), ("Green Tea Sales", "before_sales", ["Tea"]),
    ("sandwich revenue", "before_sales", ["sandwich"]), ("2nd sales", "before_sales", []),
    ("guests from germnay", "after_place", ["germnay"]), ("stays in 2024", "after_place", [])])
def test_an_english_word_before_sales_or_after_a_place_word_is_read(said, key, words):
    assert [w for w, _, _ in loose._english_words_said(said, said, key, 3)] == words


def test_a_masked_word_is_not_read_loosely():
    said = "green tea sales"
    masked = said[:6] + "\x00" * 3 + said[9:]
    assert loose._english_words_said(said, masked, "before_sales", 3) == []


@pytest.mark.parametrize(("said", "spans", "rest"), [
    ("じゃあ飲料は", [(0, 3)], ""), ("ぷりんってある", [(3, 5)], ""),
    ("てりやき弁当ください", [(0, 4), (6, 10)], "てりやき")])
def test_grammar_said_around_a_value_is_no_word_that_qualifies_it(said, spans, rest):
    assert loose._without_grammar(tokenise(said), spans) == rest


@pytest.mark.parametrize(("said", "counted"), [
    ("来店は何件", True), ("来店数", True), ("来店の一覧", True), ("来店回数", True), ("来店の日付", False)])
def test_a_tools_rows_counted_or_listed_in_japanese_are_read(said, counted):
    assert counting._counted_in_japanese("来店", fold(said)) == counted



@pytest.mark.parametrize(("said", "scripts"), [
    ("カップ麺の売上", ["katakana", "han", "hiragana", "han"]), ("焼きそば2つ", [None, None, "hiragana"]),
    ("𠮷田さん", ["han", "han", "hiragana"]), ("Lサイズ", ["latin", "katakana"])])
def test_a_token_says_the_one_script_it_is_written_in(said, scripts):
    assert [t.script for t in tokenise(said).tokens] == scripts


def test_runs_of_tokens_are_cut_where_a_space_or_another_token_comes_between():
    said = tokenise("チーズ ケーキとシュークリーム")
    assert [said.text[slice(*said.span(r))] for r in said.runs(lambda t: t.script == "katakana")] == [
        "チーズ", "ケーキ", "シュークリーム"]


@pytest.mark.parametrize(("masked", "words"), [
    ("シュークリムある？", ["シュークリム"]),  # one word, however the analyser cuts a misspelling
    ("しゃけ\x00\x00\x00\x00ください", ["しゃけ", "ください"]), ("焼きそば2つ", []),  # きそば is no word of its own
    ("コーラLサイズ", ["コーラ", "サイズ"])])
def test_words_written_in_kana_alone_are_read_whole(masked, words):
    assert [masked[s:e] for s, e in loose._kana_words(masked)] == words


@pytest.mark.parametrize(("masked", "words"), [
    ("カップ麺の売上", ["カップ麺"]), ("ケーキ屋チーズ", ["ケーキ屋", "チーズ"]), ("麺カップ", ["カップ"]),
    ("売上\x00\x00\x00", [])])
def test_a_katakana_word_takes_the_kanji_written_after_it(masked, words):
    assert [masked[s:e] for s, e in loose._foreign_words(masked)] == words
