"""Two `concierge serve` processes on one PostgreSQL database behind nginx, as docs/deploy.md describes.

nginx (Debian's package; `bash .ci/run` installs it) and the processes are started once per test module
(proxy_harness.py). Without nginx or PostgreSQL these tests fail; they never skip.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack

import pytest
from demo_databases import with_demos
from pg_databases import fresh_database
from pg_replica import Streaming, streaming_pair
from proxy_harness import Replicas, nginx, nginx_binary
from web_fakes import concierge_serve, with_passwords


@pytest.fixture
def nginx_bin() -> str:
    """The nginx binary; the test fails when there is none."""
    return nginx_binary()


@pytest.fixture(scope="module")
def replicated_url(pg_server) -> Iterator[str]:
    """A fresh PostgreSQL database with both demos and the demo users' known passwords, for one test module."""
    with fresh_database(pg_server) as url:
        with_demos(url, "farm", "pos")
        yield with_passwords(url)


@pytest.fixture(scope="module")
def replicas(replicated_url, tmp_path_factory) -> Iterator[Replicas]:
    """Two `concierge serve` on one PostgreSQL database behind nginx; they believe X-Forwarded-* of 127.0.0.1 only.

    One set-up serves the whole module (starting the processes is most of a test's time): each test reads what
    it compares against first, or works on a user or conversation of its own."""
    tmp_path = tmp_path_factory.mktemp("replicas")
    with ExitStack() as stack:
        processes = {
            name: stack.enter_context(concierge_serve(replicated_url, "--trusted-proxy", "127.0.0.1"))
            for name in ("a", "b")
        }
        upstreams = {name: served.url.removeprefix("http://") for name, served in processes.items()}
        url = stack.enter_context(nginx(tmp_path / "nginx", upstreams))
        yield Replicas(url, replicated_url, processes)


@pytest.fixture(scope="module")
def read_replica() -> Iterator[tuple[Streaming, str]]:
    """A PostgreSQL primary of its own with both demos and the demo users' passwords, and its streaming replica:
    (the pair, the URL of the database on the replica)."""
    with streaming_pair() as pair:
        primary, replica = pair.create_database("shop")
        with_demos(primary, "farm", "pos")
        with_passwords(primary)
        pair.wait_replayed()
        yield pair, replica


@pytest.fixture(scope="module")
def replicas_reading_a_replica(read_replica, tmp_path_factory) -> Iterator[Replicas]:
    """Two `concierge serve` behind nginx on the primary of `read_replica`, both with `replica_database` set."""
    pair, replica_url = read_replica
    with ExitStack() as stack:
        processes = {
            name: stack.enter_context(concierge_serve(pair.primary.url("shop"), "--trusted-proxy", "127.0.0.1",
                                                      env={"CONCIERGE_REPLICA_DATABASE": replica_url}))
            for name in ("a", "b")
        }
        upstreams = {name: served.url.removeprefix("http://") for name, served in processes.items()}
        url = stack.enter_context(nginx(tmp_path_factory.mktemp("read-replica") / "nginx", upstreams))
        yield Replicas(url, pair.primary.url("shop"), processes)
