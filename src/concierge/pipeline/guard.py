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

Every refusal carries two messages. `Refused.message` is English, for the model
that corrects its call: it names the tool and the parameter. `Refused.message_ja`
is for a person reading a Japanese answer: it names the parameter by the label of
its description (顧客コード(4桁、例 0009) -> 顧客コード), never by its name, and says
what would be valid or what to do next. A value quoted in a message is shortened,
and its invisible characters escaped.
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
from concierge.language.spoken import dates, period
from concierge.sources.sql.executor import Needed


@dataclass(frozen=True)
class GuardContext:
    today: date
    enum_values: Mapping[str, list[str]] = field(default_factory=dict)  # `EnumSource.key` -> values
    date_ranges: Mapping[str, tuple[date, date]] = field(default_factory=dict)  # data query -> range
    # `EnumSource.key` -> what is said -> the value, read with `synonyms_query`
    enum_synonyms: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # `EnumSource.key` -> a value that names several rows -> their keys, read with `shared_query`
    enum_shared: Mapping[str, Mapping[str, list[str]]] = field(default_factory=dict)
    # `EnumSource.key` -> a value of `fits_param` -> the values it takes, read with `fits_query`
    enum_fits: Mapping[str, Mapping[str, list[str]]] = field(default_factory=dict)
    # a write -> a value of its required enum -> what its checks refuse it without
    needs: Mapping[str, Mapping[str, Needed]] = field(default_factory=dict)


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
    """A refused value: `message` follows the parameter's name, `message_ja` its Japanese label."""

    def __init__(self, message: str, message_ja: str, valid: dict | None = None):
        super().__init__(message)
        self.valid = valid
        self.message_ja = message_ja


# C0 and C1 control characters and DEL, but tab and newline
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# bidirectional embeddings, overrides and isolates
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
_DATE = re.compile("[0-9]{4}-[0-9]{2}-[0-9]{2}")
_SHOWN = 40  # characters of a refused value quoted in a message
_LISTED = 10  # valid values listed in a Japanese message
_LABEL_END = {"ja": re.compile(r"[(（\s、,:：]"), "en": re.compile(r"[(,;:]")}


def check(tools: Mapping[str, Tool], name: str, args: Any, ctx: GuardContext) -> Decision:
    tool = tools.get(name)
    return unknown_tool(name, tools) if tool is None else check_args(tool, args, ctx)


def unknown_tool(name: str, tools: Mapping[str, Tool]) -> Refused:
    can = "／".join(_first_sentence(tools[t].description.ja) for t in sorted(tools))
    return Refused(
        ResultCode.UNKNOWN_TOOL,
        f"there is no tool {name!r}; the tools are: {', '.join(sorted(tools))}",
        valid={"tools": sorted(tools)},
        message_ja=f"「{_shown_ja(name)}」という操作はありません。できるのは次のことです: {can}。",
    )


def label(param: Param, lang: str) -> str:
    """What a person calls the parameter: its description up to the first bracket, comma or space
    (顧客コード(4桁、例 0009) -> 顧客コード; "customer code, 4 digits" -> customer code)."""
    text = param.description.get(lang).strip()
    return _LABEL_END["ja" if lang == "ja" else "en"].split(text, maxsplit=1)[0] or text


def _hint(param: Param) -> str:
    """The Japanese description past its label (the form, an example): 4桁、例 0009."""
    text = param.description.ja.strip()
    rest = text[len(label(param, "ja")):].strip(" （）()、:：")
    return rest.replace("(", "（").replace(")", "）")


def _first_sentence(text: str) -> str:
    return text.split("。")[0].strip()


def check_args(tool: Tool, args: Any, ctx: GuardContext) -> Decision:
    """The arguments of a call to `tool`, checked and typed; or why they are refused."""
    name = tool.name
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        return Refused(ResultCode.BAD_ARGUMENT, f"{name}: the arguments must be a JSON object",
                       message_ja="指定の形が読めません。項目名と値の組（JSON のオブジェクト）で渡してください。")
    extra = sorted(set(args) - set(tool.params))
    if extra:
        return _unknown_args(tool, extra)
    clean: dict[str, Any] = {}
    for pname, param in tool.params.items():
        try:
            clean[pname] = _value(param, args.get(pname), ctx)
        except _Bad as bad:
            return Refused(ResultCode.BAD_ARGUMENT, f"{name}: {pname} {bad}", param=pname, valid=bad.valid,
                           message_ja=f"{label(param, 'ja')}{bad.message_ja}")
    for first, last in tool.ordered:
        if clean[first] is not None and clean[last] is not None and clean[first] > clean[last]:
            return _backwards(tool, first, last, clean, ctx)
    shared = _shared_name(tool, clean, ctx)
    return shared or Accepted(tool, clean)


def _shared_name(tool: Tool, clean: dict[str, Any], ctx: GuardContext) -> Refused | None:
    """A name given that several rows have (two customers named 佐藤), unless the key of one is given too:
    a result over all of them would answer for one person with the figures of two."""
    for pname, param in tool.params.items():
        enum = param.enum
        value = clean[pname]
        if enum is None or enum.shared_param is None or value is None or clean.get(enum.shared_param) is not None:
            continue
        keys = ctx.enum_shared.get(enum.key, {}).get(value)
        if not keys:
            continue
        key = tool.params[enum.shared_param]
        shown, shown_ja = ", ".join(keys[:_LISTED]), "、".join(keys[:_LISTED])
        return Refused(
            ResultCode.BAD_ARGUMENT,
            f"{tool.name}: {pname} {_shown(value)} names {len(keys)} different rows ({label(key, 'en')} {shown}): "
            f"give {enum.shared_param}, the {label(key, 'en')} of the one meant",
            param=pname, valid={enum.shared_param: keys},
            message_ja=f"{label(param, 'ja')}が「{_shown_ja(value)}」のものは{len(keys)}件あります"
                       f"（{label(key, 'ja')} {shown_ja}）。どれか{label(key, 'ja')}で指定してください。")
    return None


def _unknown_args(tool: Tool, extra: list[str]) -> Refused:
    takes = "、".join(label(p, "ja") for p in tool.params.values()) or "なし"
    return Refused(
        ResultCode.BAD_ARGUMENT,
        f"{tool.name}: unknown argument(s) {', '.join(extra)}; this tool takes: {', '.join(tool.params) or 'none'}",
        param=extra[0],
        valid={"params": list(tool.params)},
        message_ja=f"指定できない項目があります（{'、'.join(extra)}）。指定できるのは {takes} です。",
    )


def _day_ja(value: Any, ctx: GuardContext) -> str:
    return dates(value, value, ctx.today, "ja") if isinstance(value, date) else str(value)


def _backwards(tool: Tool, first: str, last: str, clean: dict[str, Any], ctx: GuardContext) -> Refused:
    a, b = tool.params[first], tool.params[last]
    shown_a, shown_b = _day_ja(clean[first], ctx), _day_ja(clean[last], ctx)
    return Refused(
        ResultCode.BAD_ARGUMENT,
        f"{tool.name}: {first} {clean[first]} is after {last} {clean[last]}; the period must not run backwards",
        param=first,
        message_ja=(f"{label(a, 'ja')}（{shown_a}）が{label(b, 'ja')}（{shown_b}）より後になっています。"
                    f"期間は始まりの日から終わりの日の順に指定してください。"),
    )


def valid_values(param: Param, ctx: GuardContext) -> list[str]:
    if param.enum is None:
        return []
    if param.enum.values is not None:
        return list(param.enum.values)
    return list(ctx.enum_values.get(param.enum.key, []))


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
            hint = _hint(param)
            raise _Bad(f"is required: {param.description.en}",
                       f"を指定してください{f'（{hint}）' if hint else ''}。")
        if param.default == "today" and param.type == "date":
            return ctx.today
        return param.default
    kind = {"string": _string, "integer": _integer, "date": _date, "enum": _enum}[param.type]
    return kind(param, value, ctx)


def _string(param: Param, value: Any, _ctx: GuardContext) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and param.pattern is not None \
            and re.fullmatch(param.pattern, str(value)):  # --tool-arg code=12 arrives as a number: it is "12"
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool):  # 0012 sent as the number 12 lost its zeros
        raise _Bad(f"must be a string; got the number {value}: send it in quotes, as the text it is "
                   f"(\"0012\", not 12)", "は文字で指定してください（0012 のように、数字も文字として）。")
    if not isinstance(value, str):
        raise _Bad(f"must be a string; got {type(value).__name__} {_shown(value)}", "は文字で指定してください。")
    value = _clean(value)
    if param.pattern is not None:
        value = ascii_digits(value)
    hint = _hint(param)
    example = f"（{hint}）" if hint else ""
    if param.min_length is not None and len(value) < param.min_length:
        ja = (f"が空です。指定してください{example}。" if not value else
              f"は{param.min_length}文字以上で指定してください{example}。")
        raise _Bad(f"must be at least {param.min_length} character(s) long", ja)
    if param.max_length is not None and len(value) > param.max_length:
        raise _Bad(f"must be at most {param.max_length} characters long; got {len(value)}",
                   f"は{param.max_length}文字以内で指定してください（{len(value)}文字あります）。")
    if param.pattern is not None and not re.fullmatch(param.pattern, value):
        form = f"{hint}の形で" if hint else "正しい形で"
        raise _Bad(f"{_shown(value)} does not match the pattern {param.pattern}",
                   f"の「{_shown_ja(value)}」は形が違います。{form}指定してください。", {"pattern": param.pattern})
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
            f"に表示の向きを変える見えない文字 {code} が含まれています。取り除いてから送り直してください。",
        )
    return _CONTROL.sub("", text).strip()


def _shown(value: Any) -> str:
    """`value` as quoted in a message: its repr (invisible characters escaped), shortened."""
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _shown_ja(value: Any) -> str:
    """`value` as quoted in 「」 in a Japanese message: a string without its quotes, escaped, shortened."""
    text = repr(value)[1:-1] if isinstance(value, str) else repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _integer(param: Param, value: Any, _ctx: GuardContext) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Bad(f"must be an integer; got {type(value).__name__} {_shown(value)}",
                   f"は整数で指定してください（「{_shown_ja(value)}」は整数ではありません）。")
    if (param.min is not None and value < param.min) or (param.max is not None and value > param.max):
        low = "" if param.min is None else param.min
        high = "" if param.max is None else param.max
        raise _Bad(f"must be between {low} and {high}; got {value}",
                   f"は{_bounds_ja(param.min, param.max)}で指定してください（{value}は範囲の外です）。",
                   {"min": param.min, "max": param.max})
    return value


def _bounds_ja(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"{low:,}から{high:,}まで"
    return f"{low:,}以上" if low is not None else f"{high:,}以下"


def _date(param: Param, value: Any, ctx: GuardContext) -> date:
    text = ascii_digits(_clean(value)) if isinstance(value, str) else None
    if text is None or not _DATE.fullmatch(text):
        raise _Bad(f"must be a date written YYYY-MM-DD; got {_shown(value)}",
                   f"は日付で指定してください（例 {ctx.today.isoformat()}。「{_shown_ja(value)}」は日付として"
                   "読めません）。")
    parsed = _real_date(text)
    low, high = date_range(param, ctx)
    if (low and parsed < low) or (high and parsed > high):
        span = f"{low or '…'} .. {high or '…'}"
        raise _Bad(
            f"{parsed} is outside the allowed range {span}",
            f"の{dates(parsed, parsed, ctx.today, 'ja')}は指定できる範囲の外です。{_range_ja(low, high, ctx.today)}",
            {"min": low.isoformat() if low else None, "max": high.isoformat() if high else None},
        )
    return parsed


def _range_ja(low: date | None, high: date | None, today: date) -> str:
    if low and high and high == today:
        return f"{dates(low, low, today, 'ja')}から{period(high, high, today, 'ja')}までの日付で指定してください。"
    if low and high:
        return f"{dates(low, high, today, 'ja')}の日付で指定してください。"
    if low:
        return f"{period(low, low, today, 'ja')}以降の日付で指定してください。"
    assert high is not None
    return f"{period(high, high, today, 'ja')}以前の日付で指定してください。"


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
    raise _Bad(f"{text} is not a real date: {why}",
               f"の {text} は存在しない日付です（{why_ja}）。日付を確かめてもう一度指定してください。")


def _enum(param: Param, value: Any, ctx: GuardContext) -> str:
    values = valid_values(param, ctx)
    if not isinstance(value, str):
        raise _Bad(f"must be one of: {', '.join(values)}; got {_shown(value)}",
                   f"の「{_shown_ja(value)}」は選べません。{_choices_ja(values)}", {"values": values})
    if value in values:
        return value
    key = _fold(_clean(value))
    for candidate in values:
        if _fold(candidate) == key:
            return candidate
    assert param.enum is not None
    for synonym, target in [*param.enum.synonyms.items(), *ctx.enum_synonyms.get(param.enum.key, {}).items()]:
        if _fold(synonym) == key and target in values:
            return target
    raise _Bad(f"{_shown(value)} is not a valid value; valid: {', '.join(values)}",
               f"の「{_shown_ja(value)}」は選べません。{_choices_ja(values)}", {"values": values})


def _choices_ja(values: list[str]) -> str:
    if not values:
        return "選べる値がまだありません。"
    shown = "、".join(values[:_LISTED])
    more = f" ほか{len(values) - _LISTED}件" if len(values) > _LISTED else ""
    return f"選べるのは {shown}{more} です。"


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().lower()
