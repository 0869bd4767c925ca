"""Times said from now or with the part of the day after them (language/times.py)."""

from __future__ import annotations

import pytest

from concierge.language.dates import normalise
from concierge.language.detect import language
from concierge.language.times import find_times


@pytest.mark.parametrize(("said", "value"), [
    ("1時間後に予約", "18:00"), ("今から45分くらいで行きます", "17:45"), ("あと30分で", "17:30"),
    ("1時間半後", "18:30"), ("2時間くらい後", "19:00"), ("in half an hour", "17:30"), ("in an hour", "18:00"),
    ("in 45 minutes", "17:45"), ("in thirty minutes", "17:30"), ("in forty-five minutes", "17:45"),
])
def test_a_time_from_now_is_counted_from_the_clock(said, value):
    assert [t.value for t in find_times(said, "17:00")] == [value]


@pytest.mark.parametrize(("said", "value"), [
    ("around 8 tonight", "20:00"), ("at 7 this evening", "19:00"), ("at seven tomorrow night", "19:00"),
    ("at 7 tomorrow morning", "07:00"), ("at 7 in the morning", "07:00"),
])
def test_the_part_of_the_day_said_after_an_hour_says_which_half(said, value):
    assert [t.value for t in find_times(said)] == [value]
    assert [t.value for t in find_times(said, "17:00")] == [value]


@pytest.mark.parametrize("said", ["ｶﾚｰ", "𠮷田", "﨑", "ひらがな", "カタカナ"])
def test_any_kana_or_kanji_is_japanese(said):
    assert language(said) == "ja"


@pytest.mark.parametrize(("said", "value"), [("in about an hour", "18:00"), ("in around 45 minutes", "17:45"),
                                             ("about eight tonight", "20:00"), ("by 9", "21:00")])
def test_the_words_before_a_time_are_read(said, value):
    assert [t.value for t in find_times(said, "17:00")] == [value]


def test_about_and_a_number_is_no_time():
    assert find_times("about 8 people", "17:00") == []


@pytest.mark.parametrize(("said", "value"), [
    ("八時に取りに行きます", "20:00"), ("三十分後に行きます", "17:30"), ("今から四十五分くらいで", "17:45"),
    ("五時半に", "17:30"), ("十二時十五分に", "12:15"), ("五分後", "17:05"),
])
def test_a_time_said_in_kanji_numerals_is_read_as_in_digits(said, value):
    assert [t.value for t in find_times(normalise(said), "17:00")] == [value]


@pytest.mark.parametrize("said", ["十分です", "一時停止して", "一時的に", "三分の一"])
def test_words_that_hold_a_numeral_before_hours_or_minutes_are_no_time(said):
    assert find_times(normalise(said), "17:00") == []


@pytest.mark.parametrize(("said", "value", "span"), [
    ("7時半に取りに行きます", "19:30", (0, 3)), ("夜8時ごろ", "20:00", (0, 3)), ("午後3時に", "15:00", (0, 4)),
    ("朝7時に", "07:00", (0, 3)), ("晩9時", "21:00", (0, 3)), ("夕方5時半", "17:30", (0, 5)),
    ("午前10時15分", "10:15", (0, 8)), ("昼12時", "12:00", (0, 4)), ("午後 3 時 20 分", "15:20", (0, 11)),
    ("18時45分で", "18:45", (0, 6)), ("19:30", "19:30", (0, 5)), ("at 7pm", "19:00", (3, 6)),
    ("around 8 tonight", "20:00", (0, 8)), ("6:30 a.m.", "06:30", (0, 9)), ("at 7 o'clock", "19:00", (3, 12)),
    ("今から45分くらいで", "17:45", (0, 10)), ("1時間後", "18:00", (0, 4)), ("あと30分で", "17:30", (0, 6)),
    ("2時間半後に", "19:30", (0, 5)), ("20分くらいしたら", "17:20", (0, 9)), ("1時間したら", "18:00", (0, 6)),
    ("いまから20分で", "17:20", (0, 8)), ("今から15分位で", "17:15", (0, 8)), ("あと5分ご", "17:05", (0, 5)),
    ("あと1時間半くらいで", "18:30", (0, 10)), ("15分ほど後", "17:15", (0, 6)), ("in half an hour", "17:30", (0, 15)),
    ("8時30分後", "20:30", (0, 5)),
])
def test_a_time_is_read_as_people_type_it(said, value, span):
    assert [(t.value, (t.start, t.end)) for t in find_times(said, "17:00")] == [(value, span)]


def test_every_time_of_a_request_is_read_in_order():
    assert [t.value for t in find_times("6時の予約を7時に変更", "17:00")] == ["18:00", "19:00"]
    assert [t.value for t in find_times("8時から9時半まで")] == ["08:00", "09:30"]


@pytest.mark.parametrize("said", ["十分です", "一時的に", "8時間勤務", "30分", "あと", "今から", "1時間半", "半分"])
def test_words_of_hours_and_minutes_alone_are_no_time(said):
    assert find_times(said, "17:00") == []
    assert find_times(normalise(said), "17:00") == []


@pytest.mark.parametrize(("said", "values"), [
    ("3時限目", []), ("118時", []), ("1.5時間後", []), ("8時半額セール", ["20:00"]), ("今夜9時半", ["21:30"]),
])
def test_a_time_is_read_from_the_words_the_analyser_sees(said, values):
    assert [t.value for t in find_times(said, "17:00")] == values


@pytest.mark.parametrize(("said", "now", "value"), [
    ("7時10分前くらいに行きます", "17:00", "18:50"), ("6時15分前", "17:00", "17:45"),
    ("午後7時10分前に", None, "18:50"), ("12時5分前", "09:00", "11:55"), ("7時10分前", None, "06:50"),
    ("七時十分前に", "17:00", "18:50"), ("0時10分前", None, "23:50"),
])
def test_minutes_before_after_an_hour_are_that_many_minutes_before_it(said, now, value):
    assert [t.value for t in find_times(normalise(said), now)] == [value]


@pytest.mark.parametrize(("said", "values"), [
    ("7時10分前後に", ["19:10"]), ("10分前に着きます", []), ("10分前", []), ("7時半前に", ["19:30"]),
])
def test_minutes_before_with_no_hour_or_about_an_hour_stay_as_they_were(said, values):
    assert [t.value for t in find_times(said, "17:00")] == values


def test_minutes_before_an_hour_span_the_word_before():
    assert [(t.value, t.start, t.end) for t in find_times("7時10分前に", "17:00")] == [("18:50", 0, 6)]


@pytest.mark.parametrize(("said", "value"), [
    ("ten to seven", "18:50"), ("at ten to seven", "18:50"), ("around twenty to eight", "19:40"),
    ("quarter to eight", "19:45"), ("at a quarter to eight", "19:45"), ("at five past six", "18:05"),
    ("twenty past six", "18:20"), ("at half past six", "18:30"),
])
def test_minutes_to_or_past_an_hour_said_in_words_are_read(said, value):
    assert [t.value for t in find_times(said, "17:00")] == [value]


@pytest.mark.parametrize("said", ["from ten to seven", "between ten to seven"])
def test_a_range_of_numbers_said_in_words_is_no_time(said):
    assert [t.value for t in find_times(said, "17:00")] == []


@pytest.mark.parametrize(("said", "value", "span"), [
    ("ろくじはんに行きます", "18:30", (0, 5)), ("しちじに", "19:00", (0, 3)), ("じゅうにじに", "12:00", (0, 5)),
    ("くじはんごろ", "21:30", (0, 4)), ("ごじはん", "17:30", (0, 4)), ("はちじにいきます", "20:00", (0, 3)),
    ("ろくじ半で", "18:30", (0, 4)), ("ななじ", "19:00", (0, 3)), ("よじに", "16:00", (0, 2)),
    ("夜しちじに", "19:00", (0, 4)), ("じゅうはちじ", "18:00", (0, 6)), ("ろくじ10分に", "18:10", (0, 6)),
])
def test_an_hour_said_in_kana_is_read_as_in_digits(said, value, span):
    assert [(t.value, (t.start, t.end)) for t in find_times(normalise(said), "17:00")] == [(value, span)]


@pytest.mark.parametrize("said", ["にじがきれい", "ごじがある", "いちじてきに", "じゅうじか", "くじびき", "さんじゅう"])
def test_kana_that_sound_like_an_hour_in_another_word_are_no_time(said):
    assert find_times(normalise(said), "17:00") == []
