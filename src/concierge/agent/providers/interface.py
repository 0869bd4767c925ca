"""The one base class every provider subclasses, and the messages it sees.

A provider receives the whole conversation of the turn so far (user messages,
its own earlier replies and tool calls, and the tool results) plus the tools
it may call, and returns either tool calls or a final text. Adapters convert
these types to and from their vendor's wire format; the offline planner reads
them directly. Nothing here imports a vendor SDK, and nothing from the agent or the
planner: the planner is built on this module.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import date
from types import TracebackType
from typing import Any, Literal, Self

from concierge.catalog.model import Tool
from concierge.sources.result import ToolResult


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    args: dict[str, Any]


@dataclass
class Message:
    role: Literal["user", "assistant", "tool"]
    text: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)  # role == "assistant"
    tool_call_id: str | None = None  # role == "tool"
    result: ToolResult | None = None  # role == "tool"
    # role == "user": True when this message is the user's yes to a previewed write (the card's 確定
    # button, `concierge chat`'s confirm), not words they typed; its text is only for the model to read.
    confirms: bool = False
    cancels: bool = False  # role == "user": the user's no to a previewed write (the card's button, or typed)
    repeats: bool = False  # role == "user": a reply neither yes nor no to it (いいです): its question asked again


@dataclass(frozen=True)
class ToolSpec:
    """A tool as offered to a model: the catalog declaration plus its JSON Schema."""

    tool: Tool
    input_schema: dict[str, Any]

    @property
    def name(self) -> str:
        return self.tool.name

    @property
    def description(self) -> str:
        return self.tool.description.en


@dataclass(frozen=True)
class ModelRequest:
    system: str
    messages: list[Message]
    tools: list[ToolSpec]
    today: date
    user: str
    context: str = ""  # short dynamic context added to the newest user message
    clocks: dict[str, date] = field(default_factory=dict)  # tool name -> its catalog's today, where they differ
    # the rows of the catalogs' state tools as the turn began (the order's lines), for a provider that reads
    # them instead of `context` (the offline planner): tool name -> rows
    state: dict[str, tuple[dict[str, Any], ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True)
class ModelReply:
    text: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage | None = None


@dataclass
class Speech:
    """Where `Provider.stream` passes an answer's text as it is written (a channel that speaks: the phone).

    Setting `stop` (the caller interrupted) asks the provider to end its stream early: the reply is what
    arrived so far, except that a tool call already begun is read to its end."""

    on_text: Callable[[str], Awaitable[None]]
    stop: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass(frozen=True)
class Capabilities:
    """What the agent loop needs to know of a provider, declared by its class (`Provider.capabilities`)."""

    # `stream` passes an answer's text on as the model writes it; False: the default `stream`, which passes a
    # final answer on whole once `complete` has returned it
    streams: bool = False
    # it reads `ModelRequest.context` (the catalogs' rules and the order so far, as text); False: it reads
    # `ModelRequest.state` (the rows of the catalogs' state tools) instead, as the offline planner does
    reads_context: bool = True
    # its replies are worked out in this process by blocking code (the offline planner): a turn runs on one
    # worker thread (`threads.through`), never on the event loop, in one trip where it would make several
    local: bool = False


class Provider(ABC):
    """A model (or the offline planner) behind the agent loop.

    A subclass sets `name` and `model`, implements `complete`, and overrides `capabilities` and `stream`
    where it can do more than the defaults. Used as `async with provider:`; `aclose` releases what it opened
    (an HTTP client). The vendor adapters share `providers.base.SdkProvider` (one client, one mapping of the
    SDK's errors to `ProviderError`)."""

    name: str = ""
    model: str = ""
    capabilities: Capabilities = Capabilities()

    @abstractmethod
    async def complete(self, request: ModelRequest) -> ModelReply:
        """The next reply to the conversation in `request`: tool calls to run, or the final answer."""

    async def stream(self, request: ModelRequest, speech: Speech) -> ModelReply:
        """As `complete`, passing the answer's text to `speech.on_text` as it arrives.

        This default, for a provider that cannot stream (`capabilities.streams` False), passes a final answer
        on whole once `complete` returns it; text that comes with tool calls is not passed on."""
        reply = await self.complete(request)
        if reply.text and not reply.tool_calls:
            await speech.on_text(reply.text)
        return reply

    async def aclose(self) -> None:  # noqa: B027 (not abstract: a provider that opens nothing has nothing to close)
        """Release what the provider opened (connections); it is not used afterwards."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()
