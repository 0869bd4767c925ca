r"""The guard: is this call one of ours, with arguments we can run?

`check` is a pure function of the declared tools, the requested call and a
`GuardContext` (today, plus the values and date ranges taken from the data).
It returns a decision value and touches no database. Checks, in order:
known tool; arguments form an object; no undeclared argument; each value has
its declared type, pattern, bounds and (for enums) one of the valid values or
a declared synonym; defaults filled; ordered date pairs not reversed.

Text is read as a person typing it means it, and never stored or matched in a
form that displays differently from what it holds:

- Every string, enum value and date loses its C0 and C1 control characters
  (NUL, ESC, DEL, U+0080-U+009F ...) except tab and newline; they are never
  meant, and a terminal or a database would act on them (``\r\n`` becomes
  ``\n``). Then surrounding white space goes.
- Every string, enum value and date that holds a bidirectional embedding,
  override or isolate (U+202A-U+202E, U+2066-U+2069) is refused, naming the
  character: it makes text display in another order than it is stored
  (``\u202e0100`` shows as 0010), so removing it silently would store
  something other than what the user saw. Marks that only nudge direction
  (U+200E, U+200F) stay, as Arabic and Hebrew text needs them.
- A string with a declared pattern is a code or number: it is NFKC-normalised
  and every decimal digit of any script becomes its ASCII digit before the
  pattern is matched (``０００９`` and ``٠٠٠٩`` are read as 0009), so a value
  that passes ``^\d{4}$`` holds ASCII digits only. Free text (no pattern) is
  kept as typed, so half-width katakana or ① stay what they are.
- A date is normalised the same way and must then be ``[0-9]{4}-[0-9]{2}-[0-9]{2}``;
  one written so that does not exist is refused as not a real date, saying why
  (February 2025 has 28 days).

Messages are English, for the model that corrects its call; where a person is
likely to read one as it is, `Refused.message_ja` carries it in Japanese. A
value quoted in a message is shortened, and its invisible characters escaped.
"""

from __future__ import annotations

import calendar
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from concierge.catalog.model import Param, Tool
from concierge.errors import ResultCode


@dataclass(frozen=True)
class GuardContext:
    today: date
    enum_values: Mapping[str, list[str]] = field(default_factory=dict)  # data query -> values
    date_ranges: Mapping[str, tuple[date, date]] = field(default_factory=dict)  # data query -> range


@dataclass(frozen=True)
class Accepted:
    tool: Tool
    args: dict[str, Any]


@dataclass(frozen=True)
class Refused:
    code: ResultCode
    message: str
    param: str | None = None
    valid: dict[str, Any] | None = None
    message_ja: str | None = None


Decision = Accepted | Refused


class _Bad(Exception):
    def __init__(self, message: str, valid: dict | None = None, message_ja: str | None = None):
        super().__init__(message)
        self.valid = valid
        self.message_ja = message_ja


# C0 and C1 control characters and DEL, but tab and newline
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# bidirectional embeddings, overrides and isolates
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
_DATE = re.compile("[0-9]{4}-[0-9]{2}-[0-9]{2}")
_SHOWN = 40  # characters of a refused value quoted in a message


def check(tools: Mapping[str, Tool], name: str, args: Any, ctx: GuardContext) -> Decision:
    tool = tools.get(name)
    return unknown_tool(name, tools) if tool is None else check_args(tool, args, ctx)


def unknown_tool(name: str, tools: Mapping[str, Tool]) -> Refused:
    return Refused(
        ResultCode.UNKNOWN_TOOL,
        f"there is no tool {name!r}; the tools are: {', '.join(sorted(tools))}",
        valid={"tools": sorted(tools)},
    )


def check_args(tool: Tool, args: Any, ctx: GuardContext) -> Decision:
    """The arguments of a call to `tool`, checked and typed; or why they are refused."""
    name = tool.name
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        return Refused(ResultCode.BAD_ARGUMENT, f"{name}: the arguments must be a JSON object")
    extra = sorted(set(args) - set(tool.params))
    if extra:
        return Refused(
            ResultCode.BAD_ARGUMENT,
            f"{name}: unknown argument(s) {', '.join(extra)}; this tool takes: {', '.join(tool.params) or 'none'}",
            param=extra[0],
            valid={"params": list(tool.params)},
        )
    clean: dict[str, Any] = {}
    for pname, param in tool.params.items():
        try:
            clean[pname] = _value(param, args.get(pname), ctx)
        except _Bad as bad:
            return Refused(ResultCode.BAD_ARGUMENT, f"{name}: {pname} {bad}", param=pname, valid=bad.valid,
                           message_ja=f"{name}: {pname} {bad.message_ja}" if bad.message_ja else None)
    for first, last in tool.ordered:
        if clean[first] is not None and clean[last] is not None and clean[first] > clean[last]:
            return Refused(
                ResultCode.BAD_ARGUMENT,
                f"{name}: {first} {clean[first]} is after {last} {clean[last]}; the period must not run backwards",
                param=first,
            )
    return Accepted(tool, clean)


def valid_values(param: Param, ctx: GuardContext) -> list[str]:
    if param.enum is None:
        return []
    if param.enum.values is not None:
        return list(param.enum.values)
    return list(ctx.enum_values.get(param.enum.query or "", []))


def date_range(param: Param, ctx: GuardContext) -> tuple[date | None, date | None]:
    """The inclusive bounds of a date parameter, or None at an open end."""
    if param.bounds is None:
        return None, None
    low, high = (_bound(param.bounds.min, ctx), _bound(param.bounds.max, ctx))
    if param.bounds.query:
        data_low, data_high = ctx.date_ranges.get(param.bounds.query, (None, None))
        low = max(filter(None, (low, data_low)), default=None)
        high = min(filter(None, (high, data_high)), default=None)
    return low, high


def _bound(value: str | None, ctx: GuardContext) -> date | None:
    if value is None:
        return None
    return ctx.today if value == "today" else date.fromisoformat(value)


def _value(param: Param, value: Any, ctx: GuardContext) -> Any:
    if value is None:
        if param.required:
            raise _Bad("is required")
        if param.default == "today" and param.type == "date":
            return ctx.today
        return param.default
    kind = {"string": _string, "integer": _integer, "date": _date, "enum": _enum}[param.type]
    return kind(param, value, ctx)


def _string(param: Param, value: Any, _ctx: GuardContext) -> str:
    if not isinstance(value, str):
        raise _Bad(f"must be a string; got {type(value).__name__} {_shown(value)}")
    value = _clean(value)
    if param.pattern is not None:
        value = ascii_digits(value)
    if param.min_length is not None and len(value) < param.min_length:
        raise _Bad(f"must be at least {param.min_length} character(s) long")
    if param.max_length is not None and len(value) > param.max_length:
        raise _Bad(f"must be at most {param.max_length} characters long; got {len(value)}")
    if param.pattern is not None and not re.fullmatch(param.pattern, value):
        raise _Bad(f"{_shown(value)} does not match the pattern {param.pattern}", {"pattern": param.pattern})
    return value


def ascii_digits(text: str) -> str:
    """`text` NFKC-normalised, with every decimal digit of any script as its ASCII digit."""
    text = unicodedata.normalize("NFKC", text)
    if text.isascii():
        return text
    return "".join(str(unicodedata.decimal(c)) if c.isdecimal() and not c.isascii() else c for c in text)


def _clean(text: str) -> str:
    """`text` without control characters (but tab and newline) and surrounding space; a bidirectional
    override or isolate is refused."""
    found = _BIDI.search(text)
    if found:
        char = found.group()
        code = f"U+{ord(char):04X} {unicodedata.name(char, 'direction control')}"
        raise _Bad(
            f"contains the invisible character {code}, which makes text display in another order than "
            "it is stored; remove it and send the text again",
            message_ja=f"に表示の向きを変える見えない文字 {code} が含まれています。取り除いてから送り直してください",
        )
    return _CONTROL.sub("", text).strip()


def _shown(value: Any) -> str:
    """`value` as quoted in a message: its repr (invisible characters escaped), shortened."""
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _integer(param: Param, value: Any, _ctx: GuardContext) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Bad(f"must be an integer; got {type(value).__name__} {_shown(value)}")
    if (param.min is not None and value < param.min) or (param.max is not None and value > param.max):
        low = "" if param.min is None else param.min
        high = "" if param.max is None else param.max
        raise _Bad(f"must be between {low} and {high}; got {value}", {"min": param.min, "max": param.max})
    return value


def _date(param: Param, value: Any, ctx: GuardContext) -> date:
    text = ascii_digits(_clean(value)) if isinstance(value, str) else None
    if text is None or not _DATE.fullmatch(text):
        raise _Bad(f"must be a date written YYYY-MM-DD; got {_shown(value)}",
                   message_ja=f"は YYYY-MM-DD の形の日付で指定してください（{_shown(value)} は読めません）")
    parsed = _real_date(text)
    low, high = date_range(param, ctx)
    if (low and parsed < low) or (high and parsed > high):
        span = f"{low or '…'} .. {high or '…'}"
        raise _Bad(
            f"{parsed} is outside the allowed range {span}",
            {"min": low.isoformat() if low else None, "max": high.isoformat() if high else None},
        )
    return parsed


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def _real_date(text: str) -> date:
    """The date `text` (written YYYY-MM-DD) names; refused, saying why, when there is none."""
    year, month, day = (int(part) for part in text.split("-"))
    if year == 0:
        why, why_ja = "there is no year 0000", "0000年はありません"
    elif not 1 <= month <= 12:
        why, why_ja = f"there is no month {month:02d}", f"{month}月はありません"
    else:
        days = calendar.monthrange(year, month)[1]
        if 1 <= day <= days:
            return date(year, month, day)
        why, why_ja = f"{_MONTHS[month - 1]} {year} has {days} days", f"{year}年{month}月は{days}日までです"
    raise _Bad(f"{text} is not a real date: {why}", message_ja=f"の {text} は存在しない日付です（{why_ja}）")


def _enum(param: Param, value: Any, ctx: GuardContext) -> str:
    values = valid_values(param, ctx)
    if not isinstance(value, str):
        raise _Bad(f"must be one of: {', '.join(values)}; got {_shown(value)}", {"values": values})
    if value in values:
        return value
    key = _fold(_clean(value))
    for candidate in values:
        if _fold(candidate) == key:
            return candidate
    assert param.enum is not None
    for synonym, target in param.enum.synonyms.items():
        if _fold(synonym) == key and target in values:
            return target
    raise _Bad(f"{_shown(value)} is not a valid value; valid: {', '.join(values)}", {"values": values})


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().lower()
