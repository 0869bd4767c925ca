"""The grounding check: every number in an answer must come from somewhere we can point to.

A number in the final answer is grounded when it appears in a tool result of
that turn (a cell, an argument, a declared total or summary value, the number
of rows or list items) or in the user's own message. Signs are ignored, so
"減少 12,930円" is grounded by a change of -12,930. Dates are compared as
dates: "5月10日", "May 10" and "2025-05-10" are grounded by a result dated
2025-05-10, by a date the user wrote, or by a relative date the user used
(先週 grounds every day of that week); today is grounded too. Codes such as
"0009", "S20250422101931" or a phone number must appear verbatim. Result ids
("r_3f2a…") and the numbers of a numbered list are not figures and are skipped.
Whatever is left is reported, as written in the answer.
"""

from __future__ import annotations

import contextlib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from concierge.language.dates import find_dates, normalise
from concierge.sources.result import ToolResult

MAX_RANGE_DAYS = 400

_MONTHS = {m: i + 1 for i, m in enumerate(
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"])}
_MONTH = (r"(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
          r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?")
_ORD = r"(?:st|nd|rd|th)?"

RESULT_ID = re.compile(r"\br_[0-9a-f]{4,}\b")
LIST_MARKER = re.compile(r"(?m)^[ \t]*\d{1,2}[.)](?=\s)")
ISO_IN_TEXT = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9,._%+\-]*")
THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?%?")
PLAIN_NUMBER = re.compile(r"\d+(?:\.\d+)?%?")
NOT_NUMBER = re.compile(r"[^0-9.%]+")
DIGIT = re.compile(r"\d")
CODE_CHAR = re.compile(r"[A-Za-z_\-]")

# (pattern, kind, needs): kinds name the groups a match carries (y = year, m = month, d = day, M = month
# name); every match contains `needs` ("M": a month name), so a text without it is not scanned for the form
_DATE_FORMS: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)"), "ymd", ""),
    (re.compile(r"(\d{4})年\s*(\d{1,2})月\s*(\d{1,2})日"), "ymd", "年"),
    (re.compile(r"(\d{4})年\s*(\d{1,2})月"), "ym", "年"),
    (re.compile(r"(?<!\d)(\d{1,2})月\s*(\d{1,2})日"), "md", "月"),
    (re.compile(rf"\b{_MONTH}\s+(\d{{1,2}}){_ORD},?\s+(\d{{4}})\b"), "Mdy", "M"),
    (re.compile(rf"\b(\d{{1,2}}){_ORD}\s+{_MONTH},?\s+(\d{{4}})\b"), "dMy", "M"),
    (re.compile(rf"\b{_MONTH}\s+(\d{{4}})\b"), "My", "M"),
    (re.compile(rf"\b{_MONTH}\s+(\d{{1,2}}){_ORD}\s*[–-]\s*(\d{{1,2}}){_ORD}\b"), "MdD", "M"),  # May 5–11
    (re.compile(rf"\b{_MONTH}\s+(\d{{1,2}}){_ORD}\b"), "Md", "M"),
    (re.compile(rf"\b(\d{{1,2}}){_ORD}\s+{_MONTH}\b"), "dM", "M"),
    (re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})(?![\d/])"), "md", "/"),
    (re.compile(r"(?<!\d)(\d{1,2})月(?!\d)"), "m", "月"),
    (re.compile(r"(?<!\d)(\d{4})年"), "y", "年"),
]
MONTH_NAME = re.compile(_MONTH)


@dataclass
class Sources:
    """What an answer may quote: numbers, dates and verbatim text."""

    numbers: set[Decimal] = field(default_factory=set)
    dates: set[date] = field(default_factory=set)
    text: list[str] = field(default_factory=list)
    said: list[str] = field(default_factory=list)  # the user's messages: a date quoted as written (2025-02-30)

    def add_value(self, value: Any) -> None:
        pending = [value]
        while pending:
            value = pending.pop()
            kind = type(value)
            if kind is str:
                self.add_text(value)
            elif kind is int or kind is float or kind is Decimal:
                self.numbers.add(_number(value))
            elif kind is dict:
                pending.extend(value.values())
            elif kind is list or kind is tuple:
                self.numbers.add(Decimal(len(value)))
                pending.extend(value)
            elif not isinstance(value, bool) and value is not None:  # subclasses of the plain types
                if isinstance(value, int | float | Decimal):
                    self.numbers.add(_number(value))
                elif isinstance(value, str):
                    self.add_text(value)
                elif isinstance(value, dict):
                    pending.extend(value.values())
                elif isinstance(value, list | tuple):
                    self.numbers.add(Decimal(len(value)))
                    pending.extend(value)

    def add_text(self, text: str) -> None:
        read = _read_text(text)
        self.text.append(read.lower)
        if read.dates:
            self.dates.update(read.dates)
        if read.numbers:
            self.numbers |= read.numbers

    def add_user_text(self, text: str, today: date) -> None:
        self.add_text(text)
        self.said.append(normalise(text))
        for match in find_dates(text, today):
            days = min((match.range.end - match.range.start).days, MAX_RANGE_DAYS)
            self.dates |= _days(match.range.start, days + 1)

    def has_text(self, token: str) -> bool:
        token = token.lower()
        return any(token in t for t in self.text)


def sources(results: Iterable[ToolResult], user_texts: Iterable[str], today: date) -> Sources:
    found = Sources()
    found.dates.add(today)
    for result in results:
        found.add_value({k: v for k, v in result.to_json().items() if k not in ("result_id", "ms")})
    for text in user_texts:
        found.add_user_text(text, today)
    return found


def ungrounded(answer: str, found: Sources) -> list[str]:
    """The numbers (and dates) of `answer` that `found` does not account for, as written."""
    text = unicodedata.normalize("NFKC", answer)
    text = RESULT_ID.sub(" ", text)
    text = LIST_MARKER.sub(" ", text)
    missing: list[str] = []
    named_month = MONTH_NAME.search(text) is not None
    known = _Known.of(found)
    for pattern, kind, needs in _DATE_FORMS:
        if not (named_month if needs == "M" else needs in text):
            continue
        matches = list(pattern.finditer(text))
        for match in matches:
            if not _date_grounded(kind, match.groups(), known) and not any(match.group(0) in t for t in found.said):
                missing.append(match.group(0))
        if matches:
            text = _blanked(text, matches)
    for word in WORD.findall(text):
        word = word.rstrip(",._+-")
        if not DIGIT.search(word):
            continue
        if CODE_CHAR.search(word) or (word[0] == "0" and len(word) > 1 and word.isdigit()):
            if not found.has_text(word):
                missing.append(word)
            continue
        parts = [word] if THOUSANDS.fullmatch(word) or "," not in word else [p for p in word.split(",") if p]
        for part in parts:
            if not _numbers_of(part) & found.numbers:
                missing.append(part)
    return list(dict.fromkeys(missing))


def _blanked(text: str, matches: list[re.Match[str]]) -> str:
    """`text` with the spans of `matches` (in order, not overlapping) replaced by spaces."""
    parts: list[str] = []
    at = 0
    for match in matches:
        start, end = match.span()
        parts += (text[at:start], " " * (end - start))
        at = end
    parts.append(text[at:])
    return "".join(parts)


@dataclass(frozen=True)
class _Read:
    lower: str  # NFKC, lower case
    dates: tuple[date, ...]  # the ISO dates in it
    numbers: frozenset[Decimal]


@lru_cache(maxsize=8192)  # the same names, dates and codes recur in the results of a conversation and of others
def _read_text(text: str) -> _Read:
    text = unicodedata.normalize("NFKC", text)
    if not DIGIT.search(text):
        return _Read(text.lower(), (), frozenset())
    dates: set[date] = set()
    numbers: set[Decimal] = set()
    isos = ISO_IN_TEXT.findall(text)
    for y, m, d in isos:
        _add_date(dates, int(y), int(m), int(d))
        numbers.add(Decimal(y))
    for word in WORD.findall(ISO_IN_TEXT.sub(" ", text) if isos else text):
        numbers.update(_numbers_of(word))
    return _Read(text.lower(), tuple(dates), frozenset(numbers))


@lru_cache(maxsize=8192, typed=True)
def _number(value: int | float | Decimal) -> Decimal:
    return abs(Decimal(str(value)))


@lru_cache(maxsize=4096)  # the same figures, codes and dates recur in results and answers
def _numbers_of(word: str) -> frozenset[Decimal]:
    word = word.rstrip(",._+-")
    candidates = [word.replace(",", "")] if THOUSANDS.fullmatch(word) else [p for p in NOT_NUMBER.split(word) if p]
    out = set()
    for candidate in candidates:
        candidate = candidate.strip(".")
        if PLAIN_NUMBER.fullmatch(candidate):
            try:
                out.add(abs(Decimal(candidate.rstrip("%"))))
            except InvalidOperation:
                continue
    return frozenset(out)


@dataclass(frozen=True)
class _Known:
    """The dates an answer may quote, looked up by what a date it writes says of them: a year, a month of a year,
    a month, a day of a month. Made once per answer (an answer of a month's days quotes thirty of them)."""

    dates: set[date]
    numbers: set[Decimal]
    years: frozenset[int]
    months: frozenset[tuple[int, int]]  # (year, month)
    month_days: frozenset[tuple[int, int]]  # (month, day)

    @classmethod
    def of(cls, found: Sources) -> _Known:
        return cls(found.dates, found.numbers, frozenset(x.year for x in found.dates),
                   frozenset((x.year, x.month) for x in found.dates), frozenset((x.month, x.day) for x in found.dates))


def _date_grounded(kind: str, groups: tuple[str, ...], known: _Known) -> bool:
    if kind == "MdD":  # days of one month (May 5–11): both ends must be grounded
        return _date_grounded("Md", groups[:2], known) and _date_grounded("Md", (groups[0], groups[2]), known)
    parts: dict[str, int] = {}
    for key, value in zip(kind, groups, strict=True):
        if key == "M":
            parts["m"] = _MONTHS[value[:3].lower()]
        else:
            parts[key] = int(value)
    y, m, d = parts.get("y"), parts.get("m"), parts.get("d")
    if y is not None and m is None:
        return y in known.years or Decimal(y) in known.numbers
    if m is not None and d is not None:  # a day: looked up, in each year the dates have when none is said
        return _has_day(known.dates, y, m, d) if y is not None else (m, d) in known.month_days
    if m is not None:
        return (y, m) in known.months if y is not None else any(month == m for _, month in known.months)
    return any(x.day == d for x in known.dates) if d is not None else bool(known.dates)


def _has_day(dates: set[date], y: int, m: int, d: int) -> bool:
    try:
        return date(y, m, d) in dates
    except ValueError:  # 2月30日 is no day
        return False


@lru_cache(maxsize=1024)  # the periods users say (先週, 今月) recur
def _days(start: date, count: int) -> frozenset[date]:
    return frozenset(start + timedelta(days=i) for i in range(count))


def _add_date(dates: set[date], y: int, m: int, d: int) -> None:
    with contextlib.suppress(ValueError):  # 2025-02-30 is text, not a date
        dates.add(date(y, m, d))
