"""A request read as words: `tokenise(text)` gives an `Utterance`, its tokens with their spans.

Japanese is cut by SudachiPy (the small dictionary, its longest units): each token has its surface, its
dictionary form (消しちゃっ → 消す), its normalised form (しゃけ → 鮭, 二千五百 → 2500), its reading and its
part of speech. English and other text in Latin letters is cut into words, numbers and marks. Spans are
offsets into the text given, so a token lines up with what the planner reads around it.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from typing import Any

import regex

from concierge.language.scripts import HAN, HIRAGANA, KATAKANA

__all__ = ["Token", "Utterance", "dictionary", "japanese", "tokenise"]

_JAPANESE = regex.compile(r"[\p{Hiragana}\p{Katakana}\p{Han}]")
_LATIN_WORD = regex.compile(r"[\p{L}\p{M}][\p{L}\p{M}'\-]*|\d+(?:\.\d+)?|\S")
# The one script a token is written in, if it is written in one: katakana (ー counts), hiragana, kanji, Latin letters.
_SCRIPT = regex.compile(rf"(?P<katakana>[{KATAKANA}]+)|(?P<hiragana>[{HIRAGANA}ー]+)|(?P<han>[{HAN}]+)"
                        r"|(?P<latin>\p{Latin}+)")
_local = threading.local()


@dataclass(frozen=True)
class Token:
    surface: str
    lemma: str  # the dictionary form: 消す for 消し, つける for つけ
    normal: str  # the normalised form: 鮭 for しゃけ, 2500 for 二千五百, 三 for みっ
    reading: str  # katakana
    pos: tuple[str, ...]  # part of speech, most general first: ("動詞", "一般", ...)
    start: int
    end: int

    @cached_property
    def forms(self) -> frozenset[str]:
        """Its surface, dictionary form and normalised form, lower case: what a token pattern's words are to fit."""
        return frozenset((self.surface.lower(), self.lemma.lower(), self.normal.lower()))

    @cached_property
    def surface_lower(self) -> str:
        return self.surface.lower()

    @cached_property
    def script(self) -> str | None:
        """"katakana", "hiragana", "han" or "latin" where the whole token is written in that one script, else None
        (焼きそば, 2, ？)."""
        found = _SCRIPT.fullmatch(self.surface)
        return found.lastgroup if found else None

    @property
    def is_verb(self) -> bool:
        return self.pos[0] == "動詞"

    @property
    def is_auxiliary(self) -> bool:
        return self.pos[0] == "助動詞"

    @property
    def is_particle(self) -> bool:
        return self.pos[0] == "助詞"

    @property
    def is_numeral(self) -> bool:
        return self.pos[:2] == ("名詞", "数詞")

    @property
    def is_counter(self) -> bool:
        return self.pos[0] == "接尾辞" and "助数詞" in self.pos[1:3]

    @property
    def is_predicate(self) -> bool:  # 消し, ない: a verb or what follows one
        return self.is_verb or self.is_auxiliary

    @property
    def is_prefix(self) -> bool:  # お風呂, ご注文
        return self.pos[0] == "接頭辞"

    @property
    def is_person_name(self) -> bool:
        return self.pos[:3] == ("名詞", "固有名詞", "人名")

    @property
    def is_family_name(self) -> bool:  # 佐藤 of 佐藤 花子
        return self.pos[:4] == ("名詞", "固有名詞", "人名", "姓")

    @property
    def is_noun(self) -> bool:  # 弁当, 注文, 田中
        return self.pos[0] == "名詞"

    @property
    def is_suffix(self) -> bool:  # さん of 田中さん, 目 of 3つ目
        return self.pos[0] == "接尾辞"

    @property
    def is_conjunctive_particle(self) -> bool:  # て of つけて, ので
        return self.pos[:2] == ("助詞", "接続助詞")

    @property
    def may_be_subsidiary(self) -> bool:  # ください, ほしい, つけ: a verb or adjective that may help the one before it
        return self.pos[0] in ("動詞", "形容詞") and self.pos[1] == "非自立可能"

    @property
    def is_adverb(self) -> bool:  # やっぱり, もう
        return self.pos[0] == "副詞"

    @property
    def is_interjection(self) -> bool:  # えっと, はい
        return self.pos[0] == "感動詞"


@dataclass(frozen=True)
class Utterance:
    text: str
    tokens: tuple[Token, ...]

    @cached_property
    def _starts(self) -> list[int]:
        return [t.start for t in self.tokens]

    @cached_property
    def _ends(self) -> frozenset[int]:
        return frozenset(t.end for t in self.tokens)

    def starts_at(self, offset: int) -> bool:
        """Whether a token starts at `offset` (the text's end counts as a start)."""
        at = bisect.bisect_left(self._starts, offset)
        return offset == len(self.text) or (at < len(self._starts) and self._starts[at] == offset)

    def ends_at(self, offset: int) -> bool:
        return offset == 0 or offset in self._ends

    @cached_property
    def _by_end(self) -> dict[int, Token]:
        return {t.end: t for t in self.tokens}

    def ending_at(self, offset: int) -> Token | None:
        """The token that ends at `offset`, if one does."""
        return self._by_end.get(offset)

    @cached_property
    def by_form(self) -> dict[str, list[int]]:
        """The indices of the tokens by each of their forms (surface, dictionary and normalised form), lower case."""
        found: dict[str, list[int]] = {}
        for i, t in enumerate(self.tokens):
            for form in {t.surface.lower(), t.lemma.lower(), t.normal.lower()}:
                found.setdefault(form, []).append(i)
        return found

    @cached_property
    def forms_said(self) -> frozenset[str]:
        """Every form of every token (`by_form`'s keys), as a set."""
        return frozenset(self.by_form)

    def runs(self, fits: Callable[[Token], bool]) -> list[range]:
        """The longest runs of tokens, each written right after the one before (no space between), that all fit:
        the indices of each run (カップ|麺 is one run of nouns, シューク|リーム one of katakana)."""
        found: list[range] = []
        first: int | None = None
        for i, token in enumerate(self.tokens):
            if not fits(token):
                first = None
                continue
            if first is not None and self.tokens[i - 1].end == token.start:
                found[-1] = range(first, i + 1)
            else:
                first = i
                found.append(range(i, i + 1))
        return found

    def span(self, run: range) -> tuple[int, int]:
        """Where a run of tokens is in the text."""
        return self.tokens[run.start].start, self.tokens[run.stop - 1].end

    def starting(self, start: int, end: int) -> range:
        """The indices of the tokens that start in [start, end), found by bisection (a long request has many)."""
        return range(bisect.bisect_left(self._starts, start), bisect.bisect_left(self._starts, end))

    def overlapping(self, start: int, end: int) -> range:
        """The indices of the tokens that hold a letter of [start, end), found by bisection."""
        first = bisect.bisect_left(self._starts, start)
        if first > 0 and self.tokens[first - 1].end > start:
            first -= 1
        return range(first, bisect.bisect_left(self._starts, end))


def japanese(text: str) -> bool:
    return _JAPANESE.search(text) is not None


def tokenise(text: str) -> Utterance:
    """The words of `text`: by the Japanese analyser where it has any Japanese, else by letters and digits."""
    return _short(text) if len(text) <= _SHORT else _long(text)


# The words of the texts read last are kept: a request's copies are read once each. A long text costs about
# 500 bytes a letter, so fewer of them are kept: a flood of long requests never fills memory.
_SHORT = 200


@lru_cache(maxsize=2048)
def _short(text: str) -> Utterance:
    return _read(text)


@lru_cache(maxsize=24)
def _long(text: str) -> Utterance:
    return _read(text)


def _read(text: str) -> Utterance:
    if not japanese(text):
        return Utterance(text, tuple(Token(m.group(), m.group().lower(), m.group().lower(), "", ("",),
                                           m.start(), m.end()) for m in _LATIN_WORD.finditer(text)))
    return Utterance(text, tuple(_token(m) for m in _tokenizer().tokenize(text) if m.surface().strip()))


def _token(m: Any) -> Token:
    """The Token of one of the analyser's morphemes, its fields set at once: the frozen dataclass's own __init__ sets
    them one call at a time, which cost as much as the analyser itself (tokens are made by the dozen a request)."""
    token = object.__new__(Token)
    token.__dict__.update(surface=m.surface(), lemma=m.dictionary_form(), normal=m.normalized_form(),
                          reading=m.reading_form(), pos=tuple(m.part_of_speech()), start=m.begin(), end=m.end())
    return token


@lru_cache(maxsize=4096)
def shortest_words(word: str) -> tuple[Token, ...]:
    """The shortest words the analyser's dictionary cuts a word into (ざる|そば of ざるそば, a word of its own)."""
    from sudachipy import SplitMode

    return tuple(_token(p) for m in _tokenizer().tokenize(word) for p in m.split(SplitMode.A) if p.surface().strip())


def _tokenizer() -> Any:
    """One analyser per thread (its state is not shared between threads), made in microseconds from the one
    dictionary."""
    found = getattr(_local, "tokenizer", None)
    if found is None:
        from sudachipy import SplitMode

        found = _local.tokenizer = dictionary().tokenizer(SplitMode.C)
    return found


@cache
def dictionary() -> Any:
    """The analyser's dictionary, loaded once (about 0.03 s) and shared by every thread: it is read only."""
    from sudachipy import Dictionary

    return Dictionary(dict="small")
