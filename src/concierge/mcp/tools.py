"""How a catalog tool looks to an MCP host, and how its result comes back.

The input schema is the shared `tool_schema.input_schema` (types, enums and
date ranges from the data, ``additionalProperties: false``). A write that
needs a person's yes gets one more, optional, argument: the
`confirmation_token` that its first call returned. The confirmation is an
ordinary tool result, so it works on every protocol version, including the
stateless one where a server cannot ask the client anything.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from concierge.catalog.model import Tool
from concierge.pipeline.guard import GuardContext
from concierge.pipeline.tool_schema import input_schema
from concierge.sources.result import Confirmation, Failure, Refusal, ToolResult, wire_schema

CONFIRMATION_ARG = "confirmation_token"


def confirmation_note(subject: str) -> str:
    """How to confirm a write, said so that any host's model can follow it."""
    return (
        f"{subject} writes only after the user agrees: the first call writes nothing and returns a preview "
        f"and a {CONFIRMATION_ARG}. Show the preview to the user; if they agree, call the tool again with "
        f"the same arguments plus {CONFIRMATION_ARG}. The token works once."
    )


# What the text content carries besides the message; the structured content carries everything.
_TEXT_FIELDS = ("row_count", "truncated", "totals", "summary", "rows", "ai_instruction")


def _plain_schema(node: Any, defs: dict[str, Any]) -> Any:
    """Pydantic's schema with no `$ref`s, no titles, and no null branches.

    Null fields are left out of the structured content, so each field keeps the one type it has
    when present: a schema any client resolves, that portability checks (the Inspector's
    --strict) pass, and that is quick to validate every result against.
    """
    if isinstance(node, list):
        return [_plain_schema(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _plain_schema(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    node = {k: _plain_schema(v, defs) for k, v in node.items() if k not in ("$defs", "title")}
    branches = [b for b in node.pop("anyOf", []) if b != {"type": "null"}]
    if len(branches) == 1 and node.get("default", ...) is None:
        del node["default"]
        return {**branches[0], **node}
    return {**node, "anyOf": branches} if branches else node


def _output_schema() -> dict[str, Any]:
    schema = wire_schema()
    plain = _plain_schema(schema, schema.get("$defs", {}))
    plain["properties"][CONFIRMATION_ARG] = {  # left out of every other dump of a result (`to_json`)
        "type": "string", "description": "send it back with the same arguments once the user has agreed"}
    return plain


OUTPUT_SCHEMA = _output_schema()


def declaration(tool: Tool, ctx: GuardContext) -> types.Tool:
    schema = input_schema(tool, ctx)
    description = tool.description.en
    if tool.confirm:
        schema["properties"][CONFIRMATION_ARG] = {
            "type": "string",
            "description": f"the {CONFIRMATION_ARG} from this tool's preview, once the user has agreed",
        }
        description += " " + confirmation_note("This tool")
    return types.Tool(
        name=tool.name,
        description=description,
        input_schema=schema,
        output_schema=OUTPUT_SCHEMA,
        annotations=_annotations(tool),
    )


def _annotations(tool: Tool) -> types.ToolAnnotations:
    if tool.mode == "read":
        return types.ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
    adds_only = tool.sql.lstrip().upper().startswith("INSERT")
    return types.ToolAnnotations(
        read_only_hint=False, destructive_hint=not adds_only, idempotent_hint=False, open_world_hint=False
    )


def split_confirmation(tool: Tool | None, arguments: dict[str, Any] | None) -> tuple[dict[str, Any], str | None]:
    """The tool's own arguments, and the confirmation token when this tool takes one."""
    args = dict(arguments or {})
    if tool is None or not tool.confirm:
        return args, None
    token = args.pop(CONFIRMATION_ARG, None)
    return args, None if token is None else str(token)


def call_result(result: ToolResult) -> types.CallToolResult:
    # The MCP caller is the one who must send the token back with the user's yes: it alone gets it.
    structured = result.to_json(with_token=True, exclude_none=True)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text(result, structured))],
        structured_content=structured,
        is_error=result.is_error,
    )


def text(result: ToolResult, structured: dict[str, Any] | None = None) -> str:
    """The compact rendering a host's model reads when it ignores structured content.

    `structured` is the result's JSON without null fields, when the caller has made it already."""
    if isinstance(result, Refusal | Failure):
        lines = [result.text()]
        if isinstance(result, Refusal) and result.valid:
            lines.append("valid: " + _json(result.valid))
        if result.ai_instruction:
            lines.append(result.ai_instruction)
        return "\n".join(lines)
    if isinstance(result, Confirmation):
        return "\n".join([result.message or "", "preview: " + _json(result.preview),
                          f"{CONFIRMATION_ARG}: {result.confirmation_token}"])
    dump = structured if structured is not None else result.to_json(exclude_none=True)
    shown = {k: dump[k] for k in _TEXT_FIELDS if dump.get(k) or k == "row_count"}
    return _json(shown)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
