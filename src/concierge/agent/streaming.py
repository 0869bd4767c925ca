"""Answers as they are written: a channel that speaks gets the final answer's text before it is complete.

A channel that speaks (the phone) passes a `Speech` to `Agent.ask` / `Agent.confirm`. The final
answer's text reaches `Speech.on_text` through `Provider.stream`: piece by piece as the model writes
it from a provider that streams (`Capabilities.streams`), or in one piece from one that answers at once
(the offline planner, through the default `stream`). A streamed reply's text is passed on as it arrives,
so text a model writes before asking for tool calls ("let me look") is heard too.
Setting `Speech.stop` (the caller interrupted) ends a stream early: the reply is what arrived so far.
"""

from __future__ import annotations

from collections.abc import Callable

from concierge.agent.providers.interface import ModelReply, ModelRequest, Provider, Speech

__all__ = ["Speech", "decide"]


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

    reply = await provider.stream(request, Speech(passed_on, speech.stop))
    if first[0] and not reply.tool_calls:
        on_first_text()
    return reply
