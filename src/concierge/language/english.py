"""English as data (words/en.toml): the one reader of its lists."""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["clock_marks", "clock_words", "common_words", "day_parts", "english_quantities", "english_shorthand",
           "english_words", "from_now_units", "function_words", "talk_words", "time_leads"]


@cache
def _table() -> dict[str, Any]:
    return tomllib.loads(resources.files("concierge.language").joinpath("words/en.toml").read_text("utf-8"))


def english_quantities() -> dict[str, int]:
    """a couple of: 2, a dozen: 12 …"""
    return _table()["quantities"]


def english_numbers() -> dict[str, int]:
    """one: 1 … twelve: 12, numbers said as a word."""
    return _table()["numbers"]


@cache
def function_words() -> frozenset[str]:
    """a, the, and, with …: words that join the words of a name."""
    return frozenset(_table()["words"]["function"])


@cache
def common_words() -> frozenset[str]:
    """Words of any request (show, sales, week …), never read as a misspelt value."""
    return frozenset(_table()["words"]["common"])


@cache
def talk_words() -> frozenset[str]:
    """hey, actually, make, swap …: words of talking, never a value's name read in katakana."""
    return frozenset(_table()["words"]["talk"])


@cache
def qualifiers() -> frozenset[str]:
    """warm, light, dark …: said before a value given by name (warm white), they make it another value."""
    return frozenset(_table()["words"]["qualifiers"])


@cache
def determiners() -> frozenset[str]:
    """the, my, each …: after one, a qualifier is a noun (the light red)."""
    return frozenset(_table()["words"]["determiners"])


def english_shorthand() -> dict[str, str]:
    """n: and, pls: please …"""
    return _table()["shorthand"]


def clock_words() -> dict[str, dict[str, int]]:
    """hours (seven: 7), minutes (thirty: 30), past (half past: 30) and to (quarter to: 45) of a time said."""
    return _table()["clock"]


def time_leads() -> dict[str, list[str]]:
    """The words said before an hour (at 7, around eight) or a time from now (in about an hour)."""
    return _table()["time_leads"]


def clock_marks() -> dict[str, Any]:
    """pm, am, o'clock …: said right after an hour, the half of the day it is in (or only that it is an hour); and
    the half of the day each day part (day_parts) is in."""
    return _table()["clock_marks"]


def from_now_units() -> dict[str, list[str]]:
    """in, half an, hours, minutes …: the words of a time from now (in half an hour)."""
    return _table()["from_now"]


def day_parts() -> dict[str, list[list[dict[str, Any]]]]:
    """The token patterns said after an hour that put it in the evening (tonight) or the morning (this morning)."""
    return _table()["day_parts"]


@cache
def parties() -> frozenset[str]:
    """The head nouns (singular) of tables whose rows are people, organisations or animals: customer, student, pet."""
    return frozenset(_table()["parties"]["nouns"])


@cache
def english_words(kind: str) -> frozenset[str]:
    """The words never read as a value of `kind` (values, loose, subjects, goods, nouns: the table [not])."""
    return frozenset(_table()["not"][kind])
