"""Chat Completions: `tools`, `tool_calls`, `role: tool`.

Also speaks to any OpenAI-compatible server (Ollama, llama.cpp server, vLLM,
LM Studio) given its base URL, such as http://127.0.0.1:11434/v1.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

import openai

from concierge.agent.protocol import ModelReply, ModelRequest, ToolCall, Usage
from concierge.agent.providers.wire import (
    error_detail,
    http_error,
    messages_with_context,
    parse_arguments,
    strict_schema,
    tool_output,
)

NAME = "openai-chat"


class OpenAIChatProvider:
    name = NAME

    def __init__(self, model: str, *, api_key: str, base_url: str | None = None, max_retries: int = 2,
                 timeout: float = 120.0):
        self.model = model
        self.client = openai.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=max_retries,
                                         timeout=timeout)

    async def aclose(self) -> None:
        await self.client.close()

    async def complete(self, request: ModelRequest) -> ModelReply:
        try:
            completion = await self.client.chat.completions.create(
                model=self.model,
                messages=to_messages(request),
                tools=[
                    {"type": "function", "function": {"name": t.name, "description": t.description,
                                                      "parameters": strict_schema(t.input_schema),
                                                      "strict": True}}
                    for t in request.tools
                ],
            )
        except openai.APIStatusError as err:
            raise http_error(NAME, err.status_code, error_detail(err.body), str(err.request.url)) from err
        except openai.APIConnectionError as err:
            raise http_error(NAME, None, err.message, str(err.request.url)) from err
        return from_completion(completion)


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
