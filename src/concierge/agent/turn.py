"""What one turn of a conversation returns: the answer and how it was reached.

The CLI prints it, the web page streams it, `eval` scores it. The
confirmation token of a pending write is never part of it: it stays in the
conversation store, on the server.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from concierge.language.detect import Lang
from concierge.pipeline.result import ToolResult


class CallRecord(BaseModel):
    """One tool call the model asked for, and the pipeline's decision on it."""

    id: str
    name: str
    args: Any  # normally an object; a model may send anything, the guard decides
    status: str  # ok | refused | error | confirm
    code: str | None = None
    message: str | None = None
    result_id: str
    row_count: int = 0
    ms: float = 0.0
    result: ToolResult  # its dumps never carry the confirmation token


class PendingAction(BaseModel):
    """A write that waits for the user's yes: `Agent.confirm` runs exactly this call."""

    tool: str
    args: dict[str, Any]
    preview: dict[str, Any]
    message: str  # in the user's language


class Timings(BaseModel):
    model_ms: list[float] = Field(default_factory=list)  # one per model request
    tool_ms: list[float] = Field(default_factory=list)  # one per tool call
    total_ms: float = 0.0
    first_text_ms: float | None = None  # from the turn's start to the first piece of its answer


class TurnUsage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None  # an estimate; None when the provider or model has no price


class Turn(BaseModel):
    session_id: str
    answer: str
    lang: Lang
    calls: list[CallRecord] = Field(default_factory=list)
    pending: PendingAction | None = None
    ungrounded: list[str] = Field(default_factory=list)
    timings: Timings = Field(default_factory=Timings)
    usage: TurnUsage = Field(default_factory=TurnUsage)
    steps: int = 0  # model requests made in this turn
