"""How a checked call runs, one executor per kind of source, behind one interface.

The pipeline decides (access, guard), confirms (a preview, then a token) and audits; an executor only runs
the tool: it reads, says what a write would do, and writes. `Executors` finds the executor of a tool.
A new kind of source is one more `Executor`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from concierge.catalog.model import Tool
from concierge.errors import ConciergeError
from concierge.sources.result import ToolResult


class NotDone(ConciergeError):
    """A source could not run a call. `sent`: the request may have reached the service, so what it did is
    unknown; a write not sent may be confirmed again with the same token."""

    def __init__(self, message: str, message_ja: str | None, *, sent: bool = False):
        super().__init__(message)
        self.message_ja = message_ja
        self.sent = sent


@dataclass(frozen=True)
class Shown:
    """What a write would do, shown before the yes. `rereadable`: the executor can read it again just before
    writing, so a token is bound to it and a change in between gets a new preview instead of the write."""

    row: dict[str, Any]
    rereadable: bool
    nothing_yet: str  # "Nothing is written yet." or "Nothing is sent yet."


class WriteStep(ABC):
    """The pipeline's part inside a write's transaction, where its state (tokens, audit) lives beside the data:
    the token checked and used there, and the audit line written with the write. A write whose state lives apart
    gets a step that does nothing in the transaction (its token was redeemed before, its audit line is apart)."""

    committing = False  # set by the executor: past here, an error leaves the write's outcome unknown

    @abstractmethod
    def check(self, conn: sa.Connection | None) -> ToolResult | None:
        """A refusal when the token does not hold for this call (nothing is used yet)."""

    @abstractmethod
    def changed(self, conn: sa.Connection | None, now: dict[str, Any]) -> ToolResult | None:
        """A new preview, with a new token, when `now` differs from what the token was shown with."""

    @abstractmethod
    def use(self, conn: sa.Connection | None) -> ToolResult | None:
        """Use the token up; a refusal when it was used meanwhile."""

    @abstractmethod
    def record(self, conn: sa.Connection | None, result: ToolResult) -> None:
        """The audit line of the write, committed with it."""


class Executor(ABC):
    """Runs the tools of one kind of source."""

    nothing_yet = "Nothing is written yet."

    def changes_facts(self, tool: Tool) -> bool:
        """Whether a write of `tool` may change the values the guard read from the data (then they are read again
        after it); by default, yes."""
        return True

    @abstractmethod
    def handles(self, tool: Tool) -> bool:
        """Whether `tool` runs here."""

    @abstractmethod
    def read(self, tool: Tool, args: dict[str, Any], values: dict[str, Any]) -> ToolResult:
        """The result of a read; `args` are the checked arguments as given, `values` those plus identity and clock."""

    @abstractmethod
    def preview(self, tool: Tool, args: dict[str, Any], values: dict[str, Any]) -> ToolResult | Shown:
        """What the write would do, or why it cannot be done (a refusal as a result)."""

    @abstractmethod
    def write(self, tool: Tool, args: dict[str, Any], values: dict[str, Any], step: WriteStep) -> ToolResult:
        """Do the write; raises `NotDone` when it could not (saying whether anything was sent)."""

    def beside(self, state: object) -> bool:
        """Whether a write here can commit with the state database `state` in one transaction."""
        return False

    @abstractmethod
    def refresh(self, catalog: str | None = None) -> None:
        """Forget what was read of the data (of one catalog, or all)."""

    @abstractmethod
    def close(self) -> None:
        """Let go of connections."""


class Executors:
    """The executors of the loaded catalogs; a tool's is the first that handles it."""

    def __init__(self, executors: Iterable[Executor]):
        self._all = list(executors)

    def of(self, tool: Tool) -> Executor:
        for executor in self._all:
            if executor.handles(tool):
                return executor
        raise LookupError(f"no executor runs the tool {tool.name}")

    def refresh(self, catalog: str | None = None) -> None:
        for executor in self._all:
            executor.refresh(catalog)

    def close(self) -> None:
        for executor in self._all:
            executor.close()
