"""Words of questions the planner reads as data (questions.toml): measures, rankings, conditions."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from importlib import resources
from itertools import groupby

from concierge.language.patterns import Pattern
from concierge.language.tokens import tokenise
from concierge.planner.text import fold, normalise, said_as


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
def pattern(section: str, key: str) -> WordList:
    """A list of questions.toml, found in folded text where a word begins (`WordList`)."""
    return WordList(words(section, key))


def prepare() -> None:
    """Compile every list and token pattern of questions.toml now (about 0.1 s), so that no request pays for the
    one it is the first to read."""
    for section, table in _table().items():
        for key, listed in table.items() if isinstance(table, dict) else ():
            if not isinstance(listed, list) or not listed:
                continue
            if all(isinstance(w, str) for w in listed):
                pattern(section, key)
                said_pattern(section, key)
            elif all(isinstance(slot, dict) for slot in listed):
                token_pattern(section, key)
            elif all(isinstance(spec, list) for spec in listed):
                token_patterns(section, key)


class Found:
    """Words found in a text by its tokens: their span, and the text of each named part, as `re.Match` gives them
    (`group()` the words, `group("n")` or `m["n"]` a part)."""

    __slots__ = ("_end", "_parts", "_start", "string")

    def __init__(self, string: str, start: int, end: int, parts: Mapping[str, str] | None = None) -> None:
        self.string, self._start, self._end, self._parts = string, start, end, parts or {}

    def start(self) -> int:
        return self._start

    def end(self) -> int:
        return self._end

    def span(self) -> tuple[int, int]:
        return self._start, self._end

    def group(self, name: int | str = 0) -> str:
        return self._parts[name] if isinstance(name, str) else self.string[self._start:self._end]

    def __getitem__(self, name: int | str) -> str:
        return self.group(name)


class WordList:
    """Words (folded) found in a text where a word of it begins, never inside one (the メン of ラーメン, the on of
    one): the text's tokens spell them, or begin to (a list may hold a stem: the 支払 of 支払い; an English word
    with its plural or -ed/-ing ending). The longest first where several begin at one place."""

    def __init__(self, said: tuple[str, ...], regex: re.Pattern[str] | None = None) -> None:
        self._regex = regex or alternation(said)  # where a word may be; the tokens decide whether it is one
        self.pattern = self._regex.pattern

    @classmethod
    def of_said(cls, said: tuple[str, ...]) -> WordList:
        """Words found as said (not folded): English in any case, any spaces between its words, no endings."""
        parts = []
        for whole, run in groupby(sorted(said, key=len, reverse=True), key=_a_whole_word):
            body = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in run)
            parts.append(rf"(?<![a-z])(?:{body})(?![a-z])" if whole else body)
        return cls(said, re.compile("|".join(parts) or r"(?!)", re.IGNORECASE))

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None) -> Iterator[Found]:
        end = len(text) if endpos is None else endpos
        at = pos
        while at < end:
            found = self._at_or_after(text, at, end)
            if found is None:
                return
            yield found
            at = max(found.end(), found.start() + 1)

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> Found | None:
        return self._at_or_after(text, pos, len(text) if endpos is None else endpos)

    def match(self, text: str, pos: int = 0) -> Found | None:
        found = self._regex.match(text, pos)
        return Found(text, found.start(), found.end()) if found and _begins_a_word(text, pos) else None

    def fullmatch(self, text: str) -> Found | None:
        found = self._regex.fullmatch(text)
        return Found(text, 0, len(text)) if found and _begins_a_word(text, 0) else None

    def sub(self, repl: str | Callable[[Found], str], text: str) -> str:
        out, at = [], 0
        for found in self.finditer(text):
            out += [text[at:found.start()], repl(found) if callable(repl) else repl]
            at = found.end()
        return "".join([*out, text[at:]])

    def _at_or_after(self, text: str, pos: int, end: int) -> Found | None:
        at = pos
        while at < end:
            found = self._regex.search(text, at, end)
            if found is None:
                return None
            if _begins_a_word(text, found.start()):
                return Found(text, found.start(), found.end())
            at = found.start() + 1
        return None


def _begins_a_word(text: str, start: int) -> bool:
    """Whether a word of the text (cut as it was said) begins at `start`."""
    return tokenise(said_as(text)).starts_at(start)


@cache
def said_pattern(section: str, key: str) -> WordList:
    """A list of questions.toml found in text as said (not folded): whole words, English in any case and with
    any spaces between its words; the longest first."""
    return WordList.of_said(said(section, key))


def _a_whole_word(word: str) -> bool:
    """Whether a word is found only whole: one that begins with a Latin letter."""
    return word[:1].isascii() and word[:1].isalpha()


@cache
def token_pattern(section: str, key: str) -> Pattern:
    """A token pattern of questions.toml (a list of slots, language/patterns.py)."""
    return Pattern.parse(_table()[section][key])


def said_before(text: str, offset: int, section: str, key: str, reach: int = 4) -> bool:
    """Whether one of a list of token patterns ends right at `offset` of `text`, beginning at most `reach`
    tokens before it."""
    utterance = tokenise(text)
    before = utterance.starting(0, offset)
    if not before or utterance.tokens[before[-1]].end != offset:
        return False
    return any((m := p.at(utterance, first)) is not None and m.end == offset
               for first in range(before[-1], max(-1, before[-1] - reach), -1)
               for p in token_patterns(section, key))


@cache
def alternation(said: tuple[str, ...]) -> re.Pattern[str]:
    """Words (folded) as one pattern over folded text: English words whole (with a plural or -ed/-ing ending),
    Japanese words anywhere; the longest first."""
    parts = []
    for english, run in groupby(sorted(said, key=len, reverse=True), key=str.isascii):  # in order: the same match
        body = "|".join(map(re.escape, run))  # one group of plain words compiles several times faster than each
        parts.append(rf"(?<![a-z'])(?:{body})(?:s|es|ed|d|ing)?(?![a-z])" if english else body)
    return re.compile("|".join(parts) or r"(?!)")


STOPS = "。.!！?？ \t\n\u3000"  # the stops and spaces that end a sentence


def value_said(text: str, lead: tuple[str, ...] = ()) -> str:
    """A value given in answer, without the words said around it ([answer] before and after, and `lead`, more words
    that may come first): じゃ玄関の -> 玄関, 5個にして -> 5個, make it 5 -> 5."""
    before = sorted((*words("answer", "before"), *lead), key=len, reverse=True)
    value = text.strip().rstrip(STOPS)
    while True:
        low = value.lower()
        start = next((w for w in before if low.startswith(w)
                      and not (w.isascii() and low[len(w):len(w) + 1].isalpha())), "")
        end = next((w for w in words("answer", "after") if low.endswith(w) and len(w) < len(low)
                    and not (w.isascii() and low[-len(w) - 1:-len(w)].isalpha())), "")
        if not start and not end:
            return value
        value = value[len(start): len(value) - len(end)].strip().rstrip(STOPS)


@cache
def said(section: str, key: str) -> tuple[str, ...]:
    """One list of questions.toml as written (not folded), for token rules that compare a token's own forms."""
    return tuple(_table()[section][key])


@cache
def token_patterns(section: str, key: str) -> tuple[Pattern, ...]:
    """One list of token patterns of questions.toml (language/patterns.py), each a list of slots."""
    return tuple(Pattern.parse(spec) for spec in _table()[section][key])


@cache
def joiners() -> WordList:
    """`[joiners] words` found as whole words of text as said (と, 、, and)."""
    return said_pattern("joiners", "words")


@cache
def phrases(section: str, key: str) -> tuple[tuple[Pattern, str], ...]:
    """A table of questions.toml of phrases (words apart by spaces) and what each says, as token patterns, the
    longest phrase first: `[compare.after]` 以上 = ">=", "より 少ない" = "<"."""
    table = _table()[section][key]
    return tuple((Pattern.parse([{"form": w} for w in phrase.split()]), table[phrase])
                 for phrase in sorted(table, key=lambda p: len(p.split()), reverse=True))


@cache
def _first_words(section: str, key: str) -> frozenset[str] | None:
    """The words the first slot of any of the token patterns takes, or None where one takes any word."""
    said: set[str] = set()
    for pattern in token_patterns(section, key):
        first = pattern.slots[0]
        if not (first.forms or first.surfaces or first.lemmas):
            return None
        said |= first.forms | first.surfaces | first.lemmas
    return frozenset(said)


def may_match(section: str, key: str, text: str) -> bool:
    """Whether the token patterns of `[section] key` may match in `text`: some word a first slot takes is in it
    (a text that says none of them is not cut into words to find out)."""
    first = _first_words(section, key)
    low = text.lower()
    return first is None or any(w in low for w in first)
