"""Fixtures of the agent tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from demo_databases import with_demos

from concierge.demo.bootstrap import open_pipeline
from concierge.pipeline.pipeline import Pipeline


@pytest.fixture
def farm(sqlite_url) -> Iterator[Pipeline]:
    """The farm demo on a fresh SQLite file, at its transcripts' clock (2025-05-15)."""
    p = open_pipeline(["farm"], with_demos(sqlite_url, "farm"))
    try:
        yield p
    finally:
        p.close()

