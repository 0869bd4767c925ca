"""The two error families of concierge.

Errors the *model* (or the person typing) should see and act on are not
exceptions: the guard, the access check and the pipeline turn them into a
`ToolResult` with ``status="refused"`` or ``status="error"`` and a message
that says what is wrong and what would be valid. They are identified by the
codes in `ResultCode`.

Errors of the *system* raise, and all derive from `ConciergeError`::

    ConciergeError
     ├── CatalogError          a catalog file is broken (every problem listed)
     ├── ConfigError           bad option, bad settings, unknown catalog
     │    └── UnknownUser      no user of that name
     ├── DatabaseError         database unreachable, timed out, or failed
     │    ├── DataImportError  an import file has a bad row (line, column)
     │    ├── WriteOutcomeUnknown  the connection failed as a write committed: it may have been done
     │    └── StateSchemaError concierge's own tables are behind or ahead of this version
     ├── TurnFailedAfterWrite  a conversation's turn failed after one of its writes was done
     └── ProviderError         an LLM provider failed (HTTP error, missing key)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ResultCode(StrEnum):
    """Why a tool result is not plain data: a refusal before anything ran (unknown tool, bad
    argument, not permitted, an invalid confirmation) or an error of the call (not found)."""

    UNKNOWN_TOOL = "unknown_tool"
    BAD_ARGUMENT = "bad_argument"
    NOT_PERMITTED = "not_permitted"
    NOT_FOUND = "not_found"
    CONFIRMATION_INVALID = "confirmation_invalid"
    PREVIEW_CHANGED = "preview_changed"  # what a yes confirmed no longer holds: nothing written, a new preview


class ConciergeError(Exception):
    """Base of every error the system raises; `message_ja`: its text in Japanese, where it has one."""

    message_ja: str | None = None


@dataclass(frozen=True)
class CatalogProblem:
    file: str
    key: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.key}: {self.message}"


class CatalogError(ConciergeError):
    def __init__(self, problems: list[CatalogProblem]):
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"the catalog has {len(problems)} problem(s):\n{lines}")


class ConfigError(ConciergeError):
    pass


class UnknownUser(ConfigError):
    """No user of that name in the state database."""

    def __init__(self, name: str, known: list[str]):
        self.name, self.known = name, known
        hint = f"users: {', '.join(known)}" if known else "there are no users yet"
        super().__init__(f"unknown user {name!r}; {hint}; add one with `concierge user add NAME --role ROLE`")


class DatabaseError(ConciergeError):
    pass


class ConnectionLost(DatabaseError):
    """A statement's connection turned out to have been dropped (a server restart, a cut): the pool makes
    new connections from then on, and a read may run again on one."""


class WriteOutcomeUnknown(DatabaseError):
    """The connection was lost while a write committed: it may have been written. The person is told so,
    with how to check, never that nothing happened (re-entering it could write it twice)."""

    def __init__(self, tool: str, result_id: str, cause: str):
        self.tool, self.result_id = tool, result_id
        super().__init__(
            f"the write of {tool} may have been done: the database connection failed as it committed ({cause}). "
            f"Check before repeating it: look for it in the data, or in `concierge audit` (result {result_id})")
        self.message_ja = (f"{tool} の書き込みは、確定の途中で接続が切れたため、済んでいる可能性があります。"
                           f"もう一度入力する前に、データで確かめてください（監査の結果ID {result_id}）。")


class DataImportError(DatabaseError):
    def __init__(self, file: str, line: int, column: str, message: str):
        self.file, self.line, self.column = file, line, column
        super().__init__(f"{file}: line {line}, column {column}: {message}; nothing was loaded")


class StateSchemaError(DatabaseError):
    """The state tables are at another revision than this concierge's; the message names the command to run."""


class TurnFailedAfterWrite(ConciergeError):
    """A conversation's turn failed after one of its writes was done: the person must hear that it was done."""

    def __init__(self, written: list[tuple[str, str]], cause: str):
        self.written = written
        done = ", ".join(f"{tool} (result {result_id})" for tool, result_id in written)
        super().__init__(f"{done} was written; after that the request failed: {cause}. "
                         "Do not enter it again: it is done.")
        done_ja = "、".join(f"{tool}（結果ID {result_id}）" for tool, result_id in written)
        self.message_ja = (f"{done_ja} は書き込み済みです。その後の処理でエラーになりました。"
                           "同じ内容をもう一度入力しないでください。")


class ProviderError(ConciergeError):
    """An LLM provider failed. `retryable` says whether the same request may succeed later
    (rate limit, overload, a dropped connection) or needs a change first (a refused key, a bad model)."""

    def __init__(self, message: str, *, provider: str | None = None, status: int | None = None,
                 retryable: bool = False):
        self.provider, self.status, self.retryable = provider, status, retryable
        super().__init__(message)
