"""A plain yes or no typed or said to a question, in Japanese or English; anything more is a new request."""

from __future__ import annotations

import pytest

from concierge.language.replies import reply


@pytest.mark.parametrize("text", [
    "はい", "はい。", "はい、お願いします", "はいお願いします", "はい、実行してください。", "それでお願いします",
    "OK", "ok!", "おっけー", "大丈夫です", "確定で", "Yes", "yes please", "Yes, go ahead.", "That's right.",
    "go ahead please", "sounds good", "ＯＫ", "おけ", "うん頼む", "OKです", "オッケーです", "yes pls", "sure thing",
    "go for it"])
def test_a_plain_yes(text):
    assert reply(text) == "yes"


@pytest.mark.parametrize("text", [
    "いいえ", "キャンセルしてください", "キャンセルでお願いします", "やめて", "取り消して。", "No", "no thanks",
    "cancel it", "please cancel", "never mind", "いいえ結構です", "cancel pls", "結構です"])
def test_a_plain_no(text):
    assert reply(text) == "no"


@pytest.mark.parametrize("text", [
    "", "はい、からあげ弁当も追加で", "唐揚げ弁当を2つ", "yes, and a miso soup", "いや、5個にして", "yes no",
    "ok, make it 5", "はいはい、じゃあ0017で", "先週の売上は？", "確定しないで", "okですか", "はい、でも5個に",
    "yes but make it 5", "ok and also 0017"])
def test_anything_more_is_a_new_request(text):
    assert reply(text) is None


@pytest.mark.parametrize("text", ["はい?", "はい？", "yes?", "いいです", "大丈夫？", "うーん", "hmm", "wait"])
def test_a_reply_that_may_mean_either_is_unclear(text):
    assert reply(text) == "unclear"
