"""Periods in words and dates (concierge.language.spoken) for every row of spec/dates.md."""
import re
from datetime import date

import pytest

from concierge.language.dates import resolve
from concierge.language.spoken import day, period

TODAY = date(2025, 5, 15)  # Thursday, the clock of the spec tables
D = date.fromisoformat

# (spec expression, start, end, Japanese words, English words), today = 2025-05-15
SPEC_ROWS = [
    ("今日", "2025-05-15", "2025-05-15", "今日（5/15）", "today (May 15)"),
    ("昨日", "2025-05-14", "2025-05-14", "昨日（5/14）", "yesterday (May 14)"),
    ("一昨日", "2025-05-13", "2025-05-13", "一昨日（5/13）", "the day before yesterday (May 13)"),
    ("今週", "2025-05-12", "2025-05-18", "今週（5/12〜5/18）", "this week (May 12–18)"),
    ("先週", "2025-05-05", "2025-05-11", "先週（5/5〜5/11）", "last week (May 5–11)"),
    ("先々週", "2025-04-28", "2025-05-04", "先々週（4/28〜5/4）", "the week before last (Apr 28 – May 4)"),
    ("先週火曜日", "2025-05-06", "2025-05-06", "5/6（火）", "Tue, May 6"),
    ("今週の月曜日", "2025-05-12", "2025-05-12", "5/12（月）", "Mon, May 12"),
    ("今月", "2025-05-01", "2025-05-31", "今月（5/1〜5/31）", "this month (May 1–31)"),
    ("先月", "2025-04-01", "2025-04-30", "先月（4/1〜4/30）", "last month (Apr 1–30)"),
    ("先々月", "2025-03-01", "2025-03-31", "3月", "March 2025"),
    ("先月と今月", "2025-04-01", "2025-05-31", "先月と今月（4/1〜5/31）",
     "last month and this month (Apr 1 – May 31)"),
    ("3月", "2025-03-01", "2025-03-31", "3月", "March 2025"),
    ("4月10日", "2025-04-10", "2025-04-10", "4/10（木）", "Thu, Apr 10"),
    ("今年", "2025-01-01", "2025-12-31", "今年（2025年）", "this year (2025)"),
    ("去年", "2024-01-01", "2024-12-31", "去年（2024年）", "last year (2024)"),
]

# "Spans, parts and context", same clock
SPAN_ROWS = [
    ("今月頭から昨日まで", "2025-05-01", "2025-05-14", "今月頭から昨日まで（5/1〜5/14）",
     "from the start of this month to yesterday (May 1–14)"),
    ("先週の月曜から水曜まで", "2025-05-05", "2025-05-07", "先週月曜〜水曜（5/5〜5/7）",
     "Monday to Wednesday last week (May 5–7)"),
    ("先週末", "2025-05-10", "2025-05-11", "先週末（5/10〜5/11）", "last weekend (May 10–11)"),
    ("直近7日", "2025-05-09", "2025-05-15", "直近7日（5/9〜5/15）", "the last 7 days (May 9–15)"),
    ("四月", "2025-04-01", "2025-04-30", "先月（4/1〜4/30）", "last month (Apr 1–30)"),
    ("十日", "2025-05-10", "2025-05-10", "5/10（土）", "Sat, May 10"),
    ("上旬", "2025-05-01", "2025-05-10", "今月上旬（5/1〜5/10）", "early May (May 1–10)"),
    ("中旬", "2025-05-11", "2025-05-20", "今月中旬（5/11〜5/20）", "mid-May (May 11–20)"),
    ("下旬", "2025-04-21", "2025-04-30", "先月下旬（4/21〜4/30）", "late April (Apr 21–30)"),
    ("前半", "2025-05-01", "2025-05-15", "今月前半（5/1〜5/15）", "the first half of May (May 1–15)"),
    ("後半", "2025-03-16", "2025-03-31", "3月後半（3/16〜3/31）", "the second half of March (Mar 16–31)"),
    ("その前の週", "2025-04-21", "2025-04-27", "4/21〜4/27", "Apr 21–27"),
]


@pytest.mark.parametrize(("said", "start", "end", "ja", "en"), SPEC_ROWS + SPAN_ROWS)
def test_every_spec_row_reads_in_both_languages(said, start, end, ja, en):
    assert period(D(start), D(end), TODAY, "ja") == ja, said
    assert period(D(start), D(end), TODAY, "en") == en, said


@pytest.mark.parametrize(("said", "start", "end", "ja", "en"), SPEC_ROWS + SPAN_ROWS)
def test_the_dates_shown_are_the_period_used(said, start, end, ja, en):
    shown = re.search(r"（([^）]*[/年][^）]*)）$", ja)  # 先週（5/5〜5/11）, 今年（2025年）; else 5/6（火）, 3月
    dates = shown.group(1) if shown else re.sub(r"（.）$", "", ja)
    rng = resolve(dates, TODAY)
    assert rng is not None and (rng.start, rng.end) == (D(start), D(end)), ja


@pytest.mark.parametrize(("said", "start", "end", "ja", "en"), SPEC_ROWS)
def test_the_words_resolve_back_to_the_same_period(said, start, end, ja, en):
    for lang in ("ja", "en"):
        rng = resolve(period(D(start), D(end), TODAY, lang), TODAY)
        assert rng is not None and (rng.start, rng.end) == (D(start), D(end)), (said, lang)


def test_comparison_periods_of_the_spec_read_as_words():
    today = date(2026, 8, 31)  # Monday
    assert period(D("2026-08-24"), D("2026-08-30"), today, "ja") == "先週（8/24〜8/30）"
    assert period(D("2026-08-17"), D("2026-08-23"), today, "ja") == "先々週（8/17〜8/23）"
    assert period(D("2026-07-01"), D("2026-08-31"), today, "en") == "last month and this month (Jul 1 – Aug 31)"


@pytest.mark.parametrize(("start", "end", "today", "ja", "en"), [
    ("2024-12-30", "2025-01-05", "2025-05-15", "2024/12/30〜2025/1/5", "Dec 30, 2024 – Jan 5, 2025"),
    ("2024-12-30", "2025-01-05", "2025-01-02", "今週（2024/12/30〜2025/1/5）",
     "this week (Dec 30, 2024 – Jan 5, 2025)"),
    ("2024-12-23", "2024-12-29", "2025-01-02", "先週（2024/12/23〜12/29）", "last week (Dec 23–29, 2024)"),
    ("2024-12-01", "2024-12-31", "2025-05-15", "2024年12月", "December 2024"),
    ("2024-12-01", "2024-12-31", "2025-01-10", "先月（2024/12/1〜12/31）", "last month (Dec 1–31, 2024)"),
    ("2024-11-01", "2025-01-31", "2025-05-15", "2024年11月〜2025年1月", "November 2024 – January 2025"),
    ("2023-01-01", "2023-12-31", "2025-05-15", "2023年", "2023"),
    ("2024-05-10", "2024-05-10", "2025-05-15", "2024/5/10（金）", "Fri, May 10, 2024"),
])
def test_other_years_keep_the_year(start, end, today, ja, en):
    assert period(D(start), D(end), D(today), "ja") == ja
    assert period(D(start), D(end), D(today), "en") == en


@pytest.mark.parametrize(("start", "end", "ja", "en"), [
    ("2025-05-01", "2025-05-15", "今月前半（5/1〜5/15）", "the first half of May (May 1–15)"),
    ("2025-05-12", "2025-05-15", "今週月曜〜木曜（5/12〜5/15）", "Monday to Thursday this week (May 12–15)"),
    ("2025-05-01", "2025-05-13", "5/1〜5/13", "May 1–13"),
    ("2025-04-25", "2025-05-15", "直近21日（4/25〜5/15）", "the last 21 days (Apr 25 – May 15)"),
    ("2025-05-16", "2025-05-16", "明日（5/16）", "tomorrow (May 16)"),
    ("2025-05-19", "2025-05-25", "来週（5/19〜5/25）", "next week (May 19–25)"),
    ("2025-05-17", "2025-05-18", "今週末（5/17〜5/18）", "this weekend (May 17–18)"),
    ("2025-02-01", "2025-03-31", "2月〜3月", "February–March 2025"),
])
def test_other_common_periods(start, end, ja, en):
    assert period(D(start), D(end), TODAY, "ja") == ja
    assert period(D(start), D(end), TODAY, "en") == en


def test_a_day_is_its_date_with_the_year_only_when_another_year():
    assert day(D("2025-05-10"), TODAY, "ja") == "5/10"
    assert day(D("2025-05-10"), TODAY, "en") == "May 10"
    assert day(D("2024-12-30"), TODAY, "ja") == "2024/12/30"
    assert day(D("2024-12-30"), TODAY, "en") == "Dec 30, 2024"


def test_a_reversed_period_is_an_error():
    with pytest.raises(ValueError):
        period(D("2025-05-11"), D("2025-05-05"), TODAY, "ja")
