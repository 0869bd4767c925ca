"""The restaurant demo on a fresh database, once on SQLite and once on PostgreSQL, through the real pipeline."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from demo_databases import with_demos

from concierge.demo.bootstrap import open_pipeline
from concierge.pipeline.pipeline import Pipeline


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def restaurant(request) -> Iterator[Pipeline]:
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    with_demos(url, "restaurant")
    pipeline = open_pipeline(["restaurant"], url)
    yield pipeline
    pipeline.close()


@pytest.fixture
def phone(restaurant):
    return restaurant.user("phone")
