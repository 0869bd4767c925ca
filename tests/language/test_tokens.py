"""The token layer (language/tokens.py) and the rules that read its words: plain forms (language/plain.py),
times against the clock (language/times.py), and the name characters patterns read (language/scripts.py)."""

from __future__ import annotations

import pytest
import regex

from concierge.language.plain import plain
from concierge.language.scripts import HAN
from concierge.language.times import find_times
from concierge.language.tokens import tokenise


def test_a_request_is_cut_into_words_with_their_spans_forms_and_parts_of_speech():
    u = tokenise("山﨑さんが消しちゃった")
    assert [t.surface for t in u.tokens] == ["山﨑", "さん", "が", "消し", "ちゃっ", "た"]
    name, suffix, particle, verb = u.tokens[:4]
    assert name.is_person_name and (name.start, name.end) == (0, 2)
    assert suffix.is_suffix and particle.is_particle
    assert verb.is_verb and verb.lemma == "消す" and u.tokens[4].is_auxiliary


def test_a_token_says_its_part_of_speech():
    assert all(t.is_noun for t in tokenise("鮭弁当").tokens)
    assert tokenise("田中さん").tokens[1].is_suffix and not tokenise("田中さん").tokens[0].is_suffix
    verb, te, asks = tokenise("消してください").tokens
    assert te.is_conjunctive_particle and not verb.is_conjunctive_particle
    assert asks.may_be_subsidiary and tokenise("見てほしい").tokens[-1].may_be_subsidiary
    assert not verb.may_be_subsidiary and not tokenise("弁当").tokens[0].may_be_subsidiary
    filler, _, adverb = tokenise("えっと、やっぱり").tokens
    assert filler.is_interjection and adverb.is_adverb and not adverb.is_interjection
    assert not tokenise("弁当").tokens[0].is_adverb and not tokenise("sales").tokens[0].is_noun


def test_normalised_forms_come_from_the_dictionary():
    assert [t.normal for t in tokenise("しゃけ弁当").tokens] == ["鮭", "弁当"]
    assert tokenise("二千五百円").tokens[0].normal == "2500"


def test_a_span_counts_characters_outside_the_first_plane_as_one():
    u = tokenise("𠮷田さんの売上")
    assert u.text[u.tokens[-1].start:u.tokens[-1].end] == "売上"


def test_english_is_cut_into_words_numbers_and_marks():
    assert [t.surface for t in tokenise("turn it down, 2 steps").tokens] == ["turn", "it", "down", ",", "2", "steps"]


@pytest.mark.parametrize("said,plainly", [
    ("牛丼と親子丼をひとつずつ", "牛丼と親子丼を1つずつ"),
    ("しゃけ弁当みっつ", "しゃけ弁当3つ"),
    ("しゃけ弁 みっつ お願いします", "しゃけ弁 3つ お願いします"),
    ("ボリュームよっつ上げて", "ボリューム4つ上げて"),
    ("いつつください", "5つください"),
    ("からべん2こ", "からべん2個"),
    ("やっぱ消しといて", "やっぱ消して"),
    ("テレビつけといて", "テレビつけて"),
    ("全部消しちゃって", "全部消して"),
    ("十二チャンネルにして", "12チャンネルにして"),
])
def test_colloquial_forms_are_written_plainly(said, plainly):
    assert plain(said) == plainly


@pytest.mark.parametrize("said", ["ここで待つ", "一番暗く", "三日月", "一緒に", "暑つ"])
def test_words_that_only_look_like_counts_stay_as_said(said):
    assert plain(said) == said


@pytest.mark.parametrize("said,at", [
    ("7時に取りに行きます", "19:00"),  # the morning's 7 has passed at 17:00
    ("6時半", "18:30"),
    ("9時", "21:00"),
    ("午前11時", "11:00"),
    ("18時半", "18:30"),
    ("1時間後に取りに行けます", "18:00"),
    ("今から45分くらいで", "17:45"),
    ("10分後", "17:10"),
    ("in half an hour", "17:30"),
    ("around 8 tonight", "20:00"),
    ("8:45", "20:45"),
])
def test_a_time_is_read_against_the_clock(said, at):
    assert [t.value for t in find_times(said, "17:00")] == [at]


def test_with_no_clock_a_bare_hour_stays_as_said_and_no_time_from_now_is_read():
    assert [t.value for t in find_times("6時半")] == ["06:30"]
    assert find_times("1時間後") == []


@pytest.mark.parametrize("name", ["山﨑", "𠮷田", "髙橋", "德川", "吉田"])
def test_name_characters_are_kanji_to_the_patterns(name):
    assert regex.fullmatch(f"[{HAN}]+", name)
