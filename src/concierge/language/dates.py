"""Resolve relative date expressions (Japanese and English) against a configured "today".

The conventions are those of docs/dates.md; every component must resolve dates the same way:

* All ranges are inclusive on both ends. Weeks run Monday to Sunday.
* 今週 / this week, 今月 / this month, 今年 / this year are the whole calendar period,
  future days included. 先週 / 前の週 / last week is the Monday-Sunday week before this week.
* A weekday after a week word (先週火曜日, 先週の火曜, 先週火, Tuesday last week,
  Tuesday of last week, last week's Tuesday) is that day inside that week; a weekday range
  (先週の月曜から水曜まで, 今週の月〜水, Monday to Wednesday last week) is those days of that week, and
  先週末 / 先週の土日 / last weekend is Saturday and Sunday of that week.
  English "last Tuesday" is the most recent Tuesday strictly before today, "next Tuesday" the
  first one strictly after today, "this Tuesday" the Tuesday of this week.
* N日前 / 3 weeks ago / 2ヶ月前 / two months ago / 3年前 are the calendar period N periods back
  (two months ago = 先々月). 直近7日 / 過去2週間 / ここ7日間 / the last 7 days / the past two weeks are
  the N days (weeks, months) ending today, today included.
* A month or day without a year (3月, March, 4月10日, 4/10, April 10) is in the current year.
* Parts of any month expression: 上旬 1-10, 中旬 11-20, 下旬 21-end, 前半 1-15, 後半 16-end
  (先月下旬, 8月上旬, 今月の前半, early / mid / late August, the first / second half of last month);
  頭 / 初め / the start of is its first day, 末 / the end of its last day. Bare 月初, 月末, 上旬, ... are
  of the month in focus, else of this month. A start point followed by から / after "from" or
  "since" with no end (月初から, from the beginning of last month) runs to today; an end point
  after nothing but before まで (月末まで) runs from today.
* Comparison words 前週 / 前月 / 前日 / 前年, その前の週, "the week before (that)", "the previous
  month", ... mean the period just before the latest earlier expression of the same kind in the
  text; with none, just before the period in focus; with no focus, just before the last complete
  one (先週, 先月, 昨日, 去年). So in 先週のXを前週と比べて, 前週 is the week before 先週.
  翌週 / 次の週 / その次の月 / 翌日 / "the week after (that)" / "the next day" mean the period just
  after that reference, and are not read with neither. With a focus, 前の週 / 前の月 / 前の日 and
  "the next week / month" also move from the focus; without one they keep their today-relative
  meaning (前の週 = last week, the next week = next week).
* find_dates() joins explicit ranges into one 'span' match: XからY(まで), X〜Y, X through Y,
  from X to Y, between X and Y, 先月と今月の2ヶ月間 — from X's first day to Y's last day. A plain
  今月と先月 / "X and Y" stays two matches (a comparison); resolve() joins such a pair into one
  range when the two periods are of the same kind and touch.
* Impossible dates (2025-02-30, 2/30, 2月30日, February 30, 13月, 4月31日) are never read as
  another date nor as a shorter valid one inside them (2月30日 is not 2月): find_dates() skips
  them and impossible_dates() reports them with a reason.
* Numbers glued to digits or letters (S20250422101931, customer 0009, 1800円, 2ヶ月間) are not
  dates; bare weekdays (火曜日), bare day numbers (15日) and fiscal years (今年度) are not read.
  The English month "May" alone counts only when capitalised after a preposition ("in May").
* Known limits: a bare fraction such as 1/2 reads as January 2 (m/d, current year).
* Indices in DateMatch and Impossible refer to the normalise()d text (NFKC: full-width digits
  become ASCII; kanji numerals before a counter become digits: 四月 → 4月, 千円 → 1000円).
"""
from __future__ import annotations

import bisect
import calendar
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache

from concierge.language.numerals import kanji_to_digits
from concierge.language.plain import plain

ONE_DAY = timedelta(days=1)


@dataclass(frozen=True)
class DateRange:
    start: date
    end: date  # inclusive

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise ValueError(f"end {self.end} is before start {self.start}")

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1

    def previous(self) -> DateRange:
        """The period of the same kind just before this one.

        Whole calendar months (one month, several months, a year) move back by as many whole
        months; anything else (a day, a week, any span) moves back by its number of days.
        """
        s, e = self.start, self.end
        if s.day == 1 and (e + ONE_DAY).day == 1:
            months = (e.year - s.year) * 12 + e.month - s.month + 1
            return DateRange(_month(s.year, s.month - months).start, s - ONE_DAY)
        return DateRange(s - timedelta(days=self.days), s - ONE_DAY)

    def __str__(self) -> str:
        if self.start == self.end:
            return self.start.isoformat()
        return f"{self.start.isoformat()}..{self.end.isoformat()}"


@dataclass(frozen=True)
class DateMatch:
    range: DateRange
    text: str  # the matched substring of the normalised input
    start_index: int
    end_index: int
    kind: str  # 'day' | 'week' | 'month' | 'year' | 'span' (several days: spans, weekends, parts of a month)


@dataclass(frozen=True)
class Impossible:
    """A date the user wrote that does not exist (2025-02-30, 13月): to be refused, never replaced."""

    text: str  # the substring of the normalised input
    start: int
    end: int
    year: int
    month: int
    day: int | None  # None for a month alone (13月)

    def reason(self, lang: str) -> str:
        """A short reason in "ja" or "en": 「2025年2月は28日までです」 / "February 2025 has only 28 days"."""
        ja = lang == "ja"
        if not 1 <= self.month <= 12:
            return f"{self.month}月という月はありません" if ja else f"there is no month {self.month}"
        if self.day is not None and self.day < 1:
            return f"{self.day}日という日はありません" if ja else f"there is no day {self.day}"
        last = calendar.monthrange(self.year, self.month)[1]
        if ja:
            return f"{self.year}年{self.month}月は{last}日までです"
        return f"{calendar.month_name[self.month]} {self.year} has only {last} days"


@lru_cache(maxsize=4096)
def normalise(text: str) -> str:
    """NFKC-normalise (full-width digits and punctuation to ASCII, half-width kana to full-width), write
    colloquial forms plainly (ふたつ → 2つ, 消しといて → 消して: language/plain.py), then kanji numerals that
    count, date or price something in digits (四月 → 4月, 三個 → 3個)."""
    return kanji_to_digits(plain(unicodedata.normalize("NFKC", text)))


# --- period arithmetic ------------------------------------------------------------------------

def _day(d: date) -> DateRange:
    return DateRange(d, d)


def _week(d: date) -> DateRange:
    monday = d - timedelta(days=d.weekday())
    return DateRange(monday, monday + timedelta(days=6))


def _month(year: int, month: int) -> DateRange:
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    return DateRange(date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1]))


def _year(year: int) -> DateRange:
    return DateRange(date(year, 1, 1), date(year, 12, 31))


def _shift(kind: str, today: date, n: int) -> DateRange:
    """The period of `kind` that is n periods from the one containing today."""
    if kind == "day":
        return _day(today + timedelta(days=n))
    if kind == "week":
        return _week(today + timedelta(weeks=n))
    if kind == "month":
        return _month(today.year, today.month + n)
    return _year(today.year + n)


def _step(kind: str, period: DateRange, step: int) -> DateRange:
    """The period of `kind` just before (step -1) or just after (step 1) `period`."""
    if kind == "day":
        return _day(period.start - ONE_DAY if step < 0 else period.end + ONE_DAY)
    ref = period.start if step < 0 else period.end
    if kind == "week":
        return _week(ref + timedelta(weeks=step))
    if kind == "month":
        return _month(ref.year, ref.month + step)
    return _year(ref.year + step)


def _months_back(d: date, n: int) -> date:
    """The same day n months before d (the month's last day where it has fewer days)."""
    month = _month(d.year, d.month - n)
    return month.start.replace(day=min(d.day, month.end.day))


# --- what a rule finds ----------------------------------------------------------------------------

@dataclass(frozen=True)
class _Period:
    kind: str
    range: DateRange
    point: str = ""  # 'start' (今月頭) / 'end' (月末): a point that can open a span to or from today


@dataclass(frozen=True)
class _Relative:
    """前週, 翌月, the week before (that): a period next to a reference resolved in context."""

    kind: str
    step: int  # -1 before the reference, 1 after it
    fixed: DateRange | None = None  # the reading without a focus (前の週 = last week)
    anchored: bool = True  # an earlier period of the same kind in the text is the reference


@dataclass(frozen=True)
class _Part:
    """A bare part of a month (月末, 下旬, the end of the month): of the month in focus, else this one."""

    part: str


@dataclass(frozen=True)
class _Bad:
    year: int
    month: int
    day: int | None


_Found = _Period | _Relative | _Part | _Bad
_RuleFn = Callable[[re.Match[str], date], _Found | None]


# --- vocabulary ---------------------------------------------------------------------------------

_FIXED = {phrase: (kind, n) for kind, n, phrases in [  # n: offset from the period containing today
    ("day", 0, "今日|本日|きょう|today"), ("day", -1, "昨日|きのう|yesterday"), ("day", 1, "明日|あした|tomorrow"),
    ("day", -2, "一昨日|おととい|おとつい|the day before yesterday"),
    ("day", 2, "明後日|あさって|the day after tomorrow"),
    ("week", 0, "今週|this week"), ("week", -1, "先週|last week"), ("week", 1, "来週|next week"),
    ("week", -2, "先々週|the week before last"), ("week", 2, "再来週|the week after next"),
    ("month", 0, "今月|this month"), ("month", -1, "先月|last month"), ("month", 1, "来月|next month"),
    ("month", -2, "先々月|the month before last"), ("month", 2, "再来月|the month after next"),
    ("year", 0, "今年|本年|this year"), ("year", -1, "去年|昨年|last year"), ("year", 1, "来年|next year"),
    ("year", -2, "一昨年|the year before last"), ("year", 2, "再来年|the year after next"),
] for phrase in phrases.split("|")}
_JA_PREVIOUS = {"前日": "day", "前週": "week", "前月": "month", "前年": "year"}
_JA_NEXT = {"翌日": "day", "翌週": "week", "翌月": "month", "翌年": "year"}
_JA_KIND = {"日": "day", "週": "week", "月": "month", "年": "year"}
_JA_UNITS = {"日": "day", "週": "week", "週間": "week", "月": "month", "年": "year"}
_EN_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
               "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_JA_WEEKDAYS = "月火水木金土日"
_EN_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_EN_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_JA_WEEK_WORDS = {"先々週": -2, "先週": -1, "前の週": -1, "今週": 0, "来週": 1, "再来週": 2}
_JA_YEAR_WORDS = {"一昨年": -2, "去年": -1, "昨年": -1, "今年": 0, "本年": 0, "来年": 1, "再来年": 2}
_EN_WEEK_WORDS = {"last": -1, "this": 0, "next": 1}
# Parts of a month: (first day, last day); days past the month's end are its last day.
_PART_DAYS = {"early": (1, 10), "mid": (11, 20), "late": (21, 31), "first half": (1, 15),
              "second half": (16, 31), "start": (1, 1), "end": (31, 31)}
_PART_WORDS = {"上旬": "early", "初旬": "early", "中旬": "mid", "半ば": "mid", "下旬": "late", "前半": "first half",
               "後半": "second half", "頭": "start", "初め": "start", "始め": "start", "はじめ": "start",
               "初": "start", "末": "end", "末日": "end", "beginning": "start", "middle": "mid",
               "latter half": "second half"}


def _phrases(phrases: Iterable[str]) -> str:
    """Regex for fixed phrases: English ones whole words with flexible spaces; 今年度 is a fiscal year."""
    english = [r"\s+".join(map(re.escape, p.split())) for p in phrases if p.isascii()]
    japanese = [re.escape(p) + ("(?!度)" if p.endswith("年") else "") for p in phrases if not p.isascii()]
    return "(?<![a-z])(?:" + _alt(english) + ")(?![a-z])|" + _alt(japanese)


def _alt(words: Iterable[str]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


def _part_name(word: str) -> str:
    word = " ".join(word.lower().split())
    return _PART_WORDS.get(word, word)


_WD = "(?P<wd>" + _alt(_EN_WEEKDAYS) + ")"
_MON = (r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
        r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_MON_FULL = ("(?P<mon>january|february|march|april|may|june|july|august|september|october"
             "|november|december)")
_JA_YEAR = r"(?:(?P<y>\d{4})年|(?P<yw>" + _alt(_JA_YEAR_WORDS) + r"))\s*の?\s*"
_JA_WEEK = "(?P<w>" + _alt(_JA_WEEK_WORDS) + ")"
_EN_RANGE_WORD = r"(?:\s*[-–~〜]\s*|\s+(?:to|through|thru|until|till)\s+)"
_EN_N = r"(?P<n>\d{1,3}|" + _alt(k for k in _EN_NUMBERS if len(k) > 2) + ")"
_MAY_PREPOSITIONS = re.compile(
    r"(?:(?:in|for|of|during|since|from|until|till|to|through|and|between|vs\.?|versus|than|with"
    r"|about|before|after|by|early|late|mid)\s+|mid-)$", re.IGNORECASE)

_LATIN = "abcdefghijklmnopqrstuvwxyz"
_DIGIT = "0123456789"
_YEAR_PREPOSITIONS = re.compile(r"(?<![a-z])(?:in|during|for|of|since|from|until|till|through|throughout|to"
                                r"|between|year)\s+$", re.IGNORECASE)
_RULES: list[tuple[frozenset[str], re.Pattern[str], _RuleFn]] = []


def _rule(pattern: str, needs: str) -> Callable[[_RuleFn], _RuleFn]:
    """Register a rule; it runs only on texts with one of the characters `needs` (lower case)."""
    def register(fn: _RuleFn) -> _RuleFn:
        _RULES.append((frozenset(needs), re.compile(pattern, re.IGNORECASE), fn))
        return fn
    return register


def _ymd(m: re.Match[str], today: date, month: int, day: int | None = None, year_word: str = "") -> _Found:
    """A day (or whole month when day is None); the year defaults to the current one."""
    year = int(m["y"]) if m["y"] else today.year + _JA_YEAR_WORDS.get(year_word, 0)
    if not 1 <= month <= 12:
        return _Bad(year, month, day)
    if day is None:
        return _Period("month", _month(year, month))
    try:
        return _Period("day", _day(date(year, month, day)))
    except ValueError:  # 2月30日
        return _Bad(year, month, day)


def _month_number(name: str | None) -> int | None:
    """Month number of an English month name; lower-case 'may' is the verb, not the month."""
    if not name or (name.lower() == "may" and name != "May"):
        return None
    return _EN_MONTHS.index(name[:3].lower()) + 1


def _days_of_week(week: DateRange, first: int, last: int) -> _Period | None:
    if last < first:
        return None
    return _Period("span", DateRange(week.start + timedelta(days=first), week.start + timedelta(days=last)))


@_rule(_phrases(_FIXED), _LATIN + "今本昨明一おあ先来再去")
def _fixed(m: re.Match[str], today: date) -> _Found | None:
    kind, n = _FIXED[" ".join(m.group().lower().split())]
    return _Period(kind, _shift(kind, today, n))


@_rule("(?:" + _alt(_JA_PREVIOUS) + r")(?![度曜])|その前の(?P<ju>[日週月年])(?![度曜])"
       r"|(?<![a-z])(?:the\s+(?P<u1>day|week|month|year)\s+before(?:\s+(?:that|it|then))?"
       r"|(?:the\s+)?(?:previous|prior|preceding)\s+(?P<u2>day|week|month|year))(?![a-z])", _LATIN + "前")
def _previous(m: re.Match[str], today: date) -> _Found | None:
    kind = _JA_PREVIOUS.get(m.group()) or _JA_KIND.get(m["ju"] or "") or (m["u1"] or m["u2"]).lower()
    return _Relative(kind, -1)


@_rule("(?:" + _alt(_JA_NEXT) + r")(?![度曜])|(?:その)?次の(?P<ju>[日週月年])(?![度曜])"
       r"|(?<![a-z])(?:the\s+(?P<u1>day|week|month|year)\s+after(?:\s+(?:that|it|then))?"
       r"|the\s+(?:following|next)\s+(?P<u2>day)|(?:the\s+)?following\s+(?P<u3>week|month|year))(?![a-z])",
       _LATIN + "翌次")
def _next(m: re.Match[str], today: date) -> _Found | None:
    kind = _JA_NEXT.get(m.group()) or _JA_KIND.get(m["ju"] or "") or (m["u1"] or m["u2"] or m["u3"]).lower()
    return _Relative(kind, 1)


@_rule(r"前の(?P<ju>[日週月年])(?![度曜])|(?<![a-z])the\s+next\s+(?P<u>week|month|year)(?![a-z])", _LATIN + "前")
def _next_to_focus(m: re.Match[str], today: date) -> _Found | None:
    """前の週 = last week and "the next week" = next week, unless a period is in focus."""
    kind = _JA_KIND[m["ju"]] if m["ju"] else m["u"].lower()
    step = -1 if m["ju"] else 1
    return _Relative(kind, step, fixed=_shift(kind, today, step), anchored=False)


@_rule(r"(?<![0-9])(?P<n>\d{1,3})\s*(?P<u>日|週間?|[ヶヵカケか箇]月|年)前(?!後)|(?<![a-z0-9])(?P<en>\d{1,3}|"
       + _alt(_EN_NUMBERS) + r")\s+(?P<eu>day|week|month|year)s?\s+ago(?![a-z])", _LATIN + "前")
def _ago(m: re.Match[str], today: date) -> _Found | None:
    if m["n"]:
        n, kind = int(m["n"]), _JA_UNITS[m["u"] if m["u"] in _JA_UNITS else m["u"][-1]]
    else:
        n = int(m["en"]) if m["en"].isdigit() else _EN_NUMBERS[m["en"].lower()]
        kind = m["eu"].lower()
    return _Period(kind, _shift(kind, today, -n))


def _last_n(today: date, n: int, unit: str) -> _Found | None:
    """The n days (weeks, months, years) ending today, today included."""
    if n < 1:
        return None
    if unit in ("day", "week"):
        start = today - timedelta(days=n * (7 if unit == "week" else 1) - 1)
    else:
        start = _months_back(today, n * (12 if unit == "year" else 1)) + ONE_DAY
    return _Period("span", DateRange(start, today))


@_rule(r"(?:直近|過去|ここ|この|最近)\s*の?\s*(?P<n>\d{1,3})\s*(?P<u>日|週|[ヶヵカケか箇]月|年)(?:間)?", "直過こ最")
def _ja_last_n(m: re.Match[str], today: date) -> _Found | None:
    return _last_n(today, int(m["n"]), _JA_UNITS[m["u"][-1]])


@_rule(r"(?<![a-z])(?:the\s+)?(?:last|past|previous|recent|latest)\s+" + _EN_N
       + r"\s+(?P<u>day|week|month|year)s?(?![a-z])", _LATIN)
def _en_last_n(m: re.Match[str], today: date) -> _Found | None:
    n = int(m["n"]) if m["n"].isdigit() else _EN_NUMBERS[m["n"].lower()]
    return _last_n(today, n, m["u"].lower())


@_rule(_JA_WEEK + r"\s*の?\s*(?P<wd>[" + _JA_WEEKDAYS + "])"
       r"(?:曜日|曜|(?=$|[\s、。,.!?)・と~〜\-]|から|まで))", "週")
def _ja_weekday(m: re.Match[str], today: date) -> _Found | None:
    monday = _week(today + timedelta(weeks=_JA_WEEK_WORDS[m["w"]])).start
    return _Period("day", _day(monday + timedelta(days=_JA_WEEKDAYS.index(m["wd"]))))


@_rule(_JA_WEEK + r"\s*の?\s*(?P<a>[" + _JA_WEEKDAYS + r"])(?:曜日|曜)?\s*(?:から|~|〜|-|–|—)\s*(?P<b>["
       + _JA_WEEKDAYS + r"])(?:曜日|曜)?(?:\s*まで)?", "週")
def _ja_weekday_range(m: re.Match[str], today: date) -> _Found | None:  # 先週の月曜から水曜まで, 今週の月〜水
    week = _week(today + timedelta(weeks=_JA_WEEK_WORDS[m["w"]]))
    return _days_of_week(week, _JA_WEEKDAYS.index(m["a"]), _JA_WEEKDAYS.index(m["b"]))


@_rule(_JA_WEEK + r"\s*(?:末|の?\s*(?:週末|土日|土・日))", "週")
def _ja_weekend(m: re.Match[str], today: date) -> _Found | None:  # 先週末, 先週の土日
    return _days_of_week(_week(today + timedelta(weeks=_JA_WEEK_WORDS[m["w"]])), 5, 6)


@_rule(r"(?<![a-z])(?P<w>last|this|next)\s+weekend(?![a-z])", _LATIN)
def _en_weekend(m: re.Match[str], today: date) -> _Found | None:
    return _days_of_week(_week(today + timedelta(weeks=_EN_WEEK_WORDS[m["w"].lower()])), 5, 6)


@_rule(r"(?<![a-z])(?:" + _WD.replace("wd", "a1") + _EN_RANGE_WORD + _WD.replace("wd", "b1")
       + r"\s*,?\s+(?:of\s+)?(?P<w1>last|this|next)\s+week|(?P<w2>last|this|next)\s+week(?:'s)?\s*,?\s*(?:from\s+)?"
       + _WD.replace("wd", "a2") + _EN_RANGE_WORD + _WD.replace("wd", "b2") + r")(?![a-z])", _LATIN)
def _en_weekday_range(m: re.Match[str], today: date) -> _Found | None:  # Monday to Wednesday last week
    week = _week(today + timedelta(weeks=_EN_WEEK_WORDS[(m["w1"] or m["w2"]).lower()]))
    first, last = (m["a1"] or m["a2"]).lower(), (m["b1"] or m["b2"]).lower()
    return _days_of_week(week, _EN_WEEKDAYS.index(first), _EN_WEEKDAYS.index(last))


@_rule(r"(?<![a-z])(?:" + _WD + r"\s+(?:of\s+)?(?P<w1>last|this|next)\s+week"
       r"|(?P<w2>last|this|next)\s+week(?:'s)?\s+" + _WD.replace("wd", "wd2") + r")(?![a-z])", _LATIN)
def _en_weekday_in_week(m: re.Match[str], today: date) -> _Found | None:
    monday = _week(today + timedelta(weeks=_EN_WEEK_WORDS[(m["w1"] or m["w2"]).lower()])).start
    return _Period("day", _day(monday + timedelta(days=_EN_WEEKDAYS.index((m["wd"] or m["wd2"]).lower()))))


@_rule(r"(?<![a-z])(?P<w>last|this|next)\s+" + _WD + r"(?![a-z])", _LATIN)
def _en_relative_weekday(m: re.Match[str], today: date) -> _Found | None:
    wd, which = _EN_WEEKDAYS.index(m["wd"].lower()), m["w"].lower()
    if which == "last":  # the most recent one strictly before today
        return _Period("day", _day(today - timedelta(days=(today.weekday() - wd - 1) % 7 + 1)))
    if which == "next":  # the first one strictly after today
        return _Period("day", _day(today + timedelta(days=(wd - today.weekday() - 1) % 7 + 1)))
    return _Period("day", _day(_week(today).start + timedelta(days=wd)))


@_rule(r"(?<![0-9a-z])(?:" + _JA_YEAR + r")?(?P<m>\d{1,2})月\s*(?P<d>\d{1,2})日?\s*(?:から|〜|～|~|-|–)\s*"
       r"(?P<d2>\d{1,2})日(?:\s*まで)?", "月")
def _ja_days_of_month(m: re.Match[str], today: date) -> _Found | None:  # 8月10日から20日まで, 8月10〜20日
    first = _ymd(m, today, int(m["m"]), int(m["d"]), m["yw"] or "")
    last = _ymd(m, today, int(m["m"]), int(m["d2"]), m["yw"] or "")
    if not isinstance(first, _Period):
        return first
    if not isinstance(last, _Period):
        return last
    if last.range.start < first.range.start:
        return None
    return _Period("span", DateRange(first.range.start, last.range.end))


@_rule(r"(?<![0-9a-z])(?:" + _JA_YEAR + r")?(?P<m>\d{1,2})月(?:\s*(?P<d>\d{1,2})日|(?![0-9曜]))", "月")
def _ja_month_day(m: re.Match[str], today: date) -> _Found | None:
    return _ymd(m, today, int(m["m"]), int(m["d"]) if m["d"] else None, m["yw"] or "")


@_rule(r"(?<![0-9a-z])(?P<y>\d{4})年(?!度)", "年")
def _ja_year(m: re.Match[str], today: date) -> _Found | None:
    return _Period("year", _year(int(m["y"])))


@_rule(r"(?<![0-9a-z.,/\-])(?P<y>(?:19|20)[0-9]{2})(?![0-9])(?![.,][0-9])(?!\s*(?:[-/%円]|yen|jpy|pieces?|pcs|items?|units?|kg|g)"
       r"(?![a-z]))", _DIGIT)
def _en_year(m: re.Match[str], today: date) -> _Found | None:
    """A bare year after a preposition: in 2024, for 2024, from 2023 to 2024 (never 'for 2000 yen')."""
    if not _YEAR_PREPOSITIONS.search(m.string, max(0, m.start() - 12), m.start()):
        return None
    return _Period("year", _year(int(m["y"])))


@_rule(r"(?<![0-9a-z])(?P<y>\d{4})(?P<sep>[-/])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})(?![0-9])", "-/")
def _iso(m: re.Match[str], today: date) -> _Found | None:  # 2025-04-10, 2025/4/10
    return _ymd(m, today, int(m["m"]), int(m["d"]))


@_rule(r"(?<![0-9a-z/.\-])(?P<y>)(?P<m>\d{1,2})/(?P<d>\d{1,2})(?![0-9/]|\.[0-9])", "/")
def _slash(m: re.Match[str], today: date) -> _Found | None:  # 4/10 (month/day, current year); 5/40 is no date
    month, day = int(m["m"]), int(m["d"])
    return _ymd(m, today, month, day) if 1 <= month <= 12 and 1 <= day <= 31 else None


@_rule(r"(?<![a-z0-9])" + _MON + r"\.?\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(?P<y>\d{4}))?(?![a-z0-9])", _LATIN)
def _en_month_day(m: re.Match[str], today: date) -> _Found | None:  # April 10, Apr 10th, April 10, 2025
    month = _month_number(m["mon"])
    return _ymd(m, today, month, int(m["d"])) if month else None


@_rule(r"(?<![a-z0-9])(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MON
       + r"\.?(?:,?\s+(?P<y>\d{4}))?(?![a-z0-9])", _LATIN)
def _en_day_month(m: re.Match[str], today: date) -> _Found | None:  # 10 April, the 10th of April 2025
    month = _month_number(m["mon"])
    return _ymd(m, today, month, int(m["d"])) if month else None


@_rule(r"(?<![a-z0-9])" + _MON + r"\.?,?\s+(?:of\s+)?(?P<y>\d{4})(?![0-9])", _LATIN)
def _en_month_year(m: re.Match[str], today: date) -> _Found | None:  # March 2025
    month = _month_number(m["mon"])
    return _ymd(m, today, month) if month else None


@_rule(r"(?<![a-z])" + _MON_FULL + "(?![a-z])", _LATIN)
def _en_month_alone(m: re.Match[str], today: date) -> _Found | None:
    """March (this year); bare "May" only as "in May", "for May", "late May", ..."""
    if m["mon"].lower() == "may" and not _MAY_PREPOSITIONS.search(m.string, 0, m.start()):
        return None
    month = _month_number(m["mon"])
    return _Period("month", _month(today.year, month)) if month else None


@_rule(r"(?<![0-9今先来々月前毎])月(?P<p>初め|始め|はじめ|初|頭|末日?|半ば)|(?<![月の])(?P<q>上旬|初旬|中旬|下旬)"
       r"|(?<![a-z])(?:the\s+)?(?P<e>start|beginning|end|middle|first\s+half|second\s+half)\s+of\s+the\s+month"
       r"(?![a-z])", _LATIN + "旬月")
def _bare_part(m: re.Match[str], today: date) -> _Found | None:  # 月末, 下旬, the end of the month
    return _Part(_part_name(m["p"] or m["q"] or m["e"]))


# --- parts of a month -----------------------------------------------------------------------------

_JA_PART_AFTER = re.compile(r"\s*の?\s*(?P<p>上旬|初旬|中旬|下旬|前半|後半|半ば|頭|初め|始め|はじめ|末日?)")
_EN_PART_BEFORE = re.compile(
    r"(?<![a-z])(?:(?P<a>early|mid|late)(?:\s+|-)|(?:the\s+)?(?:very\s+)?(?P<b>start|beginning|end|middle"
    r"|first\s+half|second\s+half|latter\s+half)\s+of\s+(?:the\s+month\s+of\s+)?)$", re.IGNORECASE)


def _part_of(month: DateRange, part: str) -> _Period:
    """上旬, 後半, 末 ... of a month: a day for its start or end point, else a span."""
    first, last = _PART_DAYS[part]
    start = month.start.replace(day=min(first, month.end.day))
    end = month.start.replace(day=min(last, month.end.day))
    point = part if part in ("start", "end") else ""
    return _Period("day" if start == end else "span", DateRange(start, end), point)


# --- matching -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Hit:
    start: int
    end: int
    found: _Found


@dataclass(frozen=True)
class _Scan:
    matches: tuple[DateMatch, ...]
    impossible: tuple[Impossible, ...]


_RANGE_JOIN = re.compile(r"\s*(?:から|~|〜|-|–|—|through|thru|until|till)\s*", re.IGNORECASE)
_LIST_JOIN = re.compile(r"\s*(?:と|、|,|および|及び|and|&|plus)\s*", re.IGNORECASE)
_PERIOD_SUFFIX = re.compile(r"\s*の?\s*(?:\d+\s*(?:[ヶヵカケか箇]月|週|日|年)間|期間|間)"
                            r"|\s+(?:combined|together)(?![a-z])", re.IGNORECASE)
_UNTIL = re.compile(r"\s*まで")
_SINCE = re.compile(r"\s*(?:から|以降)")
_EN_FROM = re.compile(r"(?<![a-z])(?:from|since)\s+$", re.IGNORECASE)
_EN_UNTIL = re.compile(r"(?<![a-z])(?:until|till|through|to|by)\s+$", re.IGNORECASE)


def _candidates(text: str, today: date) -> list[_Hit]:
    """Every rule's finds, longest first then leftmost, without overlaps, in text order."""
    found = []
    chars = set(text.lower())
    for order, (needs, pattern, fn) in enumerate(_RULES):
        if needs.isdisjoint(chars):
            continue
        for m in pattern.finditer(text):
            result = fn(m, today)
            if result is not None:
                found.append((m.start(), m.end(), order, result))
    chosen: list[tuple[int, int, int, _Found]] = []  # in text order: a long request has many
    for cand in sorted(found, key=lambda c: (c[0] - c[1], c[0], c[2])):
        at = bisect.bisect_left(chosen, cand[0], key=lambda c: c[0])
        if (at == 0 or chosen[at - 1][1] <= cand[0]) and (at == len(chosen) or cand[1] <= chosen[at][0]):
            chosen.insert(at, cand)
    return [_Hit(s, e, f) for s, e, _, f in chosen]


def _reference(found: _Relative, earlier: list[DateMatch], focus: DateRange | None, today: date) -> DateRange | None:
    """The range of 前週 / 翌月 / 前の週 ...: next to an earlier period of its kind, else to the focus."""
    if found.anchored or focus is not None:
        anchor = next((x.range for x in reversed(earlier) if x.kind == found.kind), None)
        if anchor is not None:
            return _step(found.kind, anchor, found.step)
    if focus is not None:
        return _step(found.kind, focus, found.step)
    if found.fixed is not None:
        return found.fixed
    if found.step < 0:  # 前週 with nothing before it: the week before 先週
        return _shift(found.kind, today, -1).previous()
    return None


def _period(found: _Found, earlier: list[DateMatch], focus: DateRange | None, today: date) -> _Period | None:
    if isinstance(found, _Period):
        return found
    if isinstance(found, _Relative):
        rng = _reference(found, earlier, focus, today)
        return _Period(found.kind, rng) if rng is not None else None
    if isinstance(found, _Part):
        ref = focus.start if focus is not None else today
        return _part_of(_month(ref.year, ref.month), found.part)
    return None


def _with_part(text: str, hit: _Hit, period: _Period) -> tuple[_Hit, _Period]:
    """A month with a part word after (先月下旬, 8月の前半, 今月末) or before it (late August)."""
    if period.kind != "month":
        return hit, period
    after = _JA_PART_AFTER.match(text, hit.end)
    if after:
        return _Hit(hit.start, after.end(), hit.found), _part_of(period.range, _part_name(after["p"]))
    before = _EN_PART_BEFORE.search(text, max(0, hit.start - 40), hit.start)
    if before:
        part = _part_name(before["a"] or before["b"])
        return _Hit(before.start(), hit.end, hit.found), _part_of(period.range, part)
    return hit, period


def _resolve(text: str, hits: list[_Hit], focus: DateRange | None,
             today: date) -> tuple[list[DateMatch], dict[int, str]]:
    """DateMatches in text order (relative words resolved, parts applied) and which are start / end points."""
    matches: list[DateMatch] = []
    points: dict[int, str] = {}
    for hit in hits:
        if matches and hit.start < matches[-1].end_index:  # swallowed by the part word before it
            continue
        period = _period(hit.found, matches, focus, today)
        if period is None:
            continue
        hit, period = _with_part(text, hit, period)
        if period.point:
            points[len(matches)] = period.point
        matches.append(DateMatch(period.range, text[hit.start:hit.end], hit.start, hit.end, period.kind))
    return matches, points


def _hull(text: str, parts: list[DateMatch], end_index: int) -> DateMatch:
    start, end = min(p.range.start for p in parts), max(p.range.end for p in parts)
    first = parts[0].start_index
    return DateMatch(DateRange(start, end), text[first:end_index], first, end_index, "span")


def _joined_as_list(text: str, a: DateMatch, b: DateMatch) -> bool:
    return _LIST_JOIN.fullmatch(text, a.end_index, b.start_index) is not None


def _joined_as_range(text: str, a: DateMatch, b: DateMatch) -> bool:
    """XからY, X〜Y, X through Y, from X to Y, between X and Y."""
    if _RANGE_JOIN.fullmatch(text, a.end_index, b.start_index):
        return True
    before = text[:a.start_index]
    between = text[a.end_index:b.start_index].strip().lower()
    return ((between == "to" and re.search(r"from\s+$", before, re.IGNORECASE) is not None)
            or (between == "and" and re.search(r"between\s+$", before, re.IGNORECASE) is not None))


def _open_span(text: str, match: DateMatch, point: str, today: date) -> DateMatch:
    """月初から / from the beginning of last month → to today; 月末まで / until the end of the month → from today."""
    if point == "start" and match.range.start <= today:
        since = _SINCE.match(text, match.end_index)
        if since or _EN_FROM.search(text, max(0, match.start_index - 8), match.start_index):
            end = since.end() if since else match.end_index
            return DateMatch(DateRange(match.range.start, today), text[match.start_index:end],
                             match.start_index, end, "span")
    if point == "end" and match.range.end >= today:
        until = _UNTIL.match(text, match.end_index)
        if until or _EN_UNTIL.search(text, max(0, match.start_index - 10), match.start_index):
            end = until.end() if until else match.end_index
            return DateMatch(DateRange(today, match.range.end), text[match.start_index:end],
                             match.start_index, end, "span")
    return match


def _merge(text: str, matches: list[DateMatch], points: dict[int, str], today: date) -> list[DateMatch]:
    out, i, k = [], 0, 0
    while i < len(matches):
        k = max(k, i)  # a run X と Y (と Z) followed by の2ヶ月間 / の期間 is one period; its end found once
        while k + 1 < len(matches) and _joined_as_list(text, matches[k], matches[k + 1]):
            k += 1
        suffix = _PERIOD_SUFFIX.match(text, matches[k].end_index) if k > i else None
        if suffix:
            out.append(_hull(text, matches[i:k + 1], suffix.end()))
            i = k + 1
            continue
        cur, first = matches[i], i
        while i + 1 < len(matches) and _joined_as_range(text, cur, matches[i + 1]):
            i += 1
            cur = _hull(text, [cur, matches[i]], matches[i].end_index)
        if i > first:
            until = _UNTIL.match(text, cur.end_index)
            cur = _hull(text, [cur], until.end()) if until else cur
        elif first in points:
            cur = _open_span(text, cur, points[first], today)
        out.append(cur)
        i += 1
    return out


def _impossible(text: str, hits: list[_Hit]) -> tuple[Impossible, ...]:
    return tuple(Impossible(text[h.start:h.end], h.start, h.end, h.found.year, h.found.month, h.found.day)
                 for h in hits if isinstance(h.found, _Bad))


@lru_cache(maxsize=1024)
def _scan(text: str, today: date, focus: DateRange | None) -> _Scan:
    hits = _candidates(text, today)
    matches, points = _resolve(text, hits, focus, today)
    return _Scan(tuple(_other_parts(text, _merge(text, matches, points, today))), _impossible(text, hits))


_OTHER_PART = re.compile(r"\s*(?:と|や|、|,)\s*(?:その)?(?P<p>上旬|初旬|中旬|下旬|前半|後半)")


def _other_parts(text: str, matches: list[DateMatch]) -> list[DateMatch]:
    """8月の後半と前半, 先月の上旬と下旬: a part said right after a part of a month is of that month."""
    out = list(matches)
    for match in matches:
        after = _OTHER_PART.match(text, match.end_index)
        month = match.range.start.replace(day=1)
        if (after is None or match.kind != "span" or match.range.end.replace(day=1) != month
                or not _JA_PART_AFTER.search(match.text)):
            continue
        span = _part_of(_month(month.year, month.month), _part_name(after["p"]))
        out = [m for m in out if not (m.start_index < after.end() and after.start("p") < m.end_index)]
        out.append(DateMatch(span.range, after["p"], after.start("p"), after.end(), "span"))
    return sorted(out, key=lambda m: m.start_index)


def find_dates(text: str, today: date, focus: DateRange | None = None, ahead: bool = False) -> list[DateMatch]:
    """Every date expression in the (normalised) text, in order, non-overlapping, longest first.

    `focus` is the period of the previous turn: follow-ups such as その前の週 / the week after /
    翌月 / 前日 move from it (unless the text itself names an earlier period of that kind).
    `ahead`: the dates are days to come (a pickup, a booking), so a day named alone (土曜, 24日, on the
    24th, Saturday) is the next such day from today; otherwise such a day is not read (last week's or next?).
    """
    normal = normalise(text)
    matches = list(_scan(normal, today, focus).matches)
    if not ahead:
        return matches
    taken = [(m.start_index, m.end_index) for m in matches]
    more = [m for m in _days_ahead(normal, today) if all(m.end_index <= a or b <= m.start_index for a, b in taken)]
    return sorted(matches + more, key=lambda m: m.start_index)


_BARE_WEEKDAY = re.compile(r"(?P<ja>[" + _JA_WEEKDAYS + r"])曜(?:日)?|(?<![a-z])(?P<en>" + _alt(_EN_WEEKDAYS)
                           + r")(?![a-z])", re.IGNORECASE)
_BARE_DAY = re.compile(r"(?<![0-9/月\-])(?P<ja>[0-9]{1,2})日(?![間後前])"
                       r"|(?<![a-z])the\s+(?P<en>[0-9]{1,2})(?:st|nd|rd|th)(?![a-z])", re.IGNORECASE)


def _days_ahead(text: str, today: date) -> list[DateMatch]:
    """Weekdays and days of the month named alone, as the next such day from today (today included)."""
    out = []
    for m in _BARE_WEEKDAY.finditer(text):
        wd = _JA_WEEKDAYS.index(m["ja"]) if m["ja"] else _EN_WEEKDAYS.index(m["en"].lower())
        day = today + timedelta(days=(wd - today.weekday()) % 7)
        out.append(DateMatch(_day(day), m.group(), m.start(), m.end(), "day"))
    for m in _BARE_DAY.finditer(text):
        n = int(m["ja"] or m["en"])
        month = _month(today.year, today.month) if n >= today.day else _month(today.year, today.month + 1)
        if n <= calendar.monthrange(month.start.year, month.start.month)[1]:
            out.append(DateMatch(_day(month.start.replace(day=n)), m.group(), m.start(), m.end(), "day"))
    return out


def impossible_dates(text: str, today: date) -> list[Impossible]:
    """Dates in the (normalised) text that do not exist: 2025-02-30, 2/30, 2月30日, February 30, 13月."""
    return list(_scan(normalise(text), today, None).impossible)


def resolve(text: str, today: date, focus: DateRange | None = None) -> DateRange | None:
    """The range of the first expression; 先月と今月 / "last month and this month" (periods of
    the same kind joined by と / and / 、 that touch or overlap) give one range covering both."""
    text = normalise(text)
    matches = find_dates(text, today, focus)
    if not matches:
        return None
    rng, last = matches[0].range, matches[0]
    for nxt in matches[1:]:
        r = nxt.range
        touching = r.start <= rng.end + ONE_DAY and rng.start <= r.end + ONE_DAY
        if not (touching and nxt.kind == last.kind and _joined_as_list(text, last, nxt)):
            break
        rng, last = DateRange(min(rng.start, r.start), max(rng.end, r.end)), nxt
    return rng


def as_date(value: object) -> date:
    """A date read back from a database: a date, a datetime (its day) or ISO text."""
    if isinstance(value, datetime):
        return value.date()
    return value if isinstance(value, date) else date.fromisoformat(str(value)[:10])
