"""Fixtures of the planner tests: the demo catalogs, opened once, and plans built without a database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from planner_helpers import TODAY, Planning

from concierge.demo.bootstrap import open_pipeline
from concierge.pipeline.pipeline import Pipeline


@pytest.fixture(scope="session")
def demo(tmp_path_factory) -> Iterator[dict[str, Pipeline]]:
    """Both demos on one SQLite file: a source of the tools and of the values in the data."""
    url = f"sqlite:///{tmp_path_factory.mktemp('demo') / 'demo.db'}"
    pipelines = {domain: open_pipeline([domain], url, today=today) for domain, today in TODAY.items()}
    pipelines["both"] = open_pipeline(["farm", "pos"], url, today=TODAY["pos"])
    yield pipelines
    for p in pipelines.values():
        p.close()


@pytest.fixture
def farm_plan(demo) -> Planning:
    return Planning(demo["farm"], TODAY["farm"])


@pytest.fixture
def pos_plan(demo) -> Planning:
    return Planning(demo["pos"], TODAY["pos"])


@pytest.fixture
def both_plan(demo) -> Planning:
    """Both demo catalogs at once, at the POS clock."""
    return Planning(demo["both"], TODAY["pos"])
