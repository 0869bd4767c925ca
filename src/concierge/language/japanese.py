"""Japanese as data (words/ja.toml): the one reader of its lists."""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["kana_counts", "kana_counters", "aspect_auxiliaries", "subsidiary_verbs"]


@cache
def _table() -> dict[str, Any]:
    return tomllib.loads(resources.files("concierge.language").joinpath("words/ja.toml").read_text("utf-8"))


def kana_counts() -> dict[str, int]:
    """ひとつ: 1, ふたつ: 2 …"""
    return _table()["counts"]["kana"]


def kana_counters() -> dict[str, str]:
    """こ: 個, ほん: 本 …: a counter said in kana after digits, as written."""
    return _table()["counts"]["counters"]


@cache
def aspect_auxiliaries() -> frozenset[str]:
    """とく, ちゃう …: said between a verb and its て, they leave its meaning (消しといて is 消して)."""
    return frozenset(_table()["verbs"]["aspect"])


@cache
def subsidiary_verbs() -> frozenset[str]:
    """くださる, くれる …: after a て, part of the verb before it (消してください)."""
    return frozenset(_table()["verbs"]["subsidiary"])
