"""Reading the values in one request: dates, amounts, goods, codes, names, enum values, referents.

`read` finds what any tool might take, in an order that keeps them apart: dates first
(so 2025年 is not a code), then sums of money (1,500円), goods with their counters
(キュウリ10本), codes by the parameters' patterns and labels (顧客コード0009, customer 9),
enum values and synonyms (a value of the data that is a word of the question only where the
sentence places it as one: planner/frame.py), names (佐藤さん, Mr. Smith, John Smith) and referring
phrases (そのお客様, that customer). What only one tool needs (a count, goods said in
English) is read later, for that tool, by `count` and `english_items`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from decimal import Decimal
from functools import cache, lru_cache
from itertools import groupby
from typing import Any

import regex

from concierge.catalog.model import CountExtract
from concierge.language.dates import DateMatch, DateRange, Impossible, find_dates, impossible_dates
from concierge.language.english import determiners, english_numbers, english_words, qualifiers
from concierge.language.japanese import (
    honorifics,
    multipliers,
    not_name_ends,
    not_names,
    of_particle,
    particles,
    qualifier_pos,
    topic_particle,
)
from concierge.language.numerals import in_tenths
from concierge.language.patterns import Match, Pattern
from concierge.language.scripts import HAN, HIRAGANA, KATAKANA
from concierge.language.times import LATER_DAY_CLOCK, find_times
from concierge.language.tokens import Token, Utterance, japanese, tokenise
from concierge.planner import words
from concierge.planner.frame import Twofold, place
from concierge.planner.kept import left_alone
from concierge.planner.lexicon import PRONOUNS, TOPIC, Lexicon, Synonyms
from concierge.planner.loose import Unsure, in_words, read_loosely
from concierge.planner.text import MASK, WORD_LIMIT, Hit, Phrases, fold, mask, normalise, number, overlaps, remember

Span = tuple[int, int]


_MULTIPLIER = multipliers()
_YEAR_BEFORE = frozenset(words.said("years", "before"))
_YEAR_AFTER = frozenset(words.said("years", "after"))
_PARTICLES = "".join(p for p in particles() if p not in words.said("names", "particles_within"))
_JOINERS = frozenset(words.said("joiners", "words"))
_HONORIFICS = tuple(sorted(honorifics(), key=len, reverse=True))
_NOT_NAMES = not_names()
_NOT_NAME_ENDS = not_name_ends()
_BEFORE_COUNT = frozenset(words.said("counters", "before_count"))  # トマト|を|2個
_KANJI_KANA_LATIN = regex.compile(rf"[{HAN}{KATAKANA}A-Za-z・]")
_KANJI = regex.compile(rf"[{HAN}]")
_KATAKANA = regex.compile(rf"[{KATAKANA}]")
_HIRAGANA = regex.compile(rf"[{HIRAGANA}]")
_TITLES = frozenset(words.said("names", "titles"))
_NAME_WORDS = 2  # the words of a name after a title: Mr. John Smith
_CAPITALISED_WORDS = 3  # the most capitalised words read as one name
_NOT_CAPITALISED_NAMES = english_words("names")
_EN_NOT_GOODS = english_words("goods")


@dataclass(frozen=True)
class Code:
    value: str
    pattern: str
    start: int
    end: int
    label: str | None = None
    by_name: bool = False  # said by a name the catalog gives it (赤 for 255:0:0)
    qualified: int | None = None  # where a word said before the name starts that makes it another value (warm white)


@dataclass
class Slots:
    """Everything read from one request's text (positions refer to that text)."""

    text: str
    folded: str
    dates: list[DateMatch] = field(default_factory=list)
    focus: DateRange | None = None  # the previous turn's period, which その前の週 moves from
    stray: list[str] = field(default_factory=list)  # a number said with a label no catalog knows (会員番号123)
    impossible: list[Impossible] = field(default_factory=list)  # 2025-02-30: refused, never replaced
    amounts: list[tuple[int, Span]] = field(default_factory=list)
    times: list[tuple[str, Span]] = field(default_factory=list)  # times of day, HH:MM (18時半, 6:30 pm)
    items: list[tuple[str, Span]] = field(default_factory=list)
    codes: list[Code] = field(default_factory=list)
    enums: list[Hit[frozenset[tuple[str, str]]]] = field(default_factory=list)
    names: list[tuple[str, Span]] = field(default_factory=list)
    named_values: list[tuple[str, Span]] = field(default_factory=list)  # 佐藤 花子|さん: a value of the data, a person
    keys: list[tuple[str, Span]] = field(default_factory=list)  # a key said as one, no reading took (ALFKI)
    name_labels: dict[Span, str] = field(default_factory=dict)  # a name read after a label: the label (folded)
    referred: set[str] = field(default_factory=set)  # parameter names pointed back at (そのお客様)
    pronoun: bool = False  # they / their / 彼: points back at whatever is missing
    understood: list[tuple[str, str]] = field(default_factory=list)  # (words said, value) read loosely
    unsure: list[Unsure] = field(default_factory=list)  # words naming several values: asked
    unknown: list[tuple[str, Span]] = field(default_factory=list)  # words that look like a value, name none
    twofold: list[Twofold] = field(default_factory=list)  # a value that is also a word of the question: asked
    kept: set[str] = field(default_factory=set)  # values said to be left as they are (寝室はそのままで)
    every_but: bool = False  # 寝室以外, except the bedroom: every value but those kept
    kept_groups: set[str] = field(default_factory=set)  # the enum groups of the kept values
    alone: tuple[Span, ...] = ()  # where the request says what is left as it is, or not done (消すんじゃなくて)
    cue_text: str = ""  # folded text with codes and names masked: where keywords are looked for
    read_text: str = ""  # folded text with the values read masked (enum values and synonyms left)
    # what is worked out from the read once, by what was asked (the keywords' parts for a catalog set offered, the
    # kinds of value a tool takes, the count said for a parameter); a copy made by `replace` works out its own
    memo: dict[tuple, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def people(self, read_by: Collection[str]) -> list[tuple[str, Span]]:
        """The people of the data said (`named_values`) but those a tool reads by a group of `read_by` already
        (鈴木さんが担当している得意先: the staff member, read as the 担当者, is no customer's name)."""
        groups, read = self._groups_by_span(), set(read_by)
        return [(n, s) for n, s in self.named_values if not groups.get(s, set()) & read]

    def groups_of_people(self) -> set[str]:
        """The enum groups whose values the people of the data said are (顧客の佐藤 花子さん: the customers' names)."""
        groups = self._groups_by_span()
        return {k for _, s in self.named_values for k in groups.get(s, ())}

    def _groups_by_span(self) -> dict[Span, set[str]]:
        out: dict[Span, set[str]] = {}
        for h in self.enums:
            out.setdefault((h.start, h.end), set()).update(k for k, _ in h.value)
        return out

    def enum_values(self, group: str) -> list[str]:
        return list(dict.fromkeys(value for h in self.enums for key, value in sorted(h.value) if key == group))


def read(text: str, today: date, lexicon: Lexicon, enum_values: Mapping[str, list[str]],
         focus: DateRange | None = None, enum_synonyms: Synonyms | None = None, now: str | None = None) -> Slots:
    remember(text)
    slots = Slots(text, fold(text), focus=focus)
    slots.dates = find_dates(text, today, focus)
    slots.impossible = impossible_dates(text, today)
    taken: list[Span] = [(d.start_index, d.end_index) for d in slots.dates] + [
        (bad.start, bad.end) for bad in slots.impossible]
    clock = LATER_DAY_CLOCK if any(d.range.start > today for d in slots.dates) else now  # 明日8時半, tomorrow at 6
    slots.times = [(t.value, (t.start, t.end)) for t in find_times(mask(text, taken), clock)] \
        if lexicon.takes_times else []
    taken += [s for _, s in slots.times]
    slots.amounts = _amounts(text, mask(text, taken))
    taken += [s for _, s in slots.amounts]
    # Goods with counters only where a tool records them: else 大盛りで2つ is an option and a count.
    slots.items = _japanese_items(mask(text, taken), lexicon.counters, lexicon.vocabulary) \
        if lexicon.takes_goods else []
    taken += [s for _, s in slots.items]
    slots.codes = _codes(text, slots.folded, taken, lexicon)
    code_spans = [(c.start, c.end) for c in slots.codes]
    taken += code_spans
    slots.stray = _labelled_numbers(text, mask(text, taken))
    slots.stray += _days_of_week(text, taken)  # 今月の土日: days no tool picks
    alone = _left_alone(slots, taken, lexicon, enum_values, enum_synonyms or {})
    taken += list(alone)
    named = _enums(slots, taken, lexicon, enum_values, enum_synonyms or {})
    if slots.every_but:  # 寝室以外|の電気: the lights of which every other one is meant, not one to ask about
        slots.unsure = [u for u in slots.unsure if not any(u.span[0] - 1 <= e <= u.span[0] for _, e in alone)]
    taken += [(h.start, h.end) for h in slots.enums] + [u.span for u in slots.unsure]
    slots.names = _names(text, slots.folded, taken + [t.span for t in slots.twofold], lexicon, slots.name_labels)
    # 鈴木様の予約: a person's name, never a value of the data that names none
    slots.unknown = [u for u in slots.unknown if not overlaps(u[1], [s for _, s in slots.names])]
    slots.named_values = _persons(text, [(h.start, h.end) for h in slots.enums])
    name_spans = [s for _, s in slots.names]
    slots.keys = _keys(text, mask(text, taken + name_spans + [t.span for t in slots.twofold]), lexicon)
    name_spans += [s for _, s in slots.keys]
    if lexicon.referring:
        for m in lexicon.referring.finditer(slots.folded):
            slots.referred |= lexicon.refer[m.group("noun")]
    slots.pronoun = PRONOUNS.search(mask(text, name_spans)) is not None
    slots.cue_text = mask(slots.folded, code_spans + name_spans + named + _data_values(slots, lexicon) + list(alone))
    enum_spans = {(h.start, h.end) for h in slots.enums}
    slots.read_text = mask(slots.folded, [s for s in taken if s not in enum_spans] + name_spans)
    return slots


def _left_alone(slots: Slots, taken: list[Span], lexicon: Lexicon, enum_values: Mapping[str, list[str]],
                synonyms: Synonyms) -> tuple[Span, ...]:
    """Values said to be left as they are (寝室はそのままで, except the bedroom), with the words that say so: read
    apart into `kept`, never among the values the request is read for (planner/kept.py)."""
    alone = left_alone(slots.text, slots.folded)
    if not alone.spans:
        return ()
    apart = Slots(slots.text, slots.folded)
    edges = sorted(alone.values)
    outside = [(end, start) for (_, end), (start, _) in zip([(0, 0), *edges], [*edges, (len(slots.text), 0)],
                                                             strict=True)]
    _enums(apart, taken + [s for s in outside if s[0] < s[1]], lexicon, enum_values, synonyms)
    slots.kept = {v for h in apart.enums for _, v in h.value}
    slots.kept_groups = {k for h in apart.enums for k, _ in h.value}
    slots.every_but = alone.every_but and bool(slots.kept)  # 寝室以外 with 寝室 read: every other light
    slots.alone = alone.spans
    return alone.spans


def _data_values(slots: Slots, lexicon: Lexicon) -> list[Span]:
    """The spans of values read from the data that are no words of any tool's keywords: no keyword is found
    across their edge (シーフードの商品 is Seafood and 商品, never どの商品)."""
    out = []
    for hit in slots.enums:
        data = [key for key, _ in hit.value if key not in lexicon.static_values]
        if data and len(data) == len(hit.value) and not lexicon.cues.find(slots.folded[hit.start:hit.end]):
            out.append((hit.start, hit.end))
    return out


_COUNTED = Pattern.parse([{"is": "numeral"}, {"is": "counter"}])


def _counted(text: str) -> list[Span]:
    """The numbers said with a counter (10本, 3つ): how many of something, never part of a value said loosely (the
    room 101 of 10本)."""
    return [(m.start, m.end) for m in _COUNTED.finditer(tokenise(text))] if japanese(text) else []


def _enums(slots: Slots, taken: list[Span], lexicon: Lexicon, enum_values: Mapping[str, list[str]],
           synonyms: Synonyms) -> list[Span]:
    """The enum values said, exactly or loosely, less the values of the data that are words of the question
    where the sentence does not place them as values (planner/frame.py); the spans of those it names."""
    text, masked = slots.text, mask(slots.folded, taken)
    exact = [h for h in lexicon.enum_phrases(enum_values, synonyms).find(masked) if in_words(text, h.start, h.end)]
    loose = read_loosely(text, taken + _counted(text), exact, lexicon.matchers(enum_values, synonyms), lexicon.known)
    placed = place(text, masked, loose.hits, lexicon)
    slots.enums = sorted((_of_role(h, slots.folded, lexicon) for h in placed.hits), key=lambda h: h.start)
    slots.understood = [u for u in loose.understood if u not in placed.dropped]
    slots.unsure, slots.unknown, slots.twofold = loose.unsure, loose.unknown, placed.asked
    return placed.named


_SAID_OF = ("の", "が", "は", "")  # what stands between a group's word and its value (状態が受付, 顧客の鈴木)


def _of_role(hit: Hit[frozenset[tuple[str, str]]], folded: str, lexicon: Lexicon) -> Hit[frozenset[tuple[str, str]]]:
    """A value of several groups said after what one group's values are (顧客の鈴木 大輔, スタッフの鈴木さん,
    状態が受付): of that group only."""
    if len({k for k, _ in hit.value}) < 2:
        return hit
    before = folded[:hit.start].rstrip()
    kept = frozenset((k, v) for k, v in hit.value if any(
        before.endswith(f"{w}{p}") for w in lexicon.role_words(k) if w for p in _SAID_OF))
    return replace(hit, value=kept) if kept else hit


def _amounts(text: str, masked: str) -> list[tuple[int, Span]]:
    """Sums of money, with their sign: -600円 and マイナス600円 stay negative (the planner refuses them); outside
    what `masked` masks."""
    if not any(c.isdigit() for c in masked):
        return []
    said = tokenise(text)
    out: list[tuple[int, Span]] = []
    i = 0
    while i < len(said.tokens):
        found = _amount_at(said, masked, i)
        if found is None:
            i += 1
            continue
        value, (start, end), sign = found
        out.append((-value if sign else value, (start, end)))
        i = said.starting(end, len(text) + 1).start
    return out


def _amount_at(said: Utterance, masked: str, i: int) -> tuple[int, Span, bool] | None:
    """The sum of money whose figure (or ¥) is token `i`: its value, span and whether a sign makes it negative."""
    tokens = said.tokens
    currency = tokens[i].surface in words.said("amount_marks", "currency")
    first = _first_after(said, tokens[i].end) if currency else i
    figure = _figure_at(said, masked, first) if first is not None else None
    if figure is None or (not currency and _after_figure(said, tokens[i])):
        return None
    last, value = figure
    multiplier = _first_after(said, tokens[last - 1].end)
    if multiplier is not None and tokens[multiplier].surface in _MULTIPLIER and _unmasked(masked, tokens[multiplier]):
        value, last = value * _MULTIPLIER[tokens[multiplier].surface], multiplier + 1
    if not currency:
        unit = _first_after(said, tokens[last - 1].end)
        if unit is None or tokens[unit].surface.lower() not in words.said("compare", "amount_units") \
                or not _unmasked(masked, tokens[unit]):
            return None
        last = unit + 1
    sign = _sign_before(said, masked, i)
    return int(value), (sign if sign is not None else tokens[i].start, tokens[last - 1].end), sign is not None


def _unmasked(masked: str, token: Token) -> bool:
    return MASK not in masked[token.start:token.end]


def _after_figure(said: Utterance, token: Token) -> bool:
    """Whether the token is glued to a digit, a point or a comma before it (1.|5, 1,|500): no figure starts there."""
    before = said.ending_at(token.start)
    return before is not None and before.surface[-1] in words.said("amount_marks", "within") + tuple("0123456789")


def _figure_at(said: Utterance, masked: str, i: int) -> tuple[int, Decimal] | None:
    """The figure said from token `i` (1,500, 3万, 1.5, 1|,|500): the index after its last token, and its value."""
    tokens = said.tokens
    if not tokens[i].surface[:1].isdigit() or not _unmasked(masked, tokens[i]):
        return None
    last = i + 1
    while last < len(tokens) and tokens[last].start == tokens[last - 1].end and _unmasked(masked, tokens[last]) and (
            tokens[last].surface[:1].isdigit() or tokens[last].surface in words.said("amount_marks", "within")):
        last += 1
    while last > i + 1 and not tokens[last - 1].surface[:1].isdigit():
        last -= 1
    if last == i + 1 and tokens[i].is_numeral:
        return last, Decimal(tokens[i].normal)
    figure = said.text[tokens[i].start:tokens[last - 1].end].replace(",", "")
    try:
        return last, Decimal(figure)
    except ArithmeticError:
        return None


def _sign_before(said: Utterance, masked: str, i: int) -> int | None:
    """Where the sign said before token `i` starts (-, ▲, マイナス, minus), spaces perhaps between; None where none
    is, or the mark is the long vowel of a katakana word before it (ケーキー600円)."""
    before = said.starting(0, said.tokens[i].start)
    if not before or said.text[said.tokens[before.stop - 1].end:said.tokens[i].start].strip():
        return None
    sign = said.tokens[before.stop - 1]
    signs = words.said("amount_marks", "signs")
    if sign.end == said.tokens[i].start and sign.surface.endswith(signs) and sign.surface[:-1].isalpha() \
            and sign.surface.isascii():  # x-600: a hyphen the words in Latin letters take in
        return sign.end - 1 if _unmasked(masked, sign) else None
    if not _unmasked(masked, sign) or sign.surface.lower() not in (*signs, *words.said("amounts", "minus")):
        return None
    if sign.surface in words.said("amount_marks", "long_vowel"):
        prior = said.ending_at(sign.start)
        if prior is not None and _KATAKANA.match(prior.surface[-1]):
            return None
    return sign.start


def _labelled_numbers(text: str, masked: str) -> list[str]:
    """Numbers said after a label no catalog knows (会員番号123, member number 5): a word ending in one of `[labels]
    code`, the words in kanji, katakana or Latin letters glued before it, a mark of `[code_marks]` perhaps, digits."""
    if not any(c.isdigit() for c in masked):
        return []
    said = tokenise(text)
    out = []
    for i, token in enumerate(said.tokens):
        label = token.surface.removesuffix(".")
        if not label.endswith(words.said("labels", "code")) or not _unmasked(masked, token):
            continue
        digits = _digits_after_label(said, masked, i)
        if digits is not None:
            out.append(text[_glued_words_before(said, masked, i):said.tokens[digits].end].strip())
    return out


def _digits_after_label(said: Utterance, masked: str, i: int) -> int | None:
    """The index of the digits said after the label at token `i` (番号123, No. 5, ID#12), if they are."""
    at = _first_after(said, said.tokens[i].end)
    for skipped in (words.said("code_marks", "dots"), words.said("code_marks", "labelled")):
        if at is not None and said.tokens[at].surface in skipped:
            at = _first_after(said, said.tokens[at].end)
    if at is None or not said.tokens[at].surface.isdigit() or not _unmasked(masked, said.tokens[at]):
        return None
    return at


def _glued_words_before(said: Utterance, masked: str, i: int) -> int:
    """Where the words in kanji, katakana or Latin letters glued before token `i` start (会員|番号): token i's start
    where none are, at most `WORD_LIMIT` characters before."""
    start = said.tokens[i].start
    while i > 0 and said.tokens[i - 1].end == said.tokens[i].start and _unmasked(masked, said.tokens[i - 1]) \
            and all(_KANJI_KANA_LATIN.match(c) and c != "・" for c in said.tokens[i - 1].surface) \
            and said.tokens[i].start - said.tokens[i - 1].start <= WORD_LIMIT:
        i -= 1
        start = said.tokens[i].start
    return start


def _days_of_week(text: str, taken: list[Span]) -> list[str]:
    """Days of the week said as a set (土日, 月曜だけ, weekends): `[days]` token patterns, outside what is read."""
    if not words.may_match("days", "patterns", text):
        return []
    said = tokenise(text)
    return [text[m.start:m.end] for p in words.token_patterns("days", "patterns") for m in p.finditer(said)
            if not overlaps((m.start, m.end), taken)]


def _a_year(text: str, start: int, end: int, value: str) -> bool:
    return (value.isdigit() and len(value) == 4 and 1900 <= int(value) <= 2100
            and (_said_as_year(text, start, end) or _month_after(text, end)))


_MONTH_DIGITS = 2


def _month_after(text: str, end: int) -> bool:
    """Whether a month follows the number at `end`, joined by a mark of `[year_month] joiners` (2024-02, 2024/2)."""
    said = tokenise(text)
    at = said.starting(end, len(text) + 1)
    if len(at) < 2 or said.tokens[at.start].start != end:
        return False
    mark, month = said.tokens[at.start], said.tokens[at.start + 1]
    return mark.surface in words.said("year_month", "joiners") and month.start == mark.end \
        and month.surface.isdigit() and len(month.surface) <= _MONTH_DIGITS


def _said_as_year(text: str, start: int, end: int) -> bool:
    """Whether a word of `[years]` is said right before the number (in 2024, 年度2024) or after it (2024年)."""
    said = tokenise(text)
    at = said.starting(start, end)
    before = said.tokens[at.start - 1] if at and at.start > 0 else None
    after = said.tokens[at.stop] if at and at.stop < len(said.tokens) else None
    return (before is not None and before.surface.lower() in _YEAR_BEFORE
            and (before.end == start or (before.surface.isascii() and text[before.end:start].isspace()))) or (
        after is not None and after.surface in _YEAR_AFTER and not text[end:after.start].strip())


def _japanese_items(text: str, counters: Sequence[str], vocabulary: set[str]) -> list[tuple[str, Span]]:
    """Goods said with how many of them (かぼちゃ4個, トマトを2個); goods joined by a word of `[joiners]` are one
    list (キュウリ10本とナス5個)."""
    found: list[tuple[str, int, int]] = []
    said = tokenise(text)
    for i, token in enumerate(said.tokens):
        counter = _counter_after(said, i, counters)
        if counter is None:
            continue
        noun = _goods_before(said, i)
        if noun is None:
            continue
        start, end = noun
        if any(fold(text[start:end]).endswith(word) for word in vocabulary):
            continue  # 売上上位3つ is a count, not goods
        found.append((f"{text[start:end]}{token.surface}{counter[0]}", start, counter[1]))
    out: list[tuple[str, Span]] = []
    for goods, start, end in found:
        if out and _joined(text, out[-1][1][1], start):
            joined = out[-1][0] + text[out[-1][1][1] : start].strip() + goods
            out[-1] = (joined, (out[-1][1][0], end))
        else:
            out.append((goods, (start, end)))
    return out


def _counter_after(said: Utterance, i: int, counters: Sequence[str]) -> tuple[str, int] | None:
    """The counter said right after the number that token `i` is (4|個, 1.5|kg), and where it ends."""
    number = said.tokens[i]
    if not number.surface.replace(".", "", 1).isdigit():
        return None
    rest = said.text[number.end:]
    after = len(rest) - len(rest.lstrip())
    for counter in counters:
        end = number.end + after + len(counter)
        if rest[after:].startswith(counter) and said.ends_at(end) and said.starts_at(number.end + after):
            return counter, end
    return None


def _goods_before(said: Utterance, i: int) -> Span | None:
    """The words of goods said before the number that token `i` is: the letters of the tokens written one after
    another up to it, a particle of `[counters] before_count` perhaps between (トマト|を|2個); none that is a
    particle (お客様に|かぼちゃ), a mark or a value read before (a mask)."""
    last = i - 1
    if last >= 0 and said.tokens[last].surface in _BEFORE_COUNT and said.tokens[last].is_particle:
        last -= 1
    if last < 0 or said.text[said.tokens[last].end:said.tokens[last + 1].start].strip():
        return None
    first = last + 1
    while first > 0 and _goods_word(said.tokens[first - 1]) \
            and said.tokens[last].end - said.tokens[first - 1].start <= WORD_LIMIT \
            and (first == last + 1 or said.tokens[first - 1].end == said.tokens[first].start):
        first -= 1
    return (said.tokens[first].start, said.tokens[last].end) if first <= last else None


def _goods_word(token: Token) -> bool:
    return token.surface.isalpha() and not (token.is_particle or token.is_auxiliary)


def _joined(text: str, end: int, start: int) -> bool:
    """Whether only a word of `[joiners]` is said between two values (キュウリ10本とナス5個, 3 pumpkins and 2 eggs)."""
    return text[end:start].strip().lower() in _JOINERS


def _codes(text: str, folded: str, taken: list[Span], lexicon: Lexicon) -> list[Code]:
    found: list[Code] = []
    for hit in lexicon.code_labels.find(mask(folded, taken)):
        kind = lexicon.codes[hit.value]
        said = _code_after_label(text, hit.end)
        if said is None or overlaps(said[1], taken):
            continue
        value = _fit(said[0], kind.pattern)
        if value is not None:
            found.append(Code(value, kind.pattern, hit.start, said[1][1], hit.phrase))
    spans = taken + [(c.start, c.end) for c in found]
    found += [Code(hit.value[1], hit.value[0], hit.start, hit.end, by_name=True,  # 赤 for 255:0:0
                   qualified=_qualifier(text, hit.start, taken))
              for hit in lexicon.code_names.find(mask(folded, spans))]
    spans = taken + [(c.start, c.end) for c in found]
    found += _numbered(text, mask(text, spans), lexicon)  # 9番さん, No.2: a number said as someone's number
    spans = taken + [(c.start, c.end) for c in found]
    masked = mask(text, spans)
    for pattern, kind in lexicon.codes.items():
        for m in kind.regex.finditer(masked):
            if not _a_year(text, m.start(), m.end(), m.group()):
                found.append(Code(m.group(), pattern, m.start(), m.end()))
            masked = mask(masked, [m.span()])
    return sorted(found, key=lambda c: c.start)


def _code_after_label(text: str, end: int) -> tuple[str, Span] | None:
    """The code said after a label that ends at `end` (顧客コード0009, コードは0009, customer no. 5, ID: 12, customer
    #9): marks and words of `[code_marks]` and `[labels]` perhaps between; letters, digits and hyphens glued."""
    said = tokenise(text)
    i = _first_after(said, end)
    for skipped in (words.said("code_marks", "dots"), (*words.said("code_marks", "marks"),
                    *words.said("labels", "particles")), words.said("labels", "before_code"),
                    words.said("code_marks", "dots")):
        if i is not None and said.tokens[i].surface.lower() in skipped:
            i = _first_after(said, said.tokens[i].end)
    if i is None:
        return None
    last = i
    while last < len(said.tokens) and _of_code(said.tokens[last]) and (
            last == i or said.tokens[last].start == said.tokens[last - 1].end):
        last += 1
    if last == i:
        return None
    span = (said.tokens[i].start, said.tokens[last - 1].end)
    return text[span[0]:span[1]], span


def _of_code(token: Token) -> bool:
    """A token of a code said after its label: letters, digits, hyphens (R-5005, BX12)."""
    return all(c.isascii() and (c.isalnum() or c == "-") for c in token.surface)


def _word_before(said: Utterance, start: int, masked: str = "") -> Token | None:
    """The English word said right before `start`, spaces between (not masked in `masked`, where given)."""
    before = said.starting(0, start)
    if not before:
        return None
    word = said.tokens[before.stop - 1]
    spaced = word.end < start and said.text[word.end:start].isspace()
    if not spaced or not word.surface.replace("'", "").isalpha() or not word.surface.isascii():
        return None
    return None if MASK in masked[word.start:word.end] else word


def _qualifier(text: str, start: int, taken: list[Span]) -> int | None:
    """Where the word said right before a value given by name starts, when it makes the value another one
    (warm white, 薄い青, 明るい赤); None when there is none (make it red, the light red, 赤にして)."""
    said = tokenise(text)
    word = _word_before(said, start)
    if word is not None and word.surface.lower() in qualifiers():
        that = _word_before(said, word.start)
        if that is None or that.surface.lower() not in determiners():
            return word.start
    before = said.ending_at(start) if japanese(text) else None
    if before is not None and before.pos[0] in qualifier_pos() and not overlaps((before.start, before.end), taken):
        return before.start
    return None


_NUMBER_MARKS = frozenset(words.said("numbered", "before"))
_AFTER_NUMBERED = frozenset(words.said("numbered", "after"))
_NUMBER_COUNTERS = frozenset(words.said("numbered", "counters"))
_NUMBERED_DIGITS = 6


def _numbered(text: str, masked: str, lexicon: Lexicon) -> list[Code]:
    """A number after No. / # or before 番 fitted to a code that names someone (a customer code)."""
    people = [p for p, kind in lexicon.codes.items() if kind.refers]
    found = []
    for digits, span in _numbers_of_people(text, masked):
        for pattern in people:
            value = _fit(digits, pattern)
            if value is not None:
                found.append(Code(value, pattern, *span, "#"))
                break
    return found


def _numbers_of_people(text: str, masked: str) -> list[tuple[str, Span]]:
    """Numbers said as someone's number, outside what is read: after a word of `[numbered] before` (No.2, # 12),
    or before 番 with a word of `after` or nothing next (9番さん, 3番の, ０００３番)."""
    if not any(c.isdigit() for c in masked):
        return []
    tokens = tokenise(text).tokens
    out = []
    for i, t in enumerate(tokens):
        if not (t.surface.isdigit() and len(t.surface) <= _NUMBERED_DIGITS) or MASK in masked[t.start:t.end]:
            continue
        mark = _number_mark(tokens, i)
        if mark is not None:
            out.append((t.surface, (mark.start, t.end)))
        elif i + 1 < len(tokens) and tokens[i + 1].surface in _NUMBER_COUNTERS and _said_alone(text, tokens, i + 2):
            out.append((t.surface, (t.start, tokens[i + 1].end)))
    return out


def _said_alone(text: str, tokens: tuple[Token, ...], i: int) -> bool:
    """Whether token `i` ends what is said before it: there is none, a space comes first, or it is a word of
    `[numbered] after` (番|さん, 番|の)."""
    return i == len(tokens) or tokens[i].surface in _AFTER_NUMBERED or tokens[i - 1].end < tokens[i].start


def _number_mark(tokens: tuple[Token, ...], i: int) -> Token | None:
    """The No. / # said right before token `i` (No.2, No 2, #12), if one is."""
    before = tokens[i - 1] if i else None
    if before is not None and before.surface == "." and i > 1:
        before = tokens[i - 2]
    return before if before is not None and before.surface.lower().rstrip(".") in _NUMBER_MARKS else None


def _fit(value: str, pattern: str) -> str | None:
    if re.fullmatch(pattern, value):
        return value
    if value.isdigit():
        for width in range(len(value) + 1, 13):
            if re.fullmatch(pattern, value.zfill(width)):
                return value.zfill(width)
    return None


def _names(text: str, folded: str, taken: list[Span], lexicon: Lexicon,
           labelled: dict[Span, str] | None = None) -> list[tuple[str, Span]]:
    """The names said; `labelled` gets the label each name read after a label was read after."""
    masked = mask(text, taken)
    labelled = {} if labelled is None else labelled
    out: list[tuple[str, Span]] = []
    said = tokenise(text)
    for honorific, end in _honorifics(text, masked):
        name, start = _name_before(said, masked, honorific)
        if name and name not in _NOT_NAMES and not name.endswith(_NOT_NAME_ENDS) \
                and fold(normalise(name)) not in lexicon.vocabulary \
                and not any(said.tokens[i].is_verb or said.tokens[i].is_auxiliary
                            for i in said.starting(start, start + len(name))):
            out.append((name, (start, end)))  # never 会員 of 会員さん (the catalog's noun), nor たくさんやった先生
    for hit in lexicon.name_labels.find(mask(folded, taken)):
        after = _name_after_label(text, masked, hit.end)
        if after and not overlaps(after[1], [s for _, s in out]):
            name = _trim_name(after[0])
            if name and name.lower() not in _NOT_CAPITALISED_NAMES:
                span = (hit.start, after[1][0] + len(name))
                out.append((name, span))
                labelled[span] = hit.value
    for name, span in _titled(text, masked):
        if not overlaps(span, [s for _, s in out]):
            out.append((name, span))
    latin = said if any(c.isascii() and c.isupper() for c in masked) else None
    for span in _capitalised(latin, masked) if latin else []:
        if not overlaps(span, [s for _, s in out]):
            out += _capitalised_name(masked, span, lexicon)
    for span in _symbol_names(latin, masked) if latin else []:
        if not overlaps(span, [s for _, s in out]) and fold(text[span[0]:span[1]]) not in lexicon.vocabulary:
            out.append((text[span[0]:span[1]], span))
    return sorted(out, key=lambda n: n[1][0])


def _latin_words(said: Utterance, masked: str, also: str = "") -> list[tuple[int, int]]:
    """The words in Latin letters (apostrophes and hyphens within, and the characters `also`), outside what is
    read: tokens glued together, as spans."""
    out: list[tuple[int, int]] = []
    for token in said.tokens:
        if not all(c.isascii() and (c.isalpha() or c in "'-" or c in also) for c in token.surface) \
                or MASK in masked[token.start:token.end]:
            continue
        if out and out[-1][1] == token.start:
            out[-1] = (out[-1][0], token.end)
        else:
            out.append((token.start, token.end))
    return out


def _capitalised(said: Utterance, masked: str) -> list[Span]:
    """Capitalised words, up to three apart by spaces (John Smith): the spans of each run of them."""
    out: list[tuple[int, int, int]] = []
    for start, end in _latin_words(said, masked):
        word = said.text[start:end]
        if not (word[0].isupper() and word[1:2].islower()):
            continue
        if out and out[-1][2] < _CAPITALISED_WORDS and said.text[out[-1][1]:start].isspace():
            out[-1] = (out[-1][0], end, out[-1][2] + 1)
        else:
            out.append((start, end, 1))
    return [(start, end) for start, end, _ in out]


def _symbol_names(said: Utterance, masked: str) -> list[Span]:
    """Names written as letters joined by a mark of `[symbol_names] marks`, or capitals with digits (AC/DC, AT&T, U2,
    B-52s): proper nouns wherever they stand, in an English or a Japanese sentence."""
    marks = "".join(words.said("symbol_names", "marks"))
    out = []
    for start, end in _latin_words(said, masked, also=marks + "0123456789"):
        tokens = [said.tokens[i] for i in said.starting(start, end)]
        last = tokens[-1].surface.removesuffix("'s")
        if _joined_by_marks(tokens, last) or _capitals_with_digits(tokens, last):
            out.append((start, tokens[-1].start + len(last)))
    return out


def _joined_by_marks(tokens: list[Token], last: str) -> bool:
    """Words joined by marks: AC|/|DC, AT|&|T."""
    said = [t.surface for t in tokens[:-1]] + [last]
    marks = words.said("symbol_names", "marks")
    return len(said) >= 3 and len(said) % 2 == 1 and said[0][0].isupper() \
        and all(w.isalpha() for w in said[::2]) and all(m in marks for m in said[1::2])


_CAPITALS_DIGITS = 3  # the most capitals, and the most digits, of a name like B-52


def _capitals_with_digits(tokens: list[Token], last: str) -> bool:
    """Capitals, a hyphen perhaps, digits and perhaps one small letter: U|2, B-|52|s, B|-|52."""
    said = [t.surface for t in tokens[:-1]] + [last]
    capitals = said.pop(0).removesuffix("-")
    if said and said[0] == "-":
        said.pop(0)
    digits = said.pop(0) if said else ""
    small = said.pop(0) if said else ""
    small_letter = not small or (len(small) == 1 and small.islower())
    return not said and 0 < len(capitals) <= _CAPITALS_DIGITS and capitals.isupper() and capitals.isalpha() \
        and digits.isdigit() and len(digits) <= _CAPITALS_DIGITS and small_letter


def _name_after_label(text: str, masked: str, end: int) -> tuple[str, Span] | None:
    """The words said as a name after a label that ends at `end` (名前は佐藤, name is John Smith, 「Queen」):
    a mark or word of `[name_marks]` and `[labels] before_name` perhaps between, then words in kanji, katakana or
    Latin letters, glued or apart by spaces; the name and its span."""
    said = tokenise(text)
    i = _first_after(said, end)
    for skipped in ((*words.said("name_marks", "before"), *words.said("labels", "before_name")),
                    words.said("name_marks", "quotes")):
        if i is not None and said.tokens[i].surface.lower() in skipped:
            i = _first_after(said, said.tokens[i].end)
    if i is None or said.tokens[i].surface[0] in words.said("name_marks", "within"):
        return None
    start, stop = said.tokens[i].start, _name_words_end(said, masked, i)
    return (text[start:stop], (start, stop)) if stop > start else None


def _name_words_end(said: Utterance, masked: str, i: int) -> int:
    """Where the words of a name from token `i` end: words in kanji, katakana or Latin letters, glued or apart by
    spaces, up to a possessive 's (John Smith's)."""
    within = words.said("name_marks", "within")
    stop = said.tokens[i].start
    for last in range(i, len(said.tokens)):
        token = said.tokens[last]
        word = token.surface.removesuffix("'s")
        if (last > i and said.text[said.tokens[last - 1].end:token.start].strip()) or not _unmasked(masked, token) \
                or not all(_KANJI_KANA_LATIN.match(c) or c in within for c in word):
            break
        stop = token.start + len(word)
        if len(word) < len(token.surface):
            break
    return stop


def _persons(text: str, spans: list[Span]) -> list[tuple[str, Span]]:
    """The values of the data that are people: said with an honorific after them (佐藤 花子さん) or read as a
    person's name (高橋 誠: a family name first, one word after it at most), whom a tool that finds people by
    name finds too."""
    said = tokenise(text)
    out = []
    for start, end in spans:
        within = [said.tokens[i] for i in said.starting(start, end)]
        then = said.starting(end, end + 1)
        honoured = bool(then) and said.tokens[then.start].surface in _HONORIFICS
        person = bool(within) and within[0].is_family_name and len(within) <= 2  # 高橋|誠, where 誠 is read as a noun
        if within and not text[start:end].isascii() and (honoured or person):
            out.append((text[start:end], (start, end)))
    return out


def _honorifics(text: str, masked: str) -> list[Span]:
    """The honorifics said (佐藤さん, 山田様): a word that is one or ends with one, outside what is read; never the end
    of a word that is no noun (たくさん, an adverb: 一番たくさん is no one called 一番たく)."""
    if not any(h in masked for h in _HONORIFICS):
        return []
    out = []
    for token in tokenise(text).tokens:
        if token.pos and token.pos[0] in _NO_NAME_ENDS_HERE:
            continue
        said = next((h for h in _HONORIFICS if token.surface.endswith(h)), None)
        if said is not None and MASK not in masked[token.start:token.end]:
            out.append((token.end - len(said), token.end))
    return out


_NO_NAME_ENDS_HERE = frozenset({"副詞", "形状詞", "連体詞", "接続詞", "感動詞"})  # parts of speech no name ends


def _titled(text: str, masked: str) -> list[tuple[str, Span]]:
    """Names said after a title (Mr. Brown's, Dr Smith): the capitalised words after a word of `[names] titles`."""
    low = text.lower()
    if not any(title in low for title in _TITLES):
        return []
    tokens = tokenise(text).tokens
    out = []
    for i, title in enumerate(tokens):
        if title.surface.lower().rstrip(".") not in _TITLES or not title.surface[0].isupper():
            continue
        j = i + 1 if i + 1 < len(tokens) and tokens[i + 1].surface == "." else i
        name: list[Token] = []
        while len(name) < _NAME_WORDS and j + 1 < len(tokens) and _a_name_word(tokens[j + 1], masked) \
                and text[tokens[j].end:tokens[j + 1].start].isspace():
            j += 1
            name.append(tokens[j])
        if name:
            out.append((text[name[0].start:name[-1].end].removesuffix("'s"), (title.start, name[-1].end)))
    return out


def _a_name_word(token: Token, masked: str) -> bool:
    """A word capitalised, in letters, not masked: a word of an English name."""
    word = token.surface
    return word[:1].isupper() and word.isascii() and word.replace("'", "").replace("-", "").isalpha() \
        and MASK not in masked[token.start:token.end]


_KEY_CHARS = (3, 12)  # the fewest and the most characters of a key


def _keys(text: str, masked: str, lexicon: Lexicon) -> list[tuple[str, Span]]:
    """Keys said as they are written in the data (ALFKIの注文, BX12): words in capitals, perhaps with digits, three
    to twelve characters, glued to no other word; never a word of the catalog."""
    if not any(c.isupper() for c in masked):
        return []
    said = tokenise(text)
    out = []
    for first, last in _capital_runs(said, masked):
        start = said.tokens[first].start
        key = text[start:said.tokens[last - 1].end].removesuffix("'s")
        if _KEY_CHARS[0] <= len(key) <= _KEY_CHARS[1] and key[0].isupper() and _apart(said, first, last) \
                and fold(key) not in lexicon.vocabulary and key.lower() not in _NOT_CAPITALISED_NAMES:
            out.append((key, (start, start + len(key))))
    return out


def _in_capitals(token: Token, masked: str) -> bool:
    word = token.surface.removesuffix("'s")
    return word.isascii() and word.isalnum() and word == word.upper() and MASK not in masked[token.start:token.end]


def _capital_runs(said: Utterance, masked: str) -> list[tuple[int, int]]:
    """The runs of tokens in capitals or digits glued together (BX|12), each as [first, last)."""
    runs: list[tuple[int, int]] = []
    for i, token in enumerate(said.tokens):
        if not _in_capitals(token, masked):
            continue
        if runs and runs[-1][1] == i and said.tokens[i - 1].end == token.start \
                and not said.tokens[i - 1].surface.endswith("'s"):
            runs[-1] = (runs[-1][0], i + 1)
        else:
            runs.append((i, i + 1))
    return runs


def _apart(said: Utterance, first: int, last: int) -> bool:
    """Whether no word, number or mark of `[keys] joined` is glued to tokens [first, last) (AC/DC, AT&T)."""
    joined = words.said("keys", "joined")
    before = said.tokens[first - 1] if first else None
    after = said.tokens[last] if last < len(said.tokens) else None
    if before is not None and before.end == said.tokens[first].start and (
            _alnum(before.surface[-1]) or before.surface[-1] in joined):
        return False
    return after is None or after.start > said.tokens[last - 1].end or said.tokens[last - 1].surface.endswith("'s") \
        or not (_alnum(after.surface[0]) or (after.surface[0] in joined and after.surface[0] != "-"))


def _alnum(char: str) -> bool:
    return char.isascii() and char.isalnum()


def _capitalised_name(masked: str, span: Span, lexicon: Lexicon) -> list[tuple[str, Span]]:
    """Capitalised words as a name (John Smith), without the words a request starts with (Show, Top)
    or the catalog's vocabulary; one word alone at the start of the request is not a name, unless said as whose
    (Tanaka's booking)."""
    start = span[0]
    words = masked[start:span[1]].split()
    while words and (words[0].lower() in _NOT_CAPITALISED_NAMES or words[0].lower() in lexicon.vocabulary):
        start += len(words[0]) + 1
        words = words[1:]
    whose = bool(words) and words[-1].endswith("'s")
    words = [w.removesuffix("'s") for w in words]
    if not words or any(w.lower() in lexicon.vocabulary or w.lower() in _NOT_CAPITALISED_NAMES for w in words):
        return []
    at_start = not masked[:start].strip(" \"'(「")
    if len(words) == 1 and at_start and not whose:
        return []
    return [(" ".join(words), (start, start + len(" ".join(words))))]


def _name_before(said: Utterance, masked: str, end: int) -> tuple[str, int]:
    """The name written just before an honorific: the words glued before it in kanji, katakana or Latin letters
    (佐藤, 山田花子, John Smith: Latin words a space apart); else words in hiragana that are no particle, perhaps after
    a family name in kanji (吉田さくら, たなか)."""
    words_before = _words_before(said, masked, end)
    start = _glued_start(said, words_before, end, _in_name_letters, spaced=True)
    if start == end:
        start = _glued_start(said, words_before, end, _in_hiragana, spaced=False)
        if start < end:
            start = _glued_start(said, [w for w in words_before if w[1] <= start], start, _in_kanji, spaced=False)
    return masked[start:end].strip(), start


_NAME_TOKENS = 12  # the most words of a name said before an honorific: ジョン・フィッツジェラルド・ケネディ is 5


def _words_before(said: Utterance, masked: str, end: int) -> list[tuple[int, int, Token]]:
    """The tokens before `end`, the nearest first, each cut at `end`, as far back as none is masked and a name's
    words may reach."""
    out = []
    for i in reversed(said.starting(0, end)[-_NAME_TOKENS:]):
        token = said.tokens[i]
        stop = min(token.end, end)
        if not _unmasked(masked, token) and MASK in masked[token.start:stop]:
            break
        out.append((token.start, stop, token))
    return out


def _glued_start(said: Utterance, before: list[tuple[int, int, Token]], end: int,
                 fits: Callable[[str, Token], bool], spaced: bool) -> int:
    """Where the run of words before `end` that `fits` takes starts, glued (or, where `spaced`, a space apart after
    a Latin letter)."""
    at = end
    for start, stop, token in before:
        gap = said.text[stop:at]
        if (gap and not (spaced and gap == " " and said.text[stop - 1:stop].isascii()
                         and said.text[stop - 1:stop].isalpha())) or not fits(said.text[start:stop], token):
            break
        at = start
    return at


def _in_name_letters(word: str, token: Token) -> bool:
    return all(_KANJI_KANA_LATIN.match(c) for c in word)


def _in_hiragana(word: str, token: Token) -> bool:
    return all(_HIRAGANA.match(c) for c in word) and not token.is_particle and not (
        len(word) == 1 and word in _PARTICLES)


def _in_kanji(word: str, token: Token) -> bool:
    return all(_KANJI.match(c) for c in word)


def _trim_name(name: str) -> str:
    words = name.split()
    while words and words[-1].lower() in _NOT_CAPITALISED_NAMES:
        words.pop()
    return " ".join(words)


def count(slots: Slots, lexicon: Lexicon, tool: str, pname: str) -> int | None:
    """トップ5, top 3, 上位3つ, 3位まで -> the number; いちばん, the worst, worst selling dessert -> 1."""
    key = ("count", id(lexicon), tool, pname)
    if key not in slots.memo:
        slots.memo[key] = _count(slots, lexicon, tool, pname)
    return slots.memo[key]


def _count(slots: Slots, lexicon: Lexicon, tool: str, pname: str) -> int | None:
    cues, ones = lexicon.count_phrases(tool, pname)
    text = slots.read_text
    units = lexicon.count_units(tool, pname)
    if units is not None:  # 2つ, 30%, 7割; or two karaage bento: a number just before a value said
        m = units.search(text)
        said = int(m["n"]) if m else _in_tenths(lexicon, tool, pname, text) or _before_value(slots, text) \
            or _after_topic(slots, lexicon, tool, pname)
        if said is not None:
            return said
    named = lexicon.count_words(tool, pname).find(text)  # 半分, max
    if named:
        return named[0].value
    for hit in cues.find(text):
        word = _number_after_cue(slots, hit.end)
        if word and number(word):
            return number(word)
        if not ones.values:  # a number with no superlative (customer 5, a key) is only the number after its cue
            continue
        word = _number_just_before(slots, hit.start, spaced=False)
        if word and number(word) and hit.phrase.isascii():
            return number(word)
    return _ranked_count(slots, text, cues, ones) if ones.values else None


def _in_tenths(lexicon: Lexicon, tool: str, pname: str, text: str) -> int | None:
    """7割: 70, where a count is a percent."""
    x = lexicon.tools[tool].params[pname].extract
    return in_tenths(text, x.units) if isinstance(x, CountExtract) else None


def _ranked_count(slots: Slots, text: str, cues: Phrases[str], ones: Phrases[str]) -> int | None:
    """3位まで, 少ない順に3つ; いちばん, the worst, worst selling dessert -> 1: how many of a ranking."""
    ranked = _how_many_ranked(slots)
    if ranked is not None:
        return ranked
    superlatives = ones.find(text)
    plural = _which_plural(slots)  # which products sold best: several
    if not plural and not any(_said_plural(text, hit) for hit in superlatives):  # which days had the most
        for hit in superlatives:
            if not (hit.phrase.isascii() and _next_word(slots, hit.end) == "plural"):
                return 1
    for hit in cues.find(text):  # worst selling dessert: one thing, said in the singular
        if hit.phrase.isascii() and _next_word(slots, hit.end) == "singular":
            return 1
    return None


def _before_value(slots: Slots, text: str) -> int | None:
    """Two karaage bento, 2 gyoza, two regular: a number said just before a value the request names, or a word of
    one with no option; else just after a value (nori bento x2, nori bento two please, karaage bento, two of them)."""
    for hit in slots.enums:
        said = _number_just_before(slots, hit.start, spaced=True)
        if said and number(said) is not None:
            return number(said)
        if _said_before(slots, hit.start, _ARTICLES):  # a coke, an oolong tea
            return 1
    for plain in words.pattern("lines", "plain").finditer(slots.folded):  # two regular: the one with no option
        said = _number_just_before(slots, plain.start(), spaced=True)
        if said and number(said) is not None:
            return number(said)
    for hit in slots.enums:
        said = _count_after(slots, hit.end)
        if said and number(said) is not None and not (
                said == "one" and _said_before(slots, hit.start, _POINTING)):
            return number(said)  # the ginger pork one: which one, not how many
    return None


def _after_topic(slots: Slots, lexicon: Lexicon, tool: str, pname: str) -> int | None:
    """テレビ5, テレビは5: a number said right after the tool's topic (は perhaps between) where the request ends,
    and within the parameter's bounds (5 is a channel; no TV's volume is turned 5 steps at once)."""
    param = lexicon.tools[tool].params[pname]
    said = tokenise(slots.text)
    for hit in _topics_said(lexicon, slots.cue_text).get(tool, ()):
        i = _first_after(said, hit.end)
        if i is not None and said.tokens[i].surface == topic_particle():
            i = _first_after(said, said.tokens[i].end)
        word = None if i is None else _number_said(slots, said.tokens[i])
        n = number(word) if word and i is not None and _count_ends(said, i + 1) else None
        if n is not None and (param.min is None or n >= param.min) and (param.max is None or n <= param.max):
            return n
    return None


@lru_cache(maxsize=64)
def _topics_said(lexicon: Lexicon, text: str) -> dict[str, tuple[Hit, ...]]:
    """The topics found in the text, by tool."""
    found: dict[str, list[Hit]] = {}
    for hit in lexicon.cues.find(text):
        for tool, kind in hit.value:
            if kind == TOPIC:
                found.setdefault(tool, []).append(hit)
    return {tool: tuple(hits) for tool, hits in found.items()}


_CUE_PARTICLES = frozenset(of_particle() + topic_particle())
_ARTICLES = frozenset(words.said("articles", "one"))
_POINTING = frozenset(words.said("articles", "which"))


def _said_before(slots: Slots, start: int, said: frozenset[str]) -> bool:
    """Whether one of the words `said` is the word right before `start` (a coke, the ginger pork one)."""
    word = _word_before(tokenise(slots.text), start, slots.read_text)
    return word is not None and word.surface.lower() in said
_COUNT_DIGITS = 3  # a count is said in at most three digits


def _number_said(slots: Slots, token: Token) -> str | None:
    """The token as a number word (up to three digits, three, 三), lower-cased, where it is one and not read."""
    word = token.surface.lower()
    if MASK in slots.read_text[token.start:token.end] or (word.isdigit() and len(word) > _COUNT_DIGITS):
        return None
    return word if number(word) is not None else None


def _first_after(said: Utterance, end: int) -> int | None:
    """The token after `end` with only spaces between, if one is."""
    at = said.starting(end, len(said.text) + 1)
    if not at or said.text[end:said.tokens[at.start].start].strip():
        return None
    return at.start


def _number_after_cue(slots: Slots, end: int) -> str | None:
    """The number said right after a cue (トップ5, 上位の3つ, top 3), a particle perhaps between."""
    said = tokenise(slots.text)
    i = _first_after(said, end)
    if i is not None and said.tokens[i].surface in _CUE_PARTICLES:
        i = _first_after(said, said.tokens[i].end)
    return None if i is None else _number_said(slots, said.tokens[i])


def _number_just_before(slots: Slots, start: int, spaced: bool) -> str | None:
    """The number word said right before `start`, spaces between (at least one when `spaced`): two karaage bento."""
    stop = start
    while stop > 0 and slots.text[stop - 1].isspace():
        stop -= 1
    token = tokenise(slots.text).ending_at(stop)
    if token is None or (spaced and stop == start):
        return None
    return _number_said(slots, token)


def _count_after(slots: Slots, end: int) -> str | None:
    """A number said after a value as how many of it (x2, × 2, "two", ", two of them"), where the request ends or a
    word of `[count_after] then` follows; never a time, a price or a date (6:30, 2 yen, 2nd)."""
    said = tokenise(slots.text)
    i = _first_after(said, end)
    if i is not None and said.tokens[i].surface.lower() in words.said("count_marks", "before"):
        i = _first_after(said, said.tokens[i].end)
    found = None if i is None else _number_said(slots, said.tokens[i])
    if found is None or i is None:
        return None
    return found if _count_ends(said, i + 1) else None


def _count_ends(said: Utterance, i: int) -> bool:
    """Whether token `i` ends a count said after a value: the request ends, a mark does, or `then` words follow."""
    if i == len(said.tokens):
        return True
    token, glued = said.tokens[i], said.tokens[i].start == said.tokens[i - 1].end
    if (glued and token.surface[0] in words.said("count_marks", "glued_not")) \
            or any(p.at(said, i) for p in _phrases("count_after", "not_then")):
        return False
    return token.surface in words.said("count_marks", "stops") or (
        not glued and any(p.at(said, i) for p in _phrases("count_after", "then")))


@cache
def _phrases(section: str, key: str) -> tuple[Pattern, ...]:
    """A list of questions.toml of phrases (words apart by spaces) as token patterns."""
    return tuple(Pattern.parse([{"form": w} for w in phrase.split()]) for phrase in words.said(section, key))


_RANKED_DIGITS = 2


def _how_many_ranked(slots: Slots) -> int | None:
    """3位まで, 少ない順に3つ, 5品だけ: how many said without a cue word (`[ranked]` token patterns), outside what
    is read."""
    if not any(c.isdigit() for c in slots.read_text):
        return None
    said = tokenise(slots.text)
    for pattern in words.token_patterns("ranked", "patterns"):
        for m in pattern.finditer(said):
            number = next(t.surface for t in said.tokens[m.first:m.last] if t.surface.isdigit())
            if len(number) <= _RANKED_DIGITS and MASK not in slots.read_text[m.start:m.end]:
                return int(number)
    return None


_VERBS_IN_S = frozenset(words.said("ranked", "verbs"))
_WHICH_PLURAL = Pattern.parse([{"form": words.said("ranked", "which")}, {"is": "word", "op": "?"},
                               {"is": "word", "ends": ["s"], "not": list(_VERBS_IN_S)}])
_SELLING = frozenset(words.said("ranked", "selling"))
_NOT_NOUNS = english_words("nouns")


def _said_plural(text: str, hit: Hit[str]) -> bool:
    """A superlative said with a plural ending (which customers, for the phrase which customer)."""
    return hit.phrase.isascii() and text[hit.start : hit.end].endswith("s") and not hit.phrase.endswith("s")


def _which_plural(slots: Slots) -> bool:
    """Whether a plural noun follows `which` (which products sold best), a word perhaps between."""
    said = tokenise(slots.text)
    return any(MASK not in slots.read_text[m.start:m.end] and _in_letters(said, m.first, m.last)
               for m in _WHICH_PLURAL.finditer(said))


def _in_letters(said: Utterance, first: int, last: int) -> bool:
    """Whether tokens [first, last) are words in Latin letters, apart by spaces."""
    tokens = said.tokens[first:last]
    return all(t.surface.isascii() and t.surface.isalpha() for t in tokens) and all(
        said.text[a.end:b.start].isspace() for a, b in zip(tokens, tokens[1:], strict=False))


def _next_word(slots: Slots, end: int) -> str | None:
    """Whether the noun after a superlative is "singular" or "plural" (None: no noun follows), past a word of
    `[ranked] selling` and a space (the worst selling dessert, best-selling products)."""
    said = _words_after(slots, end)
    if len(said) > 1 and said[0][0] in _SELLING and slots.text[said[0][1]:said[0][1] + 1].isspace():
        said = said[1:]
    word = _letters(said[0][0]) if said else ""
    if not word or word in _NOT_NOUNS:
        return None
    return "plural" if word.endswith("s") and word not in _VERBS_IN_S else "singular"


def _words_after(slots: Slots, end: int) -> list[tuple[str, int]]:
    """The next two words after `end` past hyphens, lower-cased, each with where it ends; the rest of a word joined
    by hyphens that `end` falls in (best|-selling) first."""
    said = tokenise(slots.text)
    out: list[tuple[str, int]] = []
    inside = said.starting(0, end)
    if inside and said.tokens[inside.stop - 1].end > end:
        token = said.tokens[inside.stop - 1]
        for part in slots.read_text[end:token.end].split("-"):
            end += len(part) + 1
            if part:
                out.append((part.lower(), end - 1))
        end = token.end
    following = said.tokens[said.starting(end, len(slots.text) + 1).start:]
    out += [(slots.read_text[t.start:t.end].lower(), t.end) for t in following[:3] if t.surface != "-"]
    return out[:2]


def _letters(word: str) -> str:
    """The Latin letters a word begins with (selling of selling-point)."""
    i = 0
    while i < len(word) and "a" <= word[i] <= "z":
        i += 1
    return word[:i]


def english_items(slots: Slots) -> str | None:
    """12 eggplants; 3 pumpkins and 2 melons; 5 kg of tomatoes -> the goods as said."""
    groups = english_item_groups(slots)
    return groups[0] if groups else None


def english_item_groups(slots: Slots) -> list[str]:
    """Each list of goods said in English, apart: "3 pumpkins for 450 yen, and ... 5 tomatoes" is two."""
    text = mask(slots.text, _masked_spans(slots.read_text) + [(h.start, h.end) for h in slots.enums])
    parts = [(text[start:end], start, end) for start, end in _english_items(tokenise(slots.text), text)]
    groups: list[str] = []
    for i, (part, start, _) in enumerate(parts):
        if i and _joined(text, parts[i - 1][2], start):
            groups[-1] += text[parts[i - 1][2]:start] + part
        else:
            groups.append(part)
    return groups


@cache
def _item_patterns() -> tuple[Pattern, ...]:
    """Goods said in English as token patterns: how many (12, twelve, a dozen), a unit perhaps (5 kg of), and one or
    two words of the goods, none a word of `[english_goods] stop`."""
    stop = list(words.said("english_goods", "stop"))
    goods: list[dict[str, Any]] = [{"is": "word", "not": stop, "name": "noun"},
                                   {"is": "word", "not": stop, "op": "?", "name": "more"}]
    units: list[dict[str, Any]] = [{"form": list(words.said("english_goods", "units")), "name": "unit"},
                                   {"form": "of", "op": "?"}]
    many: list[list[dict[str, Any]]] = [[{"is": "number"}], [{"form": list(english_numbers())}], *(
        [{"form": w} for w in phrase.split()] for phrase in words.said("english_items", "many"))]
    return tuple(Pattern.parse([*qty, *unit, *goods]) for qty in many for unit in (units, []))


def _english_items(said: Utterance, masked: str) -> list[Span]:
    """The spans of goods said in English (12 eggplants, 5 kg of tomatoes), words apart by spaces, outside what is
    masked, not glued to a word or figure before."""
    out: list[Span] = []
    for first in range(len(said.tokens)):
        if (out and said.tokens[first].start < out[-1][1]) or _glued_to_word(said, first):
            continue
        found = [m for p in _item_patterns() if (m := p.at(said, first)) is not None]
        span = max((s for m in found if (s := _item_span(said, masked, m)) is not None), key=lambda s: s[1],
                   default=None)
        if span is not None:
            out.append(span)
    return out


def _glued_to_word(said: Utterance, i: int) -> bool:
    before = said.tokens[i - 1] if i else None
    return before is not None and before.end == said.tokens[i].start and (
        before.surface[-1].isalnum() or before.surface[-1] in "_.,")


def _item_span(said: Utterance, masked: str, m: Match) -> Span | None:
    """The span of goods a match says, its second word of the goods left out where that is glued or not in
    letters; None where the goods are none (`english_words("goods")`) or a word is glued or masked."""
    tokens = said.tokens[m.first:m.last]
    if "more" in m.named and not (_spaced(said, masked, tokens[-2], tokens[-1]) and _in_letters_word(tokens[-1])):
        tokens = tokens[:-1]
    nouns = [t for t in tokens if t.start >= m.named["noun"][0]]
    if not all(_in_letters_word(t) for t in nouns) or MASK in masked[tokens[0].start:tokens[0].end] \
            or not all(_spaced(said, masked, a, b) for a, b in zip(tokens, tokens[1:], strict=False)):
        return None
    return None if nouns[0].surface.lower() in _EN_NOT_GOODS else (tokens[0].start, tokens[-1].end)


def _spaced(said: Utterance, masked: str, a: Token, b: Token) -> bool:
    """Whether token `b` comes after `a` with spaces between, and is not masked."""
    return said.text[a.end:b.start].isspace() and MASK not in masked[b.start:b.end]


def _in_letters_word(token: Token) -> bool:
    """A word in Latin letters, hyphens within (pumpkins, bok-choy)."""
    word = token.surface
    return word.isascii() and word[0].isalpha() and word.replace("-", "").isalpha()


def _masked_spans(text: str) -> list[Span]:
    spans, at = [], 0
    for masked, run in groupby(text, key=lambda c: c == MASK):
        width = len(list(run))
        if masked:
            spans.append((at, at + width))
        at += width
    return spans
