"""The planner's rules that read a request's words, with their words as data (planner/words/questions.toml)."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pytest

from concierge.language.tokens import tokenise
from concierge.planner import counting, leftover, loose, nouns, ranking, scope, words
from concierge.planner.focus import instead_text
from concierge.planner.lexicon import _NAME_SUFFIX, PRONOUNS
from concierge.planner.plan import _bare_amount
from concierge.planner.segments import clauses
from concierge.planner.whose import _asked_if_having, _owner_in_japanese


@pytest.mark.parametrize(("said", "name"), [
    ("does Miles Davis have any albums", "Miles Davis"), ("Did Miles Davis release albums in 1959", "Miles Davis"),
    ("do Acme Foods buy rice", "Acme Foods"),
])
def test_does_x_have_asks_for_the_rows_x_owns(said, name):
    start = said.index(name)
    assert _asked_if_having(said, (start, start + len(name)))


@pytest.mark.parametrize(("said", "name"), [
    ("is Miles Davis have", "Miles Davis"), ("does Miles Davis sing", "Miles Davis"),
    ("Miles Davis albums", "Miles Davis"),
])
def test_a_name_not_between_does_and_have_is_not_asked_as_an_owner(said, name):
    start = said.index(name)
    assert not _asked_if_having(said, (start, start + len(name)))


@pytest.mark.parametrize(("said", "counter"), [
    ("アルバムは何枚？", "枚"), ("得意先は何社", "社"), ("来店は何回", "回")])
def test_how_many_is_read_with_its_counter(said, counter):
    asked = counting.COUNTING.search(said)
    assert asked is not None and asked["counter"] == counter


@pytest.mark.parametrize("said", ["在庫はいくつ", "件数を教えて", "how many customers", "number of orders"])
def test_how_many_is_read_without_a_counter(said):
    assert counting.COUNTING.search(said)


@pytest.mark.parametrize(("said", "meant"), [
    ("They bought rice", True), ("彼女の注文", True), ("the hero sandwich", False), ("their orders", True),
    ("sheet", False)])
def test_a_pronoun_is_read_whole_and_in_any_case(said, meant):
    assert (PRONOUNS.search(said) is not None) == meant


@pytest.mark.parametrize(("said", "count"), [("何回来た？", True), ("how many times did she come", True),
                                             ("how many items", False)])
def test_how_many_times_is_read(said, count):
    assert (words.said_pattern("counters", "times").search(said) is not None) == count


def test_values_joined_by_a_word_or_a_mark_are_each_one():
    said = "牛丼と親子丼、rice and miso soup & tea"
    assert [m.group() for m in words.joiners().finditer(said)] == ["と", "、", "and", "&"]


def test_a_word_inside_another_does_not_join():
    assert words.joiners().search("brandy") is None and words.joiners().search("もっと大盛り") is None


@pytest.mark.parametrize(("said", "rest"), [("はい、でも牛丼で", "牛丼で"), ("yes, but two please", "two please"),
                                            ("then three", "three"), ("butter please", "butter please")])
def test_the_words_that_lead_an_amendment_are_no_part_of_it(said, rest):
    assert instead_text(said) == rest


@pytest.mark.parametrize(("said", "value"), [
    ("取消になった受注", "受注"), ("届いた注文", "注文"), ("キャンセルされた注文", "注文"), ("発送してる注文", "注文"),
    ("来てない注文", "注文"), ("在庫ない商品", "商品")])
def test_a_verb_right_before_a_value_says_a_clause_of_it(said, value):
    assert words.said_before(said, said.index(value), "clauses", "before_value")


@pytest.mark.parametrize(("said", "value"), [
    ("てりやき弁当", "弁当"), ("しゃけおにぎり", "おにぎり"), ("大盛り牛丼", "牛丼")])
def test_a_word_of_a_longer_name_is_no_clause(said, value):
    assert not words.said_before(said, said.index(value), "clauses", "before_value")


@pytest.mark.parametrize(("said", "word"), [
    ("ツナマヨある？", "ツナマヨ"), ("ヴァイオリン", "ヴァイオリン"), ("しゃけ", "しゃけ")])
def test_a_kana_word_is_read_whole(said, word):
    assert [said[s:e] for s, e in loose._kana_words(said)] == [word]


@pytest.mark.parametrize(("said", "advice"), [("何かコツある？", True), ("アイデアください", True), ("ポコツ", False)])
def test_a_katakana_word_of_advice_is_read_whole(said, advice):
    hit = scope.out_of_scope(said, date(2025, 5, 15), False)
    assert (hit is not None and hit.kind == "advice") == advice


@pytest.mark.parametrize(("said", "subject"), [
    ("注文がいちばん多い国は？", "国"), ("一番売れた商品は", "商品"), ("いちばん売れてるメニューって", "メニュー"),
    ("一番多く稼いだスタッフ", "スタッフ"), ("先月いちばん売れている商品カテゴリは？", "商品カテゴリ"),
    ("売上が一番多いSKUは", "SKU"), ("一番多いもの", None), ("which customer spent most", "customer"),
    ("top 3 countries", "countries"), ("the cheapest wine", "wine")])
def test_the_noun_a_superlative_asks_for_is_read(said, subject):
    assert ranking._subject(said) == subject


@pytest.mark.parametrize(("said", "parts"), [
    ("牛丼2つ、それから親子丼を1つ", ["牛丼2つ", "親子丼を1つ"]),
    ("show sales and then list customers", ["show sales", "list customers"]),
    ("Mr. Sato ordered. show it", ["Mr. Sato ordered", "show it"]), ("あと、ビールも", ["ビールも"]),
    ("sales by month, and show me the top 3", ["sales by month", "show me the top 3"])])
def test_a_message_is_cut_into_requests_at_the_words_that_join_them(said, parts):
    assert [said[c.start:c.end] for c in clauses(said)] == parts


@pytest.mark.parametrize(("said", "amount"), [
    ("sold it for 500", 500), ("price of 1,200", 1200), ("金額は1200", 1200), ("500で売った", 500),
    ("500個", None)])
def test_an_amount_with_no_unit_is_read_after_its_words(said, amount):
    assert _bare_amount(SimpleNamespace(text=said, read_text=said)) == amount


@pytest.mark.parametrize(("keyword", "many"), [("how many albums", "albums"), ("number of visits", "visits")])
def test_a_keyword_of_how_many_names_the_rows(keyword, many):
    m = nouns._MANY.match(keyword)
    assert m is not None and m["n"] == many


@pytest.mark.parametrize(("keyword", "ja"), [("顧客一覧", "顧客"), ("来店の件数", "来店")])
def test_a_japanese_keyword_of_a_list_names_the_rows(keyword, ja):
    m = nouns._JA.match(keyword)
    assert m is not None and m["n"] == ja


@pytest.mark.parametrize(("said", "number"), [
    ("customer 5", "5"), ("invoice #98", "98"), ("album no. 3", "3"), ("得意先5", "5"), ("customer id 5", "5"),
    ("顧客番号5", "5"), ("5件", None), ("the 3rd", None), ("3 yen", None), ("at 12:30", None), ("price 1.5", None),
    ("customer 5件", None), ("トップ3", None)])
def test_a_number_after_a_noun_is_read_and_a_count_or_a_price_is_not(said, number):
    found = leftover._numbers_after_nouns(said)
    assert ([said[s:e] for (s, e), _ in found] == [said]) if number else found == []


@pytest.mark.parametrize(("said", "state"), [("orders that are still backordered", "backordered"),
                                             ("the refunded ones", "refunded")])
def test_a_state_said_of_the_rows_is_read(said, state):
    assert [word for _, word in leftover._states(said, said)] == [state]


@pytest.mark.parametrize(("said", "group"), [("extras by type", "type"), ("種類別の売上", "種類"), ("店ごと", "店"),
                                             ("国別の売上", "国"), ("sales per store", "store")])
def test_a_grouping_is_read(said, group):
    assert [word for _, word in leftover._grouped_by(said)] == [group]


def test_a_word_that_begins_with_by_is_no_grouping():
    assert leftover._grouped_by("byte sales") == []


@pytest.mark.parametrize(("label", "thing"), [
    ("顧客の名前", "顧客"), ("顧客名", "顧客"), ("customer's name", "customer"), ("artist names", "artist")])
def test_a_label_of_a_name_names_the_thing_without_its_suffix(label, thing):
    assert _NAME_SUFFIX.sub("", label) == thing


def test_a_figure_said_in_the_negative_is_not_the_one_given():
    assert instead_text("not 600 yen but 700") == "700"


def test_a_word_before_sales_and_one_after_from_are_read_as_values():
    said = "green tea sales"
    assert [w for w, _, _ in loose._english_words_said(said, said, "before_sales", 3)] == ["tea"]
    said = "guests from germnay"
    assert [w for w, _, _ in loose._english_words_said(said, said, "after_place", 5)] == ["germnay"]


@pytest.mark.parametrize(("after", "owner"), [("一覧", True), ("数は？", True), ("", True), ("コード", False)])
def test_a_word_of_a_list_after_a_noun_keeps_the_name_its_owner(after, owner):
    said = "AC/DCのアルバム" + after
    assert _owner_in_japanese(tokenise(said), (0, 5), "あるばむ") == owner
