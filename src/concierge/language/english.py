"""English as data (words/en.toml): the one reader of its lists."""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["english_quantities"]


@cache
def _table() -> dict[str, Any]:
    return tomllib.loads(resources.files("concierge.language").joinpath("words/en.toml").read_text("utf-8"))


def english_quantities() -> dict[str, int]:
    """a couple of: 2, a dozen: 12 …"""
    return _table()["quantities"]
