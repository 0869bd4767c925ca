"""Filling an answer template: placeholders by name, and segments left out when a value is missing.

The syntax (docs/catalog.md, "Answer templates"): `{name}` or `{name:format}`; `[...]` is a segment,
left out whole when one of its placeholders has no value (a null argument, no rows, no total).
A placeholder without a value outside any segment becomes empty text. What a name means is the
caller's business: `fill` asks `resolve(name, format)` and gets the text, or None for "no value".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from concierge.catalog.model import PLACEHOLDER

Resolve = Callable[[str, str], str | None]
_SEGMENT = re.compile(r"\[([^\[\]]*)\]")
Part = tuple[str, str] | tuple[str, str, str]  # ("text", text) or ("value", name, format)


def fill(template: str, resolve: Resolve) -> str:
    """The template with every placeholder replaced, segments whose values are missing left out."""
    out: list[str] = []
    for segment, parts in compiled(template):
        filled = [p[1] if p[0] == "text" else resolve(p[1], p[2]) for p in parts]  # type: ignore[misc]
        if segment and any(f is None for f in filled):
            continue
        out += [f for f in filled if f is not None]
    return "".join(out)


def required(template: str, name: str) -> bool:
    """Whether the template says `{name}` outside any segment: the sentence is not whole without it."""
    return any(not segment and any(p[0] == "value" and p[1] == name for p in parts)
               for segment, parts in compiled(template))


@lru_cache(maxsize=1024)
def compiled(template: str) -> tuple[tuple[bool, tuple[Part, ...]], ...]:
    """The template read once: (is a segment, its parts) in order."""
    blanked = PLACEHOLDER.sub(lambda m: "_" * len(m.group(0)), template)
    pieces: list[tuple[bool, tuple[Part, ...]]] = []
    at = 0
    for m in _SEGMENT.finditer(blanked):  # brackets inside placeholders do not count
        pieces += [(False, _parts(template[at : m.start()])), (True, _parts(template[m.start() + 1 : m.end() - 1]))]
        at = m.end()
    pieces.append((False, _parts(template[at:])))
    return tuple(pieces)


def _parts(text: str) -> tuple[Part, ...]:
    parts: list[Part] = []
    at = 0
    for m in PLACEHOLDER.finditer(text):
        if m.start() > at:
            parts.append(("text", text[at : m.start()]))
        parts.append(("value", m.group(1), m.group(2) or ""))
        at = m.end()
    if at < len(text):
        parts.append(("text", text[at:]))
    return tuple(parts)
