"""concierge: staff talk to their business's systems in plain Japanese or English, through declared tools.

The public names are below; everything else is internal and may change between versions.
They are imported on first use, so `import concierge` stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.2.0"

_EXPORTS = {
    "Pipeline": "concierge.pipeline.pipeline",
    "ToolResult": "concierge.sources.result",
    "Rows": "concierge.sources.result",
    "Confirmation": "concierge.sources.result",
    "Refusal": "concierge.sources.result",
    "Failure": "concierge.sources.result",
    "User": "concierge.pipeline.access",
    "Database": "concierge.storage.database",
    "Catalog": "concierge.catalog.loader",
    "load_catalogs": "concierge.catalog.loader",
    "ConciergeError": "concierge.errors",
    "CatalogError": "concierge.errors",
    "ConfigError": "concierge.errors",
    "DatabaseError": "concierge.errors",
    "ProviderError": "concierge.errors",
    "Provider": "concierge.agent.providers.interface",
    "Capabilities": "concierge.agent.providers.interface",
    "ModelRequest": "concierge.agent.providers.interface",
    "ModelReply": "concierge.agent.providers.interface",
    "ToolCall": "concierge.agent.providers.interface",
    "Demo": "concierge.plugins",
}

__all__ = [
    "__version__", "Pipeline", "ToolResult", "Rows", "Confirmation", "Refusal", "Failure", "User", "Database",
    "Catalog", "load_catalogs",
    "ConciergeError", "CatalogError", "ConfigError", "DatabaseError", "ProviderError",
    "Provider", "Capabilities", "ModelRequest", "ModelReply", "ToolCall", "Demo",
]

if TYPE_CHECKING:
    from concierge.agent.providers.interface import Capabilities, ModelReply, ModelRequest, Provider, ToolCall
    from concierge.catalog.loader import Catalog, load_catalogs
    from concierge.errors import CatalogError, ConciergeError, ConfigError, DatabaseError, ProviderError
    from concierge.pipeline.access import User
    from concierge.pipeline.pipeline import Pipeline
    from concierge.plugins import Demo
    from concierge.sources.result import Confirmation, Failure, Refusal, Rows, ToolResult
    from concierge.storage.database import Database


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'concierge' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
