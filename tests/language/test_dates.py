"""Tests for concierge.language.dates against spec/dates.md (today = 2025-05-15 unless stated)."""
from datetime import date, timedelta

import pytest

from concierge.language.dates import DateMatch, DateRange, find_dates, normalise, resolve

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
    "火曜日の売上", "15日", "今年度", "昨年度", "第4月曜日", "10:30", "3.5/10", "this weekend", "",
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
