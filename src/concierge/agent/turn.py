"""What one turn of a conversation returns: the answer and how it was reached; and how long its message may be.

The CLI prints it, the web page streams it, `eval` scores it. The
confirmation token of a pending write is never part of it: it stays in the
conversation store, on the server.

`MESSAGE_CHARS` is the one limit on a message's length, on every channel: the web chat's request
model, `concierge ask` / `concierge chat`, the phone's prompts, and `Agent.ask` itself, which refuses a
longer one with `MessageTooLong` whatever channel it came from.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from concierge.errors import ConciergeError
from concierge.language.detect import Lang, language
from concierge.sources.result import ToolResult

MESSAGE_CHARS = 4000  # the most characters of one message a user may send, on any channel


class MessageTooLong(ConciergeError):
    """A message longer than MESSAGE_CHARS: refused before anything plans or calls a tool."""

    def __init__(self, chars: int, lang: Lang):
        self.chars, self.lang = chars, lang
        self.message_en = (f"The message is too long ({chars:,} characters; at most {MESSAGE_CHARS:,}). "
                           "Please shorten it, or split it into several messages.")
        self.message_ja = (f"メッセージが長すぎます（{chars:,}文字、上限は{MESSAGE_CHARS:,}文字）。"
                           "短くするか、いくつかに分けて送ってください。")
        super().__init__(self.message_ja if lang == "ja" else self.message_en)


def check_message(text: str) -> None:
    """Raise `MessageTooLong` (in the message's language) for a message past MESSAGE_CHARS."""
    if len(text) > MESSAGE_CHARS:
        raise MessageTooLong(len(text), language(text[:MESSAGE_CHARS]))


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
    read_from: str | None = None  # with read replicas: where the read ran, and why the primary when it did
    result: ToolResult  # its dumps never carry the confirmation token


# What became of a write that waited for a yes: its yes wrote it (confirmed), was refused or failed (failed), found
# the values changed and showed a new card (changed); a no (cancelled); a new question made another card (replaced)
# or none (dropped); its time ran out (expired); nothing was waiting any more (gone: done, or dropped before); a reply
# neither yes nor no asked it again, and it waits on in the turn's card (repeated).
Settled = Literal["confirmed", "failed", "changed", "cancelled", "replaced", "dropped", "expired", "gone", "repeated"]


class PendingField(BaseModel):
    """One value of a write waiting for a yes, as the person reads it (agent/card.py)."""

    name: str  # the preview's column
    label: str  # its name in the user's language (販売日)
    value: str  # as written for a person (2025年5月6日(火), 600円)


class PendingAction(BaseModel):
    """A write that waits for the user's yes: `Agent.confirm` runs exactly this call."""

    tool: str
    args: dict[str, Any]
    preview: dict[str, Any]
    message: str  # in the user's language: what the write will do, and the question
    fields: list[PendingField] = Field(default_factory=list)  # the preview, labelled and written for a person
    warning: str | None = None  # the same write was done minutes ago


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
    settled: Settled | None = None  # what became of the write that waited for a yes as the turn began
