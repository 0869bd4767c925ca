"""What a JSON answer means: the status mapping (ok / not found / error), then its rows or its object."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from concierge.catalog.model import ResultShape, StatusMap, StatusRule, Text, Where

WHOLE = "$"


@dataclass(frozen=True)
class Outcome:
    """An answer that is not a success: `not_found` or `error`, with what the person is told."""

    outcome: str
    message: Text


def at(doc: Any, path: str) -> Any:
    """The value at a dotted `path` of `doc` (`body.deviceList`, `items.0.name`; `$` is `doc`); None when absent."""
    if path == WHOLE:
        return doc
    for part in path.split("."):
        if isinstance(doc, Mapping):
            doc = doc.get(part)
        elif isinstance(doc, list) and part.isdigit() and int(part) < len(doc):
            doc = doc[int(part)]
        else:
            return None
    return doc


def merged(source: StatusMap | None, tool: StatusMap | None) -> StatusMap | None:
    """The tool's status mapping over its source's: the tool wins per code."""
    if source is None or tool is None:
        return tool or source
    return StatusMap(field=tool.field or source.field, ok=tool.ok or source.ok,
                     codes={**source.codes, **tool.codes}, http={**source.http, **tool.http})


def outcome(status: StatusMap | None, http_status: int, doc: Any) -> Outcome | None:
    """None when the answer is a success; else what it means."""
    rules = status or StatusMap()
    if not 200 <= http_status < 300:
        coded = _coded(rules, doc)
        if coded is not None:  # the error body's own code (kintone's {"code": "GAIA_IA02", ...}) says more
            return _of(coded)
        rule = rules.http.get(http_status)
        return _of(rule) if rule else Outcome("error", Text(
            ja=f"サービスがエラーを返しました（HTTP {http_status}）。設定とサービスの状態を確かめてください。",
            en=f"The service answered with an error (HTTP {http_status}); check the settings and the service."))
    if rules.field is None:
        return None
    code = at(doc, rules.field)
    if rules.ok and _in(code, rules.ok):
        return None
    for key, rule in rules.codes.items():
        if _same(code, key):
            return _of(rule)
    if not rules.ok:
        return None
    return Outcome("error", Text(
        ja=f"サービスが処理できないと答えました（{rules.field} {code}）。",
        en=f"The service could not do it ({rules.field} {code})."))


def _coded(rules: StatusMap, doc: Any) -> StatusRule | None:
    if rules.field is None:
        return None
    code = at(doc, rules.field)
    return next((rule for key, rule in rules.codes.items() if _same(code, key)), None)


def _of(rule: StatusRule) -> Outcome:
    return Outcome(rule.outcome, rule.message)


def _same(a: Any, b: Any) -> bool:
    return a is not None and str(a) == str(b)


def _in(value: Any, choices: list[str | int]) -> bool:
    return any(_same(value, c) for c in choices)


def kept(row: Any, where: Where) -> bool:
    """Whether `row` has every field of `where` at its value (or at one of its values)."""
    for key, wanted in where.items():
        got = at(row, key)
        if not _in(got, wanted if isinstance(wanted, list) else [wanted]):
            return False
    return True


def raw_rows(doc: Any, rows: str | list[str], where: Where) -> list[Any]:
    """The rows at `rows` (one path, or several joined in order) that `where` keeps."""
    found: list[Any] = []
    for path in [rows] if isinstance(rows, str) else rows:
        part = at(doc, path)
        found.extend(part if isinstance(part, list) else [] if part is None else [part])
    return [r for r in found if kept(r, where)]


def page_rows(doc: Any, shape: ResultShape) -> int:
    """How many rows a page of an answer holds, before `where` keeps some (a short page is the last)."""
    return len(raw_rows(doc, shape.rows, {})) if shape.rows is not None else 0


def rows_of(doc: Any, shape: ResultShape) -> tuple[list[str], list[dict[str, Any]]]:
    """The columns and rows a tool's `result` declares, out of the JSON answer `doc`."""
    found: list[Any] = []
    if shape.rows is not None:
        found = raw_rows(doc, shape.rows, shape.where)
    elif shape.object is not None:
        one = at(doc, shape.object)
        found = [r for r in ([] if one is None else [one]) if kept(r, shape.where)]
    columns = _columns(shape, found)
    numbers = set(shape.numbers)
    return list(columns), [{name: _number(at(r, path)) if name in numbers else at(r, path)
                            for name, path in columns.items()} for r in found]


def _number(value: Any) -> Any:
    """A number sent as text ("1200000", "-3.5") as an int or a float (summed exactly); "" is None; else unchanged."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if not text:
        return None
    try:
        number = Decimal(text)
    except InvalidOperation:
        return value
    if not number.is_finite():
        return value
    return int(number) if number == number.to_integral_value() else float(number)


def _columns(shape: ResultShape, rows: list[Any]) -> dict[str, str]:
    if isinstance(shape.columns, dict):
        return dict(shape.columns)
    if isinstance(shape.columns, list):
        return {c: c for c in shape.columns}
    first = next((r for r in rows if isinstance(r, Mapping)), None)
    if first is None:
        return {"value": WHOLE} if rows else {}
    return {str(k): str(k) for k in first}
