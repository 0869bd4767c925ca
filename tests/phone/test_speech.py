"""Answers as they are said on the phone, and the caller's yes or no."""

from __future__ import annotations

import pytest

from concierge.web.phone.relay import duration_ms, session_for, yes_or_no
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


def test_tables_and_lists_are_not_read_out_and_a_long_answer_is_cut():
    answer = ("先週の売上上位です。\n| 商品 | 金額 |\n|---|---|\n| 麦茶 | 1,000円 |\n- 麦茶\n- 緑茶\n"
              "三つ目の文です。四つ目の文です。")
    assert say(answer, "ja") == ["先週の売上上位です。", "麦茶", "緑茶"]


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
    assert yes_or_no(text) is answer


def test_a_call_is_its_own_conversation_and_interrupt_durations_come_as_numbers_or_strings():
    assert session_for("+81 90-1234-5678", "CA0123abc") == "tel819012345678_CA0123abc"
    assert session_for("", "CA1") == "telanonymous_CA1"
    assert [duration_ms(v) for v in (900, "900", "1.5", None, "soon")] == [900.0, 900.0, 1.5, None, None]
