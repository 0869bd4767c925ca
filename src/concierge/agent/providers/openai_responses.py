"""OpenAI Responses API: function tools, `function_call` and `function_call_output` items.

The conversation is sent whole on every request (`store=False`), so nothing
depends on state kept at OpenAI and a restarted process continues as before.
"""

from __future__ import annotations

import json
from typing import Any

import openai

from concierge.agent.providers.base import SdkProvider
from concierge.agent.providers.wire import (
    messages_with_context,
    parse_arguments,
    strict_schema,
    tool_output,
)
from concierge.protocol import ModelReply, ModelRequest, ToolCall, Usage

NAME = "openai"


class OpenAIResponsesProvider(SdkProvider):
    name = NAME
    sdk = openai

    def make_client(self, **options: Any) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(**options)

    async def complete(self, request: ModelRequest) -> ModelReply:
        with self.vendor_errors():
            response = await self.client.responses.create(
                model=self.model,
                instructions=request.system,
                input=to_items(request),
                tools=[
                    {"type": "function", "name": t.name, "description": t.description,
                     "parameters": strict_schema(t.input_schema), "strict": True}
                    for t in request.tools
                ],
                parallel_tool_calls=True,
                store=False,
            )
        return from_response(response)


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
