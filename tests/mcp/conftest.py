"""Fixtures of the MCP tests (the helpers they use are in mcp_servers.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp_servers import HttpServer, start_http, stop


@pytest.fixture(scope="module")
def http_server(tmp_path_factory) -> Iterator[HttpServer]:
    """`concierge mcp --transport http` with bearer tokens for every demo user."""
    server = start_http(tmp_path_factory.mktemp("mcp-http"))
    try:
        yield server
    finally:
        stop(server)
