"""What every provider shares: an async lifecycle, and for adapters over a vendor's HTTP SDK one
client per provider with one mapping of the SDK's errors to `ProviderError`.

    async with make_provider("anthropic", model=...) as provider:
        reply = await provider.complete(request)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType, TracebackType
from typing import Any, Self

from concierge.agent.providers.wire import error_detail, http_error


class BaseProvider:
    name: str = ""
    model: str = ""
    reads_context: bool = True  # whether it reads `ModelRequest.context` (the catalogs' rules and the state)

    async def aclose(self) -> None:
        """Release what the provider opened (connections); it is not used afterwards."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()


class SdkProvider(BaseProvider):
    """An adapter whose vendor SDK raises `sdk.APIStatusError` / `sdk.APIConnectionError` (openai, anthropic)."""

    sdk: ModuleType

    def __init__(self, model: str, *, api_key: str, base_url: str | None = None, max_retries: int = 2,
                 timeout: float = 120.0):
        self.model = model
        self.client = self.make_client(api_key=api_key, base_url=base_url, max_retries=max_retries, timeout=timeout)

    def make_client(self, **options: Any) -> Any:
        raise NotImplementedError

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
