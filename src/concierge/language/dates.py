"""Resolve relative date expressions (Japanese and English) against a configured "today".

The conventions are those of spec/dates.md; every component must resolve dates the same way:

* All ranges are inclusive on both ends. Weeks run Monday to Sunday.
* 今週 / this week, 今月 / this month, 今年 / this year are the whole calendar period,
  future days included. 先週 / 前の週 / last week is the Monday-Sunday week before this week.
* A weekday after a week word (先週火曜日, 先週の火曜, 先週火, Tuesday last week,
  Tuesday of last week, last week's Tuesday) is that day inside that week.
  English "last Tuesday" is the most recent Tuesday strictly before today, "next Tuesday" the
  first one strictly after today, "this Tuesday" the Tuesday of this week.
* N日前 / 3 weeks ago / 2ヶ月前 / two months ago / 3年前 are the calendar period N periods back
  (two months ago = 先々月).
* A month or day without a year (3月, March, 4月10日, 4/10, April 10) is in the current year.
* Comparison words 前週 / 前月 / 前日 / 前年, "the week before", "the previous month", ... mean the
  period just before the latest earlier expression of the same kind in the text; with none, just
  before the last complete one (先週, 先月, 昨日, 去年). So in 先週のXを前週と比べて, 前週 is the
  week before 先週.
* find_dates() joins explicit ranges into one 'span' match: XからY, X〜Y, X through Y,
  from X to Y, between X and Y, 先月と今月の2ヶ月間. A plain 今月と先月 / "X and Y" stays two
  matches (a comparison); resolve() joins such a pair into one range when the two periods are of
  the same kind and touch.
* Numbers glued to digits or letters (S20250422101931, customer 0009, 1800円, 2ヶ月間) are not
  dates; bare weekdays (火曜日), bare day numbers (15日) and fiscal years (今年度) are not read.
  The English month "May" alone counts only when capitalised after a preposition ("in May").
* Known limits: a bare fraction such as 1/2 reads as January 2 (m/d, current year).
* Indices in DateMatch refer to the normalise()d text (NFKC: full-width digits become ASCII).
"""
from __future__ import annotations

import calendar
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

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
    kind: str  # 'day' | 'week' | 'month' | 'year' | 'span'


def normalise(text: str) -> str:
    """NFKC-normalise (full-width digits and punctuation to ASCII, half-width kana to full-width)."""
    return unicodedata.normalize("NFKC", text)


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


# --- vocabulary ---------------------------------------------------------------------------------

_FIXED = {phrase: (kind, n) for kind, n, phrases in [  # n: offset from the period containing today
    ("day", 0, "今日|本日|today"), ("day", -1, "昨日|yesterday"), ("day", 1, "明日|tomorrow"),
    ("day", -2, "一昨日|おととい|おとつい|the day before yesterday"),
    ("day", 2, "明後日|あさって|the day after tomorrow"),
    ("week", 0, "今週|this week"), ("week", -1, "先週|前の週|last week"), ("week", 1, "来週|next week"),
    ("week", -2, "先々週|the week before last"), ("week", 2, "再来週|the week after next"),
    ("month", 0, "今月|this month"), ("month", -1, "先月|last month"), ("month", 1, "来月|next month"),
    ("month", -2, "先々月|the month before last"), ("month", 2, "再来月|the month after next"),
    ("year", 0, "今年|本年|this year"), ("year", -1, "去年|昨年|last year"), ("year", 1, "来年|next year"),
    ("year", -2, "一昨年|the year before last"), ("year", 2, "再来年|the year after next"),
] for phrase in phrases.split("|")}
_JA_PREVIOUS = {"前日": "day", "前週": "week", "前月": "month", "前年": "year"}
_JA_UNITS = {"日": "day", "週": "week", "週間": "week", "月": "month", "年": "year"}
_EN_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
               "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_JA_WEEKDAYS = "月火水木金土日"
_EN_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_EN_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_JA_WEEK_WORDS = {"先々週": -2, "先週": -1, "前の週": -1, "今週": 0, "来週": 1, "再来週": 2}
_JA_YEAR_WORDS = {"一昨年": -2, "去年": -1, "昨年": -1, "今年": 0, "本年": 0, "来年": 1, "再来年": 2}
_EN_WEEK_WORDS = {"last": -1, "this": 0, "next": 1}


def _phrase(p: str) -> str:
    """Regex for one fixed phrase: English words are whole words with flexible spaces."""
    if p.isascii():
        return r"(?<![a-z])" + r"\s+".join(map(re.escape, p.split())) + r"(?![a-z])"
    return re.escape(p) + ("(?!度)" if p.endswith("年") else "")  # 今年度 is a fiscal year


def _alt(words) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_WD = "(?P<wd>" + _alt(_EN_WEEKDAYS) + ")"
_MON = (r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
        r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_MON_FULL = ("(?P<mon>january|february|march|april|may|june|july|august|september|october"
             "|november|december)")
_JA_YEAR = r"(?:(?P<y>\d{4})年|(?P<yw>" + _alt(_JA_YEAR_WORDS) + r"))\s*の?\s*"
_MAY_PREPOSITIONS = re.compile(
    r"(?:in|for|of|during|since|from|until|till|to|through|and|between|vs\.?|versus|than|with"
    r"|about|before|after|by)\s+$", re.IGNORECASE)

_Result = tuple[str, DateRange | None] | None  # (kind, range); range None = "previous"
_RULES: list[tuple[re.Pattern, Callable[[re.Match, date], _Result]]] = []


def _rule(pattern: str):
    def register(fn):
        _RULES.append((re.compile(pattern, re.IGNORECASE), fn))
        return fn
    return register


def _ymd(m: re.Match, today: date, month: int, day: int | None = None, year_word: str = "") -> _Result:
    """A day (or whole month when day is None); the year defaults to the current one."""
    year = int(m["y"]) if m["y"] else today.year + _JA_YEAR_WORDS.get(year_word, 0)
    if not 1 <= month <= 12:
        return None
    if day is None:
        return "month", _month(year, month)
    try:
        return "day", _day(date(year, month, day))
    except ValueError:  # 2月30日
        return None


def _month_number(name: str | None) -> int | None:
    """Month number of an English month name; lower-case 'may' is the verb, not the month."""
    if not name or (name.lower() == "may" and name != "May"):
        return None
    return _EN_MONTHS.index(name[:3].lower()) + 1


@_rule(_alt(_phrase(p) for p in _FIXED))
def _fixed(m, today):
    kind, n = _FIXED[" ".join(m.group().lower().split())]
    return kind, _shift(kind, today, n)


@_rule("(?:" + _alt(_JA_PREVIOUS) + r")(?!度)|(?<![a-z])(?:the\s+(?P<u1>day|week|month|year)\s+before"
       r"|(?:the\s+)?(?:previous|prior|preceding)\s+(?P<u2>day|week|month|year))(?![a-z])")
def _previous(m, today):
    return _JA_PREVIOUS.get(m.group()) or (m["u1"] or m["u2"]).lower(), None


@_rule(r"(?<![0-9])(?P<n>\d{1,3})\s*(?P<u>日|週間?|[ヶヵカケか箇]月|年)前(?!後)|(?<![a-z0-9])(?P<en>\d{1,3}|"
       + _alt(_EN_NUMBERS) + r")\s+(?P<eu>day|week|month|year)s?\s+ago(?![a-z])")
def _ago(m, today):
    if m["n"]:
        n, kind = int(m["n"]), _JA_UNITS[m["u"] if m["u"] in _JA_UNITS else m["u"][-1]]
    else:
        n = int(m["en"]) if m["en"].isdigit() else _EN_NUMBERS[m["en"].lower()]
        kind = m["eu"].lower()
    return kind, _shift(kind, today, -n)


@_rule("(?P<w>" + _alt(_JA_WEEK_WORDS) + r")\s*の?\s*(?P<wd>[" + _JA_WEEKDAYS + "])"
       r"(?:曜日|曜|(?=$|[\s、。,.!?)・と~〜\-]|から|まで))")
def _ja_weekday(m, today):
    monday = _week(today + timedelta(weeks=_JA_WEEK_WORDS[m["w"]])).start
    return "day", _day(monday + timedelta(days=_JA_WEEKDAYS.index(m["wd"])))


@_rule(r"(?<![a-z])(?:" + _WD + r"\s+(?:of\s+)?(?P<w1>last|this|next)\s+week"
       r"|(?P<w2>last|this|next)\s+week(?:'s)?\s+" + _WD.replace("wd", "wd2") + r")(?![a-z])")
def _en_weekday_in_week(m, today):
    monday = _week(today + timedelta(weeks=_EN_WEEK_WORDS[(m["w1"] or m["w2"]).lower()])).start
    return "day", _day(monday + timedelta(days=_EN_WEEKDAYS.index((m["wd"] or m["wd2"]).lower())))


@_rule(r"(?<![a-z])(?P<w>last|this|next)\s+" + _WD + r"(?![a-z])")
def _en_relative_weekday(m, today):
    wd, which = _EN_WEEKDAYS.index(m["wd"].lower()), m["w"].lower()
    if which == "last":  # the most recent one strictly before today
        return "day", _day(today - timedelta(days=(today.weekday() - wd - 1) % 7 + 1))
    if which == "next":  # the first one strictly after today
        return "day", _day(today + timedelta(days=(wd - today.weekday() - 1) % 7 + 1))
    return "day", _day(_week(today).start + timedelta(days=wd))


@_rule(r"(?<![0-9a-z])(?:" + _JA_YEAR + r")?(?P<m>\d{1,2})月\s*(?:(?P<d>\d{1,2})日|(?![0-9曜]))")
def _ja_month_day(m, today):
    return _ymd(m, today, int(m["m"]), int(m["d"]) if m["d"] else None, m["yw"] or "")


@_rule(r"(?<![0-9a-z])(?P<y>\d{4})年(?!度)")
def _ja_year(m, today):
    return "year", _year(int(m["y"]))


@_rule(r"(?<![0-9a-z])(?P<y>\d{4})(?P<sep>[-/])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})(?![0-9])")
def _iso(m, today):  # 2025-04-10, 2025/4/10
    return _ymd(m, today, int(m["m"]), int(m["d"]))


@_rule(r"(?<![0-9a-z/.\-])(?P<y>)(?P<m>\d{1,2})/(?P<d>\d{1,2})(?![0-9/]|\.[0-9])")
def _slash(m, today):  # 4/10 (month/day, current year)
    return _ymd(m, today, int(m["m"]), int(m["d"]))


@_rule(r"(?<![a-z0-9])" + _MON + r"\.?\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(?P<y>\d{4}))?(?![a-z0-9])")
def _en_month_day(m, today):  # April 10, Apr 10th, April 10, 2025
    month = _month_number(m["mon"])
    return _ymd(m, today, month, int(m["d"])) if month else None


@_rule(r"(?<![a-z0-9])(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MON
       + r"\.?(?:,?\s+(?P<y>\d{4}))?(?![a-z0-9])")
def _en_day_month(m, today):  # 10 April, the 10th of April 2025
    month = _month_number(m["mon"])
    return _ymd(m, today, month, int(m["d"])) if month else None


@_rule(r"(?<![a-z0-9])" + _MON + r"\.?,?\s+(?:of\s+)?(?P<y>\d{4})(?![0-9])")
def _en_month_year(m, today):  # March 2025
    month = _month_number(m["mon"])
    return _ymd(m, today, month) if month else None


@_rule(r"(?<![a-z])" + _MON_FULL + "(?![a-z])")
def _en_month_alone(m, today):  # March (this year); bare "May" only as "in May", "for May", ...
    if m["mon"].lower() == "may" and not _MAY_PREPOSITIONS.search(m.string, 0, m.start()):
        return None
    month = _month_number(m["mon"])
    return ("month", _month(today.year, month)) if month else None


# --- matching -----------------------------------------------------------------------------------

_RANGE_JOIN = re.compile(r"\s*(?:から|~|〜|-|–|—|through|thru|until|till)\s*", re.IGNORECASE)
_LIST_JOIN = re.compile(r"\s*(?:と|、|,|および|及び|and|&|plus)\s*", re.IGNORECASE)
_PERIOD_SUFFIX = re.compile(r"\s*の?\s*(?:\d+\s*(?:[ヶヵカケか箇]月|週|日|年)間|期間|間)"
                            r"|\s+(?:combined|together)(?![a-z])", re.IGNORECASE)


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


def _merge(text: str, matches: list[DateMatch]) -> list[DateMatch]:
    out, i = [], 0
    while i < len(matches):
        k = i  # a run X と Y (と Z) followed by の2ヶ月間 / の期間 is one period
        while k + 1 < len(matches) and _joined_as_list(text, matches[k], matches[k + 1]):
            k += 1
        suffix = _PERIOD_SUFFIX.match(text, matches[k].end_index) if k > i else None
        if suffix:
            out.append(_hull(text, matches[i:k + 1], suffix.end()))
            i = k + 1
            continue
        cur = matches[i]
        while i + 1 < len(matches) and _joined_as_range(text, cur, matches[i + 1]):
            i += 1
            cur = _hull(text, [cur, matches[i]], matches[i].end_index)
        out.append(cur)
        i += 1
    return out


def find_dates(text: str, today: date) -> list[DateMatch]:
    """Every date expression in the (normalised) text, in order, non-overlapping, longest first."""
    text = normalise(text)
    candidates = []
    for order, (pattern, fn) in enumerate(_RULES):
        for m in pattern.finditer(text):
            result = fn(m, today)
            if result is not None:
                candidates.append((m.start(), m.end(), order, result))
    chosen: list[tuple[int, int, int, tuple]] = []
    for cand in sorted(candidates, key=lambda c: (c[0] - c[1], c[0], c[2])):
        if all(cand[1] <= s or cand[0] >= e for s, e, _, _ in chosen):
            chosen.append(cand)
    matches: list[DateMatch] = []
    for start, end, _, (kind, rng) in sorted(chosen):
        if rng is None:  # 前週 / the week before: before the latest earlier period of that kind
            anchor = next((x.range for x in reversed(matches) if x.kind == kind), None)
            rng = (anchor or _shift(kind, today, -1)).previous()  # default: 昨日, 先週, 先月, 去年
        matches.append(DateMatch(rng, text[start:end], start, end, kind))
    return _merge(text, matches)


def resolve(text: str, today: date) -> DateRange | None:
    """The range of the first expression; 先月と今月 / "last month and this month" (periods of
    the same kind joined by と / and / 、 that touch or overlap) give one range covering both."""
    text = normalise(text)
    matches = find_dates(text, today)
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
