"""Japanese as data (words/ja.toml): the one reader of its lists."""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["after_nouns", "and_particle", "around_values", "aspect_auxiliaries", "counts_written", "final_particles",
           "from_now_words", "honorific_prefixes", "honorifics", "kana_aspect", "kana_counters", "kana_counts",
           "long_particles", "multipliers", "not_name_ends", "not_names", "numeral_counters", "numeral_digits",
           "numeral_idioms", "numeral_large_units", "numeral_not_counters", "numeral_prefixes", "numeral_units",
           "numerals_glued", "numerals_not_minutes", "of_particle", "particles", "people_counts", "subsidiary_verbs",
           "time_words"]


@cache
def _table() -> dict[str, Any]:
    return tomllib.loads(resources.files("concierge.language").joinpath("words/ja.toml").read_text("utf-8"))


def kana_counts() -> dict[str, int]:
    """ひとつ: 1, ふたつ: 2 …"""
    return _table()["counts"]["kana"]


def kanji_numbers() -> dict[str, int]:
    """一: 1 … 十: 10, numbers said as one kanji."""
    return _table()["counts"]["kanji"]


def people_counts() -> dict[str, int]:
    """ひとり: 1, ふたり: 2 …: people counted, written with 人."""
    return _table()["counts"]["people"]


def counts_written() -> dict[str, str]:
    """kana: つ, people: 人: the counter each of kana_counts and people_counts is written with after its digits."""
    return _table()["counts_written"]


def multipliers() -> dict[str, int]:
    """万: 10000, 千: 1000: said right after digits, what they multiply them by."""
    return _table()["counts"]["multipliers"]


def kana_counters() -> dict[str, str]:
    """こ: 個, ほん: 本 …: a counter said in kana after digits, as written."""
    return _table()["counts"]["counters"]


@cache
def aspect_auxiliaries() -> frozenset[str]:
    """とく, ちゃう …: said between a verb and its て, they leave its meaning (消しといて is 消して)."""
    return frozenset(_table()["verbs"]["aspect"])


def kana_aspect() -> dict[str, list[str]]:
    """The auxiliaries of aspect as said after a verb written in kana (けしといて), the sounds its stem ends in
    and the て or た after them; and the て, で, た, だ a verb's auxiliaries of aspect come before."""
    return _table()["kana_aspect"]


def time_words() -> dict[str, list[str]]:
    """時, 分, 半 of a time of day (18時半), and the parts of the day said before its hour (午後, 朝, 昼)."""
    return _table()["clock"]


def from_now_words() -> dict[str, Any]:
    """時間 and くらい of a time from now (1時間くらい後), and the token patterns said around it (今から, 後)."""
    return _table()["from_now"]


@cache
def subsidiary_verbs() -> frozenset[str]:
    """くださる, くれる …: after a て, part of the verb before it (消してください)."""
    return frozenset(_table()["verbs"]["subsidiary"])


def honorifics() -> tuple[str, ...]:
    """さん, 様 …: said after a name."""
    return tuple(_table()["words"]["honorifics"])


def honorific_prefixes() -> tuple[str, ...]:
    """お, ご: said politely before a word (お茶, ご注文)."""
    return tuple(_table()["words"]["honorific_prefixes"])


def of_particle() -> str:
    """の: between two nouns, the first says which of the second (鮭のおにぎり)."""
    return _table()["words"]["of"]


def topic_particle() -> str:
    """は: what the sentence is about (明るさは30で: the brightness, 30)."""
    return _table()["words"]["topic"]


def and_particle() -> str:
    """と: joins nouns said together (海鮮丼と生姜焼き弁当)."""
    return _table()["words"]["and"]


def particles() -> tuple[str, ...]:
    """の, を, が …: particles of one character, each of which ends a noun."""
    return tuple(_table()["words"]["particles"])


def long_particles() -> tuple[str, ...]:
    """から, だけ …: particles of more than one character."""
    return tuple(_table()["words"]["long_particles"])


def final_particles() -> tuple[str, ...]:
    """か, ね …: particles that end a sentence."""
    return tuple(_table()["words"]["final_particles"])


def after_nouns() -> tuple[str, ...]:
    """です, ください, ずつ …: said right after a noun with no particle between (おにぎりください)."""
    return tuple(_table()["words"]["after_nouns"])


def around_values() -> tuple[str, ...]:
    """じゃあ, って, ください …: grammar said around a value, never a word of it."""
    return tuple(_table()["words"]["around_values"])


@cache
def not_names() -> frozenset[str]:
    """お客, 皆, 店長 …: said before an honorific, no one's name."""
    return frozenset(_table()["words"]["not_names"])


def not_name_ends() -> tuple[str, ...]:
    """お客 …: a word said before an honorific that ends in one is no one's name (そのお客さん)."""
    return tuple(_table()["words"]["not_name_ends"])


@cache
def qualifier_pos() -> frozenset[str]:
    """形容詞, 形状詞, 接頭辞: a word of these said right before a value given by name (薄い青) makes it another."""
    return frozenset(_table()["words"]["qualifier_pos"])


def numeral_digits() -> dict[str, int]:
    """〇: 0, 一: 1 … 九: 9: the digits of a kanji numeral."""
    return _table()["numerals"]["digits"]


def numeral_units() -> dict[str, int]:
    """十: 10, 百: 100, 千: 1000: a kanji numeral's units below 万, each said once in a group of four digits."""
    return _table()["numerals"]["units"]


def numeral_large_units() -> dict[str, int]:
    """万: 10000, 億: 100000000: a kanji numeral's units that multiply the group before them."""
    return _table()["numerals"]["large_units"]


@cache
def numeral_counters() -> tuple[str, ...]:
    """個, 円, 月, 時 …: counters, units and date words; a numeral right before one counts, prices or dates it."""
    return tuple(_table()["numerals"]["counters"])


def numeral_tenths() -> dict[str, Any]:
    """7割: a count of tenths (`tenths`, token patterns), what one is worth (`tenth`) and the unit it is in
    (`percent`)."""
    table = _table()["numerals"]
    return {"tenths": table["tenths"], "tenth": table["tenth"], "percent": table["percent"]}


@cache
def numeral_prefixes() -> tuple[str, ...]:
    """上位, トップ, 直近, ここ …: said right before a numeral, they rank or count back (上位三つ, ここ三日)."""
    return tuple(_table()["numerals"]["prefixes"])


@cache
def numeral_not_counters() -> tuple[str, ...]:
    """時的, 分の …: words that begin like a counter and are none (一時的, 三分の一)."""
    return tuple(_table()["numerals"]["not_counters"])


@cache
def numeral_idioms() -> tuple[str, ...]:
    """一杯, 三日月, 六本木 …: a numeral and a counter that count nothing."""
    return tuple(_table()["numerals"]["idioms"])


@cache
def numerals_not_minutes() -> frozenset[str]:
    """十分 (enough), 一分 (the least): a numeral and 分 that are no minutes."""
    return frozenset(_table()["numerals"]["not_minutes"])


@cache
def numerals_glued() -> tuple[str, ...]:
    """唯, 統, 同 …: a numeral right after one is part of a word (唯一, 統一)."""
    return tuple(_table()["numerals"]["glued"])
