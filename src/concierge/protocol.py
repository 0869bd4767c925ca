"""The one small protocol every provider implements, and the messages it sees.

A provider receives the whole conversation of the turn so far (user messages,
its own earlier replies and tool calls, and the tool results) plus the tools
it may call, and returns either tool calls or a final text. Adapters convert
these types to and from their vendor's wire format; the offline planner reads
them directly. Nothing here imports a vendor SDK.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from types import TracebackType
from typing import Any, Literal, Protocol, Self

from concierge.catalog.model import Tool
from concierge.pipeline.result import ToolResult


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


class Provider(Protocol):
    """Used as `async with provider:`; `aclose` releases its connections (providers.base.BaseProvider)."""

    name: str
    model: str

    async def complete(self, request: ModelRequest) -> ModelReply: ...

    async def aclose(self) -> None: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None: ...
