"""Fixtures of the agent tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from agent_fakes import WireServer

from concierge.pipeline.pipeline import Pipeline


@pytest.fixture
def farm(sqlite_url) -> Iterator[Pipeline]:
    """The farm demo on a fresh SQLite file, at its transcripts' clock (2025-05-15)."""
    p = Pipeline.open(["farm"], sqlite_url)
    try:
        yield p
    finally:
        p.close()


@pytest.fixture
def wire_server() -> Iterator[WireServer]:
    server = WireServer()
    server.thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
        server.thread.join()
