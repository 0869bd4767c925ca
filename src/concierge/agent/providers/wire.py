"""Conversions every adapter shares: tool results as text, strict schemas, the dynamic context.

Nothing here imports a vendor SDK.
"""

from __future__ import annotations

import copy
import json
import os
from dataclasses import replace
from typing import Any

from concierge.agent.providers.interface import Message, ModelRequest
from concierge.errors import ProviderError
from concierge.sources.result import ToolResult

# Keywords OpenAI's strict mode accepts; others are folded into the description.
_STRICT_KEYWORDS = {
    "type", "properties", "required", "additionalProperties", "enum", "const", "description", "items",
    "anyOf", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "minItems", "maxItems", "$defs", "$ref",
}
_DROPPED_FROM_OUTPUT = {"ms"}


def tool_payload(result: ToolResult | None) -> dict[str, Any]:
    """A tool result as the model reads it: without empty fields, timings or tokens."""
    dumped = result.to_json() if result is not None else {}
    out = {k: v for k, v in dumped.items() if k not in _DROPPED_FROM_OUTPUT and v not in (None, [], {}, "")}
    if out.get("rows"):
        out.pop("columns", None)
    if not out.get("truncated"):
        out.pop("truncated", None)
    return out


def tool_output(result: ToolResult | None) -> str:
    """`tool_payload` as compact JSON text."""
    return json.dumps(tool_payload(result), ensure_ascii=False, separators=(",", ":"), default=str)


def messages_with_context(request: ModelRequest) -> list[Message]:
    """The request's messages with the dynamic context added to the newest user message."""
    messages = list(request.messages)
    if not request.context:
        return messages
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "user":
            messages[i] = replace(messages[i], text=f"{messages[i].text or ''}\n\n{request.context}")
            break
    return messages


def tool_names(messages: list[Message]) -> dict[str, str]:
    """Tool call id -> tool name, for wire formats that answer a call by name."""
    return {c.id: c.name for m in messages if m.role == "assistant" for c in m.tool_calls}


def parse_arguments(text: str | None) -> Any:
    """A model's JSON arguments; text that is not JSON is passed on for the guard to refuse."""
    if not text:
        return {}
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """OpenAI strict mode: every property required, optional ones nullable, no extra keys.

    Keywords strict mode rejects (`default`, `minLength`, `maxLength`, …) move into the
    description, so the model still learns them; the guard checks them anyway.
    """
    out = copy.deepcopy(schema)
    _make_strict(out)
    return out


def _make_strict(node: dict[str, Any]) -> None:
    extra = {k: node.pop(k) for k in list(node) if k not in _STRICT_KEYWORDS}
    if extra:
        note = "; ".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in extra.items())
        node["description"] = f"{node.get('description', '')} ({note})".strip()
    if node.get("type") == "object" or "properties" in node:
        props = node.setdefault("properties", {})
        required = set(node.get("required", []))
        for name, prop in props.items():
            _make_strict(prop)
            if name not in required:
                _nullable(prop)
        node["required"] = list(props)
        node["additionalProperties"] = False
    if isinstance(node.get("items"), dict):
        _make_strict(node["items"])


def _nullable(prop: dict[str, Any]) -> None:
    kind = prop.get("type")
    if isinstance(kind, list):
        if "null" not in kind:
            prop["type"] = [*kind, "null"]
    elif kind is not None:
        prop["type"] = [kind, "null"]
    if "enum" in prop and None not in prop["enum"]:
        prop["enum"] = [*prop["enum"], None]


def api_key(*variables: str, provider: str) -> str:
    """The first of `variables` that is set; a clear error naming them otherwise."""
    for name in variables:
        if os.environ.get(name):
            return os.environ[name]
    names = " or ".join(variables)
    raise ProviderError(
        f"the {provider} provider needs an API key: set {names}, or use --provider offline "
        "(the deterministic planner, no key needed)"
    )


RETRYABLE = {408, 409, 429}  # and every 5xx, and no response at all


def http_error(provider: str, status: int | None, message: str, url: str | None = None) -> ProviderError:
    where = f" from {url}" if url else ""
    head = f"HTTP {status}" if status else "no response"
    retryable = status is None or status in RETRYABLE or status >= 500
    return ProviderError(f"{provider}: {head}{where}: {message}{_hint(provider, status)}",
                         provider=provider, status=status, retryable=retryable)


def stream_error(provider: str, reason: str, *, retryable: bool) -> ProviderError:
    """A reply that failed after its stream began (HTTP 200 already sent): the reason its error event gives."""
    return ProviderError(f"{provider}: the reply failed while streaming: {reason}", provider=provider,
                         retryable=retryable)


def _hint(provider: str, status: int | None) -> str:
    """What the person can do about it."""
    if status in (401, 403):
        return f" (the API key was refused: check the {provider} key in the environment)"
    if status == 404:
        return " (check the model name, --model, and the base URL)"
    if status == 429:
        return " (rate limited or out of quota: wait a moment and try again)"
    if status is None:
        return " (is the server reachable? try again, or check --base-url)"
    if status >= 500:
        return " (the provider had a problem: try again shortly)"
    return ""


def error_detail(body: object) -> str:
    """The human part of an error body such as {"error": {"message": "..."}}."""
    if isinstance(body, dict):
        for key in ("message", "error", "detail"):
            if key in body:
                return error_detail(body[key])
    text = str(body) if body is not None else ""
    return text if len(text) <= 300 else text[:299] + "…"
