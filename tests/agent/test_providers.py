"""Choosing a provider: clear errors for a missing key or a missing SDK; the one interface every provider has."""

from __future__ import annotations

import sys
from datetime import date

import pytest
from agent_fakes import ScriptedProvider, answer, calls

from concierge.agent.loop import Agent
from concierge.agent.providers import make_provider
from concierge.agent.providers.anthropic import AnthropicProvider
from concierge.agent.providers.gemini import GeminiProvider
from concierge.agent.providers.interface import Capabilities, ModelReply, ModelRequest, Provider, Speech
from concierge.agent.providers.offline import OfflineProvider
from concierge.agent.providers.openai_chat import OpenAIChatProvider
from concierge.agent.providers.openai_responses import OpenAIResponsesProvider
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


SHIPPED = [OfflineProvider, OpenAIResponsesProvider, OpenAIChatProvider, AnthropicProvider, GeminiProvider]


@pytest.mark.parametrize("cls", [*SHIPPED, ScriptedProvider], ids=lambda c: c.__name__)
def test_every_provider_is_the_one_base_class_and_declares_whether_it_streams(cls):
    assert issubclass(cls, Provider)
    assert cls.capabilities.streams == (cls.stream is not Provider.stream)  # declared as it is: no other check


def test_only_the_offline_planner_reads_the_state_instead_of_the_context():
    assert [c.__name__ for c in SHIPPED if not c.capabilities.reads_context] == ["OfflineProvider"]


def test_make_provider_gives_the_base_class(farm, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert isinstance(make_provider("offline", pipeline=farm), Provider)
    assert isinstance(make_provider("openai"), Provider)


def test_a_provider_without_complete_cannot_be_made():
    class Unfinished(Provider):
        name, model = "unfinished", "none"

    with pytest.raises(TypeError, match="complete"):
        Unfinished()  # type: ignore[abstract]


REQUEST = ModelRequest(system="", messages=[], tools=[], today=date(2025, 5, 15), user="admin")


@pytest.mark.anyio
async def test_the_default_stream_passes_a_final_answer_on_whole_and_nothing_of_a_reply_with_calls():
    heard: list[str] = []

    async def on_text(text: str) -> None:
        heard.append(text)

    provider = ScriptedProvider().enqueue(calls(("get_customers", {})), answer("0009 です。"))
    with_calls = await provider.stream(REQUEST, Speech(on_text))
    final = await provider.stream(REQUEST, Speech(on_text))
    assert with_calls.tool_calls and final == ModelReply(text="0009 です。")
    assert heard == ["0009 です。"]


@pytest.mark.anyio
async def test_a_provider_closes_when_its_block_ends_by_default():
    closed: list[bool] = []

    class Minimal(Provider):
        name, model = "minimal", "m-1"

        async def complete(self, request: ModelRequest) -> ModelReply:
            return ModelReply(text="hi")

        async def aclose(self) -> None:
            closed.append(True)

    async with Minimal() as provider:
        assert (await provider.complete(REQUEST)).text == "hi" and provider.capabilities == Capabilities()
    assert closed == [True]
