"""JSON Schema of a tool's arguments, as MCP hosts and LLM providers read it.

Enum values and date ranges taken from the data are written into the schema
(and into the descriptions) so that a model sees what is valid before it
calls. The guard still checks every call: a schema is advice, not a check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from concierge.catalog.model import Param, Tool
from concierge.pipeline.guard import GuardContext, date_range, valid_values


def input_schema(tool: Tool, ctx: GuardContext, *, lang: str = "en") -> dict[str, Any]:
    props = {name: param_schema(p, ctx, lang=lang) for name, p in tool.params.items()}
    return {
        "type": "object",
        "properties": props,
        "required": [n for n, p in tool.params.items() if p.required],
        "additionalProperties": False,
    }


def param_schema(p: Param, ctx: GuardContext, *, lang: str = "en") -> dict[str, Any]:
    description = p.description.get(lang)
    schema = _TYPED[p.type](p, ctx)
    if p.type == "date":
        low, high = date_range(p, ctx)
        if low or high:
            description += f" (valid: {low or '…'} .. {high or '…'})"
    if p.nullable or (not p.required and p.default is None):
        schema["type"] = [schema["type"], "null"]
        if "enum" in schema:
            schema["enum"] = [*schema["enum"], None]
    if p.default is not None:
        schema["default"] = p.default if p.default != "today" else str(ctx.today)
    schema["description"] = description
    return schema


def _given(**keywords: Any) -> dict[str, Any]:
    return {k: v for k, v in keywords.items() if v is not None}


_TYPED: dict[str, Callable[[Param, GuardContext], dict[str, Any]]] = {
    "integer": lambda p, _ctx: {"type": "integer", **_given(minimum=p.min, maximum=p.max)},
    "date": lambda _p, _ctx: {"type": "string", "format": "date", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
    "enum": lambda p, ctx: {"type": "string", "enum": valid_values(p, ctx)},
    "string": lambda p, _ctx: {"type": "string", **_given(pattern=p.pattern or None, minLength=p.min_length,
                                                          maxLength=p.max_length)},
}
