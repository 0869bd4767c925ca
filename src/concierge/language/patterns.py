"""Token patterns: rules that read an `Utterance` word by word, never character by character.

A pattern is a sequence of slots; each slot tests one token (any of some forms, a part of speech, a kind such as a
numeral or a counter) and may be optional or repeated. Patterns are written as data, the way spaCy's `Matcher`
takes them, so a language file can hold them:

    [{form = ["変える", "変更"]}, {is = "auxiliary", op = "*"}]

Keys of a slot: `form` (the token's surface, dictionary form or normalised form is one of them), `surface`,
`lemma`, `pos` (the part of speech begins with these, e.g. "名詞,数詞"), `is` (numeral, counter, verb, auxiliary,
particle, predicate, ending: what inflects
a verb, prefix, person_name, number: digits) and `op` ("?" at most one, "*" any, "+" one or more).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from concierge.language.tokens import Token, Utterance

__all__ = ["Match", "Pattern", "Slot"]

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
}
_OPS = {"": (1, 1), "?": (0, 1), "*": (0, None), "+": (1, None)}


@dataclass(frozen=True)
class Slot:
    """What one token must be, and how many tokens in a row may be it."""

    forms: frozenset[str] = frozenset()  # surface, lemma or normal form, compared lower-cased
    surfaces: frozenset[str] = frozenset()
    lemmas: frozenset[str] = frozenset()
    pos: tuple[str, ...] = ()
    kind: str | None = None
    least: int = 1
    most: int | None = 1  # None: no bound

    def fits(self, token: Token) -> bool:
        if self.forms and not {token.surface.lower(), token.lemma.lower(), token.normal.lower()} & self.forms:
            return False
        if self.surfaces and token.surface.lower() not in self.surfaces:
            return False
        if self.lemmas and token.lemma.lower() not in self.lemmas:
            return False
        if self.pos and token.pos[:len(self.pos)] != self.pos:
            return False
        return self.kind is None or _KINDS[self.kind](token)

    @classmethod
    def parse(cls, spec: Mapping[str, Any]) -> Slot:
        unknown = set(spec) - {"form", "surface", "lemma", "pos", "is", "op"}
        if unknown:
            raise ValueError(f"a token pattern's slot has unknown keys {sorted(unknown)}: use form, surface, lemma, "
                             "pos, is and op")
        kind = spec.get("is")
        if kind is not None and kind not in _KINDS:
            raise ValueError(f"a token pattern's `is` must be one of {sorted(_KINDS)}, not {kind!r}")
        op = spec.get("op", "")
        if op not in _OPS:
            raise ValueError(f"a token pattern's `op` must be one of ?, * or +, not {op!r}")
        least, most = _OPS[op]
        pos = spec.get("pos")
        return cls(forms=_lowered(spec.get("form")), surfaces=_lowered(spec.get("surface")),
                   lemmas=_lowered(spec.get("lemma")), pos=tuple(pos.split(",")) if pos else (), kind=kind,
                   least=least, most=most)


def _lowered(words: str | Sequence[str] | None) -> frozenset[str]:
    if words is None:
        return frozenset()
    return frozenset(w.lower() for w in ([words] if isinstance(words, str) else words))


@dataclass(frozen=True)
class Match:
    """Tokens [first, last) of an utterance, and the span of text they cover."""

    first: int
    last: int
    start: int
    end: int


@dataclass(frozen=True)
class Pattern:
    slots: tuple[Slot, ...]

    @classmethod
    def parse(cls, specs: Sequence[Mapping[str, Any]]) -> Pattern:
        if not specs:
            raise ValueError("a token pattern needs at least one slot")
        return cls(tuple(Slot.parse(s) for s in specs))

    def at(self, utterance: Utterance, first: int) -> Match | None:
        """The longest match that begins at token `first`, if one does."""
        tokens = utterance.tokens
        last = self._longest(tokens, first, 0)
        if last is None or last == first:
            return None
        return Match(first, last, tokens[first].start, tokens[last - 1].end)

    def _longest(self, tokens: Sequence[Token], i: int, s: int) -> int | None:
        if s == len(self.slots):
            return i
        slot = self.slots[s]
        j = i
        while j < len(tokens) and (slot.most is None or j - i < slot.most) and slot.fits(tokens[j]):
            j += 1
        for n in range(j, i + slot.least - 1, -1):  # greedy, giving back one token at a time
            found = self._longest(tokens, n, s + 1)
            if found is not None:
                return found
        return None

    def finditer(self, utterance: Utterance) -> Iterator[Match]:
        """Matches from left to right, none overlapping."""
        i = 0
        while i < len(utterance.tokens):
            found = self.at(utterance, i)
            if found is None:
                i += 1
                continue
            yield found
            i = found.last

    def search(self, utterance: Utterance) -> Match | None:
        return next(self.finditer(utterance), None)
