"""The tools of `kind: http` sources, as an executor: a read or a write is one request (or `repeat` of them).

What a write would send is its arguments; nothing is sent before the token comes back. The request cannot be
re-read before it is sent, so the token binds the arguments only.
"""

from __future__ import annotations

from typing import Any

from concierge.catalog.loader import Catalog
from concierge.catalog.model import Tool
from concierge.errors import ResultCode
from concierge.sources.executor import Executor, NotDone, Shown, WriteStep
from concierge.sources.http.caller import Call, HttpCaller
from concierge.sources.http.client import ServiceError
from concierge.sources.result import Failure, ToolResult, plain_args, shaped
from concierge.storage.database import Database
from concierge.storage.source_grants import GrantStore


class HttpExecutor(Executor):
    nothing_yet = "Nothing is sent yet."

    def changes_facts(self, tool: Tool) -> bool:
        return False  # a command changes a device, not the listings its enums are read from

    def __init__(self, catalogs: list[Catalog], state: Database | None = None):
        """`state`: the state database, where the grants of `oauth2_authorization_code` sources are kept."""
        self.caller = HttpCaller(catalogs, grants=GrantStore(state) if state is not None else None)

    def handles(self, tool: Tool) -> bool:
        return self.caller.handles(tool)

    def refresh(self, catalog: str | None = None) -> None:
        self.caller.refresh(catalog)

    def close(self) -> None:
        self.caller.close()

    def read(self, tool: Tool, args: dict[str, Any], values: dict[str, Any]) -> ToolResult:
        return self._result(tool, args, self._call(tool, values))

    def preview(self, tool: Tool, args: dict[str, Any], values: dict[str, Any]) -> ToolResult | Shown:
        return Shown(plain_args(args), rereadable=False, nothing_yet=self.nothing_yet)

    def write(self, tool: Tool, args: dict[str, Any], values: dict[str, Any], step: WriteStep) -> ToolResult:
        refusal = step.check(None) or step.use(None)
        if refusal is not None:
            return refusal
        result = self._result(tool, args, self._call(tool, values))
        step.record(None, result)
        return result

    def _call(self, tool: Tool, values: dict[str, Any]) -> Call:
        try:
            return self.caller.call(tool, values)
        except ServiceError as err:
            raise NotDone(str(err), err.message_ja, sent=err.sent) from err

    @staticmethod
    def _result(tool: Tool, args: dict[str, Any], call: Call) -> ToolResult:
        if call.failed is None:
            return shaped(tool, args, call.columns, call.rows)
        return Failure(
            tool=tool.name, args=plain_args(args),
            code=ResultCode.NOT_FOUND if call.failed.outcome == "not_found" else None,
            message=call.failed.message.en, message_ja=call.failed.message.ja,
            ai_instruction=tool.ai_instruction.error if tool.ai_instruction else None,
        )
