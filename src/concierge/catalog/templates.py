"""The placeholders of an http tool's request templates (`{name}`, `{name:string}`; inside longer text
`{name:quoted}`, `{name:number}`; docs/catalog.md): the grammar the loader checks and the http source fills."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

IN_TEXT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([^{}]*))?\}")
WHOLE = re.compile(r"^\{([A-Za-z_][A-Za-z0-9_]*)(?::([^{}]*))?\}$")
FORMATS = ("string",)
IN_TEXT_FORMATS = ("quoted", "number")  # what may stand inside longer text, each value made inert there


def path_params(path: str) -> list[str]:
    return [m.group(1) for m in IN_TEXT.finditer(path)]


def template_params(value: Any, where: str) -> Iterator[tuple[str, str | None, str | None]]:
    """(key, parameter used, problem) for each placeholder of a query or body template."""
    if isinstance(value, str):
        whole = WHOLE.match(value)
        if whole and whole.group(2) not in IN_TEXT_FORMATS:
            fmt = whole.group(2)
            problem = None if fmt is None or fmt in FORMATS else f"unknown format :{fmt}; formats: string"
            yield where, whole.group(1), problem
            return
        for found in IN_TEXT.finditer(value):
            problem = None if found.group(2) in IN_TEXT_FORMATS else (
                "inside longer text a parameter is {name:quoted} (a double-quoted string, \\ and \" escaped) or "
                "{name:number} (an integer); else it is inserted whole, as a JSON value: \"{name}\" alone")
            yield where, found.group(1), problem
    elif isinstance(value, Mapping):
        for key, inner in value.items():
            yield from template_params(inner, f"{where}.{key}")
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from template_params(inner, f"{where}.{i}")
