"""The words a draft needs beyond the identifiers, read from data (onboarding/words/):

- english.toml: the affixes schemas add to table names (tbl_, m_, _master), and Japanese for the common
  English business nouns (a schema named in English whose comments are not Japanese: staff still ask
  「顧客は何人？」);
- romaji.toml: the romaji words of schemas designed in Japan (m_tokuisaki, t_juchu_meisai, gokei_kingaku),
  each with its Japanese and the English concept the drafting rules already understand, so that an id is a
  key, a `*_mei` a name and a `*_bi` a date there too;
- japanese.toml: what comments say about how a table is kept (マスタ), and the counters a request counts
  rows with (何社, 何個).

`head` strips the affixes; `reading` reads the words of a name as romaji, or None where they are English
(a romaji spelling that is also English, such as `no` or `bi`, counts only beside one that is not:
juchu_no, not phone_no); `concepts` gives a name's English concept words; `japanese` translates a name,
a known phrase first, else word by word when every word is known, else the head noun alone
(farm_customers -> 顧客). Each entry lists its usual forms, the first one used in texts, all of them as
planner keywords.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any


def _data(name: str) -> dict[str, Any]:
    return tomllib.loads(resources.files("concierge.onboarding").joinpath("words", name).read_text("utf-8"))


_ENGLISH, _ROMAJI, _JAPANESE = _data("english.toml"), _data("romaji.toml"), _data("japanese.toml")

# Table-name affixes that say how a table is kept, not what it holds.
PREFIXES: frozenset[str] = frozenset(_ENGLISH["affixes"]["prefixes"])
SUFFIXES: frozenset[str] = frozenset(_ENGLISH["affixes"]["suffixes"])
JA: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in _ENGLISH["ja"].items()}
PHRASES: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in _ENGLISH["phrases"].items()}
COUNTERS: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in _JAPANESE["counters"].items()}
STORAGE: tuple[str, ...] = tuple(_JAPANESE["comments"]["storage"])  # 商品マスタ is 商品
PARTS: tuple[str, ...] = tuple(_JAPANESE["comments"]["parts"])  # 売上明細 is 売上明細, and 売上 finds it
BETWEEN: str = _JAPANESE["comments"]["between"]


# --- English ------------------------------------------------------------------------------------
def singular(word: str) -> str:
    if re.search(r"[^aeiou]ies$", word):
        return word[:-3] + "y"
    if re.search(r"(ss|sh|ch|x|z)es$", word):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def plural(word: str) -> str:
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    if re.search(r"(s|sh|ch|x|z)$", word):
        return word + "es"
    return word + "s"


def head(ws: list[str]) -> list[str]:
    """The words of a name without the affixes of how it is kept: [tbl, customer] -> [customer]."""
    out = list(ws)
    while len(out) > 1 and out[0] in PREFIXES:
        out = out[1:]
    while len(out) > 1 and out[-1] in SUFFIXES:
        out = out[:-1]
    return out


def _one(word: str) -> tuple[str, ...] | None:
    return JA.get(word) or JA.get(singular(word))


def _english_japanese(ws: list[str]) -> tuple[str, ...]:
    key = " ".join([*ws[:-1], singular(ws[-1])])
    if key in PHRASES:
        return PHRASES[key]
    found = [_one(w) for w in ws]
    for n in range(len(ws) - 1, 0, -1):  # a known phrase at the end: farm order item -> 注文明細
        tail = " ".join([*ws[n:-1], singular(ws[-1])])
        before = [f for f in found[:n] if f]
        if tail in PHRASES and len(before) == n:
            return ("".join(f[0] for f in before) + PHRASES[tail][0],)
    return _joined(found)


def _joined(found: list[tuple[str, ...] | None]) -> tuple[str, ...]:
    """Japanese of words whose forms are `found`: every word's usual form before each form of the last one,
    where every word is known; else the last word's alone."""
    forms = [f for f in found if f]
    if len(forms) == len(found):
        if len(found) == 1:
            return forms[0]
        first = "".join(f[0] for f in forms[:-1])
        return tuple(first + last for last in forms[-1])
    return found[-1] or ()


def _english_complete(ws: list[str]) -> bool:
    key = " ".join([*ws[:-1], singular(ws[-1])]) if ws else ""
    return key in PHRASES or all(_one(w) for w in ws) or any(
        " ".join([*ws[n:-1], singular(ws[-1])]) in PHRASES and all(_one(w) for w in ws[:n]) for n in range(1, len(ws)))


# --- romaji -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Romaji:
    """One romaji word of romaji.toml: its Japanese forms, the usual one first, and its English concept."""

    ja: tuple[str, ...]
    en: tuple[str, ...]  # the concept's words: tanka -> (unit, price)
    alone: str | None = None  # the Japanese when it is the whole name: mei -> 名称
    shared: bool = False  # the spelling is English too (no, cd, bi): romaji only beside a word that is not


_RULES = [(re.compile(pattern), replacement) for pattern, replacement in _ROMAJI["spelling"]["rules"]]


def spelled(word: str) -> str:
    """The one spelling romaji.toml looks words up by: syohin, shouhin, shohin -> shohin; jutyu -> juchu."""
    out = word.lower()
    for pattern, replacement in _RULES:
        out = pattern.sub(replacement, out)
    return out


def _romaji_words(words: dict[str, Any]) -> dict[str, Romaji]:
    out: dict[str, Romaji] = {}
    for key, entry in words.items():
        word = Romaji(tuple(entry["ja"]), tuple(entry["en"].split()), entry.get("alone"), entry.get("shared", False))
        for spelling in [key, *entry.get("also", ())]:
            found = out.setdefault(spelled(spelling), word)
            if found != word:
                raise ValueError(f"romaji.toml: {spelling!r} is spelled like another word ({spelled(spelling)!r})")
    return out


ROMAJI: dict[str, Romaji] = _romaji_words(_ROMAJI["words"])


_DIGITS = re.compile(r"(?P<word>.*?)(?P<digits>\d+)$")


@functools.lru_cache(maxsize=4096)
def _split(word: str) -> tuple[tuple[str, Romaji], ...] | None:
    """A word as romaji words: itself, else the fewest known ones it is run together from (tokuisakimei ->
    tokuisaki, mei), each of two letters or more, and a number that ends it (jusho2 -> jusho, 2; a number is
    shared with English); None where it is neither (an English word)."""
    whole = ROMAJI.get(spelled(word))
    if whole:
        return ((word, whole),)
    numbered = _DIGITS.fullmatch(word)
    if numbered:
        digits = numbered["digits"]
        before = _split(numbered["word"]) if numbered["word"] else ()
        return (*before, (digits, Romaji((digits,), (digits,), shared=True))) if before is not None else None
    if word in JA or len(word) < 4:
        return None
    best: list[tuple[tuple[str, Romaji], ...] | None] = [()] + [None] * len(word)
    for end in range(2, len(word) + 1):
        for start in range(end - 2, -1, -1):
            before, entry = best[start], ROMAJI.get(spelled(word[start:end]))
            if before is not None and entry and (best[end] is None or len(before) + 1 < len(best[end] or ())):
                best[end] = (*before, (word[start:end], entry))
    return best[-1]


def _merged(ws: list[str]) -> list[str]:
    """Words that are one romaji word written apart joined: [shiire, saki] -> [shiiresaki], [sei, mei] -> [seimei]."""
    out: list[str] = []
    for word in ws:
        if out and ROMAJI.get(spelled(out[-1] + word)):
            out[-1] += word
        else:
            out.append(word)
    return out


@dataclass(frozen=True)
class Reading:
    """A name read as romaji: its words, run-together ones split, each with its entry where one is known."""

    parts: tuple[tuple[str, Romaji | None], ...]

    @property
    def english(self) -> list[str]:
        """The English concept words, an unknown word as it is: gokei_kingaku -> [total, amount]."""
        return [w for word, entry in self.parts for w in (entry.en if entry else (word,))]

    @property
    def japanese(self) -> tuple[str, ...]:
        """The Japanese forms, the usual one first: tokuisaki_mei -> (得意先名,); a word romaji.toml does not
        know is translated as English (tokuisaki_email -> 得意先メールアドレス)."""
        if len(self.parts) == 1 and self.parts[0][1] and self.parts[0][1].alone:
            entry = self.parts[0][1]
            return tuple(dict.fromkeys([entry.alone or "", *entry.ja]))
        return _joined([entry.ja if entry else _one(word) for word, entry in self.parts])

    @property
    def complete(self) -> bool:
        return all(entry or _one(word) for word, entry in self.parts)


def reading(ws: list[str], *, romaji: bool | None = None) -> Reading | None:
    """The words read as romaji, or None where they are English. A name is romaji where one of its words is
    a romaji word that is not also English (juchu_no; phone_no is English); `romaji=True` reads a name of a
    schema known to be romaji as such even where its words are all shared (a column `no`), False never."""
    if romaji is False or not ws:
        return None
    parts: list[tuple[str, Romaji | None]] = []
    for word in _merged(ws):
        split = _split(word)
        parts += list(split) if split else [(word, None)]
    known = [entry for _, entry in parts if entry]
    if not known or (romaji is None and all(entry.shared for entry in known)):
        return None
    return Reading(tuple(parts))


def concepts(ws: list[str], *, romaji: bool | None = None) -> list[str]:
    """The English concept words of a name's words: [t, juchu, meisai] -> [order, line], without the affixes
    of how a table is kept; English words as they are."""
    read = reading(head(ws), romaji=romaji) if ws else None
    return read.english if read else list(ws)


# --- Japanese of a name ---------------------------------------------------------------------------
def japanese(ws: list[str]) -> tuple[str, ...]:
    """Japanese forms of the (singular) words of a name, the usual one first; () when none is known."""
    if not ws:
        return ()
    read = reading(ws)
    return read.japanese if read else _english_japanese(ws)


def complete(ws: list[str]) -> bool:
    """Whether `japanese` translates every word (not the head noun alone)."""
    read = reading(ws)
    return read.complete if read else _english_complete(ws)


def counters(ws: list[str]) -> tuple[str, ...]:
    """The counters a request counts a noun's rows with, by its English head word: customer -> 件, 人, 社, 名."""
    specific = COUNTERS.get(singular(ws[-1]), ()) if ws else ()
    return tuple(dict.fromkeys([*COUNTERS["default"], *specific]))
