"""Choosing a provider: clear errors for a missing key or a missing SDK."""

from __future__ import annotations

import sys

import pytest

from concierge.agent.loop import Agent
from concierge.agent.providers import make_provider
from concierge.errors import ConfigError, ProviderError

KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch):
    for key in KEYS:
        monkeypatch.delenv(key, raising=False)


@pytest.mark.parametrize(("name", "variables"), [
    ("openai", "OPENAI_API_KEY"),
    ("openai-chat", "OPENAI_API_KEY"),
    ("anthropic", "ANTHROPIC_API_KEY"),
    ("gemini", "GEMINI_API_KEY or GOOGLE_API_KEY"),
])
def test_a_missing_key_names_the_variable_and_the_offline_provider(farm, name, variables):
    with pytest.raises(ProviderError) as caught:
        make_provider(name)
    assert f"set {variables}" in str(caught.value) and "--provider offline" in str(caught.value)


def test_a_local_openai_compatible_server_needs_no_key(farm):
    provider = make_provider("openai-chat", model="qwen3:8b", base_url="http://127.0.0.1:11434/v1")
    assert (provider.name, provider.model) == ("openai-chat", "qwen3:8b")


@pytest.mark.anyio
async def test_the_key_comes_from_the_environment(farm, monkeypatch, wire_server):
    monkeypatch.setenv("GOOGLE_API_KEY", "from-env")
    wire_server.enqueue((200, {"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}}]}))
    async with make_provider("gemini", base_url=wire_server.url) as provider:
        await Agent(farm, provider).ask("hi", farm.user("admin"))
    assert wire_server.requests[0]["headers"]["x-goog-api-key"] == "from-env"


def test_a_missing_sdk_says_which_pip_install_fixes_it(farm, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setitem(sys.modules, "anthropic", None)  # as if the package were not installed
    monkeypatch.delitem(sys.modules, "concierge.agent.providers.anthropic", raising=False)
    with pytest.raises(ProviderError, match=r"pip install 'concierge\[anthropic\]'"):
        make_provider("anthropic")


def test_an_unknown_provider_lists_the_known_ones(farm):
    with pytest.raises(ConfigError, match="offline, openai, openai-chat, anthropic, gemini"):
        make_provider("mistral")


def test_the_offline_provider_needs_the_pipeline_it_plans_over():
    with pytest.raises(ConfigError, match="pipeline"):
        make_provider("offline")


def test_every_default_model_has_a_price():
    from concierge.agent.pricing import cost_usd
    from concierge.agent.providers import KINDS

    for name, kind in KINDS.items():
        assert cost_usd(kind.default_model, 1_000_000, 0) is not None, f"{name}: {kind.default_model} has no price"


@pytest.mark.anyio
async def test_a_provider_closes_its_client_when_its_block_ends(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    async with make_provider("anthropic") as provider:
        assert not provider.client.is_closed()
    assert provider.client.is_closed()


@pytest.mark.parametrize(("status", "retryable", "hint"), [
    (401, False, "API key was refused"), (404, False, "model name"), (429, True, "try again"),
    (503, True, "try again"), (None, True, "reachable"),
])
def test_a_provider_error_says_whether_trying_again_can_help(status, retryable, hint):
    from concierge.agent.providers.wire import http_error

    err = http_error("anthropic", status, "boom")
    assert (err.provider, err.status, err.retryable) == ("anthropic", status, retryable)
    assert hint in str(err)
