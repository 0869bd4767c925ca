"""Enum values read from a web API (`enum.http`), kept for their `ttl`, with the ids their names stand for."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from concierge.catalog.model import EnumSource, HttpRequest
from concierge.sources.http.answer import at, outcome, raw_rows
from concierge.sources.http.client import Client, ServiceError
from concierge.sources.http.request import build


@dataclass(frozen=True)
class Listing:
    """The names an enum accepts, the id each stands for, and when they are read again (monotonic s)."""

    names: list[str]
    ids: dict[str, str]
    expires: float


class EnumCache:
    """The listings of http enums, read on first use and again once their ttl has passed."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self._listings: dict[tuple[str, str], Listing] = {}
        self._lock = threading.Lock()

    def listing(self, catalog: str, enum: EnumSource, client: Client) -> Listing:
        key = (catalog, enum.key)
        with self._lock:
            found = self._listings.get(key)
        if found is not None and self.clock() < found.expires:
            return found
        found = self._read(enum, client)
        with self._lock:
            self._listings[key] = found
        return found

    def forget(self, catalog: str | None = None) -> None:
        with self._lock:
            for key in [k for k in self._listings if catalog is None or k[0] == catalog]:
                del self._listings[key]

    def _read(self, enum: EnumSource, client: Client) -> Listing:
        call = enum.http
        assert call is not None and enum.value is not None
        request = HttpRequest(method=call.method, path=call.path, query=dict(call.query))
        answer = client.send(build(request, {}), read=True)
        failed = outcome(client.source.status, answer.status, answer.doc)
        if failed is not None:
            name = client.source.name
            raise ServiceError(f"Could not read the list of valid values from {name}: {failed.message.en}",
                               f"{name} から選べる値の一覧を読めませんでした: {failed.message.ja}", sent=False)
        names: list[str] = []
        ids: dict[str, str] = {}
        for row in raw_rows(answer.doc, call.rows, call.where):
            name = at(row, enum.value)
            if name is None or str(name) in ids:
                continue
            names.append(str(name))
            ids[str(name)] = str(at(row, enum.id) if enum.id else name)
        return Listing(names, ids, self.clock() + enum.ttl)

