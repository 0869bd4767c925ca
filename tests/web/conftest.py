"""Fixtures of the web tests: the app in process, driven by a scripted provider."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from web_fakes import Web, running, with_passwords


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "today(date): the clock (--today) of the server a browser test uses")
    config.addinivalue_line("markers", "console_error(text): a console error the browser test causes on purpose")


@pytest.fixture(scope="session")
def _web_template(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("web") / "template.db"
    with_passwords(f"sqlite:///{path}")
    return path


@pytest.fixture
def web_url(_web_template, tmp_path) -> str:
    """A fresh SQLite demo database whose demo users have known passwords (a copy of one made once)."""
    shutil.copyfile(_web_template, tmp_path / "web.db")
    return f"sqlite:///{tmp_path / 'web.db'}"


@pytest.fixture
def web(web_url, provider) -> Iterator[Web]:
    """The pipeline and a factory of signed-out clients of one app."""
    with running(web_url, provider) as w:
        yield w


@pytest.fixture
def any_web_url(db_url) -> str:
    """A fresh demo database with known passwords, once on SQLite and once on PostgreSQL."""
    return with_passwords(db_url)


@pytest.fixture
def any_web(any_web_url, provider) -> Iterator[Web]:
    """As `web`, once on SQLite and once on PostgreSQL."""
    with running(any_web_url, provider) as w:
        yield w
