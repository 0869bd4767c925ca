"""Text helpers: normalising a message, finding phrases in it, and masking what was read.

Every position the planner keeps refers to the `normalise`d text (NFKC: full-width
digits and letters become ASCII, half-width katakana become full-width), so the
spans of `concierge.language.dates` and of the planner's own matches line up. `fold` keeps
those positions (one character in, one out) while lower-casing and turning
katakana into hiragana, so プリン and ぷりん, Top and top compare equal.
"""

from __future__ import annotations

import bisect
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from concierge.language.dates import normalise
from concierge.language.english import english_numbers
from concierge.language.japanese import kanji_numbers

__all__ = ["EN_NUMBER", "NUMBER_WORD", "WORD_LIMIT", "Disjoint", "Hit", "Phrases", "fold", "mask", "normalise",
           "number", "overlaps", "remember", "said_as"]

T = TypeVar("T")
MASK = "\x00"  # stands for a span already read; no phrase or value matches across it
# The most letters a pattern reads as one word before what it looks for (the noun before a count, the prefix of a
# label): bounded, so that a long run of letters is not read again from each of its positions.
WORD_LIMIT = 40

_KATAKANA = {code: code - 0x60 for code in range(ord("ァ"), ord("ヶ") + 1)}
_ASCII_SUFFIX = r"(?:s|es|ed|d|ing)?"  # "drop" finds drops, dropped is listed on its own
_EN_NUMBERS = english_numbers()
_JA_NUMBERS = kanji_numbers()


def fold(text: str) -> str:
    """Lower-case, katakana to hiragana; exactly one character out for each character in."""
    hiragana = text.translate(_KATAKANA)
    low = hiragana.lower()
    if len(low) != len(hiragana):
        low = "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in hiragana)
    return _copy_of(low, text)


def mask(text: str, spans: Iterable[tuple[int, int]]) -> str:
    chars = list(text)
    for start, end in spans:
        chars[start:end] = MASK * (end - start)
    return _copy_of("".join(chars), text)


_SAID: OrderedDict[str, str] = OrderedDict()  # a request, and each folded or masked copy of it: the request
_SAID_KEPT = 4096  # copies of the latest requests; the oldest go first
_SAID_LOCK = threading.Lock()


def remember(request: str) -> None:
    """Keep a request, so that the copies `fold` and `mask` make of it are known to be its (`said_as`). Only
    requests are kept: a catalog's words, folded by the thousand, never push a request's copies out."""
    _keep(request, request)


def _copy_of(copy: str, text: str) -> str:
    request = _SAID.get(text)
    if request is not None and copy != text:
        _keep(copy, request)
    return copy


def _keep(copy: str, request: str) -> None:
    with _SAID_LOCK:
        _SAID[copy] = request
        _SAID.move_to_end(copy)
        while len(_SAID) > _SAID_KEPT:
            _SAID.popitem(last=False)


def said_as(text: str) -> str:
    """The request a folded or masked copy was made from (the same length, every position the same): the text
    the analyser reads words in, since katakana folded to hiragana (きっちんと) is cut as no word was said."""
    return _SAID.get(text, text)


def overlaps(span: tuple[int, int], spans: Iterable[tuple[int, int]]) -> bool:
    return any(span[0] < e and s < span[1] for s, e in spans)


class Disjoint:
    """Spans none of which overlap another, kept in order: adding one, or asking whether one is contained in
    one of them, takes the time of a binary search, not a scan (a long request has many)."""

    def __init__(self, spans: Iterable[tuple[int, int]] = ()) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []
        for start, end in spans:
            self.add(start, end)

    def free(self, start: int, end: int) -> bool:
        """Whether [start, end) overlaps none of the spans."""
        at = bisect.bisect_right(self._starts, start)
        return (at == 0 or self._ends[at - 1] <= start) and (at == len(self._starts) or end <= self._starts[at])

    def add(self, start: int, end: int) -> bool:
        """Adds [start, end) if it overlaps none of the spans; whether it did."""
        if not self.free(start, end):
            return False
        at = bisect.bisect_right(self._starts, start)
        self._starts.insert(at, start)
        self._ends.insert(at, end)
        return True

    def within(self, start: int, end: int) -> bool:
        """Whether [start, end) lies inside one of the spans."""
        at = bisect.bisect_right(self._starts, start)
        return at > 0 and end <= self._ends[at - 1]


def number(word: str) -> int | None:
    """1, 12, "three", 三 -> int; anything else -> None."""
    word = word.strip().lower()
    if word.isdigit():
        return int(word)
    return _EN_NUMBERS.get(word) or _JA_NUMBERS.get(word)


EN_NUMBER = "|".join(sorted(_EN_NUMBERS, key=len, reverse=True))  # twelve before two
NUMBER_WORD = rf"(?:\d{{1,3}}|{EN_NUMBER}|[{''.join(_JA_NUMBERS)}])"


@dataclass(frozen=True)
class Hit(Generic[T]):
    start: int
    end: int
    phrase: str
    value: T


_FOUND_KEPT = 1024  # texts each set of phrases remembers what it found in


class Phrases(Generic[T]):
    """Many phrases found at once in folded text: leftmost, then longest, never overlapping.

    Phrases written in ASCII match whole words (with a plural or past-tense ending, and
    "best selling" also as best-selling); other phrases match anywhere.
    """

    def __init__(self, phrases: Mapping[str, T]):
        self.values: dict[str, T] = {}
        for phrase, value in phrases.items():
            key = " ".join(fold(normalise(phrase)).split())
            if key:
                self.values.setdefault(key, value)
        ordered = sorted(self.values, key=len, reverse=True)
        words = [p for p in ordered if _a_word(p)]
        others = [p for p in ordered if not _a_word(p)]  # and signs such as %, found anywhere
        # one plain alternation each: the regex engine then skips ahead by the phrases' first letters
        self._others = re.compile("|".join(map(re.escape, others))) if others else None
        # a phrase is found with spaces or hyphens between its words (best-selling, mel bun for mel-bun)
        self._canonical = {" ".join(_tokens(p)): p for p in reversed(words)}
        body = "|".join(r"[\s\-]+".join(map(re.escape, _tokens(p))) for p in words if _tokens(p))
        self._words = re.compile(rf"(?<![a-z0-9])({body}){_ASCII_SUFFIX}(?![a-z0-9])") if words else None
        # a request's texts are searched again and again as it is read: each once (one dict operation a step, as
        # several threads may find at once)
        self._found: dict[str, tuple[Hit[T], ...]] = {}

    def __bool__(self) -> bool:
        return bool(self.values)

    def find(self, folded: str) -> list[Hit[T]]:
        found = self._found.get(folded)
        if found is None:
            if len(self._found) >= _FOUND_KEPT:
                self._found.clear()
            found = self._found[folded] = tuple(self._find(folded))
        return list(found)

    def _find(self, folded: str) -> list[Hit[T]]:
        found: list[tuple[int, int, str]] = []
        if self._others is not None:
            found += [(m.start(), m.end(), m.group()) for m in self._others.finditer(folded)]
        if self._words is not None:
            found += [(m.start(), m.end(), self._canonical[" ".join(_tokens(m.group(1)))])
                      for m in self._words.finditer(folded)]
        if self._others is not None and self._words is not None:
            found = _leftmost_longest(found)
        return [Hit(s, e, p, self.values[p]) for s, e, p in found]


def _a_word(phrase: str) -> bool:
    return phrase.isascii() and phrase[0].isalnum() and phrase[-1].isalnum()


def _tokens(phrase: str) -> list[str]:
    return [w for w in re.split(r"[\s\-]+", phrase) if w]


def _leftmost_longest(found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    for hit in sorted(found, key=lambda h: (h[0], h[0] - h[1])):
        if not out or hit[0] >= out[-1][1]:
            out.append(hit)
    return out
