"""For the adapters over a vendor's HTTP SDK (openai, anthropic): one client per provider, and one mapping of
the SDK's errors to `ProviderError`. The provider interface itself (`Provider`, its lifecycle and its default
`stream`) is `providers.interface`; this is only what those adapters share.

    async with make_provider("anthropic", model=...) as provider:
        reply = await provider.complete(request)
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from concierge.agent.providers.interface import Provider
from concierge.agent.providers.wire import error_detail, http_error


class SdkProvider(Provider):
    """An adapter whose vendor SDK raises `sdk.APIStatusError` / `sdk.APIConnectionError` (openai, anthropic)."""

    sdk: ModuleType

    def __init__(self, model: str, *, api_key: str, base_url: str | None = None, max_retries: int = 2,
                 timeout: float = 120.0):
        self.model = model
        self.client = self.make_client(api_key=api_key, base_url=base_url, max_retries=max_retries, timeout=timeout)

    @abstractmethod
    def make_client(self, **options: Any) -> Any:
        """The SDK's async client, given `api_key`, `base_url`, `max_retries` and `timeout`."""

    async def aclose(self) -> None:
        await self.client.close()

    @contextmanager
    def vendor_errors(self) -> Iterator[None]:
        try:
            yield
        except self.sdk.APIStatusError as err:
            raise http_error(self.name, err.status_code, error_detail(err.body), str(err.request.url)) from err
        except self.sdk.APIConnectionError as err:
            raise http_error(self.name, None, err.message, str(err.request.url)) from err
