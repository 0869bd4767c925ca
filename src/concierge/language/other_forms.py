"""How a value of the data is said in the other language: a country by its English or Japanese name (Germany,
ドイツ; the CLDR names through Babel, and the everyday forms of words/places.toml: USA, 米国), an everyday value
(男: male, men; キャンセル: cancelled; words/places.toml), a value in snake case as it is said (no_show: no show,
no-shows), and an English word by its katakana (Jazz: ジャズ,
Suite: スイート; language/katakana.py). Staff write 「ドイツのお客様」 and
「ジャズの曲」 on data kept in English, and "customers in Germany" on data kept in Japanese.

`other_forms(values)` is what the planner adds to an enum's synonyms: what is said -> the value as the data
writes it. A form two values share names neither (Babel's two Congos); a value is never its own form."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path

from concierge.language.katakana import katakana

# Katakana is read for at most this many values a set (about a millisecond each): a set of more (every
# customer's name) is names, said as written; and for values of at most this many words (Rock And Roll).
KATAKANA_VALUES = 200
KATAKANA_WORDS = 3
_ENGLISH_WORDS = re.compile(r"[A-Za-z]+(?:[ &'-]+[A-Za-z]+)*")
_WORD = re.compile(r"[A-Za-z]+")
_JOINING = {"and", "&", "of", "the"}


def _key(name: str) -> str:
    return re.sub(r"[\s.・]", "", name).casefold()


@cache
def _countries() -> dict[str, frozenset[str]]:
    """Every name of a country (folded) -> every name of that country (as written), in English and Japanese."""
    from babel import Locale

    names: dict[str, set[str]] = {}
    for lang in ("en", "ja"):
        for code, name in Locale(lang).territories.items():
            if code.isalpha() and len(code) == 2:
                names.setdefault(code, set()).add(name)
    extra = tomllib.loads((Path(__file__).parent / "words" / "places.toml").read_text("utf-8"))
    for code, said in extra["countries"].items():
        names.setdefault(code, set()).update(said)
    out: dict[str, set[str]] = {}
    for all_names in names.values():
        for name in all_names:
            out.setdefault(_key(name), set()).update(all_names)
    return {k: frozenset(v) for k, v in out.items()}


@cache
def _values() -> dict[str, frozenset[str]]:
    """Every form of an everyday value (folded) -> all its forms (男: male, men …), from words/places.toml."""
    data = tomllib.loads((Path(__file__).parent / "words" / "places.toml").read_text("utf-8"))
    out: dict[str, frozenset[str]] = {}
    for group in data["values"]:
        forms = frozenset(group["forms"])
        for form in forms:
            out[_key(form)] = forms
    return out


def value_names(value: str) -> frozenset[str]:
    """The other forms of an everyday value (男: male, man, men …), none where it is no such value."""
    return _values().get(_key(value), frozenset())


def spoken_forms(value: str) -> frozenset[str]:
    """A value the data writes in snake case or with hyphens (no_show, in_progress) as staff type it: its words a
    space or a hyphen apart, or run together (no show, no-show, noshow), the last one plural where it may be a noun
    (no shows; never cancelleds)."""
    said = value.lower().replace("-", "_").split("_")
    if len(said) < 2 or not all(w.isascii() and w.isalpha() for w in said):
        return frozenset()
    forms = {" ".join(said), "-".join(said), "".join(said)}
    if not said[-1].endswith(_NO_PLURAL):
        plural = [*said[:-1], said[-1] + "s"]
        forms |= {" ".join(plural), "-".join(plural)}
    return frozenset(forms)


_NO_PLURAL = ("s", "ed", "ing", "ly")


def country_names(value: str) -> frozenset[str]:
    """The other names of the country a value names (Germany: ドイツ, ...), or none where it names no country."""
    return _countries().get(_key(value), frozenset())


def katakana_of(value: str) -> str | None:
    """The katakana of an English value of a few words (Rock And Roll: ロックロール), None where it has none."""
    if not _ENGLISH_WORDS.fullmatch(value):
        return None
    said = [w for w in _WORD.findall(value) if w.lower() not in _JOINING]
    if not said or len(said) > KATAKANA_WORDS:
        return None
    kana = [katakana(w.lower()) for w in said]
    return "".join(k for k in kana if k) if all(kana) else None


def other_forms(values: Iterable[str], declared: Mapping[str, str] | None = None) -> dict[str, str]:
    """What is said in the other language -> the value (the module docstring). `declared` synonyms win."""
    values = list(dict.fromkeys(values))
    found: dict[str, set[str]] = {}
    for value in values:
        for name in country_names(value) | value_names(value) | spoken_forms(value):
            if len(name) > 1:  # M and F say male and female only where the data writes them so
                found.setdefault(name, set()).add(value)
    if len(values) <= KATAKANA_VALUES:
        for value in values:
            kana = None if value.isupper() or country_names(value) else katakana_of(value)  # USA is no ユーザ
            if kana:
                found.setdefault(kana, set()).add(value)
    taken = {_key(v) for v in values} | {_key(s) for s in declared or {}}
    return {said: next(iter(vs)) for said, vs in found.items() if len(vs) == 1 and _key(said) not in taken}
