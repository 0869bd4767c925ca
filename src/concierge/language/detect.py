"""Which of the product's two languages a text is written in."""

from __future__ import annotations

import re
from typing import Literal

import regex

from concierge.language.scripts import HAN, HIRAGANA, KATAKANA

Lang = Literal["ja", "en"]

_JAPANESE = regex.compile(rf"[{HIRAGANA}{KATAKANA}{HAN}]")


_ENGLISH_WORD = re.compile(r"[A-Za-z]{3,}")


def language(text: str, before: str = "") -> Lang:
    """Japanese when the text has any kana or kanji; English when it has a word of three letters or more; else
    (ch 5, ok, 0016) the language of `before`, the conversation's previous message, and English with none."""
    if _JAPANESE.search(text or ""):
        return "ja"
    if _ENGLISH_WORD.search(text or "") or not before:
        return "en"
    return language(before)
