"""OpenAI Responses API: function tools, `function_call` and `function_call_output` items.

The conversation is sent whole on every request (`store=False`), so nothing
depends on state kept at OpenAI and a restarted process continues as before.
`stream` reads the same request as server-sent events, passing the answer's text on as
it arrives (`concierge.agent.streaming`); the reply is the one `response.completed` carries.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

import openai

from concierge.agent.providers.base import SdkProvider
from concierge.agent.providers.interface import Capabilities, ModelReply, ModelRequest, Speech, ToolCall, Usage
from concierge.agent.providers.wire import (
    messages_with_context,
    parse_arguments,
    stream_error,
    strict_schema,
    tool_output,
)
from concierge.errors import ProviderError

NAME = "openai"


class OpenAIResponsesProvider(SdkProvider):
    name = NAME
    capabilities = Capabilities(streams=True)
    sdk = openai

    def make_client(self, **options: Any) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(**options)

    async def complete(self, request: ModelRequest) -> ModelReply:
        with self.vendor_errors():
            response = await self.client.responses.create(**self._body(request))
        return from_response(response)

    async def stream(self, request: ModelRequest, speech: Speech) -> ModelReply:
        text: list[str] = []
        calls: dict[int, dict[str, str]] = {}  # output index -> call_id, name, arguments as they grow
        with self.vendor_errors():
            events = await self.client.responses.create(**self._body(request), stream=True)
            try:
                async for event in events:
                    if event.type in ("response.output_text.delta", "response.refusal.delta"):
                        text.append(event.delta)
                        await speech.on_text(event.delta)
                    elif event.type == "response.output_item.added" and event.item.type == "function_call":
                        calls[event.output_index] = {"call_id": event.item.call_id, "name": event.item.name,
                                                     "arguments": event.item.arguments}
                    elif event.type == "response.function_call_arguments.delta" and event.output_index in calls:
                        calls[event.output_index]["arguments"] += event.delta
                    elif event.type in ("response.completed", "response.incomplete"):
                        return from_response(event.response)
                    elif event.type == "response.failed":
                        error = event.response.error
                        raise stream_failed(error.message if error else None, error.code if error else None)
                    elif event.type == "error":
                        raise stream_failed(event.message, event.code)
                    if speech.stop.is_set() and not calls:
                        break
            finally:
                await events.close()
        return ModelReply(  # stopped, or the stream ended without its last event: what arrived
            text="".join(text) or None,
            tool_calls=[ToolCall(c["call_id"] or f"call_{secrets.token_hex(6)}", c["name"],
                                 parse_arguments(c["arguments"])) for _, c in sorted(calls.items())],
        )

    def _body(self, request: ModelRequest) -> dict[str, Any]:
        return {
            "model": self.model,
            "instructions": request.system,
            "input": to_items(request),
            "tools": [
                {"type": "function", "name": t.name, "description": t.description,
                 "parameters": strict_schema(t.input_schema), "strict": True}
                for t in request.tools
            ],
            "parallel_tool_calls": True,
            "store": False,
        }


_RETRYABLE_CODES = {"server_error", "rate_limit_exceeded", "vector_store_timeout"}


def stream_failed(message: str | None, code: str | None, provider: str = NAME) -> ProviderError:
    """An OpenAI reply that failed after its stream began (an `error` event), as a ProviderError of `provider`."""
    reason = f"{code}: {message}" if code and message else message or code or "no reason given"
    return stream_error(provider, reason, retryable=code is None or code in _RETRYABLE_CODES)



def to_items(request: ModelRequest) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for message in messages_with_context(request):
        if message.role == "tool":
            items.append({"type": "function_call_output", "call_id": message.tool_call_id,
                          "output": tool_output(message.result)})
            continue
        if message.text:
            items.append({"role": message.role, "content": message.text})
        for call in message.tool_calls:
            items.append({"type": "function_call", "call_id": call.id, "name": call.name,
                          "arguments": json.dumps(call.args, ensure_ascii=False)})
    return items


def from_response(response: Any) -> ModelReply:
    texts, calls = [], []
    for item in response.output or []:
        if item.type == "function_call":
            calls.append(ToolCall(item.call_id, item.name, parse_arguments(item.arguments)))
        elif item.type == "message":
            for part in item.content or []:
                if part.type == "output_text":
                    texts.append(part.text)
                elif part.type == "refusal":
                    texts.append(part.refusal)
    usage = Usage(response.usage.input_tokens, response.usage.output_tokens) if response.usage else None
    return ModelReply(text="".join(texts) or None, tool_calls=calls, usage=usage)
