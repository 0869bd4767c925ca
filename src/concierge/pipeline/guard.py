"""The guard: is this call one of ours, with arguments we can run?

`check` is a pure function of the declared tools, the requested call and a
`GuardContext` (today, plus the values and date ranges taken from the data).
It returns a decision value and touches no database. Checks, in order:
known tool; arguments form an object; no undeclared argument; each value has
its declared type, pattern, bounds and (for enums) one of the valid values or
a declared synonym; defaults filled; ordered date pairs not reversed.
"""

from __future__ import annotations

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


Decision = Accepted | Refused


class _Bad(Exception):
    def __init__(self, message: str, valid: dict | None = None):
        super().__init__(message)
        self.valid = valid


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
            return Refused(ResultCode.BAD_ARGUMENT, f"{name}: {pname} {bad}", param=pname, valid=bad.valid)
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
        raise _Bad(f"must be a string; got {type(value).__name__} {value!r}")
    value = value.strip()
    if "\x00" in value:
        raise _Bad("must not contain the NUL character (PostgreSQL cannot store it)")
    if param.min_length is not None and len(value) < param.min_length:
        raise _Bad(f"must be at least {param.min_length} character(s) long")
    if param.max_length is not None and len(value) > param.max_length:
        raise _Bad(f"must be at most {param.max_length} characters long; got {len(value)}")
    if param.pattern is not None and not re.fullmatch(param.pattern, value):
        raise _Bad(f"{value!r} does not match the pattern {param.pattern}", {"pattern": param.pattern})
    return value


def _integer(param: Param, value: Any, _ctx: GuardContext) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Bad(f"must be an integer; got {type(value).__name__} {value!r}")
    if (param.min is not None and value < param.min) or (param.max is not None and value > param.max):
        low = "" if param.min is None else param.min
        high = "" if param.max is None else param.max
        raise _Bad(f"must be between {low} and {high}; got {value}", {"min": param.min, "max": param.max})
    return value


def _date(param: Param, value: Any, ctx: GuardContext) -> date:
    text = value if isinstance(value, str) else None
    parsed = None
    if text is not None and re.fullmatch(r"\d{4}-\d{2}-\d{2}", text.strip()):
        try:
            parsed = date.fromisoformat(text.strip())
        except ValueError:
            parsed = None
    if parsed is None:
        raise _Bad(f"must be a date written YYYY-MM-DD; got {value!r}")
    low, high = date_range(param, ctx)
    if (low and parsed < low) or (high and parsed > high):
        span = f"{low or '…'} .. {high or '…'}"
        raise _Bad(
            f"{parsed} is outside the allowed range {span}",
            {"min": low.isoformat() if low else None, "max": high.isoformat() if high else None},
        )
    return parsed


def _enum(param: Param, value: Any, ctx: GuardContext) -> str:
    values = valid_values(param, ctx)
    if not isinstance(value, str):
        raise _Bad(f"must be one of: {', '.join(values)}; got {value!r}", {"values": values})
    if value in values:
        return value
    key = _fold(value)
    for candidate in values:
        if _fold(candidate) == key:
            return candidate
    assert param.enum is not None
    for synonym, target in param.enum.synonyms.items():
        if _fold(synonym) == key and target in values:
            return target
    raise _Bad(f"{value!r} is not a valid value; valid: {', '.join(values)}", {"values": values})


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().lower()
