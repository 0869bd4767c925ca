"""Values as an answer writes them: numbers with thousands separators, dates as 5/10 or May 10,
signs, and choices by value (`?asc=…|*=…`, `?+=…|-=…|0=…`)."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from concierge.sources.result import Money

_ISO_DAY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")
_EN_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_JA_WEEKDAYS = "月火水木金土日"
_EN_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def as_date(value: Any) -> date | None:
    """A date from an ISO text (or a timestamp's date part), else None."""
    if isinstance(value, date):
        return value
    m = _ISO_DAY.match(str(value)) if isinstance(value, str) else None
    if m is None:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def month_day(d: date, today: date, lang: str) -> str:
    """5/10 or May 10; with the year when it is not today's year (2024/12/30, Dec 30, 2024)."""
    if lang == "ja":
        return f"{d.month}/{d.day}" if d.year == today.year else f"{d.year}/{d.month}/{d.day}"
    text = f"{_EN_MONTHS[d.month - 1]} {d.day}"
    return text if d.year == today.year else f"{text}, {d.year}"


def weekday_day(d: date, today: date, lang: str) -> str:
    """A day with its weekday, the way a person checks a date they said as 先週火曜日: 5/6(火), Tue, May 6 (with
    the year when it is not today's year)."""
    if lang == "ja":
        return f"{month_day(d, today, lang)}({_JA_WEEKDAYS[d.weekday()]})"
    return f"{_EN_WEEKDAYS[d.weekday()]}, {month_day(d, today, lang)}"


def full_day(d: date, lang: str) -> str:
    """A day with its year and weekday: 2025年5月6日(火), Tue, May 6, 2025."""
    if lang == "ja":
        return f"{d.year}年{d.month}月{d.day}日({_JA_WEEKDAYS[d.weekday()]})"
    return f"{_EN_WEEKDAYS[d.weekday()]}, {_EN_MONTHS[d.month - 1]} {d.day}, {d.year}"


def number(value: Any, *, signed: bool = False) -> str:
    """A number with thousands separators (1,050; +19,140; -2.0), a float without the noise of float sums
    (81.24, not 81.23999999999998), an amount of money as it writes itself (1,234円, $81.24); anything
    else as text."""
    if isinstance(value, Money):
        return value.text(signed=signed)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, float) and len(repr(value).lstrip("-").replace(".", "").lstrip("0")) > 15:
        value = float(f"{value:.15g}")
    return f"{value:+,}" if signed else f"{value:,}"


def written(value: Any, fmt: str, lang: str, today: date) -> str | None:
    """A value through a format; None when there is no value (null, empty text, empty list)."""
    if value is None or value == "" or value == []:
        return None
    if fmt.startswith("?"):
        return _choice(value, fmt[1:])
    if fmt in ("md", "day"):
        day = as_date(value)
        if day is None:
            return str(value)
        return month_day(day, today, lang) if fmt == "md" else weekday_day(day, today, lang)
    if fmt == "abs" and isinstance(value, int | float | Money) and not isinstance(value, bool):
        return number(abs(value))
    return number(value, signed=fmt == "signed")


def _choice(value: Any, options: str) -> str:
    """`asc=…|*=…` by the value itself; `+=…|-=…|0=…` by the sign of a number; `*` otherwise."""
    table: dict[str, str] = {}
    for part in options.split("|"):
        key, _, text = part.partition("=") if "=" in part else ("*", "", part)
        table[key] = text
    if isinstance(value, int | float) and not isinstance(value, bool):
        sign = "+" if value > 0 else "-" if value < 0 else "0"
        if sign in table:
            return table[sign]
    return table.get(str(value), table.get("*", ""))
