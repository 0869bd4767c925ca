"""Katakana for an English word (album -> アルバム), by e2k's models (English to katakana; public domain, numpy
only): the glossary's fallback for an English noun it does not list (glossary.py says when it applies).

The models load on the first word asked (about 0.3 s: the pronounceability model is most of it) and stay loaded;
a word is read once and remembered. Decoding is greedy, so a word always reads the same. The `turbo` model reads
business nouns as well as the base one or better (employee, organization, lease) in a third of the time."""

from __future__ import annotations

import functools
import re
from typing import Any

_KATAKANA = re.compile(r"[ァ-ヺー]+")
_LONGEST = 16  # e2k's longest reading: one that long was cut off


@functools.cache
def _models() -> tuple[Any, Any]:
    from e2k import C2K, NGram

    return C2K(max_len=_LONGEST, model="turbo"), NGram()


def load() -> None:
    """Load the models now, so that the first English word read costs no request the load (0.3-1 s)."""
    _models()


@functools.lru_cache(maxsize=4096)
def katakana(word: str) -> str | None:
    """The katakana reading of one English word, lower case (album -> アルバム); None where e2k finds the word
    unpronounceable, which an abbreviation mostly is (qty, acct, addr: e2k would spell it out letter by letter),
    or where its reading is not katakana alone or was cut off."""
    c2k, pronounceable = _models()
    if not pronounceable(word):
        return None
    kana: str = c2k(word)
    return kana if _KATAKANA.fullmatch(kana) and len(kana) < _LONGEST else None
