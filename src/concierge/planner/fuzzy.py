"""Matching a word of a request against the values read from the data, and finding such words.

A word is matched against one value set at a time (the product names, the categories, the
customer names) plus that set's catalog synonyms. The first tier that has any candidate wins,
and every candidate of that tier is returned, so the caller can ask which one was meant:

1. ``exact``: equal after folding (NFKC, lower case, katakana as hiragana, no spaces);
2. ``synonym``: a catalog synonym, or an English plural or singular of one (puddings → pudding);
3. ``reading``: the kanji read as kana, with every reading the dictionary lists
   (しゃけおにぎり and さけおにぎり are 鮭おにぎり);
4. ``part``: the word is a meaningful part of a value (ハンバーグ → ハンバーグ弁当, コーヒー →
   ブラックコーヒー, 茶 → 麦茶 and 緑茶, めんたいこ → 明太子おにぎり by its reading), or a value once a
   particle or honorific is taken out of the word (鮭のおにぎり → 鮭おにぎり, お茶 → 茶 → 麦茶);
5. ``typo``: an edit distance of 1 for words of 3 to 5 characters, 2 from 6 on, on folded forms
   and readings; only the closest candidates are kept.

A value is cut into units: runs of one script, with kanji cut where the analyser's dictionary (SudachiPy's,
`language.readings`) has a word, its okurigana with it (唐揚げ). A part is a run of whole units, a katakana unit's
head or tail (ブラック, コーヒー), or the last kanji of a compound whose reading ends with that kanji's reading (茶 of
麦茶).
"""

from __future__ import annotations

import bisect
import itertools
import re
import unicodedata
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import regex
from rapidfuzz.distance import Levenshtein

from concierge.language.english import common_words, function_words
from concierge.language.japanese import (
    after_nouns,
    final_particles,
    honorific_prefixes,
    honorifics,
    long_particles,
    of_particle,
    particles,
)
from concierge.language.readings import readings as dictionary_readings
from concierge.language.readings import romaji, sound_key
from concierge.language.scripts import HAN, KATAKANA
from concierge.language.tokens import shortest_words, tokenise
from concierge.planner import budget, words
from concierge.planner.text import Disjoint, fold

__all__ = ["Candidate", "Found", "Matcher", "candidates", "contains_value", "fold_word", "matcher"]

TIERS = ("exact", "synonym", "reading", "part", "typo")
_SCORES = {"exact": 1.0, "synonym": 0.95, "reading": 0.9}
_MAX_READINGS = 8  # readings kept per string: 生 alone has seven in the dictionary
_LONGEST_WORD = 12  # the longest dictionary word looked for at a kanji
_NO_START = set("ぁぃぅぇぉっゃゅょゎゕゖーん")  # never the first sound of a word
_PARTICLES = long_particles() + particles() + final_particles()
_AFTER_NOUN = _PARTICLES + after_nouns()  # what may follow a noun written in hiragana (おにぎりください)
_HONORIFIC_SUFFIXES = honorifics()
_HONORIFIC_PREFIXES = honorific_prefixes()
_OF = of_particle()
_GLUE = set(_AFTER_NOUN)


@dataclass(frozen=True)
class Candidate:
    """A value of the data a word may stand for, how it was matched, and how closely (0..1)."""

    value: str
    how: str  # one of TIERS
    score: float


@dataclass(frozen=True)
class Found:
    """A span of a request (positions in the text given to `Matcher.find`) that names a value."""

    start: int
    end: int
    said: str
    candidates: tuple[Candidate, ...]


@lru_cache(maxsize=16)  # one set of known words per catalog set, folded once
@lru_cache(maxsize=16)
def _stop_words(known: frozenset[str]) -> frozenset[str]:
    return frozenset(fold_word(k) for k in (*known, *words.words("asking", "words")))


@lru_cache(maxsize=64)
def _said_words(folded: str, stop: frozenset[str]) -> tuple[tuple[int, int], ...]:
    """The spans of the known words in a folded request (each value set's matcher reads the same request)."""
    return tuple(m.span() for m in _known_words(stop).finditer(folded))


@lru_cache(maxsize=16)
def _known_words(stop: frozenset[str]) -> re.Pattern[str]:
    """The known words of three characters or more, found anywhere: a part or a typo never overlaps one."""
    long = sorted((w for w in stop if len(w) >= 3 and not w.isascii()), key=len, reverse=True)
    return re.compile("|".join(map(re.escape, long)) or r"(?!)")


def fold_word(text: str) -> str:
    """NFKC, lower case, katakana as hiragana; letters, digits and kana only (no spaces, dots, dashes)."""
    return _NOT_WORD.sub("", fold(unicodedata.normalize("NFKC", text)))


def candidates(word: str, values: Sequence[str], synonyms: Mapping[str, str] | None = None) -> list[Candidate]:
    """The candidates of the best tier for `word` among `values` (see the module docstring)."""
    return _matcher(tuple(values), tuple(sorted((synonyms or {}).items()))).match(word)


def contains_value(word: str, values: Sequence[str]) -> str | None:
    """The longest value that a longer word contains (しゃけおにぎり contains おにぎり), else None."""
    return _matcher(tuple(values), ()).contained(word)


def matcher(values: Sequence[str], synonyms: Mapping[str, str] | None = None) -> Matcher:
    """The matcher of one value set, built once a process (building one reads every value's readings)."""
    return _matcher(tuple(values), tuple(sorted((synonyms or {}).items())))


@lru_cache(maxsize=32)
def _matcher(values: tuple[str, ...], synonyms: tuple[tuple[str, str], ...]) -> Matcher:
    return Matcher(values, dict(synonyms))


class Matcher:
    """The folded forms, readings and parts of one value set, built once and reused per request."""

    def __init__(self, values: Sequence[str], synonyms: Mapping[str, str] | None = None) -> None:
        self.values = list(dict.fromkeys(v for v in values if fold_word(v)))
        self._order = {v: i for i, v in enumerate(self.values)}
        self.in_katakana = any(_KATAKANA_FIRST.match(v) for v in self.values)  # some value: ロードバイク
        self._length = {v: len(fold_word(v)) for v in self.values}
        self._exact: dict[str, list[str]] = {}
        self._synonym: dict[str, list[str]] = {}  # with English plurals and singulars
        self._reading: dict[str, list[str]] = {}
        self._part: dict[str, list[str]] = {}  # surfaces and readings of parts
        for value in self.values:
            units = _units(value)
            _add(self._exact, fold_word(value), value)
            clipped = _clipped(value)
            if clipped:
                _add(self._part, clipped, value)
            for form in _word_parts(value):  # うどん of きつねうどん: words the analyser reads in a name
                _add(self._part, form, value)
            for reading in _join(units):
                _add(self._reading, reading, value)
            for surface, readings in _parts(units):
                for form in {surface, *readings}:
                    _add(self._part, form, value)
        self._glosses: dict[str, list[str]] = {}
        self.heads: set[str] = set()  # the last words of English synonyms of several, the nouns they name: tea(s)
        self._containing: dict[str, list[str]] = {}
        for g, v in (synonyms or {}).items():
            if v in self._order:
                _add(self._glosses, " ".join(fold(g).split()), v)
        glosses = [(fold_word(g), v) for g, v in (synonyms or {}).items() if v in self._order and fold_word(g)]
        self._add_gloss_parts(glosses)
        self._add_english_parts([(fold(g), v) for g, v in (synonyms or {}).items() if v in self._order and g.isascii()])
        for gloss, value in glosses + [(k, v) for k, vs in self._exact.items() if k.isascii() for v in vs]:
            for form in _english_forms(gloss):
                _add(self._synonym, form, value)
        self._lookup = self._tiers_by_lookup()
        self._typos = _TypoIndex(self._typo_strings())
        self._longest = max(map(len, self._lookup), default=0)
        # (folded word, typo allowed) -> (candidates, edits of a misspelt word): a span weighs its length less
        # twice its edits, so ハンバーグ弁当売上 is not ハンバーグ弁当 misspelt, while ハンバーク弁当 outweighs its part
        # 弁当. One entry holds both, so that threads planning at once never see one without the other.
        self._cache: dict[tuple[str, bool], tuple[list[Candidate], int]] = {}
        self._sounds: tuple[dict[str, list[str]], dict[str, list[str]]] | None = None  # `sounded`, built on first use
        self._romaji: tuple[dict[str, list[str]], dict[str, list[str]]] | None = None  # `in_japanese`, alike

    def _add_english_parts(self, glosses: list[tuple[str, str]]) -> None:
        """"karaage" of "karaage bento", "ginger pork" of "ginger pork bento": the runs of words of an English
        synonym, each with its plural (teas: green tea and oolong tea, asked which)."""
        for gloss, value in glosses:
            for run in _word_runs(gloss):
                *head, last = run.split()
                for form in _english_forms(last):
                    _add(self._part, fold_word(" ".join([*head, form])), value)
            said = gloss.split()
            if len(said) > 1:
                self.heads.update(fold_word(form) for form in _english_forms(said[-1]))

    def _add_gloss_parts(self, glosses: list[tuple[str, str]]) -> None:
        """キッチン of キッチンの電気 and of キッチンライト names Kitchen Light: the parts of a Japanese synonym,
        and its readings (きっちんのでんき)."""
        for gloss, value in glosses:
            if gloss.isascii():
                continue
            for reading in _join(_units(gloss)):
                _add(self._reading, reading, value)
            for surface, readings in _parts(_units(gloss)):
                for form in {surface, *readings}:
                    _add(self._part, form, value)

    def _tiers_by_lookup(self) -> dict[str, list[Candidate]]:
        """The best tier of every form a lookup finds: exact, synonym, reading of kana, part."""
        lookup: dict[str, list[Candidate]] = {}
        for form, found in self._part.items():
            lookup[form] = self._parts(found, len(form))
        for how, table in (("reading", self._reading), ("synonym", self._synonym), ("exact", self._exact)):
            lookup.update((form, self._ranked(found, how)) for form, found in table.items())
        return lookup

    def _typo_strings(self) -> dict[str, set[tuple[str, bool]]]:
        """Forms a misspelling is measured against: value, gloss or reading (False) or part (True)."""
        strings: dict[str, set[tuple[str, bool]]] = {}
        for form, found in self._part.items():
            if len(form) >= 3:
                strings.setdefault(form, set()).update((v, True) for v in found)
        for table in (self._exact, self._synonym, self._reading):
            for form, found in table.items():
                strings.setdefault(form, set()).update((v, False) for v in found)
        return strings

    def containing(self, word: str) -> list[str]:
        """The values whose name or a reading of it contains the word (2 characters or more), best first."""
        w = fold_word(word)
        if len(w) < 2:
            return []
        if w not in self._containing:
            found = [v for table in (self._exact, self._reading) for form, vs in table.items() if w in form for v in vs]
            self._containing[w] = sorted(set(found), key=self._order.__getitem__)
        return self._containing[w]

    def glosses(self) -> dict[str, list[str]]:
        """The synonyms (folded, their words kept apart by spaces) and the values each names."""
        return self._glosses

    def match(self, word: str) -> list[Candidate]:
        """Candidates of the best tier, best first; [] when nothing is close."""
        return self._match(fold_word(word))

    def sounded(self, key: str, *, part: bool = False) -> list[str]:
        """The values the data writes in Latin letters that a Japanese word sounds like (`key`: `readings.sound_key`
        of its romaji): the values it is the whole of (大阪: Osaka), or with `part` those it is one word of (東京:
        the Tokyo of Tokyo DC)."""
        if self._sounds is None:
            self._sounds = ({}, {})
            for value in self.values:
                if value.isascii() and any(c.isalpha() for c in value):
                    _add(self._sounds[0], sound_key(value), value)
                    for word in value.split():
                        if sum(c.isalpha() for c in word) > 2:
                            _add(self._sounds[1], sound_key(word), value)
        wholes, parts = self._sounds
        return list((parts if part else wholes).get(key, ()))

    def in_japanese(self, words: Sequence[str]) -> list[str]:
        """The values the data writes in Japanese that words said in Latin letters sound like (`readings.sound_key`
        of each): the values whose romaji is the words run together (Meguroku: 目黒区), else those whose romaji has
        every word (Meguro: 目黒区; Hanako Tanaka and Tanaka Hanako: 田中 花子; Tanaka: every 田中)."""
        if self._romaji is None:
            self._romaji = ({}, {})
            for value in self.values:
                if not value.isascii():
                    spelt = [sound_key(w) for w in romaji(value).split()]
                    _add(self._romaji[0], "".join(spelt), value)
                    for word in {w for w in spelt if len(w) > 2}:
                        _add(self._romaji[1], word, value)
        wholes, parts = self._romaji
        found = list(wholes.get("".join(words), ()))
        if found or any(len(w) < 3 for w in words):
            return found
        each = [set(parts.get(w, ())) for w in words]
        return sorted(set.intersection(*each), key=self._order.__getitem__) if each else []

    def spelt(self, word: str) -> list[str]:
        """The values written as `word` is (folded alike), as the data writes them."""
        return list(self._exact.get(fold_word(word), ()))

    def contained(self, word: str) -> str | None:
        """The longest value (as written in the data) inside a longer word, else None."""
        w = fold_word(word)
        for size in range(len(w) - 1, 0, -1):
            for start in range(len(w) - size + 1):
                found = self._exact.get(w[start:start + size])
                if found:
                    return found[0]
        return None

    def find(self, text: str, known: Collection[str] = ()) -> list[Found]:
        """Every span of a request (NFKC-normalised) that names a value, longest first, none overlapping.

        `known` are words the caller reads otherwise (its catalog's cues): never a part or a typo.
        """
        folded = fold(text)
        stop = _stop_words(known if isinstance(known, frozenset) else frozenset(known))
        said = Disjoint(_said_words(folded, stop))
        hits: list[tuple[int, int, int, list[Candidate]]] = []  # (start, end, weight, candidates)
        # cached: every value set of the same length bound reads the same request
        longest = self._longest + 3
        for start, end, level, size in _spans(text, folded, -(-longest // _SPAN_BUCKET) * _SPAN_BUCKET):
            if size > longest:
                continue
            key = folded[start:end]
            if " " in key or "\u3000" in key:
                key = "".join(key.split())
            if not key:
                continue
            found, edits = (self._cheap(key), 0) if level == WEAK else self._matched(key, typo=level == CLEAN)
            if found and not ((key in stop or not said.free(start, end)) and found[0].how in ("part", "typo")):
                hits.append((start, end, len(key) - 2 * edits, found))  # 願いで of お願いできます is no typo
        best_first = sorted(hits, key=lambda h: (-h[2], TIERS.index(h[3][0].how), h[0]))
        taken = Disjoint()
        kept = [hit for hit in best_first if taken.add(hit[0], hit[1])]  # none overlapping a better one
        return [Found(s, e, text[s:e], tuple(c)) for s, e, _, c in sorted(kept)]

    # --- tiers ---------------------------------------------------------------------------------

    def _match(self, w: str, typo: bool = True) -> list[Candidate]:
        return self._matched(w, typo)[0]

    def _matched(self, w: str, typo: bool) -> tuple[list[Candidate], int]:
        """The candidates of the best tier, and the edits of a misspelling (0 for any other tier); remembered
        for the next 8192 words (each step one dict operation: safe with several threads)."""
        found = self._cache.get((w, typo))
        if found is None:
            if len(self._cache) > 8192:
                self._cache.clear()
            cheap = self._cheap(w) if w else []
            found = self._cache[(w, typo)] = (cheap, 0) if cheap or not w else self._dear(w, typo)
        return found

    def _cheap(self, w: str) -> list[Candidate]:
        """Tiers found by looking the folded word up: exact, synonym, reading of kana, part."""
        return self._lookup.get(w, [])

    def _dear(self, w: str, typo: bool) -> tuple[list[Candidate], int]:
        """Tiers that read kanji, strip particles and honorifics, or measure edit distance (with the edits)."""
        budget.check()
        readings = _join(_units(w)) if any(map(_is_kanji, w)) else ()
        found = [v for r in readings for v in self._reading.get(r, [])]
        if found:
            return self._ranked(found, "reading"), 0
        parts = self._parts([v for r in readings for v in self._part.get(r, [])], len(w))
        for variant in _variants(w):
            parts = parts or self._parts(self._exact.get(variant, []), len(variant))
            parts = parts or self._cheap(variant)
        if parts:
            return [Candidate(c.value, "part", min(c.score, 0.85)) for c in parts], 0
        return self._typo(w, readings) if typo else ([], 0)

    def _typo(self, w: str, readings: Iterable[str]) -> tuple[list[Candidate], int]:
        if len(w) < 3 or w in common_words() or (len(w) <= 3 and all(map(_is_hira, w))):
            return [], 0  # のまま, でいい: words of grammar, never a name misspelt
        allowed = _allowed_edits(len(w))
        near: dict[str, tuple[int, float]] = {}
        for form in dict.fromkeys([w, *readings]):
            for string, distance, entries in self._typos.near(form, min(allowed, _allowed_edits(len(form)))):
                for value, is_part in entries:
                    score = 0.6 * (1 - distance / max(len(string), len(form))) * (0.8 if is_part else 1.0)
                    if value not in near or (distance, -score) < (near[value][0], -near[value][1]):
                        near[value] = (distance, score)
        if not near:
            return [], 0
        closest = min(d for d, _ in near.values())
        return sorted((Candidate(v, "typo", round(s, 3)) for v, (d, s) in near.items() if d == closest),
                      key=lambda c: (-c.score, self._order[c.value])), closest

    def _ranked(self, values: Iterable[str], how: str) -> list[Candidate]:
        return [Candidate(v, how, _SCORES[how]) for v in sorted(set(values), key=self._order.__getitem__)]

    def _parts(self, values: Iterable[str], size: int) -> list[Candidate]:
        scored = {v: round(0.5 + 0.3 * min(1.0, size / self._length[v]), 3) for v in values}
        return sorted((Candidate(v, "part", s) for v, s in scored.items()),
                      key=lambda c: (-c.score, self._order[c.value]))


def _allowed_edits(size: int) -> int:
    return 0 if size < 3 else 1 if size <= 5 else 2


def _add(table: dict[str, list[str]], key: str, value: str) -> None:
    found = table.setdefault(key, [])
    if value not in found:
        found.append(value)


def _english_forms(w: str) -> list[str]:
    """An English word with its plural and singular forms (pudding, puddings; berry, berries)."""
    if not w.isascii() or not w.isalpha():
        return [w]
    forms = [w, w + "s", w + "es"]
    if w.endswith("y"):
        forms.append(w[:-1] + "ies")
    if w.endswith("ies"):
        forms.append(w[:-3] + "y")
    if w.endswith("es"):
        forms.append(w[:-2])
    if w.endswith("s"):
        forms.append(w[:-1])
    return forms


def _variants(w: str) -> list[str]:
    """The word without an honorific (お茶, 佐藤さん) or a の between nouns (鮭のおにぎり)."""
    out: list[str] = []
    if len(w) >= 2 and w[0] in _HONORIFIC_PREFIXES and _is_kanji(w[1]):
        out.append(w[1:])
    for suffix in _HONORIFIC_SUFFIXES:
        if w.endswith(suffix) and len(w) > len(suffix):
            out.append(w[:-len(suffix)])
    bare = "".join(ch for i, ch in enumerate(w) if not (ch == _OF and 0 < i < len(w) - 1 and not _is_hira(w[i - 1])))
    if bare != w:
        out.append(bare)
    return out


# --- units and readings ----------------------------------------------------------------------------

@dataclass(frozen=True)
class _Unit:
    surface: str  # folded
    readings: tuple[str, ...]  # folded kana; the surface itself when it has no kanji
    script: str


_NOT_WORD = re.compile(r"[\W_]+")
_KANJI = regex.compile(f"[{HAN}]+")
_OKURIGANA = re.compile("[ぁ-ゖ]{0,2}")
_KATAKANA_FIRST = regex.compile(f"[{KATAKANA}]")


def _script(ch: str) -> str:
    if "ぁ" <= ch <= "ゖ" or ch in "ゝゞ":
        return "hira"
    if "ァ" <= ch <= "ヺ" or ch in "ヽヾ":
        return "kata"
    if ch == "ー":
        return "ー"
    if _KANJI.match(ch):
        return "kanji"
    if ch.isalpha():
        return "latin"
    return "digit" if ch.isdigit() else "other"


def _is_kanji(text: str) -> bool:
    return _KANJI.fullmatch(text) is not None


def _is_hira(ch: str) -> bool:
    return "ぁ" <= ch <= "ゖ"


@lru_cache(maxsize=8192)
def _units(value: str) -> tuple[_Unit, ...]:
    """A value cut into units of one script, kanji cut as the reading dictionary cuts them."""
    text = unicodedata.normalize("NFKC", value)
    units: list[_Unit] = []
    i = 0
    while i < len(text):
        script = _script(text[i])
        if script == "kanji":
            size, readings = _dictionary_reading(text, i)
            units += _split_tail(fold(text[i:i + size]), readings)
            i += size
            continue
        j = i + 1
        while j < len(text) and (_script(text[j]) == script or (_script(text[j]) == "ー" and script != "latin")):
            j += 1
        if script not in ("other", "ー"):
            surface = fold(text[i:j])
            units.append(_Unit(surface, (surface,), script))
        i = j
    return tuple(units)


def _split_tail(surface: str, readings: tuple[str, ...]) -> list[_Unit]:
    """麦茶 → 麦 + 茶 when むぎちゃ ends with a reading of 茶: the last kanji of a compound names it."""
    if len(surface) >= 2 and _is_kanji(surface):
        tails = _dictionary_reading(surface[-1], 0)[1]
        for reading in readings:
            for tail in tails:
                if reading.endswith(tail) and len(reading) > len(tail):
                    return [_Unit(surface[:-1], (reading[:-len(tail)],), "kanji-head"),
                            _Unit(surface[-1], (tail,), "kanji-tail")]
    return [_Unit(surface, readings or (surface,), "kanji")]


def _dictionary_reading(text: str, i: int) -> tuple[int, tuple[str, ...]]:
    """(length, readings) of the longest dictionary word at text[i:] of kanji and at most two kana after them
    (their okurigana: 唐揚げ, 直し); (1, ()) when there is none."""
    kanji = _KANJI.match(text, i)
    okurigana = _OKURIGANA.match(text, kanji.end() if kanji else i + 1)
    end = okurigana.end() if okurigana else i + 1
    for size in range(min(end - i, _LONGEST_WORD), 0, -1):
        found = dictionary_readings(text[i:i + size])
        if found:
            return size, found[:4]
    return 1, ()


def _word_runs(gloss: str) -> list[str]:
    """The runs of words of an English name of several, short of the whole, that neither start nor end with a
    word that only joins (a, and, with) and are not one short word: karaage, ginger pork, pork of ginger pork
    bento."""
    words = gloss.split()
    joins = function_words()
    return [" ".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, len(words) + 1)
            if j - i < len(words) and words[i] not in joins and words[j - 1] not in joins
            and (j - i > 1 or len(words[i]) >= 3)]


@lru_cache(maxsize=8192)
def _word_parts(value: str) -> tuple[str, ...]:
    """The words of a name of several, by the analyser, and their readings (folded), of two characters or more:
    きつね and うどん of きつねうどん, a name in one script that the script alone does not cut; of a name the
    dictionary holds as one word, the shortest words it cuts it into (ざる of ざるそば)."""
    words = tokenise(unicodedata.normalize("NFKC", value)).tokens
    if len(words) == 1:  # ざるそば, a word of the dictionary: ざる and そば
        words = shortest_words(words[0].surface)
    if len(words) < 2:
        return ()
    forms = {f for t in words for f in (fold(t.surface), fold(t.reading)) if len(f) >= 2 and t.is_noun}
    return tuple(sorted(forms))


_SMALL = set("ぁぃぅぇぉゃゅょゎ")


@lru_cache(maxsize=8192)
def _clipped(value: str) -> str | None:
    """A name of two words said by the first two sounds of each (唐揚げ弁当: からべん, ポテトサラダ: ぽてさら), as
    people shorten them; None for a name of one word or of more than two."""
    words = [fold(t.reading) for t in tokenise(value).tokens]
    if len(words) != 2 or not all(words) or any(not _is_hira(ch) and ch != "ー" for w in words for ch in w):
        return None
    return "".join(_first_sounds(w, 2) for w in words)


def _first_sounds(reading: str, n: int) -> str:
    """The first `n` sounds (morae) of a reading in hiragana: a small kana belongs to the sound before it."""
    out = ""
    for ch in reading:
        if ch not in _SMALL and sum(c not in _SMALL for c in out) == n:
            break
        out += ch
    return out


def _join(units: Sequence[_Unit]) -> list[str]:
    """Every reading of consecutive units (at most _MAX_READINGS)."""
    return ["".join(r) for r in itertools.islice(itertools.product(*(u.readings for u in units)), _MAX_READINGS)]


def _parts(units: Sequence[_Unit]) -> list[tuple[str, list[str]]]:
    """(surface, readings) of every meaningful part of a value: runs of whole units, a katakana
    unit's head or tail, a compound's last kanji (see `_split_tail`)."""
    found: list[tuple[str, list[str]]] = []
    n = len(units)
    for a in range(n):
        for b in range(a + 1, n + 1):
            first, last = units[a], units[b - 1]
            if (a, b) == (0, n) or (first.script == "kanji-tail" and b - a > 1):
                continue  # 茶 alone, not 茶 with what follows it
            if last.script == "kanji-head" and not (b - a == 1 and len(last.surface) >= 2):
                continue  # 明太 of 明太子, but not 麦 of 麦茶
            surface = "".join(u.surface for u in units[a:b])
            if len(surface) >= 2:
                found.append((surface, _join(units[a:b])))
            elif _is_kanji(surface):
                found.append((surface, []))  # 茶, 梅: one kanji by its surface, its reading names too much
    for unit in units:
        if unit.script == "kata":
            found += [(piece, [piece]) for piece in _kana_pieces(unit.surface)]
    return found


def _kana_pieces(word: str) -> list[str]:
    """Heads of three sounds or more and tails of two or more of a katakana word (folded): ブラック
    and コーヒー of ブラックコーヒー, パン of メロンパン; a tail never begins with a small kana, ー or ん."""
    pieces = []
    for cut in range(2, len(word) - 1):
        if word[cut] not in _NO_START and word[cut - 1] != "っ":
            pieces += [word[cut:]] + ([word[:cut]] if cut >= 3 else [])
    return pieces


# --- spans of a request -------------------------------------------------------------------------------

WEAK, GLUED, CLEAN = 0, 1, 2  # how far a span is read: looked up / read and stripped / also measured


_SPAN_BUCKET = 16  # the value sets of one catalog read the same spans of a request, cut at a bound they share


@lru_cache(maxsize=512)
def _spans(text: str, folded: str, longest: int) -> tuple[tuple[int, int, int, int], ...]:
    """(start, end, level) of every stretch that may be a word, of at most `longest` letters (spaces not
    counted: no value is longer). A span is WEAK when an end falls inside a run of kanji or katakana (only
    looked up), GLUED when it holds a particle standing between words (鮭のおにぎり: read, stripped, never
    measured), else CLEAN; and the letters each holds. Bounded in length, the spans of a request grow with its
    length, not its square."""
    letters = list(itertools.accumulate((not ch.isspace() for ch in text), initial=0))  # letters before each
    spans: list[tuple[int, int, int, int]] = []
    for m in _WORD.finditer(text):
        cuts = _cuts(text, folded, m.start(), m.end())
        glue = _glue(folded, cuts)
        glue_starts = [a for a, _ in glue]
        for k, (i, kind_i) in enumerate(cuts[:-1]):  # the last cut ends the run
            budget.check()
            if text[i].isspace():
                continue
            for j, kind_j in _ends(cuts, k, letters, longest):
                strong = kind_i != "weak" and kind_j != "weak"
                if text[j - 1].isspace() or (j - i == 1 and not (strong and _is_kanji(text[i]))):
                    continue  # one kanji may name a value when it stands alone (茶の売上), one kana never
                level = WEAK if not strong else GLUED if _holds(glue, glue_starts, i, j) else CLEAN
                spans.append((i, j, level, letters[j] - letters[i]))
    return tuple(spans)


def _ends(cuts: Sequence[tuple[int, str]], k: int, letters: Sequence[int], longest: int
          ) -> Iterator[tuple[int, str]]:
    """The cuts after cuts[k] that end a span of at most `longest` letters from it."""
    start = letters[cuts[k][0]]
    for end in range(k + 1, len(cuts)):
        if letters[cuts[end][0]] - start > longest:
            return
        yield cuts[end]


def _holds(glue: Sequence[tuple[int, int]], starts: Sequence[int], i: int, j: int) -> bool:
    """Whether text[i:j] holds one of the particles `glue` (in order, none overlapping; `starts` their starts)."""
    first = bisect.bisect_left(starts, i)  # the first particle from i on ends soonest
    return first < len(glue) and glue[first][1] <= j


_WORD = re.compile(r"[^\W_]+(?:\s+[^\W\d_][^\W_]*)*")  # a run of word characters, or of words in Latin letters


def _cuts(text: str, folded: str, start: int, end: int) -> list[tuple[int, str]]:
    """Where a word may begin or end inside a run: at its edges, a change of script, a particle
    (in hiragana), or anywhere inside kanji and katakana (weak)."""
    scripts: list[str] = []
    for ch in text[start:end]:
        script = _script(ch)
        scripts.append(scripts[-1] if script == "ー" and scripts else script)  # ー goes with the kana before it
    cuts = [(start, "edge")]
    for p in range(start + 1, end):
        before, after = scripts[p - start - 1], scripts[p - start]
        if before != after:
            cuts.append((p, "script"))
        elif after in ("kanji", "kata"):
            cuts.append((p, "weak"))
        elif after == "hira" and (folded.startswith(_AFTER_NOUN, p) or folded.endswith(_PARTICLES, start, p)
                                  or (before == "hira" and _after_grammar(text, p))):
            cuts.append((p, "particle"))
    cuts.append((end, "edge"))
    return cuts


def _after_grammar(text: str, p: int) -> bool:
    """Whether the analyser ends a particle or an auxiliary at p, in hiragana (じゃなくて|うどん)."""
    word = tokenise(text).ending_at(p)
    return word is not None and (word.is_particle or word.is_auxiliary)


def _glue(folded: str, cuts: Sequence[tuple[int, str]]) -> list[tuple[int, int]]:
    """Particles that stand between words: bounded by strong cuts, one of them the edge of the
    run or a change of script (the と of 弁当と明太子, not the に of おにぎり)."""
    strong = [(p, kind) for p, kind in cuts if kind != "weak"]
    return [(a, b) for (a, kind_a), (b, kind_b) in itertools.pairwise(strong)
            if folded[a:b] in _GLUE and {kind_a, kind_b} & {"edge", "script"}]


class _TypoIndex:
    """Strings near a word by edit distance. One edit: the strings that share the word or one of
    its one-character deletions (the word's or theirs). Two edits (words of six or more): a string
    within two edits contains one of three pieces of the word unchanged, found by its bigrams."""

    def __init__(self, strings: Mapping[str, set[tuple[str, bool]]]) -> None:
        self._strings = list(strings)
        self._entries = [sorted(strings[s]) for s in self._strings]
        self._deletions: dict[str, list[int]] = {}
        self._bigrams: dict[str, set[int]] = {}
        for i, s in enumerate(self._strings):
            if len(s) <= 6:
                for form in _deletions(s):
                    self._deletions.setdefault(form, []).append(i)
            if len(s) >= 4:
                for k in range(len(s) - 1):
                    self._bigrams.setdefault(s[k:k + 2], set()).add(i)

    def near(self, word: str, edits: int) -> list[tuple[str, int, list[tuple[str, bool]]]]:
        if edits == 1:
            ids: set[int] = {i for form in _deletions(word) for i in self._deletions.get(form, ())}
        elif edits == 2:
            size = len(word) / 3
            ids = set().union(*(self._containing(word[round(k * size):round((k + 1) * size)]) for k in range(3)))
        else:
            return []
        found = []
        for i in ids:
            s = self._strings[i]
            if abs(len(s) - len(word)) <= edits:
                distance = Levenshtein.distance(word, s, score_cutoff=edits)
                if distance <= edits:
                    found.append((s, distance, self._entries[i]))
        return found

    def _containing(self, piece: str) -> set[int]:
        grams = [self._bigrams.get(piece[k:k + 2], set()) for k in range(len(piece) - 1)]
        return set.intersection(*grams) if grams else set()


def _deletions(s: str) -> set[str]:
    return {s, *(s[:k] + s[k + 1:] for k in range(len(s)))}
