"""Fixtures of the fault tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from demo_databases import with_demos

from concierge.demo.bootstrap import open_pipeline
from concierge.pipeline.pipeline import Pipeline


@pytest.fixture
def farm_pg(pg_url) -> Iterator[Pipeline]:
    with_demos(pg_url, "farm")
    pipeline = open_pipeline(["farm"], pg_url)
    try:
        yield pipeline
    finally:
        pipeline.close()


@pytest.fixture
def farm_mysql(mysql_url) -> Iterator[Pipeline]:
    with_demos(mysql_url, "farm")
    pipeline = open_pipeline(["farm"], mysql_url)
    try:
        yield pipeline
    finally:
        pipeline.close()
