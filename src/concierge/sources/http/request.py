"""An http tool's request, built from its checked, typed arguments.

Path parameters are URL-encoded whole; query and body values are inserted as JSON values (a string that is
exactly ``"{param}"``). Inside longer text (a query language's expression) a value stands only as
``{param:quoted}``, a double-quoted string with ``\\`` and ``"`` escaped by a backslash, or ``{param:number}``,
an integer's digits: no value can end its string or add syntax. A text with a value that is absent is left out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import quote, urlencode

from concierge.catalog.model import HttpRequest
from concierge.catalog.templates import IN_TEXT, IN_TEXT_FORMATS, WHOLE

_DROP = object()


@dataclass(frozen=True)
class Built:
    """One request, ready to send: `target` is the path and query appended to the base URL."""

    method: str
    target: str
    body: bytes | None


def build(request: HttpRequest, values: Mapping[str, Any]) -> Built:
    """The request with `values` (the typed arguments, ids in place of enum names) inserted."""
    target = IN_TEXT.sub(lambda m: quote(_text(values[m.group(1)]), safe=""), request.path)
    query = {k: _text(v) for k, v in ((k, _fill(v, values)) for k, v in request.query.items())
             if v is not _DROP and v is not None}
    if query:
        target += ("&" if "?" in target else "?") + urlencode(query)
    body = None
    if request.body is not None:
        filled = _fill(request.body, values)
        body = json.dumps(None if filled is _DROP else filled, ensure_ascii=False,
                          separators=(",", ":")).encode("utf-8")
    return Built(request.method, target, body)


def _fill(value: Any, values: Mapping[str, Any]) -> Any:
    if isinstance(value, str):
        whole = WHOLE.match(value)
        if not whole or whole.group(2) in IN_TEXT_FORMATS:
            return _spliced(value, values)
        got = _json_value(values.get(whole.group(1)))
        if got is None:
            return _DROP
        return _text(got) if whole.group(2) == "string" else got
    if isinstance(value, Mapping):
        filled = {k: _fill(v, values) for k, v in value.items()}
        return {k: v for k, v in filled.items() if v is not _DROP}
    if isinstance(value, list):
        return [None if v is _DROP else v for v in (_fill(v, values) for v in value)]
    return value


def _spliced(text: str, values: Mapping[str, Any]) -> Any:
    """`text` with each `{name:quoted}` / `{name:number}` replaced; `_DROP` when one of their values is absent."""
    names = [m.group(1) for m in IN_TEXT.finditer(text)]
    if any(values.get(n) is None for n in names):
        return _DROP if names else text
    return IN_TEXT.sub(lambda m: _inert(values[m.group(1)], m.group(2)), text)


def _inert(value: Any, fmt: str | None) -> str:
    if fmt == "number":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{{:number}} takes an integer, not {type(value).__name__}")
        return str(value)
    escaped = _text(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def _json_value(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date) else value


def _text(value: Any) -> str:
    value = _json_value(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
