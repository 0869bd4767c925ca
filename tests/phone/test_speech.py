"""Answers as they are said on the phone, and the caller's yes or no."""

from __future__ import annotations

import asyncio

import pytest
from phone_caller import dial

from concierge.language.replies import reply
from concierge.language.spoken import listing, yen
from concierge.web.phone.identity import session_for
from concierge.web.phone.relay import duration_ms
from concierge.web.phone.speech import Sentences, say, spoken


@pytest.mark.parametrize(("text", "lang", "said"), [
    ("からあげ弁当を2つ、合計1,380円です [r_0a1b2c3d4e]。", "ja", "からあげ弁当を2つ、合計1,380円です。"),
    ("受け取りは18:30です。", "ja", "受け取りは18時30分です。"),
    ("受け取りは18:00、2026-06-12です。", "ja", "受け取りは18時、6月12日です。"),
    ("先週（5/5〜5/11）の販売は1件です。", "ja", "先週（5月5日から5月11日）の販売は1件です。"),
    ("**合計**は 2,820円です。", "ja", "合計は 2,820円です。"),
    ("Your total is ¥1,380 (r_12ab, r_34cd).", "en", "Your total is 1,380 yen."),
    ("Pickup at 18:30 on 2026-06-12.", "en", "Pickup at 6:30 pm on June 12."),
    ("Ready at 6:30 pm.", "en", "Ready at 6:30 pm."),  # already said: not made 6:30 am pm
    ("Sorry, 22:00: we are closed.", "en", "Sorry, 10 pm: we are closed."),
    ("Hours 11:00~21:00.", "en", "Hours 11 am to 9 pm."),
])
def test_a_sentence_is_said_as_a_person_reads_it(text, lang, said):
    assert spoken(text, lang) == said


def test_a_table_is_said_as_a_sentence_and_a_long_answer_is_cut():
    answer = ("先週の売上上位です。\n| 商品 | 金額 |\n|---|---|\n| 麦茶 | 1,000円 |\n| 緑茶 | 800円 |\n- 麦茶\n"
              "三つ目の文です。四つ目の文です。")
    assert say(answer, "ja") == ["先週の売上上位です。", "商品は麦茶、緑茶です。", "麦茶"]


MENU = "| 商品 | 値段 | 売り切れ |\n|---|---|---|\n" + "".join(
    f"| {name} | {price} | 0 |\n" for name, price in [("唐揚げ弁当", 690), ("のり弁当", 450), ("鮭弁当", 650),
                                                     ("ハンバーグ弁当", 750), ("エビフライ弁当", 820),
                                                     ("生姜焼き弁当", 720), ("幕の内弁当", 880)])


@pytest.mark.parametrize(("lead", "lang", "said"), [
    ("です。", "ja", "唐揚げ弁当、のり弁当、鮭弁当、ハンバーグ弁当、エビフライ弁当ほか2件です。"),
    ("弁当はです。", "ja", "弁当は唐揚げ弁当、のり弁当、鮭弁当、ハンバーグ弁当、エビフライ弁当ほか2件です。"),
    ("Bento: .", "en", "Bento: 唐揚げ弁当, のり弁当, 鮭弁当, ハンバーグ弁当, エビフライ弁当 and 2 more."),
])
def test_a_menu_table_is_said_as_a_sentence_naming_its_items(lead, lang, said):
    assert say(f"{lead}\n{MENU}", lang) == [said]  # the planner's answer for a screen: its frame and a table
    cut = Sentences()  # the same streamed, a line at a time
    pieces = [f"{lead}\n", *MENU.splitlines(keepends=True)]
    assert [spoken(s, lang) for p in pieces for s in cut.feed(p)] + [spoken(s, lang) for s in cut.flush()] == [said]


def test_a_short_list_names_every_item_and_an_empty_frame_alone_is_kept():
    three = "| item | price |\n|---|---|\n| green tea | 150 |\n| cola | 200 |\n| miso soup | 150 |"
    assert say(f"Drinks: .\n{three}", "en") == ["Drinks: green tea, cola and miso soup."]
    assert say("It is 5 pm.\n| a |\n| b |", "en") == ["It is 5 pm.", "a and b."]  # no header rule: every row
    assert say("です。それだけです。", "ja") == ["です。", "それだけです。"]  # no table after the frame: as it is


@pytest.mark.parametrize(("text", "lang", "said"), [
    ("ドリンク: 緑茶 ¥150, ウーロン茶 ¥150, コーラ ¥200.", "en",
     "ドリンク: 緑茶 150 yen, ウーロン茶 150 yen, コーラ 200 yen."),
    ("Total ¥1,380, pickup at 18:30.", "en", "Total 1,380 yen, pickup at 6:30 pm."),
    ("合計は¥1,380です。", "ja", "合計は1,380円です。"),
    ("緑茶 150円、コーラ 200円です。", "ja", "緑茶 150円、コーラ 200円です。"),
])
def test_prices_are_said_as_yen_never_with_a_comma_before_it(text, lang, said):
    assert spoken(text, lang) == said


def test_listing_and_yen():
    assert [listing(list("abcdefg")[:n], "en") for n in (0, 1, 2, 3, 6)] == [
        "", "a", "a and b", "a, b and c", "a, b, c, d, e and 1 more"]
    assert [listing(list("abcdefg")[:n], "ja") for n in (1, 3, 7)] == ["a", "a、b、c", "a、b、c、d、eほか2件"]
    assert (yen(150, "ja"), yen("1,380", "en")) == ("150円", "1,380 yen")


def test_the_phone_says_the_menu_and_prices_as_sentences(restaurant_phone):
    async def call() -> list[str]:
        async with dial(restaurant_phone) as c:
            asked = [("メニューを教えて", "ja-JP"), ("お弁当は何がありますか", "ja-JP"),
                     ("What drinks do you have?", "en-US")]
            return [(await c.say(words, lang=lang)).text for words, lang in asked]

    menu, bento, drinks = asyncio.run(call())
    assert menu == "25件ありました。商品は唐揚げ弁当、のり弁当、鮭弁当、ハンバーグ弁当、エビフライ弁当ほか20件です。"
    assert bento == ("弁当は唐揚げ弁当 690円、のり弁当 450円、鮭弁当 650円、ハンバーグ弁当 750円、エビフライ弁当 820円"
                     "（本日売り切れ）、生姜焼き弁当 720円、幕の内弁当 880円です。")  # seven: every one said
    assert "緑茶 150 yen, ウーロン茶 150 yen, コーラ 200 yen" in drinks and ", yen" not in drinks


def test_pieces_come_out_as_sentences_as_soon_as_each_ends():
    cut = Sentences()
    out = [list(cut.feed(piece)) for piece in ["合計は1,3", "80円です。お受け", "取りは", "18時です。", "ほかに"]]
    assert out == [[], ["合計は1,380円です。"], [], ["お受け取りは18時です。"], []]
    assert list(cut.flush()) == ["ほかに"]
    english = Sentences()
    assert [s for p in ["It costs 2", ".5 yen. Pick", "up at 6.", " Thanks!"] for s in english.feed(p)] == [
        "It costs 2.5 yen.", "Pickup at 6.", "Thanks!"]


@pytest.mark.parametrize(("text", "answer"), [
    ("はい", True), ("はい、お願いします", True), ("はい。", True), ("それでお願いします", True), ("Yes", True),
    ("yes please", True), ("That's right.", True), ("OK", True),
    ("いいえ", False), ("キャンセルしてください", False), ("No", False), ("cancel it", False),
    ("はい、からあげ弁当も追加で", None), ("唐揚げ弁当を2つ", None), ("yes, and a miso soup", None), ("", None),
])
def test_only_a_plain_yes_or_no_answers_a_read_back(text, answer):
    assert reply(text) == {True: "yes", False: "no", None: None}[answer]


def test_a_call_is_its_own_conversation_and_interrupt_durations_come_as_numbers_or_strings():
    assert session_for("+81 90-1234-5678", "CA0123abc") == "tel819012345678_CA0123abc"
    assert session_for("", "CA1") == "telanonymous_CA1"
    assert session_for("+8" + "1" * 60, "CA1") == "tel81111111111111111111_CA1"  # at most 20 digits
    assert [duration_ms(v) for v in (900, "900", "1.5", None, "soon")] == [900.0, 900.0, 1.5, None, None]
