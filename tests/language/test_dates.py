"""Tests for concierge.language.dates against spec/dates.md (today = 2025-05-15 unless stated)."""
import unicodedata
from datetime import date, timedelta

import pytest

from concierge.language.dates import DateMatch, DateRange, find_dates, impossible_dates, normalise, resolve
from concierge.language.numerals import kanji_to_digits

TODAY = date(2025, 5, 15)  # Thursday, the clock of the spec table
D = date.fromisoformat


def rng(start: str, end: str | None = None) -> DateRange:
    return DateRange(D(start), D(end or start))


# Every row of dates.md, both languages, today = 2025-05-15.
SPEC_ROWS = [
    ("今日", "2025-05-15", None), ("today", "2025-05-15", None),
    ("昨日", "2025-05-14", None), ("yesterday", "2025-05-14", None),
    ("一昨日", "2025-05-13", None), ("おととい", "2025-05-13", None),
    ("the day before yesterday", "2025-05-13", None),
    ("今週", "2025-05-12", "2025-05-18"), ("this week", "2025-05-12", "2025-05-18"),
    ("先週", "2025-05-05", "2025-05-11"), ("前の週", "2025-05-05", "2025-05-11"),
    ("last week", "2025-05-05", "2025-05-11"),
    ("先々週", "2025-04-28", "2025-05-04"), ("the week before last", "2025-04-28", "2025-05-04"),
    ("先週火曜日", "2025-05-06", None), ("先週の火曜", "2025-05-06", None),
    ("Tuesday last week", "2025-05-06", None), ("Tuesday of last week", "2025-05-06", None),
    ("今週の月曜日", "2025-05-12", None), ("Monday this week", "2025-05-12", None),
    ("今月", "2025-05-01", "2025-05-31"), ("this month", "2025-05-01", "2025-05-31"),
    ("先月", "2025-04-01", "2025-04-30"), ("last month", "2025-04-01", "2025-04-30"),
    ("先々月", "2025-03-01", "2025-03-31"), ("two months ago", "2025-03-01", "2025-03-31"),
    ("先月と今月", "2025-04-01", "2025-05-31"), ("先月と今月の2ヶ月間", "2025-04-01", "2025-05-31"),
    ("last month and this month", "2025-04-01", "2025-05-31"),
    ("3月", "2025-03-01", "2025-03-31"), ("March", "2025-03-01", "2025-03-31"),
    ("4月10日", "2025-04-10", None), ("4/10", "2025-04-10", None), ("April 10", "2025-04-10", None),
    ("今年", "2025-01-01", "2025-12-31"), ("this year", "2025-01-01", "2025-12-31"),
    ("去年", "2024-01-01", "2024-12-31"), ("昨年", "2024-01-01", "2024-12-31"),
    ("last year", "2024-01-01", "2024-12-31"),
]


@pytest.mark.parametrize("text,start,end", SPEC_ROWS)
def test_spec_table(text, start, end):
    assert resolve(text, TODAY) == rng(start, end)


@pytest.mark.parametrize("text,start,end", SPEC_ROWS)
def test_spec_table_inside_a_sentence(text, start, end):
    sentence = f"{text}の売上を教えて" if not text.isascii() else f"Show me sales for {text}, please."
    assert resolve(sentence, TODAY) == rng(start, end)


@pytest.mark.parametrize("text,start,end", [
    ("2025年3月", "2025-03-01", "2025-03-31"), ("March 2025", "2025-03-01", "2025-03-31"),
    ("2024年3月", "2024-03-01", "2024-03-31"), ("去年の3月", "2024-03-01", "2024-03-31"),
    ("2025-04-10", "2025-04-10", None), ("2025年4月10日", "2025-04-10", None),
    ("2025/4/10", "2025-04-10", None), ("April 10, 2025", "2025-04-10", None),
    ("Apr 10th", "2025-04-10", None), ("10 April", "2025-04-10", None),
    ("the 10th of April", "2025-04-10", None), ("2025年", "2025-01-01", "2025-12-31"),
    ("４月１０日", "2025-04-10", None), ("４／１０", "2025-04-10", None),
    ("１２月", "2025-12-01", "2025-12-31"),
    ("YESTERDAY", "2025-05-14", None), ("Last Week", "2025-05-05", "2025-05-11"),
    ("THIS MONTH", "2025-05-01", "2025-05-31"), ("last   week", "2025-05-05", "2025-05-11"),
    ("本日", "2025-05-15", None), ("明日", "2025-05-16", None), ("tomorrow", "2025-05-16", None),
    ("来週", "2025-05-19", "2025-05-25"), ("next month", "2025-06-01", "2025-06-30"),
    ("一昨年", "2023-01-01", "2023-12-31"), ("来年", "2026-01-01", "2026-12-31"),
    ("3日前", "2025-05-12", None), ("2 weeks ago", "2025-04-28", "2025-05-04"),
    ("2ヶ月前", "2025-03-01", "2025-03-31"), ("2か月前", "2025-03-01", "2025-03-31"),
    ("last Tuesday", "2025-05-13", None), ("last Thursday", "2025-05-08", None),
    ("last Friday", "2025-05-09", None), ("next Tuesday", "2025-05-20", None),
    ("this Tuesday", "2025-05-13", None), ("last week's Tuesday", "2025-05-06", None),
    ("sales in May", "2025-05-01", "2025-05-31"), ("May 2025", "2025-05-01", "2025-05-31"),
    ("May I see March?", "2025-03-01", "2025-03-31"),
    ("4/10〜4/20", "2025-04-10", "2025-04-20"), ("4月10日から4月20日まで", "2025-04-10", "2025-04-20"),
    ("from April 10 to April 20", "2025-04-10", "2025-04-20"),
    ("between April 10 and April 20", "2025-04-10", "2025-04-20"),
    ("先月から今月まで", "2025-04-01", "2025-05-31"),
    ("先々月と先月と今月の3ヶ月間", "2025-03-01", "2025-05-31"),
])
def test_other_forms(text, start, end):
    assert resolve(text, TODAY) == rng(start, end)


WEEKDAYS_JA = "月火水木金土日"
WEEKDAYS_EN = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
WEEK_MONDAYS = {"先週": date(2025, 5, 5), "今週": date(2025, 5, 12), "来週": date(2025, 5, 19)}
WEEK_EN = {"先週": "last", "今週": "this", "来週": "next"}


@pytest.mark.parametrize("week", list(WEEK_MONDAYS))
@pytest.mark.parametrize("i", range(7))
@pytest.mark.parametrize("form", ["{w}{d}曜日", "{w}の{d}曜日", "{w}{d}曜", "{w}の{d}曜", "{w}の{d}",
                                  "{w}{d}、", "{w} {d}曜日"])
def test_japanese_weekday_in_week(week, i, form):
    text = form.format(w=week, d=WEEKDAYS_JA[i])
    expected = WEEK_MONDAYS[week] + timedelta(days=i)
    assert resolve(text, TODAY) == DateRange(expected, expected)


@pytest.mark.parametrize("week", list(WEEK_MONDAYS))
@pytest.mark.parametrize("i", range(7))
@pytest.mark.parametrize("form", ["{d} {w} week", "{d} of {w} week", "{w} week {d}"])
def test_english_weekday_in_week(week, i, form):
    text = form.format(w=WEEK_EN[week], d=WEEKDAYS_EN[i])
    expected = WEEK_MONDAYS[week] + timedelta(days=i)
    assert resolve(text, TODAY) == DateRange(expected, expected)


@pytest.mark.parametrize("text", [
    "キュウリ15本", "customer 0009", "1800円", "S20250422101931", "2ヶ月間", "3ヶ月", "売上は12.5%増",
    "キュウリ15本とナス8個", "顧客0009の1800円の売上", "sales may increase", "15 may rise",
    "火曜日の売上", "15日", "今年度", "昨年度", "第4月曜日", "10:30", "3.5/10", "",
])
def test_not_dates(text):
    assert find_dates(text, TODAY) == []
    assert resolve(text, TODAY) is None


def test_today_week_month_are_not_confused():
    matches = find_dates("今日と今週と今月", TODAY)
    assert [(m.text, m.kind) for m in matches] == [("今日", "day"), ("今週", "week"), ("今月", "month")]
    assert [m.range for m in matches] == [rng("2025-05-15"), rng("2025-05-12", "2025-05-18"),
                                          rng("2025-05-01", "2025-05-31")]
    assert resolve("今日と今週と今月", TODAY) == rng("2025-05-15")  # different kinds are not joined


def test_find_dates_order_indices_and_text():
    text = "先週火曜日と4/10、それから今月の売上"
    matches = find_dates(text, TODAY)
    assert [(m.text, m.start_index, m.end_index, m.kind) for m in matches] == [
        ("先週火曜日", 0, 5, "day"), ("4/10", 6, 10, "day"), ("今月", 15, 17, "month")]
    assert all(text[m.start_index:m.end_index] == m.text for m in matches)
    assert isinstance(matches[0], DateMatch)


def test_longest_match_wins():
    assert [m.text for m in find_dates("一昨日と先々週と一昨年", TODAY)] == ["一昨日", "先々週", "一昨年"]
    assert [m.text for m in find_dates("the day before yesterday", TODAY)] == ["the day before yesterday"]
    assert [m.text for m in find_dates("2025年4月10日", TODAY)] == ["2025年4月10日"]


def test_indices_refer_to_normalised_text():
    text = "４月１０日の売上"
    (m,) = find_dates(text, TODAY)
    assert normalise(text) == "4月10日の売上"
    assert (m.text, m.start_index, m.end_index) == ("4月10日", 0, 5)


def test_month_span_is_one_match():
    (m,) = find_dates("先月と今月の2ヶ月間の売上", TODAY)
    assert (m.text, m.kind, m.range) == ("先月と今月の2ヶ月間", "span", rng("2025-04-01", "2025-05-31"))


# Comparisons, today = 2026-08-31 (Monday).
COMPARE_TODAY = date(2026, 8, 31)


@pytest.mark.parametrize("text,expected", [
    ("先週のキュウリの売上を前週と比べて",
     [("先週", "2026-08-24", "2026-08-30"), ("前週", "2026-08-17", "2026-08-23")]),
    ("last week compared with the week before",
     [("last week", "2026-08-24", "2026-08-30"), ("the week before", "2026-08-17", "2026-08-23")]),
    ("今月と先月", [("今月", "2026-08-01", "2026-08-31"), ("先月", "2026-07-01", "2026-07-31")]),
    ("this month vs last month",
     [("this month", "2026-08-01", "2026-08-31"), ("last month", "2026-07-01", "2026-07-31")]),
    ("前週比", [("前週", "2026-08-17", "2026-08-23")]),  # no earlier week: the week before 先週
    ("今週と前週", [("今週", "2026-08-31", "2026-09-06"), ("前週", "2026-08-24", "2026-08-30")]),
    ("先月の売上を前月と比べて",
     [("先月", "2026-07-01", "2026-07-31"), ("前月", "2026-06-01", "2026-06-30")]),
    ("today versus the previous day",
     [("today", "2026-08-31", None), ("the previous day", "2026-08-30", None)]),
    ("先週、前週、その前週", [("先週", "2026-08-24", "2026-08-30"), ("前週", "2026-08-17", "2026-08-23"),
                          ("前週", "2026-08-10", "2026-08-16")]),
])
def test_comparisons(text, expected):
    matches = find_dates(text, COMPARE_TODAY)
    assert [(m.text, m.range) for m in matches] == [(t, rng(s, e)) for t, s, e in expected]


def test_comparison_previous_periods():
    last_week = resolve("先週", COMPARE_TODAY)
    assert last_week == rng("2026-08-24", "2026-08-30")
    assert last_week.previous() == rng("2026-08-17", "2026-08-23")
    assert resolve("今月", COMPARE_TODAY).previous() == rng("2026-07-01", "2026-07-31")
    assert resolve("今月と先月", COMPARE_TODAY) == rng("2026-07-01", "2026-08-31")


# Edge cases: (today, expression, start, end)
@pytest.mark.parametrize("today,text,start,end", [
    # year boundary: 2025-01-02 is a Thursday
    ("2025-01-02", "先週", "2024-12-23", "2024-12-29"),
    ("2025-01-02", "last week", "2024-12-23", "2024-12-29"),
    ("2025-01-02", "今週", "2024-12-30", "2025-01-05"), ("2025-01-02", "先月", "2024-12-01", "2024-12-31"),
    ("2025-01-02", "先々月", "2024-11-01", "2024-11-30"), ("2025-01-02", "去年", "2024-01-01", "2024-12-31"),
    ("2025-01-02", "昨日", "2025-01-01", None), ("2025-01-02", "一昨日", "2024-12-31", None),
    ("2025-01-02", "先週火曜日", "2024-12-24", None), ("2025-01-02", "last Tuesday", "2024-12-31", None),
    ("2025-01-02", "3月", "2025-03-01", "2025-03-31"), ("2025-01-02", "12/25", "2025-12-25", None),
    ("2025-01-02", "先月と今月", "2024-12-01", "2025-01-31"),
    # month end
    ("2025-03-31", "先月", "2025-02-01", "2025-02-28"), ("2025-03-31", "先々月", "2025-01-01", "2025-01-31"),
    ("2024-03-31", "先月", "2024-02-01", "2024-02-29"), ("2025-05-31", "来月", "2025-06-01", "2025-06-30"),
    # leap day, 2024-02-29 is a Thursday
    ("2024-02-29", "今月", "2024-02-01", "2024-02-29"), ("2024-02-29", "先月", "2024-01-01", "2024-01-31"),
    ("2024-02-29", "昨日", "2024-02-28", None), ("2024-02-29", "去年", "2023-01-01", "2023-12-31"),
    ("2024-02-29", "2/29", "2024-02-29", None), ("2024-02-29", "今週", "2024-02-26", "2024-03-03"),
    # today is Monday (2026-08-31)
    ("2026-08-31", "今週", "2026-08-31", "2026-09-06"), ("2026-08-31", "先週", "2026-08-24", "2026-08-30"),
    ("2026-08-31", "先週火曜日", "2026-08-25", None), ("2026-08-31", "last Tuesday", "2026-08-25", None),
    ("2026-08-31", "今週の月曜日", "2026-08-31", None), ("2026-08-31", "last Monday", "2026-08-24", None),
    ("2026-08-31", "昨日", "2026-08-30", None),
    # today is Sunday (2025-05-18)
    ("2025-05-18", "今週", "2025-05-12", "2025-05-18"), ("2025-05-18", "先週", "2025-05-05", "2025-05-11"),
    ("2025-05-18", "先週火曜日", "2025-05-06", None), ("2025-05-18", "last Tuesday", "2025-05-13", None),
    ("2025-05-18", "Monday this week", "2025-05-12", None), ("2025-05-18", "last Sunday", "2025-05-11", None),
    # today is Tuesday: last Tuesday is a week ago
    ("2025-05-13", "last Tuesday", "2025-05-06", None),
])
def test_edge_cases(today, text, start, end):
    assert resolve(text, D(today)) == rng(start, end)


def test_invalid_dates_are_not_dates():
    assert resolve("2月29日", TODAY) is None  # 2025 is not a leap year
    assert resolve("2/30", TODAY) is None
    assert resolve("13月", TODAY) is None


@pytest.mark.parametrize("start,end,prev_start,prev_end", [
    ("2025-05-12", "2025-05-18", "2025-05-05", "2025-05-11"),  # week
    ("2025-01-01", "2025-01-31", "2024-12-01", "2024-12-31"),  # month across the year
    ("2025-03-01", "2025-03-31", "2025-02-01", "2025-02-28"),  # whole month even if lengths differ
    ("2024-03-01", "2024-03-31", "2024-02-01", "2024-02-29"),
    ("2024-02-01", "2024-02-29", "2024-01-01", "2024-01-31"),
    ("2025-05-15", "2025-05-15", "2025-05-14", "2025-05-14"),  # day
    ("2025-01-01", "2025-01-01", "2024-12-31", "2024-12-31"),
    ("2024-01-01", "2024-12-31", "2023-01-01", "2023-12-31"),  # year
    ("2025-04-10", "2025-04-20", "2025-03-30", "2025-04-09"),  # any span: same number of days
    ("2025-04-01", "2025-05-31", "2025-02-01", "2025-03-31"),  # two whole months
])
def test_previous(start, end, prev_start, prev_end):
    assert rng(start, end).previous() == rng(prev_start, prev_end)


def test_date_range_basics():
    r = rng("2025-04-01", "2025-04-30")
    assert r.days == 30 and str(r) == "2025-04-01..2025-04-30" and str(rng("2025-04-10")) == "2025-04-10"
    with pytest.raises(ValueError):
        DateRange(D("2025-05-02"), D("2025-05-01"))
    with pytest.raises(AttributeError):
        r.start = D("2025-01-01")  # frozen


# --- spans, parts and context (spec/dates.md "Spans, parts and context"), today = 2025-05-15 ---------

SPAN_ROWS = [
    ("今月頭から昨日まで", "2025-05-01", "2025-05-14"),
    ("from the start of this month to yesterday", "2025-05-01", "2025-05-14"),
    ("先週の月曜から水曜まで", "2025-05-05", "2025-05-07"),
    ("Monday to Wednesday last week", "2025-05-05", "2025-05-07"),
    ("先週の土日", "2025-05-10", "2025-05-11"), ("先週末", "2025-05-10", "2025-05-11"),
    ("last weekend", "2025-05-10", "2025-05-11"),
    ("直近7日", "2025-05-09", "2025-05-15"), ("過去7日", "2025-05-09", "2025-05-15"),
    ("the last 7 days", "2025-05-09", "2025-05-15"), ("the past 7 days", "2025-05-09", "2025-05-15"),
    ("四月", "2025-04-01", "2025-04-30"), ("四月十日", "2025-04-10", None),
    ("今月上旬", "2025-05-01", "2025-05-10"), ("今月中旬", "2025-05-11", "2025-05-20"),
    ("今月下旬", "2025-05-21", "2025-05-31"), ("今月前半", "2025-05-01", "2025-05-15"),
    ("今月後半", "2025-05-16", "2025-05-31"),
]


@pytest.mark.parametrize("text,start,end", SPAN_ROWS)
def test_span_table(text, start, end):
    assert resolve(text, TODAY) == rng(start, end)


@pytest.mark.parametrize("text,start,end", SPAN_ROWS)
def test_span_table_is_one_match_inside_a_sentence(text, start, end):
    sentence = f"{text}の売上を教えて" if not text.isascii() else f"Show me sales for {text}, please."
    (m,) = find_dates(sentence, TODAY)
    assert m.range == rng(start, end)
    assert m.text.rstrip("まで") in normalise(text)


@pytest.mark.parametrize("text,start,end", [
    # A から B まで / from A to B / A〜B, with start and end points
    ("今月頭から昨日", "2025-05-01", "2025-05-14"), ("月初から昨日まで", "2025-05-01", "2025-05-14"),
    ("月初から", "2025-05-01", "2025-05-15"), ("先月頭から", "2025-04-01", "2025-05-15"),
    ("今日から月末まで", "2025-05-15", "2025-05-31"), ("月末まで", "2025-05-15", "2025-05-31"),
    ("from the beginning of last month", "2025-04-01", "2025-05-15"),
    ("since the start of the month", "2025-05-01", "2025-05-15"),
    ("until the end of the month", "2025-05-15", "2025-05-31"),
    ("先月初めから先月末まで", "2025-04-01", "2025-04-30"), ("先月下旬から今月上旬まで", "2025-04-21", "2025-05-10"),
    ("先週の月曜から今週の水曜まで", "2025-05-05", "2025-05-14"),
    ("the start of this month", "2025-05-01", None), ("今月末", "2025-05-31", None),
    ("先月末", "2025-04-30", None), ("the end of last month", "2025-04-30", None),
    # weekday ranges inside a named week
    ("今週の月〜水", "2025-05-12", "2025-05-14"), ("先週月曜〜金曜", "2025-05-05", "2025-05-09"),
    ("来週の火曜日から木曜日まで", "2025-05-20", "2025-05-22"),
    ("from Monday to Friday last week", "2025-05-05", "2025-05-09"),
    ("Monday-Friday this week", "2025-05-12", "2025-05-16"),
    ("last week, Monday to Wednesday", "2025-05-05", "2025-05-07"),
    # weekends
    ("今週末", "2025-05-17", "2025-05-18"), ("今週の土日", "2025-05-17", "2025-05-18"),
    ("来週末", "2025-05-24", "2025-05-25"), ("先週の週末", "2025-05-10", "2025-05-11"),
    ("this weekend", "2025-05-17", "2025-05-18"), ("next weekend", "2025-05-24", "2025-05-25"),
    # the last N days, weeks, months
    ("ここ7日", "2025-05-09", "2025-05-15"), ("直近7日間", "2025-05-09", "2025-05-15"),
    ("過去2週間", "2025-05-02", "2025-05-15"), ("直近1週間", "2025-05-09", "2025-05-15"),
    ("直近30日", "2025-04-16", "2025-05-15"), ("直近3ヶ月", "2025-02-16", "2025-05-15"),
    ("past two weeks", "2025-05-02", "2025-05-15"), ("last 7 days", "2025-05-09", "2025-05-15"),
    ("the last 30 days", "2025-04-16", "2025-05-15"),
    # parts of any month expression
    ("先月下旬", "2025-04-21", "2025-04-30"), ("8月上旬", "2025-08-01", "2025-08-10"),
    ("今月の前半", "2025-05-01", "2025-05-15"), ("先月の後半", "2025-04-16", "2025-04-30"),
    ("2月下旬", "2025-02-21", "2025-02-28"), ("2024年2月後半", "2024-02-16", "2024-02-29"),
    ("去年の8月中旬", "2024-08-11", "2024-08-20"), ("2ヶ月前の上旬", "2025-03-01", "2025-03-10"),
    ("先月半ば", "2025-04-11", "2025-04-20"),
    ("early August", "2025-08-01", "2025-08-10"), ("mid August", "2025-08-11", "2025-08-20"),
    ("mid-August", "2025-08-11", "2025-08-20"), ("late August", "2025-08-21", "2025-08-31"),
    ("late May", "2025-05-21", "2025-05-31"), ("early last month", "2025-04-01", "2025-04-10"),
    ("the first half of last month", "2025-04-01", "2025-04-15"),
    ("the second half of last month", "2025-04-16", "2025-04-30"),
    ("the first half of March 2025", "2025-03-01", "2025-03-15"),
    # bare parts are of this month (without a focus)
    ("下旬", "2025-05-21", "2025-05-31"), ("月末", "2025-05-31", None), ("月初", "2025-05-01", None),
    ("the end of the month", "2025-05-31", None),
])
def test_spans_and_parts(text, start, end):
    assert resolve(text, TODAY) == rng(start, end)
    assert len(find_dates(text, TODAY)) == 1


def test_span_text_includes_made_and_keeps_indices():
    text = "今月頭から昨日までの上位三つ"
    (m,) = find_dates(text, TODAY)
    assert (m.text, m.start_index, m.end_index, m.kind) == ("今月頭から昨日まで", 0, 9, "span")
    assert normalise(text)[m.end_index:] == "の上位3つ"


@pytest.mark.parametrize("today,text,start,end", [
    ("2025-05-18", "this weekend", "2025-05-17", "2025-05-18"),  # Sunday: this week's weekend
    ("2025-05-17", "this weekend", "2025-05-17", "2025-05-18"),  # Saturday
    ("2025-05-18", "last weekend", "2025-05-10", "2025-05-11"),
    ("2025-05-18", "今週末", "2025-05-17", "2025-05-18"), ("2025-05-18", "先週末", "2025-05-10", "2025-05-11"),
    ("2025-01-02", "直近7日", "2024-12-27", "2025-01-02"), ("2024-03-05", "過去7日", "2024-02-28", "2024-03-05"),
    ("2025-03-31", "直近1ヶ月", "2025-03-01", "2025-03-31"), ("2025-03-31", "先月下旬", "2025-02-21", "2025-02-28"),
    ("2025-01-02", "先週末", "2024-12-28", "2024-12-29"),
])
def test_span_edge_cases(today, text, start, end):
    assert resolve(text, D(today)) == rng(start, end)


@pytest.mark.parametrize("text", [
    "毎月末", "20代前半", "前半と後半", "過去最高", "the weekend", "次の月曜", "前の月曜日", "直近3件", "過去の売上",
    "5/40", "13/5", "1万2千円", "一杯",
])
def test_not_spans(text):
    assert find_dates(text, TODAY) == []


# --- kanji numerals -------------------------------------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    ("四月", "4月"), ("十日", "10日"), ("十二月二十五日", "12月25日"), ("三個", "3個"), ("十五本", "15本"),
    ("千円", "1000円"), ("二千五百円", "2500円"), ("一万二千円", "12000円"), ("上位三つ", "上位3つ"),
    ("トップ三", "トップ3"), ("三件", "3件"), ("二ヶ月", "2ヶ月"), ("直近七日", "直近7日"), ("1万2千円", "12000円"),
    ("2千5百円", "2500円"), ("百円", "100円"), ("二〇二五年", "2025年"), ("ワースト五", "ワースト5"),
    ("ベスト十", "ベスト10"), ("下位三品", "下位3品"), ("過去二週間", "過去2週間"), ("ここ三日", "ここ3日"),
    ("キュウリ三本とナス八個", "キュウリ3本とナス8個"), ("卵十個を千五百円で", "卵10個を1500円で"),
    ("三人", "3人"), ("二袋", "2袋"), ("五枚", "5枚"), ("一箱", "1箱"), ("三パック", "3パック"),
    ("１０個", "10個"), ("四月１０日", "4月10日"),
])
def test_kanji_numerals(text, expected):
    assert kanji_to_digits(unicodedata.normalize("NFKC", text)) == expected
    assert normalise(text) == expected


@pytest.mark.parametrize("text", [
    "一番", "一番売れた", "一郎", "三郎", "九州", "一緒に", "一度", "一部", "十分", "一杯", "今月一杯", "一昨日",
    "一昨年", "千葉", "八百屋", "唯一人", "万一", "統一",
])
def test_kanji_numerals_left_alone(text):
    assert normalise(text) == text


def test_kanji_numerals_are_dates_and_indices_refer_to_digits():
    (m,) = find_dates("十二月二十五日の売上", TODAY)
    assert (m.text, m.start_index, m.end_index, m.range) == ("12月25日", 0, 6, rng("2025-12-25"))
    assert resolve("直近七日", TODAY) == rng("2025-05-09", "2025-05-15")
    assert resolve("二〇二五年三月", TODAY) == rng("2025-03-01", "2025-03-31")
    assert normalise(normalise("一万二千円")) == normalise("一万二千円")


# --- impossible dates -----------------------------------------------------------------------------

@pytest.mark.parametrize("text,said,ja,en", [
    ("2025-02-30", "2025-02-30", "2025年2月は28日までです", "February 2025 has only 28 days"),
    ("2025/2/30", "2025/2/30", "2025年2月は28日までです", "February 2025 has only 28 days"),
    ("2月30日", "2月30日", "2025年2月は28日までです", "February 2025 has only 28 days"),
    ("2/30", "2/30", "2025年2月は28日までです", "February 2025 has only 28 days"),
    ("February 30", "February 30", "2025年2月は28日までです", "February 2025 has only 28 days"),
    ("30 February", "30 February", "2025年2月は28日までです", "February 2025 has only 28 days"),
    ("13月", "13月", "13月という月はありません", "there is no month 13"),
    ("4月31日", "4月31日", "2025年4月は30日までです", "April 2025 has only 30 days"),
    ("2025年2月30日", "2025年2月30日", "2025年2月は28日までです", "February 2025 has only 28 days"),
    ("2月29日", "2月29日", "2025年2月は28日までです", "February 2025 has only 28 days"),
    ("二月三十日", "2月30日", "2025年2月は28日までです", "February 2025 has only 28 days"),
    ("4月0日", "4月0日", "0日という日はありません", "there is no day 0"),
    ("2025-13-01", "2025-13-01", "13月という月はありません", "there is no month 13"),
])
def test_impossible_dates(text, said, ja, en):
    for sentence in (text, f"{text}の売上", f"register a sale on {text} please"):
        assert find_dates(sentence, TODAY) == []
        assert resolve(sentence, TODAY) is None
        (bad,) = impossible_dates(sentence, TODAY)
        assert bad.text == said and normalise(sentence)[bad.start:bad.end] == said
        assert (bad.reason("ja"), bad.reason("en")) == (ja, en)


def test_impossible_date_next_to_valid_ones():
    text = "2025-02-30から3月5日まで"
    assert [m.text for m in find_dates(text, TODAY)] == ["3月5日"]
    assert [b.text for b in impossible_dates(text, TODAY)] == ["2025-02-30"]
    assert impossible_dates("2024/2/29と4/10", TODAY) == []
    assert impossible_dates("在庫5/40、13/5", TODAY) == []


# --- follow-ups relative to the period in focus ---------------------------------------------------

FOCUS_WEEK = rng("2025-05-05", "2025-05-11")  # 先週 of the previous turn
FOCUS_MONTH = rng("2025-08-01", "2025-08-31")
FOCUS_DAY = rng("2025-05-06")


@pytest.mark.parametrize("text,focus,start,end", [
    ("その前の週は？", FOCUS_WEEK, "2025-04-28", "2025-05-04"), ("前の週は？", FOCUS_WEEK, "2025-04-28", "2025-05-04"),
    ("前週は？", FOCUS_WEEK, "2025-04-28", "2025-05-04"),
    ("and the week before that?", FOCUS_WEEK, "2025-04-28", "2025-05-04"),
    ("the week before?", FOCUS_WEEK, "2025-04-28", "2025-05-04"),
    ("the previous week", FOCUS_WEEK, "2025-04-28", "2025-05-04"),
    ("翌週は？", FOCUS_WEEK, "2025-05-12", "2025-05-18"), ("次の週", FOCUS_WEEK, "2025-05-12", "2025-05-18"),
    ("その次の週", FOCUS_WEEK, "2025-05-12", "2025-05-18"), ("the week after", FOCUS_WEEK, "2025-05-12", "2025-05-18"),
    ("the next week?", FOCUS_WEEK, "2025-05-12", "2025-05-18"),
    ("その前の月は？", FOCUS_MONTH, "2025-07-01", "2025-07-31"), ("前の月", FOCUS_MONTH, "2025-07-01", "2025-07-31"),
    ("前月", FOCUS_MONTH, "2025-07-01", "2025-07-31"), ("翌月", FOCUS_MONTH, "2025-09-01", "2025-09-30"),
    ("次の月", FOCUS_MONTH, "2025-09-01", "2025-09-30"), ("the month before", FOCUS_MONTH, "2025-07-01", "2025-07-31"),
    ("the month after that", FOCUS_MONTH, "2025-09-01", "2025-09-30"),
    ("the next month", FOCUS_MONTH, "2025-09-01", "2025-09-30"),
    ("その前日", FOCUS_DAY, "2025-05-05", None), ("前日は？", FOCUS_DAY, "2025-05-05", None),
    ("翌日", FOCUS_DAY, "2025-05-07", None), ("the day before", FOCUS_DAY, "2025-05-05", None),
    ("the next day", FOCUS_DAY, "2025-05-07", None),
    ("前の月", FOCUS_WEEK, "2025-04-01", "2025-04-30"),  # the month before the week's month
    ("下旬は？", FOCUS_MONTH, "2025-08-21", "2025-08-31"), ("月末は？", FOCUS_MONTH, "2025-08-31", None),
    ("先週は？", FOCUS_MONTH, "2025-05-05", "2025-05-11"),  # absolute words stay relative to today
    ("8月は？", FOCUS_WEEK, "2025-08-01", "2025-08-31"),
])
def test_follow_ups_move_from_the_focus(text, focus, start, end):
    assert resolve(text, TODAY, focus) == rng(start, end)
    assert [m.range for m in find_dates(text, TODAY, focus=focus)] == [rng(start, end)]


@pytest.mark.parametrize("text,expected", [
    ("前の週", ("2025-05-05", "2025-05-11")), ("前週", ("2025-04-28", "2025-05-04")),
    ("the week before", ("2025-04-28", "2025-05-04")), ("the next week", ("2025-05-19", "2025-05-25")),
    ("前の月", ("2025-04-01", "2025-04-30")), ("前月", ("2025-03-01", "2025-03-31")),
    ("翌週", None), ("the week after", None), ("翌日", None), ("the next day", None),
])
def test_follow_up_words_without_a_focus(text, expected):
    assert resolve(text, TODAY) == (rng(*expected) if expected else None)


def test_an_earlier_period_in_the_text_wins_over_the_focus():
    matches = find_dates("先月と前月を比べて", TODAY, focus=FOCUS_MONTH)
    assert [m.range for m in matches] == [rng("2025-04-01", "2025-04-30"), rng("2025-03-01", "2025-03-31")]
    matches = find_dates("先週と翌週", TODAY)
    assert [m.range for m in matches] == [rng("2025-05-05", "2025-05-11"), rng("2025-05-12", "2025-05-18")]


@pytest.mark.parametrize("text,expected", [
    ("Show customer 0009's sales in 2024", ("2024-01-01", "2024-12-31")),
    ("sales for 2023.", ("2023-01-01", "2023-12-31")),
    ("from 2023 to 2024", ("2023-01-01", "2024-12-31")),
    ("3 pumpkins for 2000 yen", None), ("customer 2024", None), ("in 2024.5", None), ("for 2,024 yen", None),
])
def test_english_bare_year_after_a_preposition(text, expected):
    assert resolve(text, TODAY) == (rng(*expected) if expected else None)


@pytest.mark.parametrize("text", ["六本木", "四日市", "三日月", "東京都港区六本木1-2"])
def test_place_names_keep_their_numerals(text):
    assert normalise(text) == text


@pytest.mark.parametrize("text,parts", [
    ("8月の後半と前半を比べて", [("2026-08-16", "2026-08-31"), ("2026-08-01", "2026-08-15")]),
    ("先月の上旬と下旬", [("2026-07-01", "2026-07-10"), ("2026-07-21", "2026-07-31")]),
])
def test_a_part_said_after_a_part_of_a_month_is_of_that_month(text, parts):
    found = [(d.range.start.isoformat(), d.range.end.isoformat()) for d in find_dates(text, date(2026, 8, 31))]
    assert found == parts


@pytest.mark.parametrize("text,span", [
    ("8月10日から20日までの弁当の売上", ("2026-08-10", "2026-08-20")),
    ("8月10〜20日", ("2026-08-10", "2026-08-20")),
])
def test_a_day_to_a_later_day_of_the_same_month_is_one_span(text, span):
    [found] = find_dates(text, date(2026, 8, 31))
    assert (found.range.start.isoformat(), found.range.end.isoformat()) == span


def test_a_span_to_a_day_the_month_does_not_have_is_refused_whole():
    assert find_dates("2月10日から30日まで", date(2026, 8, 31)) == []
    [bad] = impossible_dates("2月10日から30日まで", date(2026, 8, 31))
    assert (bad.month, bad.day) == (2, 30)
