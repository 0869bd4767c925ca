"""Requests no tool can answer: forecasts, advice, corrections, deletes and general questions.

`out_of_scope` reads a request (the NFKC-`normalise`d text) and says whether it asks for something
the declared tools cannot do, which kind of thing, and where the words that say so are. It only
detects: the caller decides what wins when a catalog has a tool whose keyword covers the words (a
catalog with a cancel tool), and adds what can be done to the answer.

Kinds, tried in this order (the first that matches is the answer):

1. ``delete``: 削除, 消して, 消去, delete, remove, erase, wipe, drop the table.
2. ``correction``: a change to registered data: 訂正, 修正, 直して, 間違えた, 取り消し, キャンセル,
   価格を変更して, cancel, undo, fix, change the price, wrong date.
3. ``advice``: おすすめ, 何を発注すべき, どうすればいい, した方がいい, 戦略, should I, recommend.
4. ``general``: weather, news, translations, definitions, arithmetic, trivia (今日の天気は？,
   1+1は？, 日本の首都は？, tell me a joke, what is MCP?). Before forecasts, so that 明日は晴れる？
   is about the weather and not a sales forecast.
5. ``forecast``: 予測, 見込み, 売れそう, どのくらい売れる, forecast, will we sell; and any read
   question whose periods all lie after today (``future``): 来週の売上は？ asks for figures not yet
   recorded. A write for a future day (来週の月曜に登録して) is not a forecast.

The words are data (planner/words/scope.toml), read from the request's tokens (language/tokens.py):
消して and 消したい are a delete, 取り消して a correction, 消費税 neither. They are generic (no product,
customer or catalog names); ordinary questions about recorded
figures (先週から売上が落ちた商品は？, 売上を増やした商品, Which products dropped in sales) match none.
Values read from the data can hold such words (a product named 本日のおすすめ弁当): pass the text
with them masked (`concierge.planner.text.mask`, same length) and they count for nothing. Leave the
dates unmasked: the span of a forecast by ``future`` is the first period after today.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from functools import cache, cached_property, lru_cache
from importlib import resources
from typing import Any, Literal

from concierge.language.dates import find_dates
from concierge.language.patterns import Match, Pattern
from concierge.language.tokens import Token, Utterance, tokenise
from concierge.planner import words
from concierge.planner.text import MASK

__all__ = ["KINDS", "Kind", "OutOfScope", "out_of_scope"]

Kind = Literal["delete", "correction", "advice", "general", "forecast"]
KINDS: tuple[Kind, ...] = ("delete", "correction", "advice", "general", "forecast")  # in the order tried

_REASONS: dict[Kind, dict[str, str]] = {
    "forecast": {
        "ja": "予測はできません。ここで扱えるのは記録済みの実績だけです。",
        "en": "I can't make forecasts; only figures already recorded are available here.",
    },
    "advice": {
        "ja": "発注や仕入れなどの助言はできません。判断の材料として実績の数字はお出しできます。",
        "en": "I can't give advice on what to order or do; I can show the recorded figures to decide from.",
    },
    "correction": {
        "ja": "登録済みの販売やデータはここでは変更・取り消しできません。",
        "en": "Registered sales and data can't be changed or cancelled here.",
    },
    "delete": {
        "ja": "データの削除はできません。ここには削除する機能がありません。",
        "en": "Data can't be deleted here; nothing here deletes records.",
    },
    "general": {
        "ja": "この質問にはお答えできません。ここで答えられるのは記録されたデータについての質問だけです。",
        "en": "I can't answer that here; I only answer questions about the recorded data.",
    },
}


@dataclass(frozen=True)
class OutOfScope:
    """A request no tool can answer: its kind, and the words that say it (indices in the normalised text)."""

    kind: Kind
    start: int
    end: int

    def reason(self, lang: str) -> str:
        """One plain sentence in "ja" or "en" (any other language gets English): what cannot be done, and why."""
        texts = _REASONS[self.kind]
        return texts.get(lang, texts["en"])


_SECTIONS = {"what_is": {"ja", "en", "en_role", "role"},
             **{kind: {"patterns", "followed", "kana"} for kind in (*KINDS, "write")}}  # and [words]: named lists
_FOLLOWED = {"said", "then", "not_then", "within"}
_NAMED = ("form", "surface", "lemma")  # slot keys whose words may be "@name", a list of [words]
TERM_CHARS = 15  # a Japanese term asked about is a few characters
_STOPS = frozenset("?？.。!！")


def _read(text: str) -> dict[str, Any]:
    """The tables of a words file of this module (scope.toml), its "@name" words in place; an unknown table or
    key is refused."""
    table = tomllib.loads(text)
    words = table.get("words", {})
    if not all(isinstance(w, list) and all(isinstance(x, str) for x in w) for w in words.values()):
        raise ValueError("scope.toml: every key of [words] is a list of words")
    for section, entries in table.items():
        allowed = _SECTIONS.get(section, set()) if section != "words" else set(entries)
        if section not in (*_SECTIONS, "words") or set(entries) - allowed:
            raise ValueError(f"scope.toml: unknown table or keys in [{section}]: the tables are [words] and "
                             f"{sorted(_SECTIONS)}, and [{section}] takes {sorted(allowed)}")
        for followed in entries.get("followed", ()):
            if set(followed) - _FOLLOWED:
                raise ValueError(f"scope.toml: a [[{section}.followed]] takes only {sorted(_FOLLOWED)}")
    return _named(table, words)


def _named(value: Any, words: dict[str, list[str]]) -> Any:
    """`value` with every slot word "@name" replaced by the list `name` of [words]."""
    if isinstance(value, list):
        return [_named(v, words) for v in value]
    if not isinstance(value, dict):
        return value
    named = {k: _named(v, words) for k, v in value.items()}
    for key in _NAMED:
        said = named.get(key)
        if isinstance(said, str) and said.startswith("@"):
            if said[1:] not in words:
                raise ValueError(f"scope.toml: no list {said[1:]!r} in [words]")
            named[key] = words[said[1:]]
    return named


@cache
def _table() -> dict[str, Any]:
    return _read(resources.files("concierge.planner.words").joinpath("scope.toml").read_text("utf-8"))


@dataclass(frozen=True)
class _Rule:
    """Words that say a kind (`said`), what must (`then`, one of them; None: the end of the request) or must
    not (`not_then`) come right after them, and how many characters they may span at most (`within`)."""

    said: Pattern
    then: tuple[Pattern | None, ...] = ()
    not_then: tuple[Pattern, ...] = ()
    within: int | None = None

    def at(self, utterance: Utterance, first: int) -> Match | None:
        m = self.said.at(utterance, first)
        if m is None or (self.within is not None and m.end - m.start > self.within):
            return None
        if self.then and not any(_follows(p, utterance, m.last) for p in self.then):
            return None
        if any(_follows(p, utterance, m.last) for p in self.not_then):
            return None
        return m

    @cached_property
    def needs(self) -> tuple[frozenset[str], ...]:
        """For each slot that must be there and says its words: a request must say one of them to match."""
        return tuple(said for slot in self.said.slots
                     if (said := slot.forms | slot.surfaces | slot.lemmas) and slot.least > 0)

    @cached_property
    def first(self) -> frozenset[str] | None:
        """The words the rule's first token must be one of, or None where it may be any."""
        slot = self.said.slots[0]
        said = slot.forms | slot.surfaces | slot.lemmas
        return said if said and slot.least > 0 else None

    @classmethod
    def parse(cls, spec: dict[str, Any]) -> _Rule:
        return cls(Pattern.parse(spec["said"]),
                   tuple(Pattern.parse(p) if p else None for p in spec.get("then", ())),
                   tuple(Pattern.parse(p) for p in spec.get("not_then", ())), spec.get("within"))


def _follows(pattern: Pattern | None, utterance: Utterance, i: int) -> bool:
    if pattern is None:
        return i == len(utterance.tokens)
    return i < len(utterance.tokens) and pattern.at(utterance, i) is not None


@dataclass(frozen=True)
class _Words:
    """One kind's words: rules over tokens, tried at each token from the first (at one token, the rules in
    order), and kana spellings the analyser cuts apart, found where a token begins."""

    rules: tuple[_Rule, ...]
    kana: tuple[str, ...]  # the longest first
    by_word: dict[str, tuple[int, ...]]  # the rules a request that says a word may match
    always: tuple[int, ...]  # the rules any request may match

    def search(self, utterance: Utterance) -> tuple[int, int] | None:
        """The first words of `utterance` that say the kind."""
        found = self._tokens(utterance)
        spelt = self._kana(utterance, found[0] if found else len(utterance.text))
        return spelt or found

    def _tokens(self, utterance: Utterance) -> tuple[int, int] | None:
        tries = sorted((i, r) for r in self._viable(utterance) for i in _starts(self.rules[r], utterance))
        for i, r in tries:
            if (m := self.rules[r].at(utterance, i)) is not None:
                return m.start, m.end
        return None

    def _viable(self, utterance: Utterance) -> set[int]:
        """The rules all of whose words that must be there are said."""
        said = utterance.forms_said
        maybe = {r for w in said if w in self.by_word for r in self.by_word[w]}.union(self.always)
        return {r for r in maybe if all(not need.isdisjoint(said) for need in self.rules[r].needs)}

    def _kana(self, utterance: Utterance, before: int) -> tuple[int, int] | None:
        for token in utterance.tokens[:utterance.starting(0, before).stop]:
            spelt = next((k for k in self.kana if utterance.text.startswith(k, token.start)
                          and token.start + len(k) <= before), None)
            if spelt is not None:
                return token.start, token.start + len(spelt)
        return None


@cache
def _words(section: str) -> _Words:
    """The words of one table of scope.toml: `followed` rules first, then `patterns`."""
    entries = _table()[section]
    rules = (*(_Rule.parse(f) for f in entries.get("followed", ())),
             *(_Rule(Pattern.parse(p)) for p in entries.get("patterns", ())))
    by_word: dict[str, list[int]] = {}
    always = []
    for r, rule in enumerate(rules):
        needs = rule.needs
        if not needs:
            always.append(r)
        for w in needs[0] if needs else ():
            by_word.setdefault(w, []).append(r)
    kana = sorted(entries.get("kana", ()), key=len, reverse=True)
    return _Words(rules, tuple(kana),
                  {w: tuple(rs) for w, rs in by_word.items()}, tuple(always))


@cache
def _patterns(section: str, key: str) -> tuple[Pattern, ...]:
    return tuple(Pattern.parse(p) for p in _table()[section][key])


@cache
def _listed(section: str, key: str) -> frozenset[str]:
    return frozenset(_table()[section][key])


def prepare() -> None:
    """Read scope.toml and build every kind's rules now, so that no request pays for the first to read them."""
    for kind in (*KINDS, "write"):
        _words(kind)


@lru_cache(maxsize=1024)  # a request's clauses are asked about more than once as it is planned
def out_of_scope(text: str, today: date, future: bool) -> OutOfScope | None:
    """What in `text` (normalised) no tool can answer, or None.

    `future` is True when every period the request names lies after `today` (the caller computes it
    from the dates it read); a read question about such a period is a forecast.
    """
    utterance = tokenise(text)
    for kind in KINDS:
        found = _words(kind).search(utterance)
        if found is not None:
            return OutOfScope(kind, *found)
        if kind == "general" and (asked := _what_is(utterance)) is not None:
            return asked
    if future and _words("write").search(utterance) is None:
        return _future_period(text, today)  # as typed: "in May" is a month only capitalised
    return None


def _starts(rule: _Rule, utterance: Utterance) -> Iterable[int]:
    """The tokens `rule` may begin at."""
    first = rule.first
    if first is None:
        return range(len(utterance.tokens))
    said = utterance.by_form
    return {i for w in first if w in said for i in said[w]}


def _what_is(utterance: Utterance) -> OutOfScope | None:
    """A whole request that asks what a term is (MCPとは？, what is MCP?), as a general question."""
    if utterance.text.isascii():
        return _what_is_en(utterance)
    return _what_is_ja(utterance)


def _what_is_ja(utterance: Utterance) -> OutOfScope | None:
    tokens = utterance.tokens
    for i in range(1, len(tokens)):
        if not _term_ja(tokens[:i]):
            return None
        for p in _patterns("what_is", "ja"):
            m = p.at(utterance, i)
            if m is not None and _stops(tokens[m.last:]):
                return OutOfScope("general", tokens[0].start, len(utterance.text.rstrip()))
    return None


def _term_ja(tokens: tuple[Token, ...]) -> bool:
    """Whether tokens may be a Japanese term asked about: a few characters said together, no number, no の or
    mark among them."""
    stops = words.said("term_said", "not")
    return tokens[-1].end - tokens[0].start <= TERM_CHARS and all(
        not (t.is_numeral or t.surface[:1].isdigit() or t.surface in stops or MASK in t.surface)
        and (j == 0 or tokens[j - 1].end == t.start) for j, t in enumerate(tokens))


def _what_is_en(utterance: Utterance) -> OutOfScope | None:
    tokens = utterance.tokens
    first = _term_start(utterance)
    if first is None:
        return None
    last = first
    while last < len(tokens) and tokens[last].surface[:1].isalpha():  # a word, not a number or a mark
        last += 1
    term = {t.lemma for t in tokens[first:last]}
    if not 1 <= last - first <= 4 or not _stops(tokens[last:]) or term & _listed("words", "business"):
        return None
    return OutOfScope("general", tokens[first].start, tokens[last - 1].end)


def _term_start(utterance: Utterance) -> int | None:
    """The token after "what is" (or after "who is", before the word of a role) that begins a request."""
    for p in _patterns("what_is", "en"):
        if (m := p.at(utterance, 0)) is not None:
            return m.last
    for p in _patterns("what_is", "en_role"):
        m = p.at(utterance, 0)
        if (m is not None and m.last < len(utterance.tokens)
                and utterance.tokens[m.last].lemma in _listed("what_is", "role")):
            return m.last
    return None


def _stops(tokens: tuple[Token, ...]) -> bool:
    return all(t.surface in _STOPS for t in tokens)


def _future_period(text: str, today: date) -> OutOfScope:
    """A forecast marked at the first period after today (the whole text when none is read here)."""
    ahead = next((d for d in find_dates(text, today) if d.range.start > today), None)
    if ahead is None:
        return OutOfScope("forecast", 0, len(text))
    return OutOfScope("forecast", ahead.start_index, ahead.end_index)
