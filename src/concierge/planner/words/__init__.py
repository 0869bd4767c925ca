"""Words of questions the planner reads as data (questions.toml): measures, rankings, conditions."""

from __future__ import annotations

import re
import tomllib
from functools import cache
from importlib import resources

from concierge.planner.text import fold, normalise


@cache
def _table() -> dict:
    return tomllib.loads(resources.files(__name__).joinpath("questions.toml").read_text("utf-8"))


@cache
def keys(section: str) -> tuple[str, ...]:
    """The keys of one table of questions.toml, as written."""
    return tuple(_table()[section])


@cache
def words(section: str, key: str) -> tuple[str, ...]:
    """One list of questions.toml, folded (katakana as hiragana, lower case)."""
    return tuple(fold(normalise(w)) for w in _table()[section][key])


@cache
def pattern(section: str, key: str) -> re.Pattern[str]:
    """A list of questions.toml as one pattern over folded text (`alternation`)."""
    return alternation(words(section, key))


@cache
def alternation(said: tuple[str, ...]) -> re.Pattern[str]:
    """Words (folded) as one pattern over folded text: English words whole (with a plural or -ed/-ing ending),
    Japanese words anywhere; the longest first."""
    parts = [rf"(?<![a-z']){re.escape(w)}(?:s|es|ed|d|ing)?(?![a-z])" if w.isascii() else re.escape(w)
             for w in sorted(said, key=len, reverse=True)]
    return re.compile("|".join(parts) or r"(?!)")
