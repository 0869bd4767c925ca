"""Chat Completions: `tools`, `tool_calls`, `role: tool`.

Also speaks to any OpenAI-compatible server (Ollama, llama.cpp server, vLLM,
LM Studio) given its base URL, such as http://127.0.0.1:11434/v1. `stream` reads the
same request as server-sent chunks, passing the answer's text on as it arrives
(`concierge.agent.streaming`).
"""

from __future__ import annotations

import json
import secrets
from typing import Any

import openai

from concierge.agent.providers.base import SdkProvider
from concierge.agent.providers.interface import Capabilities, ModelReply, ModelRequest, Speech, ToolCall, Usage
from concierge.agent.providers.openai_responses import stream_failed
from concierge.agent.providers.wire import (
    messages_with_context,
    parse_arguments,
    strict_schema,
    tool_output,
)

NAME = "openai-chat"


class OpenAIChatProvider(SdkProvider):
    name = NAME
    capabilities = Capabilities(streams=True)
    sdk = openai

    def make_client(self, **options: Any) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(**options)

    async def complete(self, request: ModelRequest) -> ModelReply:
        with self.vendor_errors():
            completion = await self.client.chat.completions.create(**self._body(request))
        return from_completion(completion)

    async def stream(self, request: ModelRequest, speech: Speech) -> ModelReply:
        text: list[str] = []
        calls: dict[int, dict[str, str]] = {}  # index -> id, name, arguments as they grow
        usage = None
        with self.vendor_errors():
            chunks = await self.client.chat.completions.create(
                **self._body(request), stream=True, stream_options={"include_usage": True})
            try:
                async for chunk in _mid_stream_errors(chunks):
                    usage = chunk.usage or usage
                    delta = chunk.choices[0].delta if chunk.choices else None
                    if delta is None:
                        continue
                    for part in delta.tool_calls or []:
                        call = calls.setdefault(part.index, {"id": "", "name": "", "arguments": ""})
                        call["id"] = part.id or call["id"]
                        if part.function is not None:
                            call["name"] += part.function.name or ""
                            call["arguments"] += part.function.arguments or ""
                    if delta.content:
                        text.append(delta.content)
                        await speech.on_text(delta.content)
                    if speech.stop.is_set() and not calls:
                        break
            finally:
                await chunks.close()
        return ModelReply(
            text="".join(text) or None,
            tool_calls=[ToolCall(c["id"] or f"call_{secrets.token_hex(6)}", c["name"], parse_arguments(c["arguments"]))
                        for _, c in sorted(calls.items())],
            usage=Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0) if usage else None,
        )

    def _body(self, request: ModelRequest) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": to_messages(request),
            "tools": [
                {"type": "function", "function": {"name": t.name, "description": t.description,
                                                  "parameters": strict_schema(t.input_schema), "strict": True}}
                for t in request.tools
            ],
        }


async def _mid_stream_errors(chunks: Any) -> Any:
    """The chunks; an `error` the server streams after the reply began (the SDK raises a bare `APIError`)
    becomes a ProviderError, as the Responses adapter reports one."""
    try:
        async for chunk in chunks:
            yield chunk
    except openai.APIStatusError:
        raise
    except openai.APIError as err:
        raise stream_failed(err.message, err.code, NAME) from err


def to_messages(request: ModelRequest) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": request.system}]
    for message in messages_with_context(request):
        if message.role == "tool":
            out.append({"role": "tool", "tool_call_id": message.tool_call_id,
                        "content": tool_output(message.result)})
        elif message.role == "assistant" and message.tool_calls:
            out.append({
                "role": "assistant",
                "content": message.text,
                "tool_calls": [
                    {"id": c.id, "type": "function",
                     "function": {"name": c.name, "arguments": json.dumps(c.args, ensure_ascii=False)}}
                    for c in message.tool_calls
                ],
            })
        else:
            out.append({"role": message.role, "content": message.text or ""})
    return out


def from_completion(completion: Any) -> ModelReply:
    if not completion.choices:
        return ModelReply(text=None)
    message = completion.choices[0].message
    calls = [  # some local servers send no call id; the conversation needs one
        ToolCall(c.id or f"call_{secrets.token_hex(6)}", c.function.name, parse_arguments(c.function.arguments))
        for c in message.tool_calls or []
        if c.type == "function"
    ]
    usage = completion.usage
    return ModelReply(
        text=message.content or getattr(message, "refusal", None),
        tool_calls=calls,
        usage=Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0) if usage else None,
    )
