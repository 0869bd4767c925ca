"""Two `concierge serve` processes on one PostgreSQL database behind nginx, as docs/deploy.md describes.

nginx (Debian's package; `bash .ci/run` installs it) and the processes are started per test
(proxy_harness.py). Without nginx or PostgreSQL these tests fail; they never skip.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack

import pytest
from demo_databases import with_demos
from proxy_harness import Replicas, nginx, nginx_binary
from web_fakes import concierge_serve, with_passwords


@pytest.fixture
def nginx_bin() -> str:
    """The nginx binary; the test fails when there is none."""
    return nginx_binary()


@pytest.fixture
def replicated_url(pg_url) -> str:
    """A fresh PostgreSQL database with both demos and the demo users' known passwords."""
    with_demos(pg_url, "farm", "pos")
    return with_passwords(pg_url)


@pytest.fixture
def replicas(replicated_url, tmp_path) -> Iterator[Replicas]:
    """Two `concierge serve` on one PostgreSQL database behind nginx; they believe X-Forwarded-* of 127.0.0.1 only."""
    with ExitStack() as stack:
        processes = {
            name: stack.enter_context(concierge_serve(replicated_url, "--trusted-proxy", "127.0.0.1"))
            for name in ("a", "b")
        }
        upstreams = {name: served.url.removeprefix("http://") for name, served in processes.items()}
        url = stack.enter_context(nginx(tmp_path / "nginx", upstreams))
        yield Replicas(url, replicated_url, processes)
