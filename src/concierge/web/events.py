"""A server-sent event stream that writes as little as it can.

Each batch of events is one write, and the last batch carries the end of the body with it,
so a turn whose events come all at once costs the status line and one write. The stream does
not watch for the client going away: the turn it reports runs on anyway (`concierge.web.chat`),
and what is sent after a disconnect is dropped by the server.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping
from contextlib import aclosing

from starlette.responses import Response
from starlette.types import Receive, Scope, Send


class EventStream(Response):
    """`batches` yields (text, last): the text of one or more events, and whether the stream ends with it."""

    media_type = "text/event-stream"

    def __init__(self, batches: AsyncGenerator[tuple[str, bool], None], headers: Mapping[str, str] | None = None):
        self.batches = batches
        self.status_code = 200
        self.background = None
        self.init_headers(headers)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        async with aclosing(self.batches) as batches:
            async for text, last in batches:
                await send({"type": "http.response.body", "body": text.encode(), "more_body": not last})
                if last:
                    return
        await send({"type": "http.response.body", "body": b"", "more_body": False})
