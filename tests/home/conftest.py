"""The home demo against a SwitchBot SIMULATOR in a thread, through the real pipeline (Pipeline.open)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from concierge.demo.bootstrap import open_pipeline
from concierge.demo.home.simulator import Simulator, running
from concierge.pipeline.pipeline import Pipeline


@pytest.fixture
def sim() -> Iterator[Simulator]:
    with running() as simulator:
        yield simulator


def open_home(tmp_path, monkeypatch, environment: dict[str, str]) -> Pipeline:
    """The `home` demo catalog, by its name, with the SwitchBot variables of `environment`."""
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    return open_pipeline(["home"], f"sqlite:///{tmp_path / 'home.db'}")


@pytest.fixture
def home(tmp_path, monkeypatch, sim) -> Iterator[Pipeline]:
    pipeline = open_home(tmp_path, monkeypatch, sim.environment())
    yield pipeline
    pipeline.close()
