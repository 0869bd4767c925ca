"""Read Japanese kanji numerals as ASCII digits where they count, date or price something.

四月 → 4月, 十二月二十五日 → 12月25日, 三個 → 3個, 千円 → 1000円, 二千五百円 → 2500円,
一万二千円 → 12000円, 1万2千円 → 12000円, 上位三つ → 上位3つ, トップ三 → トップ3.

A number is converted only when a counter, date or money unit follows it (月 日 年 週 ヶ月 個 本 円
件 つ 位 人 …) or a ranking / recent-period word precedes it (上位 下位 トップ ワースト ベスト 直近 過去
ここ), or an hour or minutes of a time (八時, 三十分後). Words that merely contain a numeral stay as written: 一番,
一緒, 一度, 一部, 十分, 一時的, 一杯, 一郎, 九州.
The input is expected to be NFKC-normalised already (ASCII digits).
"""
from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache

_DIGITS = {**{c: i for i, c in enumerate("〇一二三四五六七八九")}, "零": 0, **{str(i): i for i in range(10)}}
_SMALL_UNITS = {"十": 10, "百": 100, "千": 1000}
_BIG_UNITS = {"万": 10_000, "億": 100_000_000}
_KANJI = "〇零一二三四五六七八九十百千万億"

_COUNTERS = (
    "ヶ月|ヵ月|カ月|ケ月|か月|箇月|ヶ所|か所|箇所|週間|日間|年間|時間|種類|番目|人前|パック|ケース|セット|キロ|グラム"
    "|月|日|年|週|個|本|円|件|つ|位|人|名|枚|袋|箱|杯|缶|点|台|回|倍|割|品|種|束|株|玉|房|匹|頭|尾|粒|冊|組|皿|切れ"
    "|歳|才|軒|店|社|kg|g|L|ml"
    "|時(?!的|期|金|停止|保管|休止|中断)|分(?!の|け|か)"  # 八時, 三十分後; not 一時的, 三分の一, 五分け
)
_PREFIXES = "上位|下位|トップ|ワースト|ベスト|直近|過去|ここ"
# 唯一, 統一, 同一 ...: a numeral glued to these is part of a word, not a count.
_NUMBER = re.compile(
    rf"(?P<pre>{_PREFIXES})?(?<![0-9.,{_KANJI}唯統同均随画単])"
    rf"(?P<n>(?:[0-9]+(?:\.[0-9]+)?)?[{_KANJI}][0-9{_KANJI}]*)"
)
_COUNTER = re.compile(_COUNTERS)
_ANY_KANJI = re.compile(f"[{_KANJI}]")
# Idioms and place names that only look like counts (六本木 is no 6本).
_NOT_MINUTES = ("十", "一")  # 十分 (enough), 一分の隙もない: no minutes
_WORDS = ("一杯", "一日中", "一人一人", "一本化", "三日月", "二日酔", "五月雨", "六本木", "四日市", "十日町", "二日市")


def _value(token: str) -> int | None:
    """The integer a kanji / mixed numeral spells (二千五百 = 2500, 1万2千 = 12000, 二〇二五 = 2025)."""
    if token[0] in _BIG_UNITS:
        return None
    if not any(c in _SMALL_UNITS or c in _BIG_UNITS for c in token):  # positional: 二〇二五
        return None if "." in token else int("".join(str(_DIGITS[c]) for c in token))
    total, group = Decimal(0), Decimal(0)
    current: str = ""
    for c in token:
        if c in _DIGITS or c == ".":
            current += c if c == "." else str(_DIGITS[c])
        elif c in _SMALL_UNITS:
            group += Decimal(current or "1") * _SMALL_UNITS[c]
            current = ""
        else:
            total += (group + Decimal(current or "0") or 1) * _BIG_UNITS[c]
            group, current = Decimal(0), ""
    value = total + group + Decimal(current or "0")
    return int(value) if value == value.to_integral_value() else None


def _replace(m: re.Match[str]) -> str:
    token = m["n"]
    if not _ANY_KANJI.search(token) or m.string.startswith(_WORDS, m.start("n")):
        return m.group()
    if not (m["pre"] or _COUNTER.match(m.string, m.end())):
        return m.group()
    if token in _NOT_MINUTES and m.string.startswith("分", m.end()):  # 十分: enough, 一分: a little
        return m.group()
    value = _value(token)
    return m.group() if value is None else (m["pre"] or "") + str(value)


@lru_cache(maxsize=4096)
def kanji_to_digits(text: str) -> str:
    """`text` with every kanji numeral that counts, dates or prices something written in ASCII digits."""
    if not _ANY_KANJI.search(text):
        return text
    return _NUMBER.sub(_replace, text)
