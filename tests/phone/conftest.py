"""Fixtures of the phone tests: `concierge serve`'s app under a real uvicorn, with the phone channel on."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

import pytest
from demo_databases import with_demos
from phone_caller import TOKEN
from web_fakes import live

from concierge.settings import PhoneSettings

Serve = Callable[..., AbstractContextManager[str]]


@pytest.fixture
def serve(sqlite_url, monkeypatch) -> Serve:
    """serve(catalogs=..., app={create_app options}, **phone settings) -> a context manager yielding the
    base URL; without app options the offline planner answers."""
    monkeypatch.setenv("TWILIO_AUTH_TOKEN", TOKEN)

    def start(catalogs: tuple[str, ...] = ("farm",), app: dict | None = None, **phone) -> AbstractContextManager[str]:
        settings = PhoneSettings(**{"user": "admin", **phone})
        return live(with_demos(sqlite_url, *catalogs), None, catalogs=catalogs, phone=settings, **(app or {}))

    return start



@pytest.fixture
def llm_phone(serve, wire_server) -> Iterator[str]:
    """The restaurant's phone answered by the openai-chat provider, talking to `wire_server`."""
    model = {"provider_name": "openai-chat", "model": "gpt-4.1-mini", "base_url": wire_server.url + "/v1"}
    with serve(catalogs=("restaurant",), user="phone", catalog="restaurant", app=model) as url:
        yield url


@pytest.fixture
def restaurant_phone(serve) -> Iterator[str]:
    """The restaurant's phone, answered by the offline planner."""
    with serve(catalogs=("restaurant",), user="phone", catalog="restaurant", staff_number="+81355550100") as url:
        yield url


@pytest.fixture
def farm_phone(serve) -> Iterator[str]:
    with serve() as url:
        yield url
