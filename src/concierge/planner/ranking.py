"""A question that ranks an entity, or asks for the first of them, goes to a summary that groups by it.

「注文がいちばん多い国は？」, "Top 3 countries by sales", 「今年いちばん受注金額が大きい得意先は？」, "which artist has
the most albums": the answer is the summary tool that groups by the entity the request names (a `group_by`
value whose phrases or noun it says: 国, countries, 得意先), ranked by the figure it names (planner/measure.py;
how many rows for 多い / most when it names none), `top_n` 1 for a superlative. A request that reads rows of a
table (注文) and ranks an entity moves to the summary of the same rows. Where no summary of the catalog groups by
the entity the superlative asks for, the answer says so: never the list of every row, never the default month
grouping for a question about a country.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

import regex

from concierge.catalog.model import CountExtract, EnumExtract, Tool
from concierge.language.english import english_words
from concierge.language.japanese import of_particle
from concierge.language.patterns import Pattern, Slot
from concierge.language.scripts import HIRAGANA
from concierge.language.tokens import Utterance, tokenise
from concierge.planner import measure, verbs, words
from concierge.planner.lexicon import Lexicon, takes_dates
from concierge.planner.nouns import noun
from concierge.planner.slots import Slots, count
from concierge.planner.text import fold, normalise

GROUP, TOP = "group_by", "top_n"
AFFIX = re.compile(rf"^(?:{'|'.join(map(re.escape, words.said('ranking', 'affix_before')))})\s*"
                   rf"|\s*(?:{'|'.join(map(re.escape, words.said('ranking', 'affix_after')))})$")
_HIRAGANA = regex.compile(rf"[{HIRAGANA}]+")
_EN_NOT_SUBJECT = english_words("subjects")
_ONE_CHAR_NOUN_BEFORE = frozenset(w[0] for w in words.said("ranking", "one_char_noun_before"))


@dataclass(frozen=True)
class Ranked:
    """The summary that answers, and the arguments the ranking gives it (group_by, rank_by, top_n)."""

    tool: Tool
    args: dict[str, Any]


@dataclass(frozen=True)
class Ungrouped:
    """A ranking of an entity that no summary of the catalog groups by: `said` is the entity's words."""

    said: str


def summaries(lexicon: Lexicon, catalog: str, offered: Collection[str]) -> list[Tool]:
    """The read tools of one catalog that group and rank (a drafted `*_summary`)."""
    return [t for t in lexicon.tools.values() if t.catalog == catalog and t.name in offered and t.mode == "read"
            and GROUP in t.params and TOP in t.params]


def retarget(tool: Tool, slots: Slots, lexicon: Lexicon, offered: Collection[str]) -> Ranked | Ungrouped | None:
    """The summary and its arguments for a request that ranks an entity; Ungrouped when no summary groups by
    the entity asked; None when the request ranks nothing, or ranks by time (the tool's own default)."""
    is_summary = GROUP in tool.params and TOP in tool.params
    ranks_itself = any(isinstance(p.extract, CountExtract) for p in tool.params.values())
    if tool.mode != "read" or (ranks_itself and not is_summary) or not summaries(lexicon, tool.catalog, offered):
        return None  # a ranking tool of its own (a hand-written catalog's), or a catalog with no summaries
    text = slots.cue_text
    if not _ranks(tool, slots, lexicon) and not said_superlative(text) and not _most(text, lexicon):
        return None
    candidates = [tool] if is_summary else []
    candidates += [t for t in _same_rows(tool, lexicon, offered) if t.name != tool.name]
    named = verbs.named_rows(candidates, text) or _counted(candidates, text)  # the rentals, not the copies held
    named += [t for t in candidates if t not in named and _rows_said(t, text)]  # 発注明細の金額: those lines
    labelled = sorted((t for t in candidates if t not in named and measure.by_name(t, text)),  # 運賃の合計: freight
                      key=lambda t: -measure.said_length(t, text))  # "amount paid" before "amount"
    candidates = [*named, *labelled, *(t for t in candidates if t not in named and t not in labelled)]
    for other in candidates:
        entity = entity_of(other, slots, lexicon)
        if entity is None:
            continue
        figure = measure.named(other, text) or (measure.count_of(other) if _popular(text) and takes_dates(other)
                                                else None)
        if not is_summary and figure is None and not _most(text, lexicon) and other not in named:
            continue  # the most expensive product: a figure of the rows, not a ranking of groups
        events = (asks_times(slots) or _popular(text)) and takes_dates(other)  # 利用回数が多い顧客, 人気のクラス
        if not about(other, tool) and other not in named and (figure is None or figure.startswith(measure.COUNT_OF)) \
                and not events:  # the times done (chosen) are events, counted where they are
            continue  # 注文がいちばん多い国 is never the country with the most customers
        return Ranked(other, _arguments(other, slots, lexicon, entity, figure, text))
    acted = _japanese_subject(slots.text, acted=True)  # 一番たくさん借りた|会員
    done = _done_most(tool, slots, lexicon, offered, acted) if acted is not None else None
    if done is not None:
        return done
    subject = _subject(slots.text) or acted
    if subject is None or _a_time(subject):
        return None
    return Ungrouped(subject)  # never every row for the first of them (the most expensive product: all 77)


def _done_most(tool: Tool, slots: Slots, lexicon: Lexicon, offered: Collection[str], subject: str) -> Ranked | None:
    """一番たくさん借りた会員, いちばんよく来てるお客さん: the rows of what was done (the loans, the visits), counted by
    the noun said after its verb (`subject`), in the one summary of dated rows that groups by it (or the one whose
    rows the verb names); None where it is a time, or no summary or several could be meant."""
    if _a_time(subject):
        return None
    text = slots.cue_text
    found = {t.name: (t, e) for t in summaries(lexicon, tool.catalog, offered)
             if takes_dates(t) and (e := entity_of(t, slots, lexicon) or _group_named(t, subject)) is not None}
    named = verbs.named_rows([t for t, _ in found.values()], text) or [t for t, _ in found.values()]
    if len(named) != 1:
        return None
    other, entity = found[named[0].name]
    figure = measure.named(other, text) or measure.count_of(other)
    return Ranked(other, _arguments(other, slots, lexicon, entity, figure, text))


def _group_named(tool: Tool, noun: str) -> str | None:
    """The group of a summary whose noun is the one said (会員 of 会員さん, read as a person's name elsewhere)."""
    return next((value for value, nouns in _nouns(tool).items() if fold(noun) in nouns), None)


def entity_of(tool: Tool, slots: Slots, lexicon: Lexicon) -> str | None:
    """The `group_by` value (not a period) a phrase of the request says (which product), else the one whose noun
    it says, the longest: "which product … of sales order details" is the product, not the sales order."""
    p = tool.params.get(GROUP)
    if p is None or p.enum is None:
        return None
    key = lexicon.enum_of[(tool.name, GROUP)].key
    phrased = [v for h in slots.enums for k, v in sorted(h.value) if k == key and v not in _time_groups()]
    if len(set(phrased)) == 1:
        return phrased[0]
    said = []
    for value, nouns in _nouns(tool).items():
        for n in nouns:
            if _find(n, slots.cue_text):
                said.append((len(n), -list(_nouns(tool)).index(value), value))
    return max(said)[2] if said else None


def _arguments(tool: Tool, slots: Slots, lexicon: Lexicon, entity: str, figure: str | None, text: str
               ) -> dict[str, Any]:
    args: dict[str, Any] = {GROUP: entity}
    if figure is None and _most(text, lexicon):
        figure = measure.count_of(tool)
    if figure is not None and measure.RANK in tool.params:
        args[measure.RANK] = figure
    n = count(slots, lexicon, tool.name, TOP) if TOP in tool.params else None
    if n is None and (said_superlative(text) or _most(text, lexicon)):
        n = 1
    if n is not None:
        args[TOP] = n
    return args


def asks_groups(tool: Tool, slots: Slots, lexicon: Lexicon) -> bool:
    """Whether a request that names one of a summary's groups asks for the groups: ranks them (the most, いちばん,
    top 3), names a figure of theirs, or says the grouping (by customer, 顧客別); "which customers live in Meguro"
    names the customers and asks who they are."""
    text = slots.cue_text
    if entity_of(tool, slots, lexicon) is None:
        return False
    if _ranks(tool, slots, lexicon) or said_superlative(text) or _most(text, lexicon) or measure.named(tool, text):
        return True
    return bool(tokenise(text).forms_said & _GROUPING)


_GROUPING = frozenset(w for key in ("affix_before", "affix_after") for w in words.said("ranking", key)) - frozenset(
    words.said("ranking", "which_alone"))


def _ranks(tool: Tool, slots: Slots, lexicon: Lexicon) -> bool:
    """Whether the request asks the top of a summary's groups (いちばん, top 3, which customer)."""
    return TOP in tool.params and count(slots, lexicon, tool.name, TOP) is not None


def in_time_order(tool: Tool, slots: Slots, lexicon: Lexicon, values: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """The values of a summary's call, grouped by a time (月別のレッスン数), with no `rank_by` where the request ranks
    nothing: the figure it names (数) is what each month shows, and the months stay in their order."""
    group = values.get(GROUP)
    text = slots.cue_text
    if not group or group[0] not in _time_groups() or measure.RANK not in values or _ranks(tool, slots, lexicon) \
            or said_superlative(text) or _most(text, lexicon) or _popular(text):
        return values
    return {k: v for k, v in values.items() if k != measure.RANK}


def _time_groups() -> tuple[str, ...]:
    return words.words("ranking", "time_groups")


def asks_times(slots: Slots) -> bool:
    """Whether the request counts times (回数, 何回, how many times)."""
    return words.said_pattern("counters", "times").search(slots.cue_text) is not None


def _popular(text: str) -> bool:
    """Whether the request asks what is popular (人気, popular): chosen most often."""
    return words.pattern("ranking", "popular").search(text) is not None


def said_superlative(text: str) -> bool:
    """Whether the request says a superlative (いちばん, 最も, the most)."""
    return words.pattern("ranking", "superlative").search(text) is not None


def _most(text: str, lexicon: Lexicon) -> bool:
    """多い, or "most" said of how many (spent the most?, the most albums; not the most expensive)."""
    for m in words.pattern("ranking", "most").finditer(text):
        if not m.group().isascii():
            return True
        after = _word_after(tokenise(text), m.end())
        if not after or after in lexicon.nouns or after.rstrip("s") in lexicon.nouns:
            return True
    return False


def _word_after(utterance: Utterance, offset: int) -> str:
    """The English word said right after `offset`, spaces between; none where another token or none follows."""
    following = utterance.starting(offset, len(utterance.text) + 1)
    if not following:
        return ""
    token = utterance.tokens[following[0]]
    if utterance.text[offset:token.start].strip() or not (token.surface.isascii() and token.surface[:1].isalpha()):
        return ""
    return token.surface.lower()


def _same_rows(tool: Tool, lexicon: Lexicon, offered: Collection[str]) -> list[Tool]:
    """The summaries of the catalog, those about the chosen tool's rows first (their noun is its noun)."""
    found = summaries(lexicon, tool.catalog, offered)
    return sorted(found, key=lambda t: not about(t, tool))


def _counted(candidates: list[Tool], text: str) -> list[Tool]:
    """The summaries whose rows the request counts by name (受注件数, 受注の数, number of orders): the orders, not
    their lines, whatever else the request says of them."""
    utterance = tokenise(text)
    out = []
    for t in candidates:
        n = noun(t)
        ja, en = fold(n.ja), n.many.lower()
        head = en.split()[-1] if en else ""  # number of orders: the sales orders
        if (ja and _counted_in_japanese(utterance, ja)) or (
                en and any(_number_of(said).search(utterance) for said in (en, head))):
            out.append(t)
    return out


@cache
def _number_of(many: str) -> Pattern:
    """number of <the noun's words>."""
    said = Pattern.parse([{"form": w} for w in many.split()])
    return Pattern((*words.token_pattern("ranked_subject", "en_counted").slots, *said.slots))


@cache
def _counts_after() -> Pattern:
    """[の] 件数 / 数 after a noun (受注件数, 受注の数)."""
    return Pattern.parse([{"form": of_particle(), "op": "?"}, {"form": list(words.said("ranking", "counts_after"))}])


def _counted_in_japanese(utterance: Utterance, ja: str) -> bool:
    """The noun (folded), then a word that counts it, from the token right after it."""
    text = utterance.text
    at = text.find(ja)
    while at >= 0:
        following = utterance.starting(at + len(ja), len(text) + 1)
        if following and utterance.tokens[following[0]].start == at + len(ja) \
                and _counts_after().at(utterance, following[0]) is not None:
            return True
        at = text.find(ja, at + 1)
    return False


def _rows_said(tool: Tool, text: str) -> bool:
    """Whether the request names a summary's rows by a noun of more than one word (発注明細, purchase order
    details): a word alone (注文) names the rows of several tables."""
    n = noun(tool)
    return (len(n.ja) > 3 and fold(n.ja) in text) or (" " in n.many and n.many.lower() in text)


def about(summary: Tool, tool: Tool) -> bool:
    """Whether a summary adds up the chosen tool's own rows (it is that tool, or its noun is the same)."""
    if summary.name == tool.name:
        return True
    mine, its = noun(tool), noun(summary)
    return its.ja == mine.ja or its.many == mine.many


def _subject(text: str) -> str | None:
    """The noun a superlative asks for: いちばん多い|国|は, which |customer|, top 3 |countries|."""
    said = _japanese_subject(text)
    if said:
        return said
    utterance = tokenise(text)
    for m in sorted((m for p in _en_subjects() for m in p.finditer(utterance)), key=lambda m: m.start):
        said = (m.said(utterance, "w") or "").lower()
        if said.isascii() and said not in _EN_NOT_SUBJECT:
            return said
    return None


@cache
def _en_subjects() -> tuple[Pattern, ...]:
    """The words before an English superlative's noun (top 3, the biggest, which, most albums), then the noun."""
    before = [*words.token_patterns("ranked_subject", "en_before"),
              Pattern((Slot.parse({"form": list(words.said("ranking", "subject_before_en"))}),))]
    noun_slots = words.token_pattern("ranked_subject", "en_subject").slots
    return tuple(Pattern((*b.slots, *noun_slots)) for b in before)


def _japanese_subject(text: str, acted: bool = False) -> str | None:
    """The noun after いちばん多い, 一番売れた, where a particle, a word of asking or the end follows it; a noun in
    kanji, katakana or letters (不明なもの is no subject). `acted`: the noun after a verb said after a superlative
    instead (一番たくさん借りた|会員, いちばんよく来てる|お客さん).
    """
    utterance = tokenise(text)
    tokens = utterance.tokens
    before = words.token_pattern("ranking", "subject_acted" if acted else "subject_before")
    noun = words.token_pattern("ranking", "subject")
    for i in range(len(tokens)):
        lead = before.at(utterance, i)
        said = noun.at(utterance, lead.last) if lead else None
        if said is None or (said.last < len(tokens) and tokens[said.last].surface not in _SUBJECT_AFTER):
            continue
        if acted and not said_superlative(text[:tokens[i].start]) \
                and words.pattern("ranking", "most").search(text, 0, tokens[i].start) is None:
            continue
        start, end = said.named["w"]
        if not any(_HIRAGANA.fullmatch(t.surface) for t in tokens[said.first:said.last] if start <= t.start < end):
            return text[start:end]  # 飼い主 of 飼い主さん; never もの of 不明なもの
    return None


_SUBJECT_AFTER = frozenset(words.said("ranking", "subject_after"))


def _a_time(word: str) -> bool:
    return fold(word) in words.words("ranking", "time_nouns")


def _find(n: str, text: str) -> bool:
    """Whether a group's noun (folded) is said in the request (folded): an English one as whole words, singular or
    plural; one kanji alone only as a word of its own (国は, not 中国)."""
    if n.isascii():
        return n.split() != [] and _noun_said(n).search(tokenise(text)) is not None
    if len(n) == 1:
        utterance = tokenise(text)
        return any(_alone_after(utterance, i) and (
            (t.surface == n and _alone_before(utterance, i))
            or (t.surface.startswith(n) and t.surface[len(n):] in words.said("ranking", "one_char_noun_before")))
            for i, t in enumerate(utterance.tokens))  # 国は, 国別: one token
    return n in text


@cache
def _noun_said(n: str) -> Pattern:
    *head, last = n.split()
    return Pattern.parse([*({"form": w} for w in head), {"form": [last, last + "s", last + "es"]}])


def _alone_after(utterance: Utterance, i: int) -> bool:
    """Whether the i-th token follows no noun it is part of (出身国, not どの国)."""
    before = utterance.tokens[i - 1] if i else None
    return before is None or before.end < utterance.tokens[i].start or not (before.is_noun or before.is_prefix)


def _alone_before(utterance: Utterance, i: int) -> bool:
    """Whether the token after the i-th is the end or a word of [ranking] one_char_noun_before (国は, 国別)."""
    if i + 1 == len(utterance.tokens):
        return not utterance.text[utterance.tokens[i].end:].strip()
    after = utterance.tokens[i + 1]
    return after.start == utterance.tokens[i].end and after.surface[:1] in _ONE_CHAR_NOUN_BEFORE


@cache
def _nouns_of(tool_name: str, phrases: tuple[tuple[str, str], ...], values: tuple[str, ...]
              ) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {v: set() for v in values if v not in words.words("ranking", "time_groups")}
    for phrase, value in phrases:
        if value not in out:
            continue
        base = AFFIX.sub("", fold(normalise(phrase))).strip()
        base = AFFIX.sub("", base).strip()
        if not base:
            continue
        out[value] |= set(_forms(base))
    for value in out:
        out[value].add(value.replace("_", " "))
    return {v: frozenset(n) for v, n in out.items()}


def _forms(base: str) -> Iterable[str]:
    """A group's noun as said: the phrase's noun, its singular (countries -> country), the noun after の."""
    yield base
    if base.isascii():
        if base.endswith("ies"):
            yield base[:-3] + "y"
        elif base.endswith("s"):
            yield base[:-1]
    elif of_particle() in base:
        yield base.rsplit(of_particle(), 1)[1]


def _nouns(tool: Tool) -> dict[str, frozenset[str]]:
    p = tool.params[GROUP]
    x = p.extract
    synonyms = tuple(sorted(x.synonyms.items())) if isinstance(x, EnumExtract) else ()
    return _nouns_of(tool.name, synonyms, tuple(p.enum.values or []) if p.enum else ())
