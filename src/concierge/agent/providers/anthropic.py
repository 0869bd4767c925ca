"""Anthropic Messages API: `input_schema`, `tool_use` and `tool_result` blocks.

Parallel tool use is on by default; all results of one reply go back in one
user message of `tool_result` blocks (consecutive messages of one role are
merged, which is what the API expects). `stream` reads the same request as server-sent
events, passing the answer's text on as it arrives (`concierge.agent.streaming`).
"""

from __future__ import annotations

from typing import Any

import anthropic

from concierge.agent.providers.base import SdkProvider
from concierge.agent.providers.interface import Capabilities, ModelReply, ModelRequest, Speech, ToolCall, Usage
from concierge.agent.providers.wire import error_detail, messages_with_context, stream_error, tool_output
from concierge.errors import ProviderError

NAME = "anthropic"
MAX_TOKENS = 4096


class AnthropicProvider(SdkProvider):
    name = NAME
    capabilities = Capabilities(streams=True)
    sdk = anthropic

    def make_client(self, **options: Any) -> anthropic.AsyncAnthropic:
        return anthropic.AsyncAnthropic(**options)

    async def complete(self, request: ModelRequest) -> ModelReply:
        with self.vendor_errors():
            message = await self.client.messages.create(**self._body(request))
        return from_message(message)

    async def stream(self, request: ModelRequest, speech: Speech) -> ModelReply:
        message = None
        with self.vendor_errors():
            try:
                async with self.client.messages.stream(**self._body(request)) as events:
                    async for event in events:
                        if event.type == "message_start":
                            message = events.current_message_snapshot  # the SDK adds each later event to it
                        elif event.type == "text":
                            await speech.on_text(event.text)
                        if speech.stop.is_set() and not _asks_for_tools(message):
                            break
            except anthropic.APIStatusError as err:
                if err.status_code != 200:  # refused before the stream began: as `complete`
                    raise
                raise _failed(err.body) from err  # an `error` event in the stream (overloaded, …)
        return from_message(message) if message is not None else ModelReply(text=None)

    def _body(self, request: ModelRequest) -> dict[str, Any]:
        return {
            "model": self.model,
            "max_tokens": MAX_TOKENS,
            "system": request.system,
            "messages": to_messages(request),
            "tools": [{"name": t.name, "description": t.description, "input_schema": t.input_schema}
                      for t in request.tools],
        }


_RETRYABLE_TYPES = {"overloaded_error", "api_error", "rate_limit_error", "timeout_error"}


def _failed(body: object) -> ProviderError:
    error = body.get("error") if isinstance(body, dict) else None
    kind = error.get("type") if isinstance(error, dict) else None
    return stream_error(NAME, f"{kind}: {error_detail(body)}" if kind else error_detail(body),
                        retryable=kind is None or kind in _RETRYABLE_TYPES)


def _asks_for_tools(message: Any) -> bool:
    """Whether a reply being streamed has begun a tool call (then it is read to the end, calls whole)."""
    return message is not None and any(block.type == "tool_use" for block in message.content)


def to_messages(request: ModelRequest) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages_with_context(request):
        blocks: list[dict[str, Any]]
        if message.role == "tool":
            role, blocks = "user", [{"type": "tool_result", "tool_use_id": message.tool_call_id,
                                     "content": tool_output(message.result),
                                     "is_error": message.result is not None and message.result.is_error}]
        else:
            role = message.role
            blocks = [{"type": "text", "text": message.text}] if message.text else []
            blocks += [{"type": "tool_use", "id": c.id, "name": c.name,
                        "input": c.args if isinstance(c.args, dict) else {}} for c in message.tool_calls]
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return out


def from_message(message: Any) -> ModelReply:
    texts, calls = [], []
    for block in message.content or []:
        if block.type == "text":
            texts.append(block.text)
        elif block.type == "tool_use":
            calls.append(ToolCall(block.id, block.name, block.input))
    usage = Usage(message.usage.input_tokens, message.usage.output_tokens) if message.usage else None
    return ModelReply(text="".join(texts) or None, tool_calls=calls, usage=usage)
