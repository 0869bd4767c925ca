"""Times of day said in a request: 18時半, 18時30分, 午後6時, 夕方6時半, 18:30, 6:30 pm, 7pm, at 7 o'clock, at seven
thirty, half past six (the words are data: words/en.toml, [clock]).

A time is taken as said: 午後 / 夕方 / 夜 / pm move an hour before 12 to the afternoon. A bare hour
(6時半, at 8) is the next time it comes round from the clock `now` (18:30 at 17:00, 06:30 at 05:00), as a
person means it; with no clock it stays as said (06:30). A time from now (1時間後, 今から45分くらいで, in half
an hour) is counted from `now`. A time that does not exist (25時, 18:75) is not read as a time.
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass
from functools import cache

import regex

from concierge.language.english import clock_words, day_parts, time_leads
from concierge.language.patterns import Pattern
from concierge.language.tokens import tokenise

_AFTERNOON = r"午後|夕方|夜|晩|pm|p\.m\.|evening"
_JA = re.compile(r"(?P<pre>午前|午後|夕方|夜|晩|朝|昼)?\s*(?P<h>\d{1,2})\s*時(?!間)"
                 r"\s*(?:(?P<half>半)|(?P<m>\d{1,2})\s*分)?")
_CLOCK = re.compile(r"(?<![\d/.:-])(?P<h>\d{1,2}):(?P<m>\d{2})(?![\d:])\s*(?P<post>am|a\.m\.|pm|p\.m\.)?",
                    re.IGNORECASE)
_EN = re.compile(r"(?<![\d/.:-])(?P<h>\d{1,2})\s*(?:(?P<post>am|a\.m\.|pm|p\.m\.)|o'?clock)(?![a-z])", re.IGNORECASE)
_EN_AT = re.compile(rf"(?<![a-z])(?:{'|'.join(time_leads()['digits'])})\s+"
                    r"(?P<h>\d{1,2})(?:\s+(?P<m>[0-5]\d)(?![\d:]))?(?![\d:a-z年月日時])",
                    re.IGNORECASE)  # at 7, at 7 15
# A time from now: 1時間後, 1時間半後, 45分後, 今から45分くらいで, あと30分で; in half an hour, in 45 minutes.
_DURATION = r"(?:(?P<h>\d{1,2})\s*時間(?P<half>半)?)?\s*(?:(?P<m>\d{1,3})\s*分)?\s*(?:くらい|ぐらい|ほど|位)?\s*"
# The `regex` package lets the two ways of saying it name their groups alike.
_JA_LATER = regex.compile(rf"(?:今から|いまから|あと)\s*{_DURATION}(?:後|ご|したら|で)?"
                          rf"|(?<![\d時:])(?<!時\s){_DURATION}(?:後|したら)")


@dataclass(frozen=True)
class TimeMatch:
    value: str  # HH:MM
    start: int
    end: int


def find_times(text: str, now: str | None = None) -> list[TimeMatch]:
    """Every time of day said in `text` (normalised: ASCII digits), in order, without overlaps; `now` (HH:MM)
    is the clock a time from now and a bare hour are read against."""
    found: list[TimeMatch] = []
    spans: list[tuple[int, int]] = []  # of those found, in order: a long request says many
    if now is not None:
        for later in _later(text, now):
            found.append(later)
            bisect.insort(spans, (later.start, later.end))
    for pattern in (_JA, _CLOCK, _EN, _EN_AT, _worded()):
        for m in pattern.finditer(text):
            if _overlaps(spans, m.start(), m.end()):
                continue
            hour, minute = _hour_minute(m)
            marker = (m.groupdict().get("pre") or m.groupdict().get("post")
                      or (pattern is not _JA and _day_part(text, m.end())) or "").lower()
            value = _clock(hour, minute, bool(marker and re.fullmatch(_AFTERNOON, marker)),
                           marker in ("am", "a.m.", "午前", "朝", "morning"))
            if value is not None and not marker and now is not None:
                value = _next(value, now)
            if value is not None:
                found.append(TimeMatch(value, m.start(), m.end()))
                bisect.insort(spans, m.span())
    return sorted(found, key=lambda t: t.start)


def _hour_minute(m: re.Match[str]) -> tuple[int, int]:
    """The hour and minute a match says, in digits or in words (seven thirty, a quarter to eight)."""
    said = m.groupdict()
    word = said.get("hw") or said.get("hw2")
    if word is None:
        return int(m["h"]), 30 if said.get("half") else int(said.get("m") or 0)
    words = clock_words()
    hour = words["hours"][word.lower()]
    if said.get("to"):
        return hour - 1 if hour > 1 else 12, words["to"][" ".join(said["to"].lower().split())]
    if said.get("past"):
        return hour, words["past"][" ".join(said["past"].lower().split())]
    return hour, words["minutes"].get(" ".join((said.get("mw") or "").lower().replace("-", " ").split()), 0)


@cache
def _worded() -> re.Pattern[str]:
    """A time said in words: at seven, at seven thirty, half past six, a quarter to eight (pm / o'clock after)."""
    words = clock_words()

    def alt(names: dict[str, int]) -> str:
        return "|".join(re.escape(w).replace(r"\ ", r"[\s-]+") for w in sorted(names, key=len, reverse=True))

    return re.compile(rf"(?<![a-z])(?:(?:{'|'.join(time_leads()['words'])})\s+(?P<hw>{alt(words['hours'])})"
                      rf"(?:\s+(?P<mw>{alt(words['minutes'])}))?"
                      rf"|(?:(?P<past>{alt(words['past'])})|(?P<to>{alt(words['to'])}))\s+(?P<hw2>{alt(words['hours'])}))"
                      r"(?:\s*(?P<post>am|a\.m\.|pm|p\.m\.)|\s+o'?clock)?(?![a-z])(?!\s+of\b)", re.IGNORECASE)


def _later(text: str, now: str) -> list[TimeMatch]:
    """The times said as a time from now, counted from `now`."""
    out = []
    for m in _JA_LATER.finditer(text):
        h, half, minute = m["h"], m["half"], m["m"]
        if h or minute:
            minutes = int(h or 0) * 60 + (30 if half else 0) + int(minute or 0)
            out.append(TimeMatch(_plus(now, minutes), m.start(), m.end()))
    for m in _en_later().finditer(text):
        each = 60 if m["unit"].lower().startswith("h") else 1
        amount = 0.5 if m["half"] else 1 if m["an"] else int(m["n"]) if m["n"] else _worded_minutes(m["nw"])
        out.append(TimeMatch(_plus(now, round(amount * each)), m.start(), m.end()))
    return out


@cache
def _en_later() -> re.Pattern[str]:
    """in half an hour, in an hour, in 45 minutes, in thirty minutes."""
    worded = "|".join(re.escape(w).replace(r"\ ", r"[\s-]+")
                      for w in sorted(clock_words()["minutes"], key=len, reverse=True))
    roughly = "|".join(time_leads()["roughly"])
    return re.compile(rf"(?<![a-z])in\s+(?:(?:{roughly})\s+)?(?:(?P<half>half\s+an?)|(?P<an>an?)|(?P<n>\d{{1,3}})"
                      rf"|(?P<nw>{worded}))\s+(?P<unit>hours?|minutes?|mins?)(?![a-z])", re.IGNORECASE)


def _worded_minutes(said: str) -> int:
    return clock_words()["minutes"][" ".join(said.lower().replace("-", " ").split())]


@cache
def _day_patterns() -> dict[str, tuple[Pattern, ...]]:
    return {part: tuple(Pattern.parse(p) for p in patterns) for part, patterns in day_parts().items()}


def _day_part(text: str, end: int) -> str | None:
    """evening or morning where the words right after a time say which (at 8 tonight, at 7 tomorrow morning)."""
    if not text[end:].strip() or text[end:].lstrip()[:1].isdigit():
        return None
    utterance = tokenise(text)
    first = next((i for i, t in enumerate(utterance.tokens) if t.start >= end), None)
    if first is None:
        return None
    return next((part for part, patterns in _day_patterns().items()
                 if any(p.at(utterance, first) for p in patterns)), None)


def _plus(now: str, minutes: int) -> str:
    hour, minute = map(int, now.split(":"))
    total = (hour * 60 + minute + minutes) % (24 * 60)
    return f"{total // 60:02d}:{total % 60:02d}"


def _next(value: str, now: str) -> str:
    """A bare hour before noon read as the evening's where the morning's has passed (7時 at 17:00 is 19:00)."""
    hour = int(value[:2])
    return f"{hour + 12:02d}{value[2:]}" if hour < 12 and value < now else value


def _overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether [start, end) overlaps one of `spans` (in order, none overlapping another)."""
    at = bisect.bisect_right(spans, (start, math.inf))
    return (at > 0 and spans[at - 1][1] > start) or (at < len(spans) and spans[at][0] < end)


def _clock(hour: int, minute: int, afternoon: bool, morning: bool) -> str | None:
    if minute > 59 or hour > 24 or ((afternoon or morning) and hour > 12):
        return None
    if afternoon and hour < 12:
        hour += 12
    elif morning and hour == 12:
        hour = 0
    if hour == 24:
        return None
    return f"{hour:02d}:{minute:02d}"
