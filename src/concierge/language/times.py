"""Times of day said in a request: 18時半, 18時30分, 午後6時, 夕方6時半, 18:30, 6:30 pm, 7pm, at 7 o'clock.

A time is taken as said: 午後 / 夕方 / 夜 / pm move an hour before 12 to the afternoon, and a bare
6時半 stays 06:30 (a tool's own bounds say when that is not a time it takes). A time that does not
exist (25時, 18:75) is not read as a time.
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass

_AFTERNOON = r"午後|夕方|夜|晩|pm|p\.m\."
_JA = re.compile(r"(?P<pre>午前|午後|夕方|夜|晩|朝|昼)?\s*(?P<h>\d{1,2})\s*時\s*(?:(?P<half>半)|(?P<m>\d{1,2})\s*分)?")
_CLOCK = re.compile(r"(?<![\d/.:-])(?P<h>\d{1,2}):(?P<m>\d{2})(?![\d:])\s*(?P<post>am|a\.m\.|pm|p\.m\.)?",
                    re.IGNORECASE)
_EN = re.compile(r"(?<![\d/.:-])(?P<h>\d{1,2})\s*(?:(?P<post>am|a\.m\.|pm|p\.m\.)|o'?clock)(?![a-z])", re.IGNORECASE)
_EN_AT = re.compile(r"(?<![a-z])(?:at|around)\s+(?P<h>\d{1,2})(?![\d:a-z年月日時])", re.IGNORECASE)


@dataclass(frozen=True)
class TimeMatch:
    value: str  # HH:MM
    start: int
    end: int


def find_times(text: str) -> list[TimeMatch]:
    """Every time of day said in `text` (normalised: ASCII digits), in order, without overlaps."""
    found: list[TimeMatch] = []
    spans: list[tuple[int, int]] = []  # of those found, in order: a long request says many
    for pattern in (_JA, _CLOCK, _EN, _EN_AT):
        for m in pattern.finditer(text):
            if _overlaps(spans, m.start(), m.end()):
                continue
            minute = 30 if m.groupdict().get("half") else int(m.groupdict().get("m") or 0)
            marker = (m.groupdict().get("pre") or m.groupdict().get("post") or "").lower()
            value = _clock(int(m["h"]), minute, bool(marker and re.fullmatch(_AFTERNOON, marker)),
                           marker in ("am", "a.m.", "午前", "朝"))
            if value is not None:
                found.append(TimeMatch(value, m.start(), m.end()))
                bisect.insort(spans, m.span())
    return sorted(found, key=lambda t: t.start)


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
