"""What the pipeline calls for a tool of an http source: enum listings for the guard, and the call itself."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from concierge.catalog.model import StatusMap, Text, Tool
from concierge.sources.http.answer import Outcome, merged, outcome, page_rows, rows_of
from concierge.sources.http.client import Client, ServiceError
from concierge.sources.http.enums import EnumCache
from concierge.sources.http.request import build

if TYPE_CHECKING:
    from concierge.catalog.loader import Catalog
    from concierge.storage.source_grants import GrantStore

log = logging.getLogger(__name__)
RETRY_LISTING_S = 5.0  # a listing that failed for a context of all tools is tried again after this


@dataclass(frozen=True)
class Call:
    """An http tool's call: its columns and rows, or the outcome that is not a success; `sent` requests."""

    columns: list[str]
    rows: list[dict[str, Any]]
    failed: Outcome | None
    sent: int


class HttpCaller:
    """The clients of every http source of the catalogs, and the listings of their enums."""

    def __init__(self, catalogs: Iterable[Catalog], enums: EnumCache | None = None, grants: GrantStore | None = None):
        self._clients: dict[tuple[str, str], Client] = {
            (c.name, name): Client(source, grants) for c in catalogs for name, source in c.sources.items()
        }
        self.enums = enums or EnumCache()

    def handles(self, tool: Tool) -> bool:
        return tool.http is not None and (tool.catalog, tool.source or "") in self._clients

    def enum_values(self, tools: Iterable[Tool], *, strict: bool) -> tuple[dict[str, list[str]], float]:
        """The names of every http enum of `tools`, by `EnumSource.key`, and when the first of them
        expires. `strict`: a listing that fails raises `ServiceError`; else it is left out (and logged)."""
        values: dict[str, list[str]] = {}
        expires = float("inf")
        for tool in tools:
            for param in tool.params.values():
                enum = param.enum
                if enum is None or enum.http is None or enum.key in values:
                    continue
                try:
                    listing = self.enums.listing(tool.catalog, enum, self._client(tool.catalog, enum.http.source))
                except ServiceError as err:
                    if strict:
                        raise
                    log.warning("%s.%s: %s", tool.name, param, err)
                    expires = min(expires, self.enums.clock() + RETRY_LISTING_S)
                    continue
                values[enum.key] = listing.names
                expires = min(expires, listing.expires)
        return values, expires

    def call(self, tool: Tool, values: Mapping[str, Any]) -> Call:
        """Send the tool's request (`repeat` times) with `values`, the checked arguments and identity."""
        assert tool.http is not None
        client = self._client(tool.catalog, tool.source)
        sent_values, missing = self._ids(tool, values)
        if missing is not None:
            return Call([], [], missing, 0)
        status = merged(client.source.status, tool.status)
        if tool.http.pages is not None:
            return self._paged(tool, client, status, sent_values)
        times = int(values[tool.http.repeat] or 0) if tool.http.repeat else 1
        built = build(tool.http, sent_values)
        answer = None
        for sent in range(times):
            started = time.perf_counter()
            try:
                answer = client.send(built, read=tool.mode == "read")
            except ServiceError as err:
                if not sent:
                    raise
                raise _partly(err, sent, times) from None
            log.debug("%s %s: HTTP %s in %.1f ms", tool.name, built.method, answer.status,
                      (time.perf_counter() - started) * 1000)
            failed = outcome(status, answer.status, answer.doc)
            if failed is not None:
                return Call([], [], failed, sent + 1)
        if answer is None:
            return Call([], [], None, 0)
        columns, rows = rows_of(answer.doc, tool.result)
        return Call(columns, rows, None, times)

    def _paged(self, tool: Tool, client: Client, status: StatusMap | None, values: Mapping[str, Any]) -> Call:
        """A read sent page by page (`http.pages`) until a page is short; all its rows, or why not."""
        assert tool.http is not None and tool.http.pages is not None
        pages = tool.http.pages
        columns: list[str] = []
        rows: list[dict[str, Any]] = []
        for page in range(pages.max):
            built = build(tool.http, {**values, pages.offset: page * pages.size, pages.limit: pages.size})
            answer = client.send(built, read=True)
            failed = outcome(status, answer.status, answer.doc)
            if failed is not None:
                return Call([], [], failed, page + 1)
            columns, found = rows_of(answer.doc, tool.result)
            rows.extend(found)
            if page_rows(answer.doc, tool.result) < pages.size:
                return Call(columns, rows, None, page + 1)
        most = pages.size * pages.max
        return Call([], [], Outcome("error", Text(
            ja=f"該当が{most}件を超えるため、すべては読めません。期間や条件を絞ってください。",
            en=f"More than {most} records match, more than can be read; narrow the request (a shorter period).")),
            pages.max)

    def refresh(self, catalog: str | None = None) -> None:
        self.enums.forget(catalog)

    def close(self) -> None:
        for client in self._clients.values():
            client.close()

    def _client(self, catalog: str, source: str | None) -> Client:
        return self._clients[(catalog, source or "")]

    def _ids(self, tool: Tool, values: Mapping[str, Any]) -> tuple[dict[str, Any], Outcome | None]:
        """`values` with each enum name replaced by the id it stands for; or why a name has none now."""
        out = dict(values)
        for pname, param in tool.params.items():
            enum = param.enum
            if enum is None or enum.http is None or out.get(pname) is None:
                continue
            listing = self.enums.listing(tool.catalog, enum, self._client(tool.catalog, enum.http.source))
            name = str(out[pname])
            if name not in listing.ids:
                return out, Outcome("not_found", Text(ja=f"「{name}」は見つかりません。一覧を確かめてください。",
                                                      en=f"{name!r} was not found; check the list."))
            out[pname] = listing.ids[name]
        return out, None


def _partly(err: ServiceError, sent: int, times: int) -> ServiceError:
    return ServiceError(f"{err} ({sent} of {times} requests were sent before this.)",
                        f"{err.message_ja}（{times}回のうち{sent}回は送信済みです。）", sent=True)
