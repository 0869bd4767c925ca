"""Readings of Japanese words, from the analyser's dictionary (SudachiPy, the small dictionary), and in romaji.

`readings(surface)` gives every reading the dictionary lists for a word written so (鮭: さけ, しゃけ …), the
analyser's own reading of it first; `romaji(text)` spells Japanese in Hepburn romaji, a space between words. The
dictionary is the one `tokens.tokenise` reads.
"""

from __future__ import annotations

import re
from functools import lru_cache

import jaconv
import regex

from concierge.language.tokens import dictionary, japanese, tokenise

__all__ = ["hiragana", "long_vowels_spelt", "reading", "readings", "romaji", "sound_key"]

_LONG = re.compile(r"([aeiou])-")  # ー, which jaconv writes -, is the vowel before it once more
_PASSPORT_END = re.compile(r"(o)[ou]$|(?<=u)u$")
_PASSPORT_N = re.compile(r"n(?=[bmp])")
_LONG_VOWEL = {"a": "あ", "i": "い", "u": "う", "e": "い", "o": "う"}  # ー after each vowel, as kana spell it
_HAN = regex.compile(r"\p{Han}")


def hiragana(text: str) -> str:
    """Katakana as hiragana (サケ -> さけ); other text as it is."""
    return str(jaconv.kata2hira(text))


@lru_cache(maxsize=8192)
def readings(surface: str) -> tuple[str, ...]:
    """Every reading (hiragana) of the dictionary's words written `surface`, the analyser's reading of it
    first (鮭: さけ, しゃけ …); () when the dictionary has no such word."""
    found = [hiragana(m.reading_form()) for m in dictionary().lookup(surface)]
    if not found:
        return ()
    said = tokenise(surface).tokens
    first = [hiragana(said[0].reading)] if len(said) == 1 and said[0].surface == surface else []
    return tuple(dict.fromkeys(first + found + [long_vowels_spelt(r) for r in found if _HAN.search(surface)]))


def long_vowels_spelt(kana: str) -> str:
    """A reading in hiragana with ー spelt as the kana of a word written in kanji spell it (ぎょーざ -> ぎょうざ)."""
    out = ""
    for ch in kana:
        sound = str(jaconv.kana2alphabet(out[-1:]))[-1:] if ch == "ー" else ""
        out += _LONG_VOWEL.get(sound, ch)
    return out


def reading(text: str, *, spelt: bool = False) -> str:
    """The analyser's reading of a text in hiragana (唐揚げ弁当 -> からあげべんとう); text without Japanese as it is.
    `spelt`: the long vowels of words written in kanji spelt in kana (餃子: ぎょうざ, not ぎょーざ)."""
    return "".join(_words(text, spelt=spelt)) if japanese(text) else text


@lru_cache(maxsize=4096)
def romaji(text: str, *, passport: bool = False) -> str:
    """Japanese in Hepburn romaji, a space between words (施術明細 -> shijutsu meisai; 顧客ID -> kokyaku ID;
    メニュー -> menyuu; 餃子 -> gyouza); text without Japanese as it is. `passport`: as a passport spells it, a
    long o or u at a word's end written once and n before b, m and p as m (ハンバーグ弁当 -> hambaagu bento)."""
    if not japanese(text):
        return text
    words = [_spelt(w) if japanese(w) else w for w in _words(text, spelt=True, joined=True)]
    if passport:
        words = [_PASSPORT_N.sub("m", _PASSPORT_END.sub(r"\1", w)) for w in words]
    return " ".join(words)


_SOUND_LONG = re.compile(r"(?<=o)[ou]|(?<=o)h(?![aiueoy])|(?<=u)u|(?<=a)a|(?<=i)i|(?<=e)e")


def sound_key(latin: str) -> str:
    """Words in Latin letters as they sound, however the long vowels and n are spelt: Tokyo, toukyou and Tookyoo are
    tokyo; Ohno and Ono are ono; Shimbashi and shinbashi are shinbashi (letters only, lower case). The key of the
    romaji of Japanese words is how the data's romaji is said in Japanese (大阪: Osaka)."""
    letters = "".join(c for c in latin.lower() if "a" <= c <= "z")
    letters = "".join("n" if c == "m" and letters[i + 1:i + 2] in ("b", "m", "p") else c for i, c in enumerate(letters))
    return _SOUND_LONG.sub("", letters)


def _spelt(kana: str) -> str:
    """A word in hiragana in Hepburn romaji: ー as the vowel before it (めにゅー -> menyuu), っち as tchi."""
    return _LONG.sub(r"\1\1", str(jaconv.kana2alphabet(kana))).replace("cch", "tch")


def _words(text: str, *, spelt: bool, joined: bool = False) -> list[str]:
    """The words of a text as they sound, in hiragana: a Japanese word's reading (with its long vowels spelt
    where `spelt` and it is written in kanji), other words as written; `joined`: a word that ends in a small っ
    with the next (きっ|ちん: one word)."""
    words: list[str] = []
    for token in tokenise(text).tokens:
        kana = hiragana(token.reading) if japanese(token.surface) and token.reading else token.surface
        kana = long_vowels_spelt(kana) if spelt and _HAN.search(token.surface) else kana
        if joined and words and words[-1].endswith("っ"):
            words[-1] += kana
        else:
            words.append(kana)
    return words
