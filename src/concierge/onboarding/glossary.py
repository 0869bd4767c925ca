"""The words a draft needs beyond the identifiers, read from data (onboarding/words/):

- english.toml: the affixes schemas add to table names (tbl_, m_, _master), Japanese for the common English
  business nouns (a schema named in English whose comments are not Japanese: staff still ask 「顧客は何人？」), the
  other words staff use for some of them (a track is also a song), and which words are English enough to guess
  katakana for;
- romaji.toml: the romaji words of schemas designed in Japan (m_tokuisaki, t_juchu_meisai, gokei_kingaku),
  each with its Japanese and the English concept the drafting rules already understand, so that an id is a
  key, a `*_mei` a name and a `*_bi` a date there too;
- japanese.toml: what comments say about how a table is kept (マスタ), and the counters a request counts
  rows with, by concept (何社, 何枚, 何本).

`head` strips the affixes; `reading` reads the words of a name as romaji, or None where they are English
(a romaji spelling that is also English, such as `no` or `bi`, counts only beside one that is not:
juchu_no, not phone_no); `concepts` gives a name's English concept words; `japanese` translates a name,
a known phrase first, else word by word when every word is known, else the head noun alone
(farm_customers -> 顧客). Each entry lists its usual forms, the first one used in texts, all of them as
planner keywords.

Where the glossary does not list an English name's head noun, `guessed` gives its katakana (albums -> アルバム,
by e2k: language/katakana.py). Only there: a listed word keeps its kanji (films -> 映画), the other words of a
name are never guessed (media_types -> 種類, from the head alone), and neither is a word that may not be English:
a romaji name (never read as English), a code or abbreviation (qty, cust, id: too short, listed, or
unpronounceable), a word that is not a noun (from, created), or one spelled wholly in romaji syllables (an
unlisted romaji word such as hinshitsu looks so, and so do genre and menu, which are listed for that reason).
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any

from concierge.language.english import parties
from concierge.language.katakana import katakana


def _data(name: str) -> dict[str, Any]:
    return tomllib.loads(resources.files("concierge.onboarding").joinpath("words", name).read_text("utf-8"))


_ENGLISH, _ROMAJI, _JAPANESE = _data("english.toml"), _data("romaji.toml"), _data("japanese.toml")

# Table-name affixes that say how a table is kept, not what it holds.
PREFIXES: frozenset[str] = frozenset(_ENGLISH["affixes"]["prefixes"])
SUFFIXES: frozenset[str] = frozenset(_ENGLISH["affixes"]["suffixes"])
JA: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in _ENGLISH["ja"].items()}
PHRASES: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in _ENGLISH["phrases"].items()}
EVERY_COUNTER: tuple[str, ...] = tuple(_JAPANESE["counters"]["every"])  # every noun is counted in 件
PARTIES: frozenset[str] = parties()  # rows that are people or organisations
COUNTED: dict[str, str] = dict(_ENGLISH["counted"])  # days -> 日数: a column of how many of a unit


def _by_japanese() -> dict[str, str]:
    """Each Japanese form of the glossary -> its English word: the word it is the usual form of first (顧客 ->
    customer, not client)."""
    out: dict[str, str] = {}
    for first in (True, False):
        for en, forms in JA.items():
            for ja in forms[:1] if first else forms[1:]:
                out.setdefault(ja, en)
    return out


BY_JAPANESE = _by_japanese()


def english_of(ja: str) -> str | None:
    """The English word of a noun written in Japanese (顧客 -> customer, 来店 -> visit), where the glossary has
    it."""
    return BY_JAPANESE.get(ja)


def _counters(concepts: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """Each noun's counters, every concept's it is one of, in the order of the file."""
    out: dict[str, list[str]] = {}
    for concept in concepts.values():
        if isinstance(concept, dict):
            for noun in concept["nouns"]:
                out.setdefault(noun, []).extend(c for c in concept["said"] if c not in out.get(noun, ()))
    return {noun: tuple(said) for noun, said in out.items()}


COUNTERS: dict[str, tuple[str, ...]] = _counters(_JAPANESE["counters"])  # customer -> 人, 名, 社
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


def _found(ws: list[str], *, romaji: bool | None) -> list[tuple[str, ...] | None]:
    """Each word's Japanese forms where the glossary lists it, the head noun's guessed where it does not
    (`guessed`, below)."""
    found = [_one(w) for w in ws]
    if not found[-1]:
        kana = guessed(ws[-1], romaji=romaji)
        found[-1] = (kana,) if kana else None
    return found


def _english_japanese(ws: list[str], *, romaji: bool | None = None) -> tuple[str, ...]:
    key = " ".join([*ws[:-1], singular(ws[-1])])
    if key in PHRASES:
        return PHRASES[key]
    found = _found(ws, romaji=romaji)
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


def _english_complete(ws: list[str], *, romaji: bool | None = None) -> bool:
    key = " ".join([*ws[:-1], singular(ws[-1])]) if ws else ""
    return key in PHRASES or all(_found(ws, romaji=romaji)) or any(
        " ".join([*ws[n:-1], singular(ws[-1])]) in PHRASES and all(_one(w) for w in ws[:n]) for n in range(1, len(ws)))


@dataclass(frozen=True)
class Also:
    """Other words staff use for the rows a name names (english.toml [also]): a track is also a song."""

    en: tuple[str, ...] = ()  # English nouns, singular
    ja: tuple[str, ...] = ()


ALSO: dict[str, Also] = {k: Also(tuple(v.get("en", ())), tuple(v.get("ja", ()))) for k, v in _ENGLISH["also"].items()}


def also(ws: list[str]) -> Also:
    """The other words for what the (English) words of a whole name name: [tracks] -> song; none where the
    glossary lists none."""
    return ALSO.get(" ".join([*ws[:-1], singular(ws[-1])]), Also()) if ws else Also()


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
_SYLLABLES = re.compile(_ROMAJI["shape"]["syllables"])  # a word spelled wholly in romaji syllables


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
    of how a table is kept; English words spelled out (qty -> quantity, po -> purchase order)."""
    read = reading(head(ws), romaji=romaji) if ws else None
    return read.english if read else expanded(ws)


EXPANDED: dict[str, tuple[str, ...]] = {k: tuple(v.split()) for k, v in _ENGLISH["expanded"].items()}


def expanded(ws: list[str]) -> list[str]:
    """English words of a name with their abbreviations spelled out (words/english.toml, [expanded])."""
    return [part for w in ws for part in EXPANDED.get(w, (w,))]


# --- katakana guessed for an English head noun (the module docstring says when) ---------------------------------
_GUESSING = _ENGLISH["guessing"]
_SHORTEST: int = _GUESSING["shortest"]
_NEVER_GUESSED = frozenset([*_GUESSING["abbreviations"], *_GUESSING["not_nouns"]])
_NOT_NOUN = [re.compile(pattern) for pattern in _GUESSING["patterns"]]


def guessed(word: str, *, romaji: bool | None = None) -> str | None:
    """The katakana of an English noun the glossary does not list (albums -> アルバム), or None where the word
    may not be English. `romaji` as in `reading`: True (a romaji schema) never guesses, False (an English one)
    guesses for a word spelled in romaji syllables too (genre, zone)."""
    one = singular(word.lower())
    if (romaji or not one.isascii() or not one.isalpha() or len(one) < _SHORTEST
            or {word.lower(), one} & _NEVER_GUESSED or any(p.search(one) for p in _NOT_NOUN)
            or (romaji is None and _SYLLABLES.fullmatch(spelled(one)))):
        return None
    return katakana(one)


# --- Japanese of a name ---------------------------------------------------------------------------
def japanese(ws: list[str], *, romaji: bool | None = None) -> tuple[str, ...]:
    """Japanese forms of the (singular) words of a name, the usual one first; () when none is known nor can be
    guessed. `romaji` as in `reading`."""
    if not ws:
        return ()
    read = reading(ws, romaji=romaji)
    return read.japanese if read else _english_japanese(ws, romaji=romaji)


def complete(ws: list[str], *, romaji: bool | None = None) -> bool:
    """Whether `japanese` translates every word (not the head noun alone)."""
    read = reading(ws, romaji=romaji)
    return read.complete if read else _english_complete(ws, romaji=romaji)


def _english_of(entries: dict[str, tuple[str, ...]], romaji: dict[str, Romaji]) -> dict[str, tuple[str, ...]]:
    """The English words a Japanese word is the glossary's Japanese for: 顧客 -> customer, client."""
    out: dict[str, list[str]] = {}
    for en, forms in entries.items():
        for ja in forms:
            out.setdefault(ja, []).append(en)
    for entry in romaji.values():
        for ja in entry.ja:
            out.setdefault(ja, []).append(entry.en[-1])
    return {ja: tuple(dict.fromkeys(ens)) for ja, ens in out.items()}


_ENGLISH_OF = _english_of(JA, ROMAJI)


def counters(ws: list[str], *, ja: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The counters a request counts a noun's rows with, by its concept (japanese.toml): its English head word's
    (customer -> 件, 人, 名, 社; albums -> 件, 枚), and the concepts of the English the glossary has for its
    Japanese forms `ja` (a table named 顧客, or 顧客マスタ in its comment, counts as customers)."""
    nouns = [singular(ws[-1])] if ws else []
    nouns += [en for form in ja for en in _ENGLISH_OF.get(form, ())]
    return tuple(dict.fromkeys([*EVERY_COUNTER, *(c for noun in nouns for c in COUNTERS.get(noun, ()))]))
