"""Fixtures of the fault tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from concierge import demo
from concierge.pipeline.pipeline import Pipeline
from concierge.storage.database import Database


@pytest.fixture
def farm_pg(pg_url) -> Iterator[Pipeline]:
    database = Database(pg_url)
    try:
        demo.install(database, "farm")
    finally:
        database.dispose()
    pipeline = Pipeline.open(["farm"], pg_url)
    try:
        yield pipeline
    finally:
        pipeline.close()
