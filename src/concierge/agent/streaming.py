"""Answers as they are written: a channel that speaks gets the final answer's text before it is complete.

A channel that speaks (the phone) passes a `Speech` to `Agent.ask` / `Agent.confirm`. The final
answer's text reaches `Speech.on_text` piece by piece as the model writes it, from a provider that
implements `StreamingProvider`, or in one piece from one that answers at once (the offline planner).
A streamed reply's text is passed on as it arrives, so text a model writes before asking for tool
calls ("let me look") is heard too.
Setting `Speech.stop` (the caller interrupted) ends a stream early: the reply is what arrived so far.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import anyio

from concierge.protocol import ModelReply, ModelRequest, Provider


@dataclass
class Speech:
    on_text: Callable[[str], Awaitable[None]]
    stop: anyio.Event = field(default_factory=anyio.Event)


@runtime_checkable
class StreamingProvider(Protocol):
    async def stream(self, request: ModelRequest, speech: Speech) -> ModelReply:
        """As `Provider.complete`, passing the answer's text to `speech.on_text` as it arrives."""
        ...


async def decide(provider: Provider, request: ModelRequest, speech: Speech | None,
                 on_first_text: Callable[[], None]) -> ModelReply:
    """The provider's next reply; `on_first_text` runs when the first piece of an answer is ready."""
    if speech is None:
        reply = await provider.complete(request)
        if not reply.tool_calls:
            on_first_text()
        return reply
    first = [True]

    async def passed_on(text: str) -> None:
        if first[0]:
            first[0] = False
            on_first_text()
        await speech.on_text(text)

    relay = Speech(passed_on, speech.stop)
    if isinstance(provider, StreamingProvider):
        reply = await provider.stream(request, relay)
    else:
        reply = await provider.complete(request)
        if reply.text and not reply.tool_calls:
            await relay.on_text(reply.text)
    if first[0] and not reply.tool_calls:
        on_first_text()
    return reply
