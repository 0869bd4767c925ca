"""What the catalog teaches the planner, compiled once: keywords, code patterns and labels,
referring nouns, name labels, enum vocabularies, count cues and item counters.

Nothing here names a tool or a parameter of the demo catalogs: every word comes from
the `intents` and `extract` keys of the catalog files (docs/planner.md), plus the few
words any request may use whatever the business (counters, pronouns, honorifics).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from concierge.catalog.model import CodeExtract, CountExtract, EnumExtract, ItemsExtract, NameExtract, Param, Tool
from concierge.planner.text import Phrases, fold, normalise

KEYWORD, TOPIC = "keyword", "topic"
# Counters that follow a quantity in Japanese; a catalog adds its own with `extract.counters`.
COUNTERS = ["個", "本", "玉", "袋", "箱", "束", "株", "枚", "パック", "kg", "キロ", "g", "グラム", "房", "ケース",
            "匹", "尾", "杯", "缶", "セット", "点", "つ", "台", "冊", "粒", "切れ", "カゴ", "籠", "ケ", "コ", "把",
            "ダース", "L", "リットル", "ml"]
NOUN_CHARS = "ぁ-ゖァ-ヺー一-龯々A-Za-z"
DETERMINERS = r"(?:その|この|同じ|当該|上記の?|先ほどの|さっきの|前述の|that|this|the\s+same|same|said)"
# Values read from the data that are also words any English request uses: never read as that value.
_FUNCTION_WORDS = {"a", "an", "the", "i", "in", "on", "at", "of", "to", "by", "or", "and", "for", "is", "it", "me",
                   "my", "we", "us", "do", "be", "as", "so", "if", "no", "not", "all", "any", "show", "what", "how"}
PRONOUNS = re.compile(r"(?<![a-z])(?:they|them|their|he|him|his|she|her)(?![a-z])|彼女|彼", re.IGNORECASE)


@dataclass
class CodeKind:
    """All code parameters that share one pattern (the customer code of several tools)."""

    pattern: str
    regex: re.Pattern[str]
    labels: set[str] = field(default_factory=set)


@dataclass
class EnumGroup:
    """Enum parameters that read the same values (the category of several tools)."""

    key: str
    synonyms: dict[str, str] = field(default_factory=dict)
    members: set[tuple[str, str]] = field(default_factory=set)  # (tool, param)


class Lexicon:
    def __init__(self, tools: Mapping[str, Tool]):
        self.tools = dict(tools)
        self.codes: dict[str, CodeKind] = {}
        self.enums: dict[str, EnumGroup] = {}
        self.enum_of: dict[tuple[str, str], EnumGroup] = {}
        self.refer: dict[str, set[str]] = {}  # referring noun (folded) -> parameter names
        self.static_values: dict[str, list[str]] = {}  # enum group -> values declared in the catalog
        name_labels: set[str] = set()
        counters = list(COUNTERS)
        cues: dict[str, set[tuple[str, str]]] = {}
        for tool in self.tools.values():
            for phrase in tool.intents.keywords if tool.intents else []:
                cues.setdefault(phrase, set()).add((tool.name, KEYWORD))
            for phrase in tool.intents.topics if tool.intents else []:
                cues.setdefault(phrase, set()).add((tool.name, TOPIC))
            for pname, param in tool.params.items():
                x = param.extract
                if isinstance(x, CodeExtract) and param.pattern:
                    kind = self.codes.get(param.pattern) or self.codes.setdefault(
                        param.pattern, CodeKind(param.pattern, _code_regex(param.pattern)))
                    kind.labels.update(x.labels)
                    for noun in x.refer:
                        self.refer.setdefault(fold(normalise(noun)), set()).add(pname)
                elif isinstance(x, NameExtract):
                    name_labels.update(x.labels)
                elif isinstance(x, EnumExtract):
                    self._add_enum(tool.name, pname, param, x)
                elif isinstance(x, ItemsExtract):
                    counters += [c for c in x.counters if c not in counters]
        self.cues: Phrases[frozenset[tuple[str, str]]] = Phrases({k: frozenset(v) for k, v in cues.items()})
        self.code_labels: Phrases[str] = Phrases({
            label: pattern for pattern, kind in self.codes.items() for label in sorted(kind.labels)})
        self.name_labels: Phrases[str] = Phrases({label: label for label in name_labels})
        nouns = "|".join(re.escape(n) for n in sorted(self.refer, key=len, reverse=True))
        self.referring = re.compile(rf"{DETERMINERS}\s*(?P<noun>{nouns})", re.IGNORECASE) if nouns else None
        said = "|".join(re.escape(c) for c in sorted(counters, key=len, reverse=True))
        self.goods = re.compile(rf"(?P<noun>[{NOUN_CHARS}]+)\s*[をが]?\s*(?P<qty>\d+(?:\.\d+)?)\s*(?P<counter>{said})"
                                r"(?![A-Za-z])")  # キュウリ10本, トマトを2個
        count_words = {w for t in self.tools.values() for p in t.params.values()
                       if isinstance(p.extract, CountExtract) for w in p.extract.cues + p.extract.one}
        self.vocabulary = {fold(normalise(w)) for w in [*self.cues.values, *count_words,
                                                         *(s for g in self.enums.values() for s in g.synonyms)]}
        self._enum_phrases: dict[tuple, Phrases[frozenset[tuple[str, str]]]] = {}
        self._counts: dict[tuple[str, str], tuple[Phrases[str], Phrases[str]]] = {}

    def _add_enum(self, tool: str, pname: str, param: Param, x: EnumExtract) -> None:
        assert param.enum is not None
        key = param.enum.query or "values:" + "|".join(param.enum.values or [])
        group = self.enums.setdefault(key, EnumGroup(key))
        if param.enum.values is not None:
            self.static_values[key] = list(param.enum.values)
        group.synonyms.update(param.enum.synonyms)
        group.synonyms.update(x.synonyms)
        group.members.add((tool, pname))
        self.enum_of[(tool, pname)] = group

    def enum_phrases(self, values: Mapping[str, list[str]]) -> Phrases[frozenset[tuple[str, str]]]:
        """Every enum value and synonym of the catalog -> the (group key, value) pairs it says, one per
        group (`which day` is the day of every summary that groups by day); values read from the data."""
        cache_key = tuple((k, tuple(v)) for k, v in sorted(values.items()))
        found = self._enum_phrases.get(cache_key)
        if found is None:
            said: dict[str, dict[str, str]] = {}  # phrase (folded) -> group key -> value
            for key, group in self.enums.items():
                valid = self.static_values.get(key) or values.get(key, [])
                for value in valid:
                    if fold(value).strip() not in _FUNCTION_WORDS:  # a grade "A" is not the article in "a list"
                        said.setdefault(_phrase_key(value), {}).setdefault(key, value)
                for synonym, value in group.synonyms.items():
                    if value in valid:
                        said.setdefault(_phrase_key(synonym), {}).setdefault(key, value)
            found = self._enum_phrases[cache_key] = Phrases(
                {phrase: frozenset(by_group.items()) for phrase, by_group in said.items() if phrase})
        return found

    def count_phrases(self, tool: str, pname: str) -> tuple[Phrases[str], Phrases[str]]:
        """(cues said before a number, superlatives that mean one) of a count parameter."""
        key = (tool, pname)
        if key not in self._counts:
            x = self.tools[tool].params[pname].extract
            assert isinstance(x, CountExtract)
            self._counts[key] = (Phrases({c: c for c in x.cues}), Phrases({o: o for o in x.one}))
        return self._counts[key]


def _phrase_key(phrase: str) -> str:
    return " ".join(fold(normalise(phrase)).split())


def _code_regex(pattern: str) -> re.Pattern[str]:
    body = pattern.removeprefix("^").removesuffix("$")
    unit = r"(?!\s*(?:年|月|日|円|件|個|本|%|時|分|歳|人|名|位|yen\b|days?\b|years?\b))"
    return re.compile(rf"(?<![0-9A-Za-z])(?:{body})(?![0-9A-Za-z]){unit}")
