"""Fixtures of the fault tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from concierge import demo
from concierge.db import Database
from concierge.service import Pipeline


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
