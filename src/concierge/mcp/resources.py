"""Resources a host can show beside the tools: each catalog, and each tool's valid values.

Only what the calling user may call is listed or readable; anything else is
answered exactly as a resource that does not exist.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from concierge.catalog.model import Param, Tool
from concierge.pipeline.access import User
from concierge.pipeline.guard import GuardContext, date_range, valid_values
from concierge.pipeline.pipeline import Pipeline

CATALOG_URI = "concierge://catalog/"
TOOL_URI = "concierge://tool/"
MIME = "application/json"


def listing(pipeline: Pipeline, user: User) -> list[types.Resource]:
    tools = pipeline.tools_for(user)
    catalogs = [c for c in pipeline.catalogs if any(t.catalog == c.name for t in tools)]
    out = [
        types.Resource(uri=CATALOG_URI + c.name, name=f"catalog {c.name}", description=c.spec.description.en,
                       mime_type=MIME)
        for c in catalogs
    ]
    out += [
        types.Resource(uri=TOOL_URI + t.name, name=f"{t.name} values",
                       description=f"Parameters of {t.name}: valid values and date ranges from the data.",
                       mime_type=MIME)
        for t in tools
    ]
    return out


def read(pipeline: Pipeline, user: User, uri: str) -> str | None:
    """The resource's JSON text, or None when this user has no such resource."""
    tools = {t.name: t for t in pipeline.tools_for(user)}
    if uri.startswith(CATALOG_URI):
        name = uri.removeprefix(CATALOG_URI)
        catalog = next((c for c in pipeline.catalogs if c.name == name), None)
        visible = [t for t in tools.values() if t.catalog == name]
        if catalog is None or not visible:
            return None
        body: dict[str, Any] = {
            "catalog": name,
            "description": {"en": catalog.spec.description.en, "ja": catalog.spec.description.ja},
            "today": pipeline.today(visible[0].name).isoformat(),
            "tools": [{"name": t.name, "mode": t.mode, "description": t.description.en} for t in visible],
        }
        return _json(body)
    tool = tools.get(uri.removeprefix(TOOL_URI)) if uri.startswith(TOOL_URI) else None
    if tool is None:
        return None
    return _json(_tool_values(tool, pipeline.guard_context(tool.name)))


def _tool_values(tool: Tool, ctx: GuardContext) -> dict[str, Any]:
    return {
        "tool": tool.name,
        "catalog": tool.catalog,
        "mode": tool.mode,
        "needs_confirmation": tool.confirm,
        "description": {"en": tool.description.en, "ja": tool.description.ja},
        "params": {name: _param_values(p, ctx) for name, p in tool.params.items()},
    }


def _param_values(p: Param, ctx: GuardContext) -> dict[str, Any]:
    out: dict[str, Any] = {"type": p.type, "required": p.required, "description": p.description.en}
    if p.type == "enum":
        out["values"] = valid_values(p, ctx)
    if p.type == "date":
        low, high = date_range(p, ctx)
        if low or high:
            out["range"] = {"min": low.isoformat() if low else None, "max": high.isoformat() if high else None}
    if p.type == "integer" and (p.min is not None or p.max is not None):
        out["range"] = {"min": p.min, "max": p.max}
    if p.pattern:
        out["pattern"] = p.pattern
    if p.default is not None:
        out["default"] = str(ctx.today) if p.default == "today" else p.default
    return out


def _json(body: dict[str, Any]) -> str:
    return json.dumps(body, ensure_ascii=False, indent=1)
