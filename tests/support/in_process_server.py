"""An ASGI app served by a real uvicorn on 127.0.0.1, in a thread of the test's process: the one way a test
starts an in-process server (web_fakes.live, the MCP HTTP app of tests/mcp/test_mcp_limits.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

START_S = 20.0


@contextmanager
def served_in_thread(app: Any, **config: Any) -> Iterator[str]:
    """`app` on a free port of 127.0.0.1 until the block ends; yields its base URL (http://127.0.0.1:PORT).

    `config` goes to `uvicorn.Config` (`lifespan="on"`, `proxy_headers=False`); the log level is warning."""
    server = uvicorn.Server(uvicorn.Config(app, **{"host": "127.0.0.1", "port": 0, "log_level": "warning", **config}))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + START_S
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=START_S)
