"""Choosing a provider by name. Each adapter lives in its own module and imports its SDK there.

    offline      the deterministic planner (no key, no network)
    openai       OpenAI Responses API                     OPENAI_API_KEY
    openai-chat  Chat Completions, also any compatible    OPENAI_API_KEY (not needed with --base-url)
                 server (Ollama, llama.cpp, vLLM) via a base URL
    anthropic    Anthropic Messages API                   ANTHROPIC_API_KEY
    gemini       Google Gemini (google-genai)             GEMINI_API_KEY or GOOGLE_API_KEY
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from concierge.agent.providers.interface import Provider
from concierge.agent.providers.wire import api_key
from concierge.errors import ConfigError, ProviderError

if TYPE_CHECKING:
    from concierge.pipeline.pipeline import Pipeline

NO_KEY = "not-needed"  # local OpenAI-compatible servers accept any key


@dataclass(frozen=True)
class _Kind:
    module: str
    cls: str
    sdk: str  # the top-level package the adapter imports
    extra: str  # pip install 'concierge[extra]'
    keys: tuple[str, ...]
    default_model: str
    key_optional_with_base_url: bool = False


KINDS: dict[str, _Kind] = {
    "openai": _Kind("openai_responses", "OpenAIResponsesProvider", "openai", "openai", ("OPENAI_API_KEY",),
                    "gpt-5.4-mini", key_optional_with_base_url=True),
    "openai-chat": _Kind("openai_chat", "OpenAIChatProvider", "openai", "openai", ("OPENAI_API_KEY",),
                         "gpt-5.4-mini", key_optional_with_base_url=True),
    "anthropic": _Kind("anthropic", "AnthropicProvider", "anthropic", "anthropic", ("ANTHROPIC_API_KEY",),
                       "claude-sonnet-4-6"),
    "gemini": _Kind("gemini", "GeminiProvider", "google", "gemini", ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
                    "gemini-3-flash-preview"),
}
NAMES = ("offline", *KINDS)


def make_provider(name: str, *, model: str | None = None, base_url: str | None = None,
                  pipeline: Pipeline | None = None) -> Provider:
    """The provider called `name`; the offline planner reads the catalogs and data of `pipeline`."""
    if name == "offline":
        from concierge.agent.providers.offline import OfflineProvider

        if pipeline is None:
            raise ConfigError("the offline provider plans over a pipeline's catalogs: pass pipeline=")
        return OfflineProvider(pipeline)
    kind = KINDS.get(name)
    if kind is None:
        raise ConfigError(f"unknown provider {name!r}; providers: {', '.join(NAMES)}")
    if base_url and kind.key_optional_with_base_url:
        key = next((os.environ[v] for v in kind.keys if os.environ.get(v)), NO_KEY)
    else:
        key = api_key(*kind.keys, provider=name)
    try:
        module = importlib.import_module(f"concierge.agent.providers.{kind.module}")
    except ImportError as err:
        if (err.name or "").split(".")[0] != kind.sdk:
            raise
        raise ProviderError(
            f"the {name} provider needs the {kind.sdk if kind.sdk != 'google' else 'google-genai'} package: "
            f"pip install 'concierge[{kind.extra}]'"
        ) from None
    return getattr(module, kind.cls)(model or kind.default_model, api_key=key, base_url=base_url)
