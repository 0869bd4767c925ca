"""Periods and days in words and dates, the way shop staff say them (Japanese and English).

An answer restates the period it used, so a person can check it at a glance:
「先週（5/5〜5/11）」, 「昨日（5/14）」, 「3月」, "last week (May 5–11)", "March 2025".
The words follow docs/dates.md read backwards, relative to the configured clock ("today"):

* one day: 今日 / 昨日 / 一昨日 / 明日 with the date; any other day as its date and weekday
  (5/6（火）, Tue, May 6).
* a Monday–Sunday week: 今週 / 先週 / 先々週 / 来週 with the dates; its Saturday and Sunday:
  先週末 / 今週末 / 来週末; weekdays inside such a week: 先週月曜〜水曜（5/5〜5/7）.
* whole months: 今月 / 先月 / 来月 with the dates, any other month by name (3月, 2024年12月;
  in English always with its year, March 2025); 先月と今月 with the dates; several months 2月〜3月,
  February–March 2025; a whole year 今年（2025年）, 2023年.
* parts of a month: 上旬 / 中旬 / 下旬 (1–10 / 11–20 / 21–end), 前半 / 後半 (1–15 / 16–end).
* 今月頭から昨日まで / 今月頭から今日まで; N days ending today: 直近7日（5/9〜5/15）.
* anything else as its dates: 4/21〜5/3, Apr 21 – May 3.

Dates leave out the year when it is the current one; other years keep it
(2024/12/30〜2025/1/5, Dec 30, 2024 – Jan 5, 2025).

Things said aloud besides periods (the phone, `concierge.web.phone.speech`): a list of items as one
phrase (`listing`: 唐揚げ弁当、のり弁当ほか3件 / karaage bento, nori bento and 3 more) and a price in yen
(`yen`: 150円 / 150 yen).
"""

from __future__ import annotations

import calendar
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

_JA_WEEKDAYS = "月火水木金土日"
_EN_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_EN_MONTHS = tuple(calendar.month_name)  # index 1..12
_EN_MONTHS_SHORT = tuple(calendar.month_abbr)

# offset from the period containing today -> (ja, en)
_DAY_WORDS = {0: ("今日", "today"), -1: ("昨日", "yesterday"), -2: ("一昨日", "the day before yesterday"),
              1: ("明日", "tomorrow")}
_WEEK_WORDS = {0: ("今週", "this week"), -1: ("先週", "last week"), -2: ("先々週", "the week before last"),
               1: ("来週", "next week")}
_WEEKEND_WORDS = {0: ("今週末", "this weekend"), -1: ("先週末", "last weekend"),
                  -2: ("先々週末", "the weekend before last"), 1: ("来週末", "next weekend")}
_MONTH_WORDS = {0: ("今月", "this month"), -1: ("先月", "last month"), 1: ("来月", "next month")}
_YEAR_WORDS = {0: ("今年", "this year"), -1: ("去年", "last year"), 1: ("来年", "next year")}
# (first day, last day or None for the month's end) -> (ja suffix, en pattern for the month name)
_MONTH_PARTS = {(1, 10): ("上旬", "early {m}"), (11, 20): ("中旬", "mid-{m}"), (21, None): ("下旬", "late {m}"),
                (1, 15): ("前半", "the first half of {m}"), (16, None): ("後半", "the second half of {m}")}


@dataclass(frozen=True)
class _Span:
    """The period to put into words, with the clock and the language."""

    start: date
    end: date
    today: date
    ja: bool

    def pick(self, words: tuple[str, str]) -> str:
        return words[0] if self.ja else words[1]

    def with_dates(self, words: str) -> str:
        dates = _dates(self.start, self.end, self.today, self.ja)
        return f"{words}（{dates}）" if self.ja else f"{words} ({dates})"


def day(d: date, today: date, lang: str) -> str:
    """A day as a date: 5/10 or May 10, with the year when it is not today's year."""
    if lang == "ja":
        return f"{d.month}/{d.day}" if d.year == today.year else f"{d.year}/{d.month}/{d.day}"
    text = f"{_EN_MONTHS_SHORT[d.month]} {d.day}"
    return text if d.year == today.year else f"{text}, {d.year}"


def dates(start: date, end: date, today: date, lang: str) -> str:
    """A period as its dates only: 5/5〜5/11, May 5–11 (one day as day())."""
    return _dates(start, end, today, lang == "ja")


def period(start: date, end: date, today: date, lang: str) -> str:
    """A period (inclusive on both ends) in words and dates, relative to today, in `lang` (ja / en)."""
    if end < start:
        raise ValueError(f"end {end} is before start {start}")
    span = _Span(start, end, today, lang == "ja")
    for rule in _RULES:
        text = rule(span)
        if text is not None:
            return text
    return _dates(start, end, today, span.ja)


LISTED = 5  # items named in a listing; the rest are counted


def listing(names: Sequence[str], lang: str, shown: int = LISTED) -> str:
    """Items as one phrase: 「A、B、C」, "A, B and C"; more than `shown`, the first `shown` and how many
    more: 「A、B、C、D、Eほか3件」, "A, B, C, D, E and 3 more"."""
    named, more = list(names[:shown]), max(len(names) - shown, 0)
    if lang == "ja":
        return "、".join(named) + (f"ほか{more}件" if more else "")
    if more:
        return f"{', '.join(named)} and {more} more"
    if len(named) <= 1:
        return "".join(named)
    return f"{', '.join(named[:-1])} and {named[-1]}"


def yen(amount: int | str, lang: str) -> str:
    """A price as it is said: 150円, 1,380円; 150 yen."""
    return f"{amount}円" if lang == "ja" else f"{amount} yen"


# --- dates --------------------------------------------------------------------------------------

def _dates(start: date, end: date, today: date, ja: bool) -> str:
    if start == end:
        return day(start, today, "ja" if ja else "en")
    if ja:
        last = f"{end.month}/{end.day}" if end.year == start.year else f"{end.year}/{end.month}/{end.day}"
        return f"{day(start, today, 'ja')}〜{last}"
    if start.year != end.year:
        return f"{day(start, date.min, 'en')} – {day(end, date.min, 'en')}"
    suffix = "" if start.year == today.year else f", {start.year}"
    if start.month == end.month:
        return f"{_EN_MONTHS_SHORT[start.month]} {start.day}–{end.day}{suffix}"
    return f"{_EN_MONTHS_SHORT[start.month]} {start.day} – {_EN_MONTHS_SHORT[end.month]} {end.day}{suffix}"


def _monday(d: date) -> date:
    return d - timedelta(days=d.weekday())


def _weeks_from_today(span: _Span) -> int:
    return (_monday(span.start) - _monday(span.today)).days // 7


def _months_from_today(d: date, today: date) -> int:
    return (d.year - today.year) * 12 + d.month - today.month


def _month_end(d: date) -> int:
    return calendar.monthrange(d.year, d.month)[1]


def _month_name(d: date, today: date, ja: bool) -> str:
    if ja:
        return f"{d.month}月" if d.year == today.year else f"{d.year}年{d.month}月"
    return _EN_MONTHS[d.month] if d.year == today.year else f"{_EN_MONTHS[d.month]} {d.year}"


# --- rules, first match wins ----------------------------------------------------------------------

def _one_day(span: _Span) -> str | None:
    if span.start != span.end:
        return None
    words = _DAY_WORDS.get((span.start - span.today).days)
    if words is not None:
        return span.with_dates(span.pick(words))
    d = span.start
    if span.ja:
        return f"{day(d, span.today, 'ja')}（{_JA_WEEKDAYS[d.weekday()]}）"
    return f"{_EN_WEEKDAYS[d.weekday()][:3]}, {day(d, span.today, 'en')}"


def _whole_week(span: _Span) -> str | None:
    if span.start.weekday() != 0 or (span.end - span.start).days != 6:
        return None
    words = _WEEK_WORDS.get(_weeks_from_today(span))
    return span.with_dates(span.pick(words)) if words else None


def _weekend(span: _Span) -> str | None:
    if span.start.weekday() != 5 or (span.end - span.start).days != 1:
        return None
    words = _WEEKEND_WORDS.get(_weeks_from_today(span))
    return span.with_dates(span.pick(words)) if words else None


def _weekdays_in_week(span: _Span) -> str | None:
    if _monday(span.start) != _monday(span.end) or span.start == span.end:
        return None
    words = _WEEK_WORDS.get(_weeks_from_today(span))
    if words is None:
        return None
    a, b = span.start.weekday(), span.end.weekday()
    if span.ja:
        return span.with_dates(f"{words[0]}{_JA_WEEKDAYS[a]}曜〜{_JA_WEEKDAYS[b]}曜")
    return span.with_dates(f"{_EN_WEEKDAYS[a]} to {_EN_WEEKDAYS[b]} {words[1]}")


def _whole_months(span: _Span) -> str | None:
    start, end, today = span.start, span.end, span.today
    if start.day != 1 or end.day != _month_end(end):
        return None
    first, last = _months_from_today(start, today), _months_from_today(end, today)
    if first == last:
        words = _MONTH_WORDS.get(first)
        if words:
            return span.with_dates(span.pick(words))
        return _month_name(start, today, True) if span.ja else f"{_EN_MONTHS[start.month]} {start.year}"
    if (first, last) == (-1, 0):
        return span.with_dates(span.pick(("先月と今月", "last month and this month")))
    if start.month == 1 and end.month == 12 and start.year == end.year:
        return _whole_year(span)
    return _month_range(span)


def _whole_year(span: _Span) -> str:
    year = span.start.year
    words = _YEAR_WORDS.get(year - span.today.year)
    if words is None:
        return f"{year}年" if span.ja else str(year)
    return f"{words[0]}（{year}年）" if span.ja else f"{words[1]} ({year})"


def _month_range(span: _Span) -> str:
    start, end, today = span.start, span.end, span.today
    if span.ja:
        last = f"{end.month}月" if end.year == start.year else f"{end.year}年{end.month}月"
        return f"{_month_name(start, today, True)}〜{last}"
    if start.year != end.year:
        return f"{_EN_MONTHS[start.month]} {start.year} – {_EN_MONTHS[end.month]} {end.year}"
    return f"{_EN_MONTHS[start.month]}–{_EN_MONTHS[end.month]} {start.year}"


def _month_part(span: _Span) -> str | None:
    start, end, today = span.start, span.end, span.today
    if (start.year, start.month) != (end.year, end.month):
        return None
    last = None if end.day == _month_end(end) else end.day
    part = _MONTH_PARTS.get((start.day, last))
    if part is None:
        return None
    if span.ja:
        words = _MONTH_WORDS.get(_months_from_today(start, today))
        return span.with_dates((words[0] if words else _month_name(start, today, True)) + part[0])
    return span.with_dates(part[1].format(m=_month_name(start, today, False)))


def _month_to_date(span: _Span) -> str | None:
    start, end, today = span.start, span.end, span.today
    if start.day != 1 or (start.year, start.month) != (today.year, today.month) or start == end:
        return None
    if end == today:
        return span.with_dates(span.pick(("今月頭から今日まで", "from the start of this month to today")))
    if end == today - timedelta(days=1):
        return span.with_dates(span.pick(("今月頭から昨日まで", "from the start of this month to yesterday")))
    return None


def _last_days(span: _Span) -> str | None:
    if span.end != span.today or span.start == span.end:
        return None
    n = (span.end - span.start).days + 1
    return span.with_dates(f"直近{n}日" if span.ja else f"the last {n} days")


_RULES: tuple[Callable[[_Span], str | None], ...] = (
    _one_day, _whole_week, _weekend, _weekdays_in_week, _whole_months, _month_part, _month_to_date,
    _last_days,
)
