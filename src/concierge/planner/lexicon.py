"""What the catalog teaches the planner, compiled once: keywords, code patterns and labels,
referring nouns, name labels, enum vocabularies, count cues and item counters.

Nothing here names a tool or a parameter of the demo catalogs: every word comes from
the `intents` and `extract` keys of the catalog files (docs/planner.md), plus the few
words any request may use whatever the business (counters, pronouns, honorifics).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import regex

from concierge.catalog.model import (
    CodeExtract,
    CountExtract,
    DateExtract,
    EnumExtract,
    ItemsExtract,
    NameExtract,
    Param,
    TimeExtract,
    Tool,
)
from concierge.language import katakana
from concierge.language.english import english_words
from concierge.language.other_forms import other_forms
from concierge.language.readings import reading, readings
from concierge.language.scripts import HAN, HIRAGANA, KATAKANA
from concierge.language.tokens import Token, Utterance, tokenise
from concierge.planner import fuzzy, words
from concierge.planner.fuzzy import Matcher
from concierge.planner.loose import Known
from concierge.planner.text import MASK, Phrases, fold, normalise
from concierge.sources.sql.written import listed_column, tables_of

KEYWORD, TOPIC = "keyword", "topic"
Synonyms = Mapping[str, Mapping[str, str]]  # enum group key -> what is said -> the value (read from the data)
_NONE: Synonyms = {}
# Counters that follow a quantity in Japanese (questions.toml); a catalog adds its own with `extract.counters`.
COUNTERS = list(words.said("counters", "goods"))
KANA_FORM_MIN = 3  # a keyword's reading of fewer kana (あき of 空き) is no keyword: too many words hold it
_HAN = regex.compile(f"[{HAN}]")
_HIRAGANA_END = regex.compile(f"[{HIRAGANA}]$")
DETERMINERS = tuple(fold(normalise(w)) for w in words.said("references", "determiners"))
# Values read from the data that are also words any English request uses: never read as that value.
_FUNCTION_WORDS = english_words("values")
PRONOUNS = words.said_pattern("references", "pronouns")


@dataclass
class CodeKind:
    """All code parameters that share one pattern (the customer code of several tools)."""

    pattern: str
    regex: CodeShape
    labels: set[str] = field(default_factory=set)
    refers: bool = False  # pointed back at by a noun (そのお客様): a code that names someone


@dataclass
class EnumGroup:
    """Enum parameters that read the same values (the category of several tools)."""

    key: str
    synonyms: dict[str, str] = field(default_factory=dict)
    members: set[tuple[str, str]] = field(default_factory=set)  # (tool, param)
    labels: set[str] = field(default_factory=set)  # words naming what its values are (商品名, 商品, product), folded


class Lexicon:
    def __init__(self, tools: Mapping[str, Tool], dialect: str | None = None):
        self.tools = dict(tools)
        self.dialect = dialect  # the SQL of the tools' statements (people_tables.py reads them); None: not read
        self._roles: dict[str, frozenset[str]] = {}
        self.codes: dict[str, CodeKind] = {}
        self.enums: dict[str, EnumGroup] = {}
        self.enum_of: dict[tuple[str, str], EnumGroup] = {}
        self.refer: dict[str, set[str]] = {}  # referring noun (folded) -> parameter names
        self.static_values: dict[str, list[str]] = {}  # enum group -> values declared in the catalog
        self.conditions: set[str] = set()  # the yes/no groups said in words (not shipped, 未出荷): content
        name_labels: set[str] = set()
        code_names: dict[str, tuple[str, str]] = {}  # a value said by a name (赤) -> (its pattern, the value)
        counters = list(COUNTERS)
        self.takes_goods = False  # some tool records goods said with counters (キュウリ10本)
        params = [p for t in self.tools.values() for p in t.params.values()]
        self.takes_times = any(isinstance(p.extract, TimeExtract) for p in params)  # 18時半 is a time, not a count
        cues: dict[str, set[tuple[str, str]]] = {}
        for tool in self.tools.values():
            for phrase in tool.intents.keywords if tool.intents else []:
                cues.setdefault(phrase, set()).add((tool.name, KEYWORD))
            for phrase in tool.intents.topics if tool.intents else []:
                cues.setdefault(phrase, set()).add((tool.name, TOPIC))
            for pname, param in tool.params.items():
                x = param.extract
                if isinstance(x, CountExtract) and x.relative is not None:  # a bit brighter: this tool
                    for phrase in [*x.relative.up, *x.relative.down]:
                        cues.setdefault(phrase, set()).add((tool.name, KEYWORD))
                pattern = code_pattern(param)
                if isinstance(x, CodeExtract) and pattern:
                    kind = self.codes.get(pattern) or self.codes.setdefault(pattern, CodeKind(pattern, CodeShape(
                        pattern if param.pattern else None)))
                    kind.labels.update(x.labels)
                    kind.refers = kind.refers or bool(x.refer)
                    code_names.update({said: (pattern, value) for said, value in x.named.items()})
                    for noun in x.refer:
                        self.refer.setdefault(fold(normalise(noun)), set()).add(pname)
                elif isinstance(x, NameExtract):
                    name_labels.update(x.labels)
                elif isinstance(x, EnumExtract):
                    self._add_enum(tool.name, pname, param, x)
                elif isinstance(x, ItemsExtract):
                    self.takes_goods = True
                    counters += [c for c in x.counters if c not in counters]
        _add_kana_forms(cues)  # まちがえてた: the keyword 間違え, written in kana
        self.cues: Phrases[frozenset[tuple[str, str]]] = Phrases({k: frozenset(v) for k, v in cues.items()})
        # the catalogs' topics alone, to find those a longer keyword holds
        self.topics: Phrases[frozenset[tuple[str, str]]] = Phrases({
            phrase: frozenset((t, k) for t, k in value if k == TOPIC)
            for phrase, value in self.cues.values.items() if any(k == TOPIC for _, k in value)})
        self.code_labels: Phrases[str] = Phrases({
            label: pattern for pattern, kind in self.codes.items() for label in sorted(kind.labels)})
        self.name_labels: Phrases[str] = Phrases({label: label for label in name_labels})
        self.code_names: Phrases[tuple[str, str]] = Phrases(code_names)
        self.referring = Referring(tuple(self.refer)) if self.refer else None
        self.counters = tuple(sorted(counters, key=len, reverse=True))  # of goods recorded: 個, 本, kg, longest first
        count_words = {w for t in self.tools.values() for p in t.params.values() if isinstance(p.extract, CountExtract)
                       for w in [*p.extract.cues, *p.extract.one, *p.extract.said]}
        # The single words keywords and topics are made of (customer, invoice, 得意先): a number said after one
        # names a row (customer 5); and the cues of counts, after which a number is how many (top 5).
        cue_words = {w for phrase in self.cues.values for w in phrase.split() if len(w) > 1 and not w.isdigit()}
        self.nouns = frozenset(cue_words | {w.removesuffix("s") for w in cue_words if w.isascii()})
        self.count_cues = frozenset(fold(normalise(w)) for t in self.tools.values() for p in t.params.values()
                                    if isinstance(p.extract, CountExtract) for w in p.extract.cues)
        self.vocabulary = {fold(normalise(w)) for w in [*self.cues.values, *count_words, *code_names,
                                                         *(s for g in self.enums.values() for s in g.synonyms)]}
        # Words of the question's frame: a value of the data that is one is read as that value only where the
        # sentence places it as one (planner/frame.py).
        self.frame: Phrases[str] = Phrases({w: w for w in self._frame_words(count_words, name_labels)})
        self._enum_phrases: dict[tuple, Phrases[frozenset[tuple[str, str]]]] = {}
        self._counts: dict[tuple[str, str], tuple[Phrases[str], Phrases[str]]] = {}
        self._columns: dict[str, Phrases[str]] = {}
        self._matchers: dict[tuple, dict[str, Matcher]] = {}
        self._keys: dict[tuple[int, int], tuple[Mapping, Mapping, tuple]] = {}
        described, examples = _described(self.tools.values())
        self.known = Known.of(self.vocabulary | described | set(GENERIC_WORDS)
                              | set(words.words("numbers", "suffixes")) | set(words.words("lines", "plain"))
                              | {w for kind in ("price", "money", "count") for w in words.words("measures", kind)},
                              described=examples)
        # The English words the catalog names its columns and parameters with (rating, returned): a participle
        # of one is no unknown state of the rows.
        self.catalog_words = frozenset(w for t in self.tools.values() for p, param in t.params.items()
                                       for w in re.findall(r"[a-z]+", f"{p} {param.description.get('en') or ''}"
                                                           .lower())) | frozenset(
            w for t in self.tools.values() for lab in t.result.labels.values()
            for w in re.findall(r"[a-z]+", (lab.en or "").lower()))

    def _add_enum(self, tool: str, pname: str, param: Param, x: EnumExtract) -> None:
        assert param.enum is not None
        key = param.enum.key or "values:" + "|".join(param.enum.values or [])
        if not param.enum.key and x.synonyms:  # two yes/no conditions are two groups: their words differ
            key += f"@{pname}"
            if set(param.enum.values or []) == {"yes", "no"}:
                self.conditions.add(key)
        group = self.enums.setdefault(key, EnumGroup(key))
        if param.enum.values is not None:
            self.static_values[key] = list(param.enum.values)
        group.synonyms.update(param.enum.synonyms)
        group.synonyms.update(x.synonyms)
        group.members.add((tool, pname))
        group.labels.update(_labels(self.tools[tool], pname, param))
        self.enum_of[(tool, pname)] = group

    def _frame_words(self, count_words: set[str], name_labels: set[str]) -> set[str]:
        """The keywords and topics of every tool, the cues of its counts, the values and synonyms its catalog
        lists (desc, トップ), the labels of its codes and names, and the words of any request (GENERIC_WORDS);
        never the synonyms of values read from the data (お弁当 is the category 弁当, not a word of the frame)."""
        listed = [word for key, group in self.enums.items() if key in self.static_values
                  for word in [*group.synonyms, *self.static_values[key]]]
        labels = [label for kind in self.codes.values() for label in kind.labels]
        return {*self.cues.values, *count_words, *listed, *labels, *name_labels, *GENERIC_WORDS}

    def enum_phrases(self, values: Mapping[str, list[str]], synonyms: Synonyms = _NONE
                     ) -> Phrases[frozenset[tuple[str, str]]]:
        """Every enum value and synonym of the catalog -> the (group key, value) pairs it says, one per
        group (`which day` is the day of every summary that groups by day); values, and more synonyms,
        read from the data."""
        cache_key = self._key(values, synonyms)
        found = self._enum_phrases.get(cache_key)
        if found is None:
            said: dict[str, dict[str, str]] = {}  # phrase (folded) -> group key -> value
            for key, group in self.enums.items():
                valid = self.static_values.get(key) or values.get(key, [])
                listed = key in self.static_values
                for value in valid:
                    if fold(value).strip() not in _FUNCTION_WORDS:  # a grade "A" is not the article in "a list"
                        if listed and _phrase_key(value) in _GENERIC:  # "total" of "the total invoiced" is no
                            continue  # ranking by the column Total: a listed value that is a word of any request
                        if listed and group.synonyms and self._names_a_tool(value):
                            continue  # "stays in suite rooms" counts stays, not by room: its phrases say that
                        said.setdefault(_phrase_key(value), {}).setdefault(key, value)
                declared = {**group.synonyms, **synonyms.get(key, {})}
                said_as = declared if listed else _with_other_forms(valid, declared)  # read from the data only
                for synonym, value in said_as.items():
                    if value in valid:
                        said.setdefault(_phrase_key(synonym), {}).setdefault(key, value)
            found = self._enum_phrases[cache_key] = Phrases(
                {phrase: frozenset(by_group.items()) for phrase, by_group in said.items() if phrase})
        return found

    def _names_a_tool(self, value: str) -> bool:
        """Whether a value is, whole, a keyword or topic of a tool (room, product): the noun of a table."""
        key = _phrase_key(value)
        return any(h.start == 0 and h.end == len(key) for h in self.cues.find(key))

    def listed(self, group: str) -> tuple[str, str] | None:
        """(table, column) whose values an enum group's query lists (SELECT DISTINCT name FROM staff); None for a
        group of values the catalog lists, or a query that is not one column of one table."""
        if self.dialect is None or group.startswith("values:"):
            return None
        return listed_column(group, self.dialect)

    def reads(self, tool: str) -> frozenset[str] | None:
        """The tables a tool's statement reads; None where it has none (a web API's) or it cannot be read."""
        sql = self.tools[tool].sql
        return tables_of(sql, self.dialect) if self.dialect is not None and sql else None

    def role_words(self, group: str) -> frozenset[str]:
        """The words for the people an enum group lists (folded): its labels, and the topics of the tools whose rows
        are the table it lists (顧客, お客さん of the customers' names)."""
        if group not in self._roles:
            found = self.enums[group].labels if group in self.enums else set()
            listed = self.listed(group)
            own = frozenset({listed[0]}) if listed is not None else None
            self._roles[group] = frozenset(found) | frozenset(
                fold(normalise(w)) for name, t in self.tools.items() if own and t.intents and self.reads(name) == own
                for w in t.intents.topics)
        return self._roles[group]

    def enum_groups(self, tool: str) -> set[str]:
        """The groups of values the tool's enum parameters take."""
        return {self.enum_of[(tool, p)].key for p, param in self.tools[tool].params.items()
                if isinstance(param.extract, EnumExtract)}

    def columns(self, tool: str) -> Phrases[str]:
        """The labels of the columns the tool gives back, as phrases to find in a request (電話番号, phone)."""
        found = self._columns.get(tool)
        if found is None:
            labels = {fold(w) for text in self.tools[tool].result.labels.values() for w in (text.ja, text.en)}
            found = self._columns[tool] = Phrases({label: label for label in labels if len(label) > 1})
        return found

    def matchers(self, values: Mapping[str, list[str]], synonyms: Synonyms = _NONE) -> dict[str, Matcher]:
        """A loose matcher per enum group whose values are read from the data (products, categories)."""
        cache_key = self._key(values, synonyms)
        found = self._matchers.get(cache_key)
        if found is None:
            found = self._matchers[cache_key] = {
                key: fuzzy.matcher(values[key], _with_other_forms(values[key], {**group.synonyms,
                                                                                 **synonyms.get(key, {})}))
                for key, group in self.enums.items()
                if key not in self.static_values and values.get(key)}
            if any(m.in_katakana for m in found.values()):
                katakana.load()  # English is read in katakana against them (road bikes), never in a request's budget
        return found

    def _key(self, values: Mapping[str, list[str]], synonyms: Synonyms) -> tuple:
        """The cache key of the values and synonyms read from the data: made once per pair of mappings (the data's
        facts are the same objects until they are read again), not at every request."""
        known = self._keys.get((id(values), id(synonyms)))
        if known is not None and known[0] is values and known[1] is synonyms:
            return known[2]
        if len(self._keys) > 64:
            self._keys.clear()
        key = (_key_of(values), _key_of(synonyms))
        self._keys[(id(values), id(synonyms))] = (values, synonyms, key)
        return key

    def prepare(self) -> None:
        """Build now what each tool's words are found by, and read its statement (the tables it reads, the column an
        enum group lists), so that no request pays for the first to read them."""
        for group in self.enums:
            self.role_words(group)
        for name, tool in self.tools.items():
            self.columns(name)
            self.reads(name)
            for pname, param in tool.params.items():
                if isinstance(param.extract, CountExtract):
                    self.count_phrases(name, pname)
                    self.count_words(name, pname)

    def count_units(self, tool: str, pname: str) -> Units | None:
        """A number before one of a count's units (30%, 4チャンネル, 50 percent), or None when it has none."""
        x = self.tools[tool].params[pname].extract
        assert isinstance(x, CountExtract)
        return _units(tuple(x.units)) if x.units else None

    def count_phrases(self, tool: str, pname: str) -> tuple[Phrases[str], Phrases[str]]:
        """(cues said before a number, superlatives that mean one) of a count parameter."""
        key = (tool, pname)
        if key not in self._counts:
            x = self.tools[tool].params[pname].extract
            assert isinstance(x, CountExtract)
            self._counts[key] = (Phrases({c: c for c in x.cues}), Phrases({o: o for o in x.one}))
        return self._counts[key]

    def count_words(self, tool: str, pname: str) -> Phrases[int]:
        """The numbers a count parameter takes said by a word (半分: 50, max: 100)."""
        x = self.tools[tool].params[pname].extract
        assert isinstance(x, CountExtract)
        return _said_numbers(tuple(x.said.items()))


@lru_cache(maxsize=256)
def _said_numbers(said: tuple[tuple[str, int], ...]) -> Phrases[int]:
    return Phrases(dict(said))


def takes(tool: Tool, kind: type) -> bool:
    """Whether a parameter of the tool is read from a request with this kind of extract (a time of day, a day)."""
    return any(isinstance(p.extract, kind) for p in tool.params.values())


def reads_data(param: Param) -> bool:
    """An enum parameter whose values are read from the data (the products, the lights)."""
    return isinstance(param.extract, EnumExtract) and param.enum is not None and param.enum.values is None


def of_fixed_values(param: Param) -> bool:
    """An enum parameter whose values the catalog lists (on and off, up and down): said, it makes the command."""
    return isinstance(param.extract, EnumExtract) and param.enum is not None and param.enum.values is not None


def _add_kana_forms(cues: dict[str, set[tuple[str, str]]]) -> None:
    """The phrases written with kanji that end in a whole word (間違え, 変更, 取り消し; not the stem 入庫数を直) are
    said in hiragana too, their reading: a request typed in kana says them so."""
    for phrase in list(cues):
        if _HAN.search(phrase) and (_HIRAGANA_END.search(phrase) or readings(phrase)):
            kana = reading(phrase)
            if len(kana) >= KANA_FORM_MIN and kana != phrase:
                cues.setdefault(kana, set()).update(cues[phrase])


def _with_other_forms(values: list[str], declared: Mapping[str, str]) -> dict[str, str]:
    """An enum's synonyms, and its values as the other language says them (Germany: ドイツ, Jazz: ジャズ)."""
    return {**other_forms(values, declared), **declared}


INTEGER_KEY = r"^[1-9]\d{0,8}$"  # the code an integer key parameter takes (customer 5, 受注番号1024)


def code_pattern(param: Param) -> str | None:
    """The pattern a code parameter's values are found by: its own, or an integer key's: a whole number, told
    apart from the other keys' by its labels (a regex comment), and read only after one of them (customer 5;
    a number said alone is no key)."""
    if param.pattern:
        return param.pattern
    x = param.extract
    if param.type != "integer" or not isinstance(x, CodeExtract):
        return None
    return f"{INTEGER_KEY}(?#{'|'.join(sorted(fold(normalise(w)) for w in x.labels)).replace(')', '')})"


def takes_key(param: Param) -> bool:
    """Whether a parameter takes a key said as one (ALFKI): a text code with no pattern to read it by."""
    return isinstance(param.extract, CodeExtract) and param.type == "string" and not param.pattern


def finds_by_name(tool: Tool) -> bool:
    """Whether a tool finds rows by a name said (a customer's, a menu item's)."""
    return any(isinstance(p.extract, NameExtract) for p in tool.params.values())


def takes_dates(tool: Tool) -> bool:
    """Whether a tool takes a period (its rows are events: sales, visits, rentals)."""
    return any(isinstance(p.extract, DateExtract) for p in tool.params.values())


def takes_code(param: Param, value: str, pattern: str) -> bool:
    """Whether a code read (its value, and the pattern it was read by) is one for this parameter: one that fits
    its pattern; for an integer key, one read after its own labels."""
    if param.pattern:
        return re.fullmatch(param.pattern, value) is not None
    return pattern == code_pattern(param)


# Words of requests about any business's data that are never one of its values (questions.toml [generic]).
GENERIC_WORDS = words.said("generic", "words")


_GENERIC = frozenset(GENERIC_WORDS)


def _described(tools) -> tuple[set[str], set[str]]:
    """The nouns of the catalog's own descriptions (the store D店, 商品別): never an unknown value; those said in
    brackets apart, as examples that may be values said another way (読み方が違っても可: からあげ・カラアゲ)."""
    found: set[str] = set()
    examples: set[str] = set()
    for tool in tools:
        texts = [tool.description.get("ja"), *(p.description.get("ja") for p in tool.params.values())]
        for text in texts:
            inside = "".join(_BRACKETED.findall(text or ""))
            examples.update(regex.findall(_DESCRIBED_NOUN, inside))
            found.update(regex.findall(_DESCRIBED_NOUN, _BRACKETED.sub(" ", text or "")))
    return {fold(normalise(w)) for w in found}, {fold(normalise(w)) for w in examples}


_DESCRIBED_NOUN = rf"[A-Za-z0-9]*[{KATAKANA}{HAN}]{{2,}}"
_BRACKETED = regex.compile(r"[（(][^）)]*[）)]")


def _labels(tool: Tool, pname: str, param: Param) -> set[str]:
    """What an enum parameter's values are called: its column's label in the results, the first words of its
    descriptions and its name (商品名, product name, product), each also without 名 / name (商品)."""
    said = [tool.result.labels[pname].get(lang) for lang in ("ja", "en")] if pname in tool.result.labels else []
    said += [re.split(r"[(（,、:：]", text, maxsplit=1)[0] for text in (param.description.ja, param.description.en)]
    said.append(pname.replace("_", " "))
    words = {" ".join(fold(normalise(w)).split()) for w in said if w}
    words |= {_NAME_SUFFIX.sub("", w) for w in words}
    return {re.sub(r"^(?:the|a|an)\s+", "", w) for w in words if w}


_NAME_SUFFIX = re.compile("(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(
    words.said("nouns", "name_after"), key=len, reverse=True)) + ")$")  # over the catalog's labels


@lru_cache(maxsize=64)  # read once per count parameter, not at every request
def _units(units: tuple[str, ...]) -> Units:
    return Units(tuple(fold(normalise(u)) for u in units))


def _phrase_key(phrase: str) -> str:
    return " ".join(fold(normalise(phrase)).split())


def _key_of(mapping: Mapping[str, Any]) -> tuple:
    """A mapping of lists or of mappings as a hashable cache key."""
    return tuple((k, tuple(sorted(v.items())) if isinstance(v, Mapping) else tuple(v))
                 for k, v in sorted(mapping.items()))


def spelt(said: Utterance, folded: str, start: int, listed: tuple[str, ...], whole: bool = True) -> int | None:
    """Where the longest of the words listed (folded) ends that the text from `start` on says, ending where a token
    ends (where `whole`); None where none is said there."""
    return max((start + len(w) for w in listed if w and folded.startswith(w, start)
                and (not whole or said.ends_at(start + len(w)))), default=None)


@dataclass(frozen=True)
class Referring:
    """A noun of the catalog said after a word that points back (そのお客様, the same customer): `noun` is it,
    as the catalog lists it (folded)."""

    nouns: tuple[str, ...]

    def finditer(self, text: str) -> Iterator[words.Found]:
        said, folded = tokenise(text), fold(text)
        i = 0
        while i < len(said.tokens):
            found = self._at(said, folded, i)
            if found is None:
                i += 1
                continue
            yield found
            i = said.starting(found.end(), len(text) + 1).start

    def _at(self, said: Utterance, folded: str, i: int) -> words.Found | None:
        det = spelt(said, folded, said.tokens[i].start, DETERMINERS)
        after = said.starting(det, len(folded)) if det is not None else range(0)
        if not after or folded[det:said.tokens[after.start].start].strip():
            return None
        start = said.tokens[after.start].start
        end = spelt(said, folded, start, self.nouns, whole=False)
        return None if end is None else words.Found(said.text, said.tokens[i].start, end, {"noun": folded[start:end]})


@dataclass(frozen=True)
class Units:
    """A number (1 to 4 digits) said before one of a count's units (30%, 4チャンネル, 50 percent): `n` is it."""

    units: tuple[str, ...]  # folded

    def search(self, text: str) -> words.Found | None:
        said, folded = tokenise(text), fold(text)
        for i, token in enumerate(said.tokens):
            before = said.tokens[i - 1] if i else None
            if i + 1 < len(said.tokens) and _digits(token, before) and spelt(
                    said, folded, said.tokens[i + 1].start, self.units, whole=False) is not None:
                return words.Found(said.text, token.start, said.tokens[i + 1].end, {"n": token.surface})
            glued = self._glued(said, folded, token, before)  # 2人(前): the analyser glues a number to its unit
            if glued is not None:
                return glued
        return None

    def _glued(self, said: Utterance, folded: str, token: Token, before: Token | None) -> words.Found | None:
        digits = len(token.surface) - len(token.surface.lstrip("0123456789"))
        number = Token(token.surface[:digits], "", "", "", ("",), token.start, token.start + digits)
        if not 0 < digits < len(token.surface) or not _digits(number, before):
            return None
        end = spelt(said, folded, number.end, self.units)
        return None if end is None else words.Found(said.text, token.start, end, {"n": number.surface})


MAX_DIGITS = 4


def _digits(token: Token, before: Token | None) -> bool:
    """A number of up to four digits said as a word of its own (not the end of 1.5 or of 12345)."""
    glued = before is not None and before.end == token.start and before.surface[-1:] in ".0123456789"
    return token.surface.isdecimal() and len(token.surface) <= MAX_DIGITS and not glued


MAX_CODE_TOKENS = 8  # a code is said in a few tokens (R-5023: R, -, 5023)


class CodeShape:
    """The codes of one declared pattern said in a request: runs of tokens said together that fit it whole, no
    letter or digit glued on either side; a code of digits only never where a unit follows it (2024年, 3人)."""

    def __init__(self, pattern: str | None):  # None: read after its labels only (an integer key)
        self.body = pattern.removeprefix("^").removesuffix("$") if pattern else None
        self.digits = self.body is not None and any(
            re.fullmatch(self.body, d * n) for d in "01" for n in range(1, 13))  # the catalog's pattern

    def finditer(self, text: str) -> Iterator[words.Found]:
        if self.body is None:
            return
        said = tokenise(text)
        i = 0
        while i < len(said.tokens):
            found = self._at(said, i)
            if found is None:
                i += 1
                continue
            yield found
            i = said.starting(found.end(), len(text) + 1).start

    def _at(self, said: Utterance, i: int) -> words.Found | None:
        tokens, text = said.tokens, said.text
        if i > 0 and tokens[i - 1].end == tokens[i].start and _alnum_end(tokens[i - 1].surface):
            return None
        last = i
        while last + 1 < min(len(tokens), i + MAX_CODE_TOKENS) and tokens[last].end == tokens[last + 1].start:
            last += 1
        for j in range(last, i - 1, -1):
            value = text[tokens[i].start:tokens[j].end]
            if MASK not in value and re.fullmatch(self.body or "", value) and self._ends(said, j):
                return words.Found(text, tokens[i].start, tokens[j].end)
        return None

    def _ends(self, said: Utterance, j: int) -> bool:
        """Whether a code may end with token `j`: nothing glued after it, and no unit after a number."""
        after = said.tokens[j + 1] if j + 1 < len(said.tokens) else None
        if after is not None and after.start == said.tokens[j].end and _alnum_start(after.surface):
            return False
        return not (self.digits and after is not None and _a_unit(after.surface))


def _alnum_end(word: str) -> bool:
    return word[-1:].isascii() and word[-1:].isalnum()


def _alnum_start(word: str) -> bool:
    return word[:1].isascii() and word[:1].isalnum()


def _a_unit(word: str) -> bool:
    """A word of a unit after a number (年, 円, 人, yen, days): `[code_said] units_ja` begin it, `units_en` are it."""
    return word.startswith(words.said("code_said", "units_ja")) or word.lower() in words.said("code_said", "units_en")
