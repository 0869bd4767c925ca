"""Times of day said in a request: 18時半, 18時30分, 午後6時, 夕方6時半, ろくじはん, 7時10分前 (6:50), 18:30, 6:30 pm,
7pm, at 7 o'clock, at seven thirty, half past six, ten to seven.

A time is taken as said: 午後 / 夕方 / 夜 / pm move an hour before 12 to the afternoon. A bare hour
(6時半, at 8) is the next time it comes round from the clock `now` (18:30 at 17:00, 06:30 at 05:00), as a
person means it; with no clock it stays as said (06:30). A time from now (1時間後, 今から45分くらいで, in half
an hour) is counted from `now`. A time that does not exist (25時, 18:75) is not read as a time.

A time said in Japanese is read from the analyser's words (language/tokens.py): 8時 is a number before the
counter 時, so 8時間 or 一時的 say no time; an hour in kana (しちじ) is matched on the text at the analyser's word
boundaries, which cut it badly (じゅう|にじ), and only with a particle, a half or minutes after it. The words of both
languages are data: words/ja.toml ([clock], [from_now]) and words/en.toml ([clock], [clock_marks], [from_now],
[time_leads], [day_parts]).
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

from concierge.language.english import clock_marks, clock_words, day_parts, from_now_units, time_leads
from concierge.language.japanese import from_now_words, time_words
from concierge.language.patterns import Match, Pattern
from concierge.language.tokens import Token, Utterance, japanese, tokenise

# The clock a bare hour on a later day is read against (明日8時半, tomorrow at 6): a day's hours begin at 7, so 7 to
# 11 are the morning's and 1 to 6 the afternoon's. A time from now has no meaning on a later day.
LATER_DAY_CLOCK = "06:59"


@dataclass(frozen=True)
class TimeMatch:
    value: str  # HH:MM
    start: int
    end: int


@dataclass(frozen=True)
class _Said:
    """An hour and minute said at [start, end), and the half of the day said with it (afternoon, morning,
    as_said: the hour as said; "" where none is)."""

    hour: int
    minute: int
    start: int
    end: int
    half: str


def find_times(text: str, now: str | None = None) -> list[TimeMatch]:
    """Every time of day said in `text` (normalised: ASCII digits), in order, without overlaps; `now` (HH:MM)
    is the clock a time from now and a bare hour are read against."""
    found: list[TimeMatch] = []
    spans: list[tuple[int, int]] = []  # of those found, in order: a long request says many
    if now is not None:
        for later in _later(text, now):
            found.append(later)
            bisect.insort(spans, (later.start, later.end))
    for said in _said(text):
        if _overlaps(spans, said.start, said.end):
            continue
        value = _clock(said.hour, said.minute, said.half == "afternoon", said.half == "morning")
        if value is not None and not said.half and now is not None:
            value = _next(value, now)
        if value is not None:
            found.append(TimeMatch(value, said.start, said.end))
            bisect.insort(spans, (said.start, said.end))
    return sorted(found, key=lambda t: t.start)


def _said(text: str) -> Iterator[_Said]:
    """The times of day said, Japanese first, then in digits with a colon, with am / pm, after at, in words."""
    yield from _japanese_clock(text)
    for pattern in (*_english(), _worded()):
        for m in pattern.finditer(text):
            hour, minute = _hour_minute(m)
            yield _Said(hour, minute, m.start(), m.end(), _english_half(m.groupdict().get("post"), text, m.end()))


def _english_half(post: str | None, text: str, end: int) -> str:
    """The half of the day said right after an hour (pm) or by the words after it (tonight); "" where none is."""
    marks = clock_marks()
    if post:
        return "afternoon" if post.lower() in marks["afternoon"] else "morning"
    part = _day_part(text, end)
    return marks["parts"][part] if part else ""


@cache
def _english() -> tuple[re.Pattern[str], ...]:
    """19:30 and 6:30 pm; 7pm and 7 o'clock; at 7 and at 7 15."""
    post, oclock = _marks(), _alternatives(clock_marks()["oclock"])
    not_after = _alternatives(time_words()["not_after_english_hour"])
    return (re.compile(rf"(?<![\d/.:-])(?P<h>\d{{1,2}}):(?P<m>\d{{2}})(?![\d:])\s*(?P<post>{post})?", re.IGNORECASE),
            re.compile(rf"(?<![\d/.:-])(?P<h>\d{{1,2}})\s*(?:(?P<post>{post})|{oclock})(?![a-z])", re.IGNORECASE),
            re.compile(rf"(?<![a-z])(?:{'|'.join(time_leads()['digits'])})\s+"
                       rf"(?P<h>\d{{1,2}})(?:\s+(?P<m>[0-5]\d)(?![\d:]))?(?![\d:a-z]|{not_after})", re.IGNORECASE))


def _marks() -> str:
    """am, pm and the like, as one alternation."""
    marks = clock_marks()
    return _alternatives([*marks["afternoon"], *marks["morning"]])


def _alternatives(words: Sequence[str]) -> str:
    """`words` as a regex alternation, longest first, a space in one standing for any space (or a hyphen)."""
    return "|".join(re.escape(w).replace(r"\ ", r"[\s-]+") for w in sorted(words, key=len, reverse=True))


def _hour_minute(m: re.Match[str]) -> tuple[int, int]:
    """The hour and minute a match says, in digits or in words (seven thirty, a quarter to eight)."""
    said = m.groupdict()
    word = said.get("hw") or said.get("hw2")
    if word is None:
        return int(m["h"]), int(said.get("m") or 0)
    words = clock_words()
    hour = words["hours"][word.lower()]
    if said.get("to"):
        return hour - 1 if hour > 1 else 12, words["to"][" ".join(said["to"].lower().replace("-", " ").split())]
    if said.get("past"):
        return hour, words["past"][" ".join(said["past"].lower().replace("-", " ").split())]
    return hour, words["minutes"].get(" ".join((said.get("mw") or "").lower().replace("-", " ").split()), 0)


@cache
def _worded() -> re.Pattern[str]:
    """A time said in words: at seven, at seven thirty, half past six, a quarter to eight (pm / o'clock after)."""
    words, marks = clock_words(), clock_marks()
    hours = _alternatives(list(words["hours"]))
    lead = "|".join(time_leads()["words"])
    not_a_range = "".join(rf"(?<!{re.escape(w)}\s)" for w in marks["not_before_to"])
    return re.compile(rf"(?<![a-z])(?:(?:(?:{lead})\s+)?(?:(?P<past>{_alternatives(list(words['past']))})"
                      rf"|{not_a_range}(?P<to>{_alternatives(list(words['to']))}))\s+(?P<hw2>{hours})"
                      rf"|(?:{lead})\s+(?P<hw>{hours})(?:\s+(?P<mw>{_alternatives(list(words['minutes']))}))?)"
                      rf"(?:\s*(?P<post>{_marks()})|\s+(?:{_alternatives(marks['oclock'])}))?(?![a-z])"
                      rf"(?!\s+(?:{_alternatives(marks['not_before'])})\b)", re.IGNORECASE)


def _japanese_clock(text: str) -> Iterator[_Said]:
    """The times of day said in Japanese (午後6時半, 18時45分), read from the analyser's words."""
    if not _may_say_a_time(text):
        return
    utterance = tokenise(text)
    i, floor = 0, 0
    while i < len(utterance.tokens):
        found = _clock_at(utterance, i, floor)
        if found is None:
            i += 1
            continue
        said, i = found
        floor = said.end
        yield said


def _may_say_a_time(text: str) -> bool:
    """Whether `text` is Japanese with a digit or an hour in kana: every time said in Japanese has one."""
    return japanese(text) and (any(c.isdigit() for c in text) or any(h in text for h in _kana_hours()))


def _clock_at(utterance: Utterance, first: int, floor: int) -> tuple[_Said, int] | None:
    """The time of day said from token `first` (夕方6時半, ろくじはん), and the index of the token after it. An hour
    said with no part of the day before it or minutes after it takes the spaces around it, back to `floor`."""
    tokens = utterance.tokens
    part = _day_half(tokens[first].surface)
    i = first + 1 if part else first
    said = _hour_at(utterance, i)
    if said is None:
        return None
    hour, i, in_kana = said
    minute, i = _minutes_at(tokens, i)
    if minute is None and in_kana and not _ends_kana_hour(utterance, i):
        return None
    if minute is not None and minute < 0:  # 7時10分前: ten minutes before 7
        hour, minute = divmod((hour * 60 + minute) % (24 * 60), 60)
    start = tokens[first].start if part else _spaced_start(utterance.text, tokens[first].start, floor)
    end = tokens[i - 1].end if minute is not None else _spaced_end(utterance, i)
    return _Said(hour, minute or 0, start, end, part), i


def _hour_at(utterance: Utterance, i: int) -> tuple[int, int, bool] | None:
    """The hour said from token `i` (6時, ろくじ), the index of the token after it and whether it is said in kana."""
    tokens = utterance.tokens
    if _number(tokens, i, 2) and _one_of(tokens, i + 1, time_words()["hour"]):
        return int(tokens[i].surface), i + 2, False
    if i >= len(tokens):
        return None
    start, text = tokens[i].start, utterance.text
    for said, hour in _kana_hours().items():
        end = start + len(said)
        if text.startswith(said, start) and utterance.ends_at(end):
            return hour, utterance.starting(end, len(text) + 1).start, True
    return None


def _minutes_at(tokens: Sequence[Token], i: int) -> tuple[int | None, int]:
    """The minutes said from token `i` after an hour (半, 45分; 10分前: -10), and the index of the token after them."""
    words = time_words()
    if _one_of(tokens, i, words["half"]):
        return 30, i + 1
    if not (_number(tokens, i, 2) and _one_of(tokens, i + 1, words["minute"])):
        return None, i
    minutes = int(tokens[i].surface)
    if 0 < minutes < 60 and _one_of(tokens, i + 2, words["before"]):
        return -minutes, i + 3
    return minutes, i + 2


def _ends_kana_hour(utterance: Utterance, i: int) -> bool:
    """Whether the words from token `i` end an hour said in kana (しちじに, くじごろ): else it is another word
    (にじが出た, くじびき)."""
    tokens = utterance.tokens
    if i >= len(tokens) or tokens[i].start > tokens[i - 1].end:
        return True
    return any(p.at(utterance, i) for p in _after_kana_hour())


@cache
def _kana_hours() -> dict[str, int]:
    """The hours said in kana (ろくじ: 6, じゅうにじ: 12, にじゅうじ: 20), longest first."""
    words = cast(dict[str, Any], time_words())
    ones, tens = words["kana_ones"], words["kana_tens"]
    numbers = {**ones, **tens, **{ten + one: t + n for ten, t in tens.items() for one, n in ones.items()}}
    hours = {said + hour: n for said, n in numbers.items() for hour in words["kana_hour"]}
    return dict(sorted(hours.items(), key=lambda h: len(h[0]), reverse=True))


@cache
def _after_kana_hour() -> tuple[Pattern, ...]:
    return tuple(Pattern.parse(p) for p in cast(dict[str, Any], time_words())["after_kana_hour"])


def _day_half(word: str) -> str:
    """The half of the day a word said before an hour puts it in (午後: afternoon, 昼: as_said), or ""."""
    words = time_words()
    return next((half for half in ("afternoon", "morning", "as_said") if word in words[half]), "")


def _number(tokens: Sequence[Token], i: int, digits: int) -> bool:
    """Whether token `i` is a number in digits, `digits` of them at most."""
    return i < len(tokens) and tokens[i].surface.isdigit() and len(tokens[i].surface) <= digits


def _one_of(tokens: Sequence[Token], i: int, words: Collection[str]) -> bool:
    return i < len(tokens) and tokens[i].surface in words


def _later(text: str, now: str) -> list[TimeMatch]:
    """The times said as a time from now, counted from `now`."""
    out = [TimeMatch(_plus(now, minutes), start, end) for minutes, start, end in _japanese_later(text)]
    for m in _en_later().finditer(text):
        each = 60 if m["unit"].lower() in from_now_units()["hours"] else 1
        amount = 0.5 if m["half"] else 1 if m["an"] else int(m["n"]) if m["n"] else _worded_minutes(m["nw"])
        out.append(TimeMatch(_plus(now, round(amount * each)), m.start(), m.end()))
    return out


def _japanese_later(text: str) -> Iterator[tuple[int, int, int]]:
    """The minutes from now said in Japanese (1時間後, 今から45分くらいで, あと30分で), and their span."""
    if not _may_say_a_time(text):
        return
    utterance = tokenise(text)
    i, floor = 0, 0
    while i < len(utterance.tokens):
        found = _from_lead(utterance, i) or _alone(utterance, i, floor)
        if found is None:
            i += 1
            continue
        minutes, i, start, floor = found
        yield minutes, start, floor


def _from_lead(utterance: Utterance, first: int) -> tuple[int, int, int, int] | None:
    """A time from now said after 今から or あと (今から45分くらいで): its minutes, the index of the token after it
    and its span (with the spaces after it where no word such as で ends it)."""
    patterns = _from_now_patterns()
    lead = _first_match(patterns["lead"], utterance, first)
    duration = lead and _duration(utterance.tokens, lead.last)
    if not lead or not duration:
        return None
    minutes, i = duration
    after = _first_match((*patterns["after"], *patterns["after_lead"]), utterance, i)
    return minutes, after.last if after else i, lead.start, after.end if after else _spaced_end(utterance, i)


def _alone(utterance: Utterance, first: int, floor: int) -> tuple[int, int, int, int] | None:
    """A time from now said with no word before it (1時間後, 20分したら): its minutes, the index of the token
    after it and its span (minutes said first take the spaces before them, back to `floor`)."""
    tokens = utterance.tokens
    duration = _duration(tokens, first)
    after = duration and _first_match(_from_now_patterns()["after"], utterance, duration[1])
    if not duration or not after:
        return None
    hours_first = _one_of(tokens, first + 1, from_now_words()["hours"])
    start = tokens[first].start
    starts = (start,) if hours_first else range(_spaced_start(utterance.text, start, floor), start + 1)
    begins = next((at for at in starts if not _after_a_time(utterance.text, at)), None)
    return None if begins is None else (duration[0], after.last, begins, after.end)


def _after_a_time(text: str, at: int) -> bool:
    """Whether minutes said from `at` belong to the time of day said right before (8時30分, 8時 30分, 8:30)."""
    hour = tuple(time_words()["hour"])
    before = text[:at]
    return before[-1:].isdigit() or before.endswith((":", *hour)) or (
        before[-1:].isspace() and before[:-1].endswith(hour))


def _duration(tokens: Sequence[Token], i: int) -> tuple[int, int] | None:
    """The minutes said from token `i` (1時間半, 45分くらい), and the index of the token after them."""
    words, clock = from_now_words(), time_words()
    minutes, said = 0, False
    if _number(tokens, i, 2) and _one_of(tokens, i + 1, words["hours"]):
        minutes, i, said = int(tokens[i].surface) * 60, i + 2, True
        if _one_of(tokens, i, clock["half"]):
            minutes, i = minutes + 30, i + 1
    if _number(tokens, i, 3) and _one_of(tokens, i + 1, _minutes_roughly()):
        return minutes + int(tokens[i].surface), i + 2  # 分位: the analyser reads the two as one word
    if _number(tokens, i, 3) and _one_of(tokens, i + 1, clock["minute"]):
        minutes, i, said = minutes + int(tokens[i].surface), i + 2, True
    if said and _one_of(tokens, i, words["roughly"]):
        i += 1
    return (minutes, i) if said else None


@cache
def _minutes_roughly() -> frozenset[str]:
    """A minute and a word of roughly, said as one word."""
    return frozenset(m + r for m in time_words()["minute"] for r in from_now_words()["roughly"])


def _spaced_start(text: str, start: int, floor: int) -> int:
    """Where the words from `start` begin, with the spaces before them back to `floor`."""
    while start > floor and text[start - 1].isspace():
        start -= 1
    return start


def _spaced_end(utterance: Utterance, last: int) -> int:
    """Where the words before token `last` end, with the spaces after them."""
    end = utterance.tokens[last - 1].end
    text = utterance.text
    while end < len(text) and text[end].isspace():
        end += 1
    return end


@cache
def _from_now_patterns() -> dict[str, tuple[Pattern, ...]]:
    words = from_now_words()
    return {key: tuple(Pattern.parse(p) for p in words[key]) for key in ("lead", "after", "after_lead")}


def _first_match(patterns: Sequence[Pattern], utterance: Utterance, first: int) -> Match | None:
    return next((m for p in patterns if (m := p.at(utterance, first)) is not None), None)


@cache
def _en_later() -> re.Pattern[str]:
    """in half an hour, in an hour, in 45 minutes, in thirty minutes."""
    units = from_now_units()
    worded = _alternatives(list(clock_words()["minutes"]))
    roughly, unit = "|".join(time_leads()["roughly"]), _alternatives([*units["hours"], *units["minutes"]])
    return re.compile(rf"(?<![a-z])(?:{_alternatives(units['lead'])})\s+(?:(?:{roughly})\s+)?"
                      rf"(?:(?P<half>{_alternatives(units['half'])})|(?P<an>{_alternatives(units['one'])})"
                      rf"|(?P<n>\d{{1,3}})|(?P<nw>{worded}))\s+(?P<unit>{unit})(?![a-z])", re.IGNORECASE)


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
