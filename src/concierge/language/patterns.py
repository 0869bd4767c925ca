"""Token patterns: rules that read an `Utterance` word by word, never character by character.

A pattern is a sequence of slots; each slot tests one token (any of some forms, a part of speech, a kind such as a
numeral or a counter) and may be optional or repeated. Patterns are written as data, the way spaCy's `Matcher`
takes them, so a language file can hold them:

    [{form = ["変える", "変更"]}, {is = "auxiliary", op = "*"}]

Keys of a slot: `form` (the token's surface, dictionary form or normalised form is one of them), `not` (none of
its forms is one of these), `surface`, `lemma`, `ends` (the surface ends with one of these, longer than it), `pos`
(the part of speech begins with these, e.g. "名詞,数詞"), `is` (numeral, counter, verb, auxiliary, particle,
predicate, ending: what inflects a verb, prefix, person_name, number: digits, word: letters), `op` ("?" at most
one, "*" any, "+" one or more) and `name` (the text its tokens cover is `Match.named[name]`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Generic, TypeVar

from concierge.language.tokens import Token, Utterance

__all__ = ["Match", "Pattern", "Slot", "WordTable"]

V = TypeVar("V")

_KINDS: dict[str, Callable[[Token], bool]] = {
    "numeral": lambda t: t.is_numeral or t.surface.isdigit(),
    "number": lambda t: t.surface.replace(".", "", 1).isdigit(),
    "counter": lambda t: t.is_counter,
    "verb": lambda t: t.is_verb,
    "auxiliary": lambda t: t.is_auxiliary,
    "particle": lambda t: t.is_particle,
    "predicate": lambda t: t.is_predicate,
    "ending": lambda t: t.is_predicate or t.is_conjunctive_particle,  # して, てください, たい after a verb
    "prefix": lambda t: t.is_prefix,
    "person_name": lambda t: t.is_person_name,
    "word": lambda t: t.surface[:1].isalpha(),
}
_OPS = {"": (1, 1), "?": (0, 1), "*": (0, None), "+": (1, None)}


@dataclass(frozen=True)
class Slot:
    """What one token must be, and how many tokens in a row may be it."""

    forms: frozenset[str] = frozenset()  # surface, lemma or normal form, compared lower-cased
    not_forms: frozenset[str] = frozenset()
    surfaces: frozenset[str] = frozenset()
    lemmas: frozenset[str] = frozenset()
    ends: tuple[str, ...] = ()
    pos: tuple[str, ...] = ()
    kind: str | None = None
    least: int = 1
    most: int | None = 1  # None: no bound
    name: str | None = None

    def fits(self, token: Token) -> bool:
        said = token.forms
        if (self.forms and self.forms.isdisjoint(said)) or not self.not_forms.isdisjoint(said):
            return False
        if self.ends and not any(token.surface_lower.endswith(e) and len(token.surface) > len(e)
                                 for e in self.ends):
            return False
        if self.surfaces and token.surface_lower not in self.surfaces:
            return False
        if self.lemmas and token.lemma.lower() not in self.lemmas:
            return False
        if self.pos and token.pos[:len(self.pos)] != self.pos:
            return False
        return self.kind is None or _KINDS[self.kind](token)

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> Slot:
        unknown = set(spec) - {"form", "not", "surface", "lemma", "ends", "pos", "is", "op", "name"}
        if unknown:
            raise ValueError(f"a token pattern's slot has unknown keys {sorted(unknown)}: use form, not, surface, "
                             "lemma, ends, pos, is, op and name")
        kind = spec.get("is")
        if kind is not None and kind not in _KINDS:
            raise ValueError(f"a token pattern's `is` must be one of {sorted(_KINDS)}, not {kind!r}")
        op = spec.get("op", "")
        if op not in _OPS:
            raise ValueError(f"a token pattern's `op` must be one of ?, * or +, not {op!r}")
        least, most = _OPS[op]
        pos = spec.get("pos")
        return cls(forms=_lowered(spec.get("form")), not_forms=_lowered(spec.get("not")),
                   surfaces=_lowered(spec.get("surface")), lemmas=_lowered(spec.get("lemma")),
                   ends=tuple(_lowered(spec.get("ends"))), pos=tuple(pos.split(",")) if pos else (), kind=kind,
                   least=least, most=most, name=spec.get("name"))


def _lowered(words: str | Sequence[str] | None) -> frozenset[str]:
    if words is None:
        return frozenset()
    return frozenset(w.lower() for w in ([words] if isinstance(words, str) else words))


@dataclass(frozen=True)
class Match:
    """Tokens [first, last) of an utterance, the span of text they cover, and the spans of its named slots (a
    named slot that took no token is absent)."""

    first: int
    last: int
    start: int
    end: int
    named: Mapping[str, tuple[int, int]] = field(default_factory=dict)

    def said(self, utterance: Utterance, name: str) -> str | None:
        """The text a named slot took, if it took any."""
        span = self.named.get(name)
        return utterance.text[span[0]:span[1]] if span else None


@dataclass(frozen=True)
class Pattern:
    slots: tuple[Slot, ...]

    @classmethod
    def parse(cls, specs: Sequence[Mapping[str, Any]]) -> Pattern:
        if not specs:
            raise ValueError("a token pattern needs at least one slot")
        return cls(tuple(Slot.parse(s) for s in specs))

    @cached_property
    def _needed(self) -> tuple[frozenset[str], ...]:
        """The words of each slot that must take a token: a request that says none of one set cannot match."""
        return tuple(words for s in self.slots if s.least and (words := s.forms or s.surfaces or s.lemmas))

    def may_match(self, utterance: Utterance) -> bool:
        """Whether the utterance says a word of each slot that must take one (a pattern is tried against every
        request many times, and most say none of its words)."""
        return not any(map(utterance.forms_said.isdisjoint, self._needed))

    def at(self, utterance: Utterance, first: int, last: int | None = None) -> Match | None:
        """The longest match that begins at token `first` (and ends at token `last`, where given), if one does."""
        return self._at(utterance, first, last) if self.may_match(utterance) else None

    def _at(self, utterance: Utterance, first: int, last: int | None = None) -> Match | None:
        tokens = utterance.tokens if last is None else utterance.tokens[:last]
        bounds = self._longest(tokens, first, 0, last)
        if bounds is None or bounds[-1] == first:
            return None
        named = {s.name: (tokens[a].start, tokens[b - 1].end)
                 for s, a, b in zip(self.slots, (first, *bounds[:-1]), bounds, strict=True) if s.name and b > a}
        return Match(first, bounds[-1], tokens[first].start, tokens[bounds[-1] - 1].end, named)

    def _longest(self, tokens: Sequence[Token], i: int, s: int, last: int | None) -> tuple[int, ...] | None:
        """Where each slot from `s` on ends, the last slot ending as far on as it can (at `last`, where given)."""
        if s == len(self.slots):
            return () if last is None or i == last else None
        slot = self.slots[s]
        j = i
        while j < len(tokens) and (slot.most is None or j - i < slot.most) and slot.fits(tokens[j]):
            j += 1
        for n in range(j, i + slot.least - 1, -1):  # greedy, giving back one token at a time
            found = self._longest(tokens, n, s + 1, last)
            if found is not None:
                return (n, *found)
        return None

    def finditer(self, utterance: Utterance, start: int = 0, end: int | None = None) -> Iterator[Match]:
        """Matches from left to right, none overlapping, within the text's span [start, end)."""
        if not self.may_match(utterance):
            return
        tokens = utterance.starting(start, len(utterance.text) + 1 if end is None else end)
        after = tokens.start
        for i in self._firsts(utterance, tokens):
            if i < after:
                continue
            found = self._at(utterance, i)
            if found is None or (end is not None and found.end > end):
                continue
            yield found
            after = found.last

    def _firsts(self, utterance: Utterance, tokens: range) -> Iterable[int]:
        """The tokens a match may begin at: those of the words the first slot takes, where it must take one."""
        first = self.slots[0]
        words = first.forms or first.surfaces or first.lemmas
        if not words or first.least == 0:
            return tokens
        index = utterance.by_form
        return sorted({i for w in words for i in index.get(w, ()) if tokens.start <= i < tokens.stop})

    def search(self, utterance: Utterance, start: int = 0, end: int | None = None) -> Match | None:
        return next(self.finditer(utterance, start, end), None)

    def whole(self, utterance: Utterance, start: int = 0, end: int | None = None) -> Match | None:
        """A match of the tokens of the span [start, end) and no others (the whole text, where not given)."""
        tokens = utterance.starting(start, len(utterance.text) + 1 if end is None else end)
        if not tokens or (end is not None and utterance.tokens[tokens.stop - 1].end > end):
            return None
        return self.at(utterance, tokens.start, tokens.stop)

    def ending(self, utterance: Utterance, offset: int, reach: int = 8) -> Match | None:
        """A match that ends at the token ending at `offset` (spaces after it aside), beginning at most `reach`
        tokens before: the longest such."""
        before = utterance.starting(0, offset)
        if not before or not self.may_match(utterance) or utterance.tokens[before.stop - 1].end > offset:
            return None
        last = before.stop
        for first in range(max(0, last - reach), last):
            found = self._at(utterance, first, last)
            if found is not None:
                return found
        return None


class WordTable(Generic[V]):
    """Phrases of whole words, each with what it stands for, found in an utterance: a phrase is a run of tokens
    whose words, lower-cased and one space apart, spell it, with nothing but spaces between them and no letter,
    digit or & joined to either end (the n of "b&n" is no word). Leftmost, then longest, none overlapping."""

    def __init__(self, table: Mapping[str, V]) -> None:
        self._table = {" ".join(p.lower().split()): v for p, v in table.items()}
        self._longest = max((len(p.split()) for p in self._table), default=0)
        self._firsts = frozenset(p.split()[0] for p in self._table if p)

    def said_in(self, text: str) -> bool:
        """Whether a phrase's first word may be in the text at all: the words are read only where one may be."""
        said = {w.strip(_MARKS) for w in text.lower().split()}
        return not self._firsts.isdisjoint(said)

    def find(self, utterance: Utterance) -> list[tuple[int, int, V]]:
        tokens, text, out = utterance.tokens, utterance.text, []
        i = 0
        while i < len(tokens):
            last = self._longest_at(tokens, text, i)
            if last is None:
                i += 1
                continue
            out.append((tokens[i].start, tokens[last].end, self._table[self._said(tokens, i, last)]))
            i = last + 1
        return out

    def _longest_at(self, tokens: Sequence[Token], text: str, i: int) -> int | None:
        if _joined(tokens, i - 1, i):
            return None
        for last in range(min(len(tokens), i + self._longest) - 1, i - 1, -1):
            if self._said(tokens, i, last) in self._table and not _joined(tokens, last, last + 1) \
                    and all(text[a.end:b.start].isspace() for a, b in zip(tokens[i:last], tokens[i + 1:last + 1],
                                                                           strict=True)):
                return last
        return None

    @staticmethod
    def _said(tokens: Sequence[Token], i: int, last: int) -> str:
        return " ".join(t.surface.lower() for t in tokens[i:last + 1])


_MARKS = ".,!?;:'\"()[]"


def _joined(tokens: Sequence[Token], a: int, b: int) -> bool:
    """Whether tokens a and b touch with no space and one of them is a word or an & (b&n, 3pcs)."""
    if a < 0 or b >= len(tokens) or tokens[a].end != tokens[b].start:
        return False
    return any(t.surface[:1].isalnum() or t.surface == "&" for t in (tokens[a], tokens[b]))
