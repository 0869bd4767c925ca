"""Read Japanese kanji numerals as ASCII digits where they count, date or price something.

四月 → 4月, 十二月二十五日 → 12月25日, 三個 → 3個, 千円 → 1000円, 二千五百円 → 2500円,
一万二千円 → 12000円, 1万2千円 → 12000円, 上位三つ → 上位3つ, トップ三 → トップ3.

A numeral's digits are the analyser's (language/tokens.py): the normalised form of its numeral token (二千五百 →
2500). A numeral is written as digits only when a counter, date or money unit follows it (月 日 年 週 ヶ月 個 本 円 件
つ 位 人 …, and the hour or minutes of a time: 八時, 三十分後) or a ranking / recent-period word ends right before it
(上位 下位 トップ ワースト ベスト 直近 過去 ここ). Words that merely contain a numeral stay as written: 一番, 一緒,
一度, 一部, 十分, 一時的, 一杯, 一郎, 九州. A numeral begins where a token does; the analyser cuts some numerals
badly (七|千円, 三|十分で, 一人 kept whole), so a numeral runs on into the token after it, and its counter or idiom
(the word lists of [numerals] in words/ja.toml) is found where the numeral ends or begins, and such a numeral is
read by its digits and units. Only a request with a kanji numeral's character is analysed.
The input is expected to be NFKC-normalised already (ASCII digits).
"""
from __future__ import annotations

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
    if _kanji().isdisjoint(text):
        return text
    utterance = tokenise(text)
    edits = [edit for start, end in _numerals_said(utterance) if (edit := _as_digits(utterance, start, end))]
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


def _numerals_said(utterance: Utterance) -> list[tuple[int, int]]:
    """The spans of the numerals said, each from a token's start, holding a kanji and not inside a number: the
    tokens all of a numeral's characters (二千五百, 七|千, 1.5万), and the numeral the next one begins with (三|十分,
    the 二 of 二人, the 三十 of 三十日)."""
    found, tokens, i = [], utterance.tokens, 0
    while i < len(tokens):
        start = end = tokens[i].start
        while i < len(tokens) and tokens[i].start == end and (lead := _numeral_lead(tokens[i].surface)):
            end, i = end + lead, i + 1
            if lead < len(tokens[i - 1].surface):
                break
        if end == start:
            i += 1
        elif not _kanji().isdisjoint(utterance.text[start:end]) and not _in_a_number(utterance.text, start):
            found.append((start, end))
    return found


def _numeral_lead(surface: str) -> int:
    """How many characters of a numeral `surface` begins with (its digits, kanji and decimal point)."""
    lead = 0
    while lead < len(surface) and (surface[lead] in _kanji() or surface[lead] in _DIGITS or (
            surface[lead] == "." and 0 < lead < len(surface) - 1 and surface[lead + 1] in _DIGITS)):
        lead += 1
    return lead


def _in_a_number(text: str, start: int) -> bool:
    """Whether a digit, decimal point, comma or kanji numeral comes right before `start` (1,五百)."""
    return start > 0 and (text[start - 1] in _DIGITS or text[start - 1] in ".," or text[start - 1] in _kanji())


def _as_digits(utterance: Utterance, start: int, end: int) -> tuple[int, int, str] | None:
    """The span of the numeral at [start, end) and its digits, if it counts, dates or prices something: part of no
    word, and said before a counter or after a ranking word."""
    text = utterance.text
    if not (_counted(text, end) or _ranked(utterance, start)) or _part_of_a_word(text, start):
        return None
    value = _analysed(utterance, start, end)
    if value is None:
        value = _value(text[start:end])
    return None if value is None else (start, end, str(value))


def _analysed(utterance: Utterance, start: int, end: int) -> int | None:
    """The value the analyser reads for the numeral at [start, end): its numeral token's normalised form."""
    token = utterance.ending_at(end)
    if token is None or token.start != start or not token.is_numeral:
        return None
    return int(token.normal) if token.normal.isascii() and token.normal.isdigit() else None


def _counted(text: str, end: int) -> bool:
    """Whether a counter, unit or date word begins at `end` (三個, 四月, 八時; not 一時的 or 三分の一)."""
    return text.startswith(numeral_counters(), end) and not text.startswith(numeral_not_counters(), end)


def _ranked(utterance: Utterance, start: int) -> bool:
    """Whether a ranking or recent-period word ends right at `start` (上位三つ, ここ三日)."""
    before = utterance.ending_at(start)
    return before is not None and before.surface in numeral_prefixes()


def _part_of_a_word(text: str, start: int) -> bool:
    """Whether the numeral at `start` is part of a word: one of the idioms (一杯, 六本木, 一人一人) or no minutes
    (十分) begins with it, or a character it is glued to comes right before it (唯一つ); never right after an hour
    (7時十分)."""
    if _after_an_hour(text, start):
        return False
    if start > 0 and text[start - 1] in numerals_glued():
        return True
    return text.startswith(_words_with_numerals(), start)


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


_DIGITS = frozenset("0123456789")


@cache
def _kanji() -> frozenset[str]:
    """The digits and units of a kanji numeral."""
    return frozenset((*numeral_digits(), *numeral_units(), *numeral_large_units()))


@cache
def _words_with_numerals() -> tuple[str, ...]:
    """The idioms and the words that are no minutes: a numeral they begin with is part of a word."""
    return (*numeral_idioms(), *numerals_not_minutes())
