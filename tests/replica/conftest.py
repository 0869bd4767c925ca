"""A PostgreSQL primary with the farm demo and its streaming replica, started by the tests (pg_replica.py).

The clusters are the module's own: a test that stops the replica or pauses its replay starts it again or
resumes before it ends. They never skip: a missing server binary fails with what to install.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from demo_databases import install
from pg_replica import Streaming, streaming_pair


@pytest.fixture(scope="module")
def streaming() -> Iterator[Streaming]:
    with streaming_pair() as pair:
        yield pair


@pytest.fixture(scope="module")
def farm_on_primary(streaming) -> str:
    """The URL of a database on the primary with the farm demo, replayed on the replica."""
    primary, _replica = streaming.create_database("farm")
    install(primary, "farm")
    streaming.wait_replayed()
    return primary


@pytest.fixture
def replica_back(streaming) -> Iterator[Streaming]:
    """The streaming pair, its replica running and replaying again after the test whatever it did."""
    yield streaming
    if streaming.replica.execute_or_none("SELECT 1") is None:
        streaming.replica.start()
    streaming.resume_replay()
    streaming.wait_replayed()
