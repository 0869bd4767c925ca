"""Read Japanese kanji numerals as ASCII digits where they count, date or price something.

四月 → 4月, 十二月二十五日 → 12月25日, 三個 → 3個, 千円 → 1000円, 二千五百円 → 2500円,
一万二千円 → 12000円, 1万2千円 → 12000円, 上位三つ → 上位3つ, トップ三 → トップ3.

A numeral's digits are the analyser's (language/tokens.py): the normalised form of its numeral token (二千五百 →
2500). A numeral is written as digits only when a counter, date or money unit follows it (月 日 年 週 ヶ月 個 本 円 件
つ 位 人 …, and the hour or minutes of a time: 八時, 三十分後) or a ranking / recent-period word ends right before it
(上位 下位 トップ ワースト ベスト 直近 過去 ここ). Words that merely contain a numeral stay as written: 一番, 一緒,
一度, 一部, 十分, 一時的, 一杯, 一郎, 九州. The word lists are data, [numerals] of words/ja.toml, and matched on the
text: the analyser cuts some numerals badly (七|千円, 三|十分で, 一人 kept whole), and those are read by their
digits and units. Only a request with a numeral that may count is analysed.
The input is expected to be NFKC-normalised already (ASCII digits).
"""
from __future__ import annotations

import re
from collections.abc import Collection
from decimal import Decimal
from functools import cache, lru_cache
from typing import Any

from concierge.language import japanese
from concierge.language.japanese import (
    numeral_counters,
    numeral_digits,
    numeral_idioms,
    numeral_large_units,
    numeral_not_counters,
    numeral_prefixes,
    numeral_units,
    numerals_glued,
    numerals_not_minutes,
    time_words,
)
from concierge.language.patterns import Pattern
from concierge.language.tokens import Utterance, tokenise

__all__ = ["in_tenths", "kanji_to_digits"]


@lru_cache(maxsize=4096)
def kanji_to_digits(text: str) -> str:
    """`text` with every kanji numeral that counts, dates or prices something written in ASCII digits."""
    numerals = _numerals_that_may_count(text)
    if not numerals:
        return text
    utterance = tokenise(text)
    edits = [edit for said in numerals if (edit := _as_digits(utterance, said)) is not None]
    for start, end, digits in reversed(edits):
        text = text[:start] + digits + text[end:]
    return text


def in_tenths(text: str, units: Collection[str]) -> int | None:
    """The percent said in tenths of a whole (7割: 70), where a count's `units` hold the percent sign; else None."""
    said = _tenths()
    if said["percent"] not in units:
        return None
    utterance = tokenise(text)
    found = next((m for p in said["patterns"] for m in p.finditer(utterance)), None)
    return None if found is None else int(utterance.tokens[found.first].surface) * said["tenth"]


@cache
def _tenths() -> dict[str, Any]:
    table = japanese.numeral_tenths()
    return {"patterns": tuple(Pattern.parse(p) for p in table["tenths"]), "tenth": table["tenth"],
            "percent": table["percent"]}


def _numerals_that_may_count(text: str) -> list[re.Match[str]]:
    """The numerals of `text`, part of no word, said before a counter or after a ranking word: the analyser reads
    only a request that has one (it costs a hundred times more than this)."""
    if not _any_kanji().search(text):
        return []
    return [said for said in _numerals_said().finditer(text) if _may_count(text, *said.span())]


def _may_count(text: str, start: int, end: int) -> bool:
    """Whether the numeral at [start, end) is part of no word and said before a counter or after a ranking word."""
    return (_counted(text, end) or text.endswith(numeral_prefixes(), 0, start)) and not _part_of_a_word(text, start)


def _as_digits(utterance: Utterance, said: re.Match[str]) -> tuple[int, int, str] | None:
    """The span of the numeral `said` and its digits, if it counts, dates or prices something."""
    start, end = said.span()
    if not (_counted(utterance.text, end) or _ranked(utterance, start)):
        return None
    value = _analysed(utterance, start, end)
    if value is None:
        value = _value(said.group())
    return None if value is None else (start, end, str(value))


def _analysed(utterance: Utterance, start: int, end: int) -> int | None:
    """The value the analyser reads for the numeral at [start, end): its numeral token's normalised form."""
    token = utterance.ending_at(end)
    if token is None or token.start != start or not token.is_numeral:
        return None
    return int(token.normal) if token.normal.isascii() and token.normal.isdigit() else None


def _counted(text: str, end: int) -> bool:
    """Whether a counter, unit or date word begins at `end` (三個, 四月, 八時; not 一時的 or 三分の一)."""
    return _counter().match(text, end) is not None and not text.startswith(numeral_not_counters(), end)


def _ranked(utterance: Utterance, start: int) -> bool:
    """Whether a ranking or recent-period word ends right at `start` (上位三つ, ここ三日)."""
    before = utterance.ending_at(start)
    return before is not None and before.surface in numeral_prefixes()


def _part_of_a_word(text: str, start: int) -> bool:
    """Whether the numeral at `start` is part of a word: one of the idioms (一杯, 六本木, 一人一人) or no minutes
    (十分) said over it, or a character it is glued to right before it (唯一つ); never right after an hour (7時十分)."""
    if _after_an_hour(text, start):
        return False
    if start > 0 and text[start - 1] in numerals_glued():
        return True
    words, longest = _words_with_numerals()
    return any((said := words.match(text, at)) is not None and said.end() > start
               for at in range(max(0, start - longest + 1), start + 1))


def _after_an_hour(text: str, start: int) -> bool:
    """Whether a number and its hour (7時, 七時) end right at `start`: a numeral there is its minutes."""
    return any(text.endswith(hour, 0, start) and start > len(hour)
               and (text[start - len(hour) - 1].isdigit() or text[start - len(hour) - 1] in _kanji())
               for hour in time_words()["hour"])


# The analyser cuts some numerals badly in context (七 of 七千円 read as a prefix, 三|十分で, 一万二|千本, 一人 and
# 三十日 kept whole with their counter, 千 alone read as a name): those are read by their digits and units (data).
def _value(said: str) -> int | None:
    """The integer a kanji / mixed numeral spells (二千五百 = 2500, 1万2千 = 12000, 二〇二五 = 2025)."""
    large = numeral_large_units()
    if said[0] in large:
        return None
    if not any(c in numeral_units() or c in large for c in said):
        return None if "." in said else int(_digits_of(said))
    total, group, current = Decimal(0), Decimal(0), ""
    for c in said:
        if c in numeral_units():
            group, current = group + Decimal(current or "1") * numeral_units()[c], ""
        elif c in large:
            total, group, current = total + (group + Decimal(current or "0") or 1) * large[c], Decimal(0), ""
        else:
            current += _digits_of(c)
    value = total + group + Decimal(current or "0")
    return int(value) if value == value.to_integral_value() else None


def _digits_of(said: str) -> str:
    """`said` with its kanji digits as ASCII ones (二〇二五 → 2025)."""
    digits = numeral_digits()
    return "".join(str(digits[c]) if c in digits else c for c in said)


@cache
def _kanji() -> str:
    return "".join((*numeral_digits(), *numeral_units(), *numeral_large_units()))


@cache
def _any_kanji() -> re.Pattern[str]:
    return re.compile(f"[{_kanji()}]")


@cache
def _numerals_said() -> re.Pattern[str]:
    """A numeral as written: kanji, maybe after ASCII digits (二千五百, 1万2千, 1.5万), not inside a number."""
    return re.compile(rf"(?<![0-9.,{_kanji()}])(?:[0-9]+(?:\.[0-9]+)?)?[{_kanji()}][0-9{_kanji()}]*")


@cache
def _words_with_numerals() -> tuple[re.Pattern[str], int]:
    """Any of the idioms and the words that are no minutes, and the length of the longest."""
    words = sorted((*numeral_idioms(), *numerals_not_minutes()), key=len, reverse=True)
    return re.compile("|".join(map(re.escape, words))), len(words[0])


@cache
def _counter() -> re.Pattern[str]:
    return re.compile("|".join(map(re.escape, sorted(numeral_counters(), key=len, reverse=True))))
