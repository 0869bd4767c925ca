"""An http tool's request, built from its checked, typed arguments.

Path parameters are URL-encoded whole; query and body values are inserted as JSON values (a string that is
exactly ``"{param}"``), never spliced into longer text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import quote, urlencode

from concierge.catalog.model import HttpRequest

_IN_TEXT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([^{}]*))?\}")
_WHOLE = re.compile(r"^\{([A-Za-z_][A-Za-z0-9_]*)(?::([^{}]*))?\}$")
FORMATS = ("string",)
_DROP = object()


@dataclass(frozen=True)
class Built:
    """One request, ready to send: `target` is the path and query appended to the base URL."""

    method: str
    target: str
    body: bytes | None


def path_params(path: str) -> list[str]:
    return [m.group(1) for m in _IN_TEXT.finditer(path)]


def template_params(value: Any, where: str) -> Iterator[tuple[str, str | None, str | None]]:
    """(key, parameter used, problem) for each placeholder of a query or body template."""
    if isinstance(value, str):
        whole = _WHOLE.match(value)
        if whole:
            fmt = whole.group(2)
            problem = None if fmt is None or fmt in FORMATS else f"unknown format :{fmt}; formats: string"
            yield where, whole.group(1), problem
        elif _IN_TEXT.search(value):
            yield where, None, ("a parameter is inserted whole, as a JSON value: write \"{name}\" alone "
                                "(never inside longer text)")
    elif isinstance(value, Mapping):
        for key, inner in value.items():
            yield from template_params(inner, f"{where}.{key}")
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from template_params(inner, f"{where}.{i}")


def build(request: HttpRequest, values: Mapping[str, Any]) -> Built:
    """The request with `values` (the typed arguments, ids in place of enum names) inserted."""
    target = _IN_TEXT.sub(lambda m: quote(_text(values[m.group(1)]), safe=""), request.path)
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
        whole = _WHOLE.match(value)
        if not whole:
            return value
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


def _json_value(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date) else value


def _text(value: Any) -> str:
    value = _json_value(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
