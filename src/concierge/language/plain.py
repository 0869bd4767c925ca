"""Colloquial forms written back to the plain ones a catalog lists, read from the words of the request.

English: a quantity said in words is its number (a couple of cokes → 2 cokes), a word typed short is the word
(tv on n volume up → tv on and volume up; words/en.toml).

Japanese:

- A native count in kana is a number (ひとつ → 1つ, みっつ → 3つ, 牛丼ふたつ → 牛丼2つ; ふたり → 2人).
- A counter said in kana after digits is the counter (2こ → 2個).
- A kanji numeral before a word in katakana is digits (十二チャンネル → 12チャンネル); before a counter,
  language/numerals.py writes it.
- An auxiliary of aspect between a verb and its て or た goes (消しといて → 消して, 消しちゃった → 消した,
  つけといて → つけて): 「電気消しといて」 asks what 「電気消して」 asks; a verb written in kana, which the analyser
  reads as a noun (けしといて), loses it too.

A form is rewritten only where the analyser sees its words (language/tokens.py): the つ of 暑つ or the こ of
ここ are not counts. The lists are data, in words/ja.toml.
"""

from __future__ import annotations

from functools import cache, lru_cache

import regex

from concierge.language.english import english_quantities, english_shorthand
from concierge.language.japanese import (
    aspect_auxiliaries,
    counts_written,
    kana_aspect,
    kana_counters,
    kana_counts,
    people_counts,
)
from concierge.language.patterns import WordTable
from concierge.language.tokens import Utterance, japanese, tokenise

__all__ = ["plain"]

_KATAKANA = regex.compile(r"\p{Katakana}")


@lru_cache(maxsize=4096)
def plain(text: str) -> str:
    """`text` with kana counts as digits, kana counters as written, and no auxiliary of aspect."""
    if not japanese(text):
        return _english_quantities(text)
    utterance = tokenise(text)
    edits = [*_kana_counts(utterance), *_kana_counters(utterance), *_before_katakana(utterance), *_aspect(utterance)]
    for start, end, said in sorted(edits, reverse=True):
        text = text[:start] + said + text[end:]
    return _without_kana_aspect(text)


def _without_kana_aspect(text: str) -> str:
    """`text` without the auxiliaries of aspect after a verb written in kana that the analyser cuts as no verb (と|
    めちゃ|って of とめちゃって, とめど|い|て): each where the text without it is read with a verb ending right before
    it (とめて: 止める)."""
    for found in reversed(list(_kana_aspect().finditer(text))):
        plainly = text[:found.start()] + text[found.end():]
        verb = tokenise(plainly).ending_at(found.start())
        if verb is not None and verb.is_predicate:
            text = plainly
    return text


@cache
def _kana_aspect() -> regex.Pattern:
    """Where an auxiliary of aspect may be after a verb written in kana: after a kana a verb's stem may end in,
    right before its て or た (the とい of とめといて)."""
    said = kana_aspect()
    return regex.compile(rf"(?<=\p{{Hiragana}}(?:{_alternatives(said['stem_ends'])}))(?:{_alternatives(said['said'])})"
                         rf"(?=(?:{_alternatives(said['before'])}))")


def _alternatives(words: list[str]) -> str:
    return "|".join(regex.escape(w) for w in sorted(words, key=len, reverse=True))


def _english_quantities(text: str) -> str:
    text = _replaced(text, _shorthand())
    return _replaced(text, _quantities())


def _replaced(text: str, table: WordTable[str]) -> str:
    if not table.said_in(text):
        return text
    for start, end, said in reversed(table.find(tokenise(text))):
        text = text[:start] + said + text[end:]
    return text


@cache
def _shorthand() -> WordTable[str]:
    return WordTable(english_shorthand())


@cache
def _quantities() -> WordTable[str]:
    return WordTable({w: str(n) for w, n in english_quantities().items()})


def _kana_counts(u: Utterance) -> list[tuple[int, int, str]]:
    written = counts_written()
    counts = [(word, f"{n}{written['kana']}") for word, n in kana_counts().items()]
    counts += [(word, f"{n}{written['people']}") for word, n in people_counts().items()]
    edits = []
    for t in u.tokens:
        for word, said in counts:
            end = t.start + len(word)
            if u.text.startswith(word, t.start) and u.ends_at(end) and (
                    end == len(u.text) or u.text[end].isspace() or u.starts_at(end)):
                edits.append((t.start, end, said))
                break
    return _disjoint(edits)


def _kana_counters(u: Utterance) -> list[tuple[int, int, str]]:
    counters = kana_counters()
    return [(t.start, t.end, counters[t.surface]) for before, t in zip(u.tokens, u.tokens[1:], strict=False)
            if t.surface in counters and before.surface.isdigit() and before.end == t.start
            and (t.is_suffix or t.is_counter or t.is_prefix)]  # 2こ大盛り: こ read as a prefix of 大盛り


def _before_katakana(u: Utterance) -> list[tuple[int, int, str]]:
    return [(t.start, t.end, t.normal) for t, after in zip(u.tokens, u.tokens[1:], strict=False)
            if t.is_numeral and t.normal.isdigit() and not t.surface.isdigit() and after.start == t.end
            and _KATAKANA.match(after.surface)]


def _aspect(u: Utterance) -> list[tuple[int, int, str]]:
    aspect, te_ta = aspect_auxiliaries(), frozenset(kana_aspect()["te_ta"])
    edits = []
    for i, t in enumerate(u.tokens):
        if not t.is_verb:
            edits += _misread_aspect(u, i)
            continue
        j = i + 1
        while j < len(u.tokens) and u.tokens[j].lemma in aspect and u.tokens[j].is_auxiliary:
            j += 1
        if j > i + 1 and j < len(u.tokens) and u.tokens[j].surface[:1] in te_ta:
            edits.append((t.end, u.tokens[j].start, ""))
    return edits


def _misread_aspect(u: Utterance, i: int) -> list[tuple[int, int, str]]:
    """上げ|と|い|て, which the analyser cuts as a noun and いる: an auxiliary of aspect after a verb's stem all the
    same, where the analyser reads the stem with a plain て as that verb (上げて: 上げる)."""
    said, te_ta = frozenset(kana_aspect()["said"]), frozenset(kana_aspect()["te_ta"])
    t, after = u.tokens[i], u.tokens[i + 1:]
    for j in range(1, min(3, len(after))):
        if "".join(a.surface for a in after[:j]) in said and after[j].surface[:1] in te_ta \
                and after[j - 1].end == after[j].start and after[0].start == t.end:
            verb = tokenise(t.surface + after[j].surface[:1]).tokens[0]
            return [(t.end, after[j].start, "")] if verb.is_verb and verb.end == len(t.surface) else []
    return []


def _disjoint(edits: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    kept: list[tuple[int, int, str]] = []
    for edit in sorted(edits):
        if not kept or kept[-1][1] <= edit[0]:
            kept.append(edit)
    return kept
