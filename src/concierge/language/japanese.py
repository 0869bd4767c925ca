"""Japanese as data (words/ja.toml): the one reader of its lists."""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["after_nouns", "around_values", "aspect_auxiliaries", "final_particles", "honorifics", "kana_counters",
           "kana_counts", "long_particles", "not_names", "particles", "people_counts", "subsidiary_verbs"]


@cache
def _table() -> dict[str, Any]:
    return tomllib.loads(resources.files("concierge.language").joinpath("words/ja.toml").read_text("utf-8"))


def kana_counts() -> dict[str, int]:
    """ひとつ: 1, ふたつ: 2 …"""
    return _table()["counts"]["kana"]


def people_counts() -> dict[str, int]:
    """ひとり: 1, ふたり: 2 …: people counted, written with 人."""
    return _table()["counts"]["people"]


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


def honorifics() -> tuple[str, ...]:
    """さん, 様 …: said after a name."""
    return tuple(_table()["words"]["honorifics"])


def particles() -> tuple[str, ...]:
    """の, を, が …: particles of one character, each of which ends a noun."""
    return tuple(_table()["words"]["particles"])


def long_particles() -> tuple[str, ...]:
    """から, だけ …: particles of more than one character."""
    return tuple(_table()["words"]["long_particles"])


def final_particles() -> tuple[str, ...]:
    """か, ね …: particles that end a sentence."""
    return tuple(_table()["words"]["final_particles"])


def after_nouns() -> tuple[str, ...]:
    """です, ください, ずつ …: said right after a noun with no particle between (おにぎりください)."""
    return tuple(_table()["words"]["after_nouns"])


def around_values() -> tuple[str, ...]:
    """じゃあ, って, ください …: grammar said around a value, never a word of it."""
    return tuple(_table()["words"]["around_values"])


@cache
def not_names() -> frozenset[str]:
    """お客, 皆, 店長 …: said before an honorific, no one's name."""
    return frozenset(_table()["words"]["not_names"])


@cache
def qualifier_pos() -> frozenset[str]:
    """形容詞, 形状詞, 接頭辞: a word of these said right before a value given by name (薄い青) makes it another."""
    return frozenset(_table()["words"]["qualifier_pos"])
