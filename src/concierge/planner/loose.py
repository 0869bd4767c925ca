"""Values said loosely: a short form, a misspelling, a reading in kana, an English gloss, or a word
that matches nothing or several values of the data.

`read_loosely` runs after the exact enum values and synonyms are read. It
1. gives back an exact value found inside a longer word (おにぎり inside しゃけおにぎり) when the whole
   word names a value of another group (鮭おにぎり, a product), so a product is not read as its category;
2. reads the words that name one value loosely (ハンバーグ -> ハンバーグ弁当): the caller uses them and
   says how it read them;
3. keeps the words that name several values (お茶 -> 麦茶, 緑茶) and the words that look like a value but
   name none (an unknown katakana word, 惣菜の売上): the planner asks about them instead of dropping them.
Only enum groups whose values are read from the data are matched loosely; values a catalog lists
(desc, asc) are words of the request, read exactly.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import takewhile

import regex

from concierge.language.english import (
    common_words,
    determiners,
    english_numbers,
    english_words,
    function_words,
    qualifiers,
    talk_words,
)
from concierge.language.japanese import around_values, final_particles, honorifics, of_particle, particles
from concierge.language.katakana import katakana
from concierge.language.readings import romaji, sound_key
from concierge.language.scripts import HAN, HIRAGANA, KATAKANA
from concierge.language.tokens import Token, Utterance, japanese, tokenise
from concierge.planner import budget, words
from concierge.planner.fuzzy import Candidate, Found, Matcher
from concierge.planner.text import MASK, Disjoint, Hit, fold, mask, overlaps

Span = tuple[int, int]
_NOUN = regex.compile(rf"[{KATAKANA}{HAN}{HIRAGANA}A-Za-z]")
_STOP = set(particles())  # particles end a word
_LONGEST_BEFORE_TOPIC = 8  # letters of a word read as a value before の売上: 惣菜 of 惣菜の売れ筋, not a whole phrase


@dataclass(frozen=True)
class Unsure:
    """Words that name several values of one group: which one is asked. `also`: the other groups whose values
    the words name too (佐藤さん: a member of staff and a customer), asked about with the first."""

    said: str
    span: Span
    group: str
    candidates: tuple[str, ...]
    also: tuple[str, ...] = ()

    def of(self, group: str) -> bool:
        return group == self.group or group in self.also


@dataclass
class Loose:
    hits: list[Hit[frozenset[tuple[str, str]]]] = field(default_factory=list)  # exact hits kept + loose ones
    understood: list[tuple[str, str]] = field(default_factory=list)  # (words said, value read)
    unsure: list[Unsure] = field(default_factory=list)
    unknown: list[tuple[str, Span]] = field(default_factory=list)  # look like a value, name none


@dataclass(frozen=True)
class Known:
    """Words of the catalog and of any request (folded): never an unknown value."""

    words: frozenset[str]
    long: tuple[str, ...]  # those of two characters or more: a word that contains one is known too
    # those never read as part of a value or a misspelt one: not the catalog's descriptions, which may name values
    # (読み方が違っても可: からあげ・カラアゲ)
    stop: frozenset[str] = frozenset()

    @classmethod
    def of(cls, words: Collection[str], described: Collection[str] = ()) -> Known:
        stop = frozenset(fold(w) for w in words)
        folded = stop | {fold(w) for w in described}
        return cls(folded, tuple(sorted(w for w in folded if len(w) > 1)), stop)


def read_loosely(text: str, taken: list[Span], exact: list[Hit[frozenset[tuple[str, str]]]],
                 matchers: dict[str, Matcher], known: Known) -> Loose:
    out = Loose()
    # a word around a value never runs into another value (おにぎりと|弁当); the values found never overlap, so
    # masking them all leaves each one's surroundings as masking the others would
    apart = mask(text, taken + [(h.start, h.end) for h in exact])
    for hit in exact:
        word = _whole_word(apart, hit.start, hit.end)
        other = _other_group(text, word, hit, matchers) if word[1] - word[0] > hit.end - hit.start else None
        if other is None:
            out.hits.append(hit)
            if any(key in matchers for key, _ in hit.value) and _qualified(text, apart, word, hit, known) \
                    and not _another_value(text, word, hit, matchers, known):
                # てりやき弁当: a bento, but which? never all of them
                out.unknown.append((text[word[0]:word[1]], word))
            continue
        _take(out, other[0], text[word[0]:word[1]], word, other[1])
    spans = taken + [(h.start, h.end) for h in out.hits] + [u.span for u in out.unsure] + [s for _, s in out.unknown]
    for group, found, rivals in _loose(mask(text, spans), matchers, known, text):
        if rivals:
            _take_across(out, text, [(group, found), *rivals])
        else:
            _take_unless_another_thing(out, text, mask(text, spans), group, found, known)
    spans += [(h.start, h.end) for h in out.hits] + [u.span for u in out.unsure]
    for group, found in _contained(mask(text, spans), matchers, known):  # しゃけ, ツナ: inside one name only
        _take_unless_another_thing(out, text, mask(text, spans), group, found, known)
    spans += [(h.start, h.end) for h in out.hits] + [u.span for u in out.unsure]
    out.unknown += _unknown(mask(text, spans), known)
    _in_romaji(out, text, matchers)
    _english(out, text, mask(text, spans), matchers, known)
    _in_katakana(out, text, mask(text, spans + [(h.start, h.end) for h in out.hits] + [u.span for u in out.unsure]),
                 matchers)
    _english_qualified(out, text, exact, known, matchers)
    _in_japanese(out, text, mask(text, spans + [(h.start, h.end) for h in out.hits] + [u.span for u in out.unsure]
                                 + [s for _, s in out.unknown]), matchers, known)
    _misspelt_place(out, text, mask(text, spans + [(h.start, h.end) for h in out.hits]), matchers, known)
    _twins(out, text, matchers)
    return out


_EN_NOT_VALUES = english_words("loose")
_KATAKANA_RUN = 3  # English words read as one value in katakana, at most


def _english_words_said(text: str, masked: str, key: str, least: int) -> list[tuple[str, Span, Span]]:
    """The English word `w` of each match of `[loose] key` in the text (letters and hyphens, `least` or more),
    where none of the match is masked in `masked`: the word as said, where, and where the whole match is."""
    utterance = tokenise(text)
    out = []
    for m in words.token_pattern("loose", key).finditer(utterance):
        span = m.named.get("w")
        if span is not None and MASK not in masked[m.start:m.end] and _an_english_word(text[span[0]:span[1]], least):
            out.append((text[span[0]:span[1]], span, (m.start, m.end)))
    return out


def _an_english_word(word: str, least: int) -> bool:
    """Letters a-z and hyphens, a letter first, `least` or more (tea, green-tea; not 2nd, o'clock)."""
    return len(word) >= least and word.isascii() and word[:1].isalpha() and word.replace("-", "").isalpha()


def _misspelt_place(out: Loose, text: str, masked: str, matchers: dict[str, Matcher], known: Known) -> None:
    """A lower-case word after from / in that is a value misspelt (guests from germnay): read as that value, and
    said so in the answer; words of the catalog and of any request never are."""
    for word, span, whole in _english_words_said(text, masked, "after_place", _PLACE_WORD_LEAST):
        if not text[whole[0]:whole[1]].islower() or word in _EN_NOT_VALUES or word in known.words:
            continue
        found = {(key, c.value) for key, matcher in matchers.items() for c in matcher.match(word)
                 if c.how == "typo"}
        if len(found) == 1:
            (key, value), = found
            out.hits.append(Hit(span[0], span[1], word, frozenset({(key, value)})))
            out.understood.append((word, value))


_PLACE_WORD_LEAST = 5
_COUNTED_WORD_LEAST = 3
_EN_SAID_WORDS = function_words() | common_words() | determiners() | qualifiers() | english_words("values") \
    | english_words("nouns") | english_words("names")
_EN_COUNTS = frozenset(english_numbers())


def _english_qualified(out: Loose, text: str, exact: list[Hit[frozenset[tuple[str, str]]]], known: Known,
                       matchers: dict[str, Matcher]) -> None:
    """A count, then an English word no reading took, then a value found exactly (2 teriyaki bento): a name that
    is none, asked about, never dropped for the value after it; or the one value the words name misspelt (2 karage
    bento: karaage bento), read as it and said so."""
    taken = [(h.start, h.end) for h in out.hits] + [u.span for u in out.unsure] + [s for _, s in out.unknown]
    utterance = tokenise(text)
    for hit in exact:
        m = words.token_pattern("loose", "counted_word").ending(utterance, hit.start, 2)
        if m is None or not text[hit.start:hit.end].isascii() or not text[m.end:hit.start].isspace() \
                or not _an_english_word(m.said(utterance, "w") or "", _COUNTED_WORD_LEAST):
            continue
        count, word, span = (m.said(utterance, "count") or "").lower(), (m.said(utterance, "w") or "").lower(), \
            m.named["w"]
        if not (count.isdigit() or count in _EN_COUNTS) or word in _EN_NOT_VALUES or word in _EN_SAID_WORDS \
                or word in _EN_COUNTS or word in known.words or any(a < span[1] and span[0] < b for a, b in taken):
            continue
        said = text[span[0]:hit.end]
        meant = _misspelt(said, matchers)
        if meant is None:
            out.unknown.append((said, (span[0], hit.end)))
            continue
        out.hits = [h for h in out.hits if not (span[0] <= h.start and h.end <= hit.end)]
        out.hits.append(Hit(span[0], hit.end, fold(said), frozenset({meant})))
        out.understood.append((said, meant[1]))


def _misspelt(said: str, matchers: dict[str, Matcher]) -> tuple[str, str] | None:
    """(group, value) of the one value words said name misspelt by a letter or so (karage bento), else None."""
    found = {(key, c.value) for key, m in matchers.items() for c in m.match(said)
             if c.how == "typo" and c.score >= _CLOSE_TYPO}
    return next(iter(found)) if len(found) == 1 else None


def _english(out: Loose, text: str, masked: str, matchers: dict[str, Matcher], known: Known) -> None:
    """An English word just before "sales" names a value: one gloss read, several asked (tea: green tea or
    barley tea?), none reported (sandwich sales)."""
    for said, span, _ in _english_words_said(text, masked, "before_sales", _COUNTED_WORD_LEAST):
        word = said.lower()
        if word in _EN_NOT_VALUES or word in known.words:
            continue
        for key, matcher in matchers.items():
            values = [v for gloss, vs in matcher.glosses().items() if word in gloss.split() for v in vs]
            values = list(dict.fromkeys(values))
            if len(values) == 1:
                out.hits.append(Hit(span[0], span[1], word, frozenset({(key, values[0])})))
                out.understood.append((said, values[0]))
                break
            if values:
                out.unsure.append(Unsure(said, span, key, tuple(values)))
                break
        else:
            out.unknown.append((said, span))


def _in_katakana(out: Loose, text: str, masked: str, matchers: dict[str, Matcher]) -> None:
    """English words that name a value the data writes in katakana (road bikes: ロードバイク), read as that value
    and said so in the answer; the longest run of words first, three at most."""
    kept = {key: m for key, m in matchers.items() if m.in_katakana}
    runs = _english_runs(masked, talk_words()) if kept else []
    if not runs:
        return
    taken = Disjoint()
    for run in runs:
        for size in range(min(len(run), _KATAKANA_RUN), 0, -1):
            for first in range(len(run) - size + 1):
                words_said = run[first:first + size]
                span = (words_said[0][1], words_said[-1][2])
                spelt = _spelt(" ".join(w for w, _, _ in words_said), kept) if taken.free(*span) else None
                if spelt is not None:
                    taken.add(*span)
                    out.hits.append(Hit(span[0], span[1], fold(text[span[0]:span[1]]), frozenset({spelt})))
                    out.understood.append((text[span[0]:span[1]], spelt[1]))


def _in_romaji(out: Loose, text: str, matchers: dict[str, Matcher]) -> None:
    """A Japanese word that names no value and sounds like one the data writes in Latin letters (大阪のお客様: Osaka;
    林さん: Hayashi): read as it, and said so in the answer; several of one group are asked about."""
    taken = [(h.start, h.end) for h in out.hits] + [u.span for u in out.unsure] + [s for _, s in out.unknown]
    names = [(t.surface, (t.start, t.end)) for t in tokenise(text).tokens
             if t.is_person_name and japanese(t.surface) and not overlaps((t.start, t.end), taken)]
    for said, span in [*out.unknown, *names]:
        if not japanese(said):
            continue
        key = _sound(said)
        found = {(group, v) for group, m in matchers.items() for v in m.sounded(key)}
        if not found and _one_word(said):  # 東京: the Tokyo of Tokyo DC; 東京倉庫 says more than a value's word
            found = {(group, v) for group, m in matchers.items() for v in m.sounded(key, part=True)}
        if _read_as_sounded(out, text, span, found) and (said, span) in out.unknown:
            out.unknown.remove((said, span))


def _twins(out: Loose, text: str, matchers: dict[str, Matcher]) -> None:
    """A value found whose data also writes it in the other script (渋谷区 and Shibuya, Shinjuku and 新宿区: one ward
    typed two ways): both are read, each a call of its own, and said so; never the rows of one alone as the answer."""
    for hit in list(out.hits):
        if len(hit.value) != 1:
            continue
        (key, value), = hit.value
        matcher = matchers.get(key)
        if matcher is None:
            continue
        if value.isascii():
            twins = matcher.in_japanese([sound_key(value)])
        else:
            said = text[hit.start:hit.end]
            twins = [*matcher.sounded(_sound(value)), *matcher.sounded(_sound(said))]
            if not twins and _one_word(said):
                twins = matcher.sounded(_sound(said), part=True)
        for twin in dict.fromkeys(t for t in twins if t != value):
            out.hits.append(Hit(hit.start, hit.end, hit.phrase, frozenset({(key, twin)})))
            out.understood.append((text[hit.start:hit.end], twin))


def _in_japanese(out: Loose, text: str, masked: str, matchers: dict[str, Matcher], known: Known) -> None:
    """Words in Latin letters, none of the catalog's, that sound like a value the data writes in Japanese (customers
    in Meguro: 目黒区; Hanako Tanaka: 田中 花子): read as it and said so; several of one group (Tanaka: 田中 太郎
    and 田中 花子) are asked about. The longest run of words first, three at most."""
    taken = Disjoint()
    for run in _english_runs(masked):
        for size in range(min(len(run), _KATAKANA_RUN), 0, -1):
            for first in range(len(run) - size + 1):
                said = run[first:first + size]
                span = (said[0][1], said[-1][2])
                if not taken.free(*span) or all(w in known.words for w, _, _ in said):
                    continue
                keys = [sound_key(w) for w, _, _ in said]
                found = {(key, v) for key, m in matchers.items() for v in m.in_japanese(keys)}
                if _read_as_sounded(out, text, span, found):
                    taken.add(*span)


def _read_as_sounded(out: Loose, text: str, span: Span, found: set[tuple[str, str]]) -> bool:
    """The words at `span` read as the values of one group they sound like: one read and said so, several asked
    about; False (nothing read) where they sound like values of no group or of several."""
    groups = {group for group, _ in found}
    if len(groups) != 1:
        return False
    said, values = text[span[0]:span[1]], tuple(sorted(v for _, v in found))
    if len(values) == 1:
        out.hits.append(Hit(span[0], span[1], fold(said), frozenset(found)))
        out.understood.append((said, values[0]))
    else:
        out.unsure.append(Unsure(said, span, groups.pop(), values))
    return True


def _sound(japanese_text: str) -> str:
    """How Japanese words sound, as `readings.sound_key` writes it (大阪: osaka)."""
    return sound_key(romaji(japanese_text))


def _one_word(text: str) -> bool:
    return len(tokenise(text).tokens) == 1


def _english_runs(masked: str, apart: frozenset[str] = frozenset()) -> list[list[tuple[str, int, int]]]:
    """Runs of English words of content (no word of the English lists of grammar and asking, nor of `apart`), each
    word with where it is: [("road", 12, 16), ("bikes", 17, 22)]."""
    if not _LATIN_CHAR.search(masked):
        return []  # no letter: no word to read, and the analyser is not asked
    said = tokenise(masked)
    runs: list[list[tuple[str, int, int]]] = []
    for token in said.tokens:
        word = token.surface.lower()
        if not (token.script == "latin" and len(word) > 2 and word not in _EN_SAID_WORDS
                and word not in _EN_NOT_VALUES and word not in apart):
            if runs and runs[-1]:
                runs.append([])
            continue
        if not runs or (runs[-1] and masked[runs[-1][-1][2]:token.start].strip()):
            runs.append([])
        runs[-1].append((word, token.start, token.end))
    return [r for r in runs if r]


def _spelt(words_said: str, matchers: dict[str, Matcher]) -> tuple[str, str] | None:
    """(group, value) of the one value the words name in katakana, each word read alone (a plural as one)."""
    readings = []
    for word in words_said.split():
        reading = (katakana(word[:-1]) if word.endswith("s") and len(word) > 3 else None) or katakana(word)
        if reading is None:
            return None
        readings.append(reading)
    found = {(key, v) for key, m in matchers.items() for v in m.spelt("".join(readings))}
    return next(iter(found)) if len(found) == 1 else None


def _qualified(text: str, apart: str, word: Span, hit: Hit, known: Known) -> bool:
    """Whether a value found exactly is part of a longer word whose other part is not a known word (its words
    read in `apart`, where the values found are masked: あと|りびんぐ, not あとり|びん|ぐ)."""
    before = fold(text[word[0]:hit.start])
    if before and not text[hit.end:word[1]] and words.said_before(text, hit.start, "clauses", "before_value"):
        return False  # 取消になった|受注: a clause said of the value, not a longer name
    after = fold(text[hit.end:word[1]])
    if not before and text[hit.start:hit.end].isdigit() and after.rstrip(_PARTICLE_CHARS) in _NUMBER_SUFFIXES:
        return False  # 205号室: the room 205
    if not before and after and _only_predicates(_words_apart(apart), hit.end, word[1]):
        return False  # 無断キャンセル|した患者: a verb made of the value, not a longer name
    if before and _only_adverbs(text[word[0]:hit.start]):
        before = ""  # やっぱり餃子なしで: an adverb of the sentence, not a word of a name
    pieces = [(word[0], hit.start)] if before else []
    whole = _without_grammar(_words_apart(apart), [*pieces, (hit.end, word[1])])
    extra = whole.strip(_PARTICLE_CHARS)  # folded: the と that ends ちけっと (チケット) is no particle
    return len(extra) >= 2 and not any(w in known.words or any(w in k or k in w for k in known.long)
                                       for w in {whole, extra})


def _only_predicates(said: Utterance, start: int, end: int) -> bool:
    """Whether the words at [start, end) are a verb and what follows one (した, された), as the analyser reads them."""
    tokens = [said.tokens[i] for i in said.starting(start, end)]
    return bool(tokens) and tokens[0].start == start and all(t.is_predicate for t in tokens)


def _words_apart(masked: str) -> Utterance:
    """The words of a text with values masked, each mask a space (as `_whole_word` reads them)."""
    return tokenise(masked.replace(MASK, " "))


def _without_grammar(utterance: Utterance, spans: list[Span]) -> str:
    """The words said in the spans (folded), but for the words of grammar around a value (じゃあ, って) said as
    tokens of their own."""
    out = []
    for start, end in spans:
        tokens = [utterance.tokens[i] for i in utterance.overlapping(start, end)]
        out += [fold(utterance.text[max(start, t.start):min(end, t.end)]) for t in tokens
                if not (start <= t.start and t.end <= end and fold(t.surface) in _GRAMMAR)]
    return "".join(out)


def _another_value(text: str, word: Span, hit: Hit, matchers: dict[str, Matcher], known: Known) -> bool:
    """Whether the rest of the word is another value said with no particle between (寝室の電気リビング)."""
    rest = text[hit.end:word[1]] or text[word[0]:hit.start]
    return len(rest) >= 2 and any(f.start == 0 and f.end == len(rest) and all(c.how in ("exact", "synonym", "part")
                                                                               for c in f.candidates)
                                  for _, f, _ in _loose(rest, matchers, known))


def _only_adverbs(words: str) -> bool:
    """Whether words are adverbs or interjections only (やっぱり, えっと), by the analyser."""
    tokens = tokenise(words).tokens
    return bool(tokens) and all(t.is_adverb or t.is_interjection for t in tokens)


_NUMBER_SUFFIXES = frozenset(words.words("numbers", "suffixes"))
# Words of grammar around a value (じゃあ飲料は, ぷりんって), and an honorific after a name (Ito Harukaさん): never
# what qualifies it.
_GRAMMAR = frozenset(fold(w) for w in (*around_values(), *honorifics()))
_HONORIFICS = frozenset(honorifics())
_PARTICLE_CHARS = "".join(particles() + final_particles())


def _katakana_words(masked: str) -> list[Span]:
    """The katakana words: runs of katakana tokens (シュークリム, even where the analyser cuts it), of two letters
    or more."""
    if not _KATAKANA_CHAR.search(masked):
        return []  # none to read: the analyser is not asked
    said = _words_apart(masked)
    return [span for span in map(said.span, said.runs(lambda t: t.script == "katakana")) if span[1] - span[0] >= 2]


def _kana_words(masked: str) -> list[Span]:
    """The words written in kana alone: a run of hiragana tokens of three letters or more (しゃけ; not the きそば
    of 焼きそば, one word with its kanji), or a katakana word."""
    if not _KANA_CHAR.search(masked):
        return []
    said = _words_apart(masked)
    hiragana = [(s, e) for s, e in map(said.span, said.runs(lambda t: t.script == "hiragana")) if e - s >= 3]
    return sorted(hiragana + _katakana_words(masked))


def _contained(masked: str, matchers: dict[str, Matcher], known: Known) -> list[tuple[str, Found]]:
    """A kana word that is inside one value's name or reading (しゃけ of 鮭おにぎり, ツナ of ツナマヨおにぎり)."""
    out: list[tuple[str, Found]] = []
    for start, end in _kana_words(masked):
        said = masked[start:end]
        word = fold(said)
        if word in known.words or any(word in k for k in known.long):
            continue
        for key, matcher in matchers.items():
            values = matcher.containing(said)
            if values:
                out.append((key, Found(start, end, said, tuple(Candidate(v, "part", 0.5) for v in values))))
                break
    return out


def _whole_word(masked: str, start: int, end: int) -> Span:
    """The run of noun characters around a value found exactly (しゃけ|おにぎり, おにぎり|セット), up to a word of
    grammar the analyser reads (寝室|だけ: a particle)."""
    grammar = _grammar_edges(masked)
    s, e = start, end
    while s > 0 and _NOUN.match(masked[s - 1]) and s not in grammar[1] and not (
            masked[s - 1] in _STOP and s > 1 and not _HIRAGANA_CHAR.match(masked[s - 2])):  # てりやき|弁当, ツナ|と
        s -= 1
    while e < len(masked) and _NOUN.match(masked[e]) and masked[e] not in _STOP and e not in grammar[0] \
            and not (e == end and e in grammar[1]):  # 寝室の|明るさ: a word ended by its particle
        e += 1
    return s, e


@lru_cache(maxsize=256)  # once per text read, not once per value found in it
def _grammar_edges(text: str) -> tuple[frozenset[int], frozenset[int]]:
    """(where a particle starts, where one ends) in the text."""
    found = [t for t in _words_apart(text).tokens if t.is_particle]
    return frozenset(t.start for t in found), frozenset(t.end for t in found)


def _other_group(text: str, word: Span, hit: Hit, matchers: dict[str, Matcher]) -> tuple[str, Found] | None:
    """The group whose values the whole word names, when it is not the group of the value inside it."""
    groups = {key for key, _ in hit.value}
    said = text[word[0]:word[1]]
    for key, matcher in matchers.items():
        if key not in groups:
            candidates = matcher.match(said)
            if _sure(candidates):  # おにぎり全体 stays the category
                return key, Found(word[0], word[1], said, tuple(candidates))
    return None


def _sure(candidates: list[Candidate]) -> bool:
    """A whole word read as one value of its own: by its letters or reading, or one close misspelling."""
    if not candidates:
        return False
    best = candidates[0]
    runner_up = candidates[1].score if len(candidates) > 1 else 0.0
    return best.how in ("exact", "synonym", "reading") or (best.how == "typo" and best.score - runner_up >= 0.04)


def _loose(masked: str, matchers: dict[str, Matcher], known: Known, said: str | None = None
           ) -> list[tuple[str, Found, list[tuple[str, Found]]]]:
    """Loose matches of every group, longest first, none overlapping; a whole katakana word is read as one
    (シュークリム is シュークリーム misspelt, not シューク and an unknown リム). Each with the matches of the same
    words in other groups whose values are people (佐藤さん: a member of staff and a customer), never dropped for
    the first group's. One letter is read only as a word of its own in the request as `said` (鮭 of 鮭弁当), not
    where the value masked before it leaves it alone (the 中 of 予約中 is no part of 田中)."""
    found = [(key, Found(s, e, masked[s:e], tuple(c))) for s, e in _katakana_words(masked)
             for key, matcher in matchers.items() if _sure(c := matcher.match(masked[s:e]))]
    found += [(key, f) for key, m in matchers.items() for f in m.find(masked, known.stop)]
    chosen: list[tuple[str, Found]] = []
    spans = Disjoint()
    for key, f in sorted(found, key=lambda kf: (-(kf[1].end - kf[1].start), kf[1].start)):
        budget.check()
        single = len(f.said) < 2 and f.candidates[0].how != "exact" and not (  # 売 is not 梅 by its reading ばい
            f.candidates[0].how == "part" and _a_noun_alone(said or masked, f.start, f.end))  # 鮭 of 鮭弁当, a word
        if not single and _plausible(f, masked, matchers[key].heads) and MASK not in f.said \
                and not _cut_from(masked, f) \
                and in_words(masked, f.start, f.end) and spans.add(f.start, f.end):
            chosen.append((key, f))
    return [(key, f, _rivals(key, f, found, masked, matchers)) for key, f in chosen]


def _rivals(key: str, chosen: Found, found: list[tuple[str, Found]], masked: str, matchers: dict[str, Matcher]
            ) -> list[tuple[str, Found]]:
    """The matches of other groups of people of the very words chosen (健一さん: 佐藤 健一 of the staff and 田中 健一
    of the customers)."""
    if not said_as_person(masked, (chosen.start, chosen.end)):
        return []
    return [(k, f) for k, f in found if k != key and (f.start, f.end) == (chosen.start, chosen.end)
            and _plausible(f, masked, matchers[k].heads)]


def said_as_person(text: str, span: Span) -> bool:
    """Whether the words at `span` are said as a person: with an honorific at their end or just after (佐藤さん,
    健一様)."""
    said = tokenise(text)
    within, after = said.starting(*span), said.starting(span[1], span[1] + 1)
    return any(said.tokens[i].surface in _HONORIFICS for i in (*within[-1:], *after))


def _take_across(out: Loose, text: str, matches: list[tuple[str, Found]]) -> None:
    """Words that name people of several groups: one hit in all of them where it is the same person's name in
    each (鈴木大輔さん, staff and customer), else asked, with every group's candidates."""
    first = matches[0][1]
    span, said = (first.start, first.end), text[first.start:first.end]
    values = list(dict.fromkeys(c.value for _, f in matches for c in f.candidates))
    groups = list(dict.fromkeys(k for k, _ in matches))
    if len(values) == 1:
        out.hits.append(Hit(span[0], span[1], fold(said), frozenset((k, values[0]) for k in groups)))
        if first.candidates[0].how not in ("exact", "synonym"):
            out.understood.append((said, values[0]))
        return
    out.unsure.append(Unsure(said, span, groups[0], tuple(values), tuple(groups[1:])))


def _a_noun_alone(text: str, start: int, end: int) -> bool:
    """Whether the analyser reads [start, end) as one noun of its own (唐揚げと|鮭|ふたつずつ)."""
    said = tokenise(text)
    at = said.starting(start, end)
    return len(at) == 1 and said.tokens[at[0]].end == end and said.tokens[at[0]].is_noun


_HAN_CHAR = regex.compile(r"\p{Han}")
_KANA_CHAR = regex.compile(rf"[{HIRAGANA}{KATAKANA}]")
_LATIN_CHAR = regex.compile(r"\p{Latin}")
_HIRAGANA_CHAR = regex.compile(r"\p{Hiragana}")
_KATAKANA_CHAR = regex.compile(r"[\p{Katakana}ー]")


def in_words(text: str, start: int, end: int) -> bool:
    """Whether a value found inside a word is words of it, by the analyser: メン (麺) is no word of ラーメン, える
    (エル, L) none of もらえる, a verb; elsewhere, yes."""
    if _HIRAGANA_CHAR.match(text[start]):
        said = tokenise(text)
        return not any(t.start < start and t.end >= end and t.is_predicate
                       for t in (said.tokens[i] for i in said.overlapping(start, end)))  # a verb's tail
    glued = (start > 0 and _KATAKANA_CHAR.match(text[start - 1])) \
        or (end < len(text) and _KATAKANA_CHAR.match(text[end]))
    if not glued or not _KATAKANA_CHAR.match(text[start]):
        return True
    words = tokenise(text)
    return words.starts_at(start) and words.ends_at(end)


def _cut_from(masked: str, found: Found) -> bool:
    """A part of a value found inside a longer word said that the value does not hold: 東京 of 東京都 is not
    株式会社東京デリカ. The whole word names something else (a prefecture), and is not read as that value."""
    if found.candidates[0].how != "part" or found.said.isascii():
        return False
    s, e = _whole_word(masked, found.start, found.end)
    whole = fold(masked[s:e])
    # the word's words, read with a few letters either side: never the whole text again for each value found in it
    a, b = max(0, s - _AROUND_WORD), min(len(masked), e + _AROUND_WORD)
    apart = _words_apart(mask(masked[a:b], [(found.start - a, found.end - a)]))  # あと|りびんぐ, not あとり|びん|ぐ
    extra = _without_grammar(apart, [(s - a, found.start - a), (found.end - a, e - a)]).strip(_PARTICLE_CHARS)
    return bool(extra) and not any(whole in fold(c.value) for c in found.candidates)  # あとポテサラ: ポテサラ


_AROUND_WORD = 8  # letters read either side of a word when only its own words are asked


_CLOSE_TYPO = 0.5  # one letter off (puding), not two (weather is not water)


def _plausible(found: Found, masked: str, heads: Collection[str] = ()) -> bool:
    """Words that are a verb where they are said (受け付けた: received, never the status 受付) are not read
    loosely as a value; English words of a request (did, are, the) are not read as a part or a misspelling of a
    value unless they are long enough to be a name ("krautback" is part of "the krautback", "dis" is not "did"),
    or are the noun that ends English names of the values (tea of green tea and oolong tea; never can of can beer)."""
    if not found.said.isascii():
        return found.candidates[0].how in ("exact", "synonym") or not (
            _verb_in(found.said) or _inside_verb(masked, found.start, found.end))
    how, size = found.candidates[0].how, len(found.said.strip())
    close = found.candidates[0].score >= _CLOSE_TYPO
    return how in ("exact", "synonym") or (how == "part" and (size >= 4 or fold(found.said.strip()) in heads)) \
        or (how == "typo" and size >= 6 and close)


def _inside_verb(text: str, start: int, end: int) -> bool:
    """Whether the analyser reads the words at [start, end) as part of a verb (受け付け of 受け付けた)."""
    said = tokenise(text)
    return any(said.tokens[i].is_verb for i in said.overlapping(start, end))


def _verb_in(said: str) -> bool:
    """Whether words said with a kanji hold a verb by the analyser (入って is no misspelt サンドイッチ): no name
    is one. Words in kana alone are left alone: the analyser cuts them poorly (り|びん|ぐ)."""
    return _HAN_CHAR.search(said) is not None and any(t.is_predicate for t in tokenise(said).tokens)


def _take_unless_another_thing(out: Loose, text: str, masked: str, group: str, found: Found, known: Known) -> None:
    thing = _another_thing(text, masked, found, known)
    if thing is None:
        _take(out, group, found.said, (found.start, found.end), found)
    else:  # 寝室の扇風機: a fan, which no bedroom light is
        out.unknown.append((text[found.start:thing], (found.start, thing)))


def _another_thing(text: str, masked: str, found: Found, known: Known) -> int | None:
    """Where a noun ends that is said after a part of a value's name and の, when it names a thing no catalog
    knows (寝室の扇風機, リビングのカーテン): the words said name that thing, not the value."""
    if found.candidates[0].how != "part":
        return None
    if found.said.isascii():
        return _another_english_thing(text, masked, found, known)
    said = tokenise(text)
    after = said.starting(found.end, len(text))
    of = words.token_pattern("loose", "place_of")
    last = said.starting(found.start, found.end)
    if last and of.at(said, last.stop - 1) is not None:  # 寝室の|扇風機: the part found holds its の
        first: int | None = after.start
    else:
        taken = of.at(said, after.start) if after else None
        first = taken.last if taken is not None else None
    thing = words.token_pattern("loose", "thing").at(said, first) if first is not None and after else None
    if thing is None or MASK in masked[thing.start:thing.end]:
        return None
    noun = text[thing.start:thing.end]
    if noun in _NOT_THINGS or _known(fold(noun), known) or any(noun in c.value for c in found.candidates):
        return None
    return thing.end


_NOT_THINGS = frozenset(words.said("loose", "not_things"))
_NOT_THINGS_EN = frozenset(words.said("loose", "not_things_en"))
_AFTER_THING_EN = _NOT_THINGS_EN | frozenset(words.said("loose", "after_thing_en"))


def _another_english_thing(text: str, masked: str, found: Found, known: Known) -> int | None:
    """Where the English noun ends that is said right after a part of a value's name and ends what is said of it,
    when it names a thing no catalog knows (the bedroom fan): the words said name that thing, not the value."""
    said = tokenise(text)
    after = said.starting(found.end, len(text))
    noun = said.tokens[after.start] if after else None
    if noun is None or not noun.surface.isalpha() or not text[found.end:noun.start].isspace() \
            or MASK in masked[noun.start:noun.end]:
        return None
    word = noun.surface.lower()
    if word in _EN_SAID_WORDS or word in _NOT_THINGS_EN or word in _EN_COUNTS \
            or {word, word.removesuffix("s")} & known.words or any(word in c.value.lower() for c in found.candidates):
        return None
    then = said.tokens[after.start + 1] if after.start + 1 < len(said.tokens) else None
    ends = then is None or not then.surface.isalpha() or then.surface.lower() in _AFTER_THING_EN
    return noun.end if ends else None  # the bedroom fan (on, please); not "no udon after all"


def _take(out: Loose, group: str, said: str, span: Span, found: Found) -> None:
    values = [c.value for c in found.candidates]
    last = tokenise(said).tokens[-1:] if not said.isascii() else []
    if last and last[0].is_particle and last[0].start > 0:  # 寝室の of 寝室の明るさ: the word is 寝室
        said, span = said[:last[0].start], (span[0], span[0] + last[0].start)
    if found.candidates and found.candidates[0].how == "typo" and _sure(list(found.candidates)):
        values = values[:1]  # the one misspelling clearly closest
    if len(values) == 1:
        out.hits.append(Hit(span[0], span[1], fold(said), frozenset({(group, values[0])})))
        if found.candidates[0].how not in ("exact", "synonym"):
            out.understood.append((said, values[0]))
    elif values:
        out.unsure.append(Unsure(said, span, group, tuple(values)))


def _unknown(masked: str, known: Known) -> list[tuple[str, Span]]:
    """Words left that look like a value: a katakana word, or a noun just before の売上 / の日別 …"""
    out: list[tuple[str, Span]] = []
    spans = Disjoint()
    for start, end in [*_foreign_words(masked), *_before_topic(masked, known)]:
        said = masked[start:end]
        if fold(said) not in _GRAMMAR and not _known(fold(said), known) and spans.add(start, end):  # 青木 美香|先生
            out.append((said, (start, end)))
    return sorted(out, key=lambda u: u[1][0])


def _foreign_words(masked: str) -> list[Span]:
    """Katakana words, each with the kanji written right after it (カップ麺 is one word)."""
    said = _words_apart(masked)
    out = []
    for run in said.runs(lambda t: t.script in ("katakana", "han")):
        found: list[list[Token]] = []
        for token in said.tokens[run.start:run.stop]:
            if token.script == "katakana" and (not found or found[-1][-1].script == "han"):
                found.append([token])
            elif found:
                found[-1].append(token)
        for word in found:
            katakana = "".join(t.surface for t in takewhile(lambda t: t.script == "katakana", word))
            if len(katakana) >= 2 and not katakana.startswith("ー"):
                out.append((word[0].start, word[-1].end))
    return out


def _before_topic(masked: str, known: Known) -> list[Span]:
    """A word of katakana or kanji said just before の and a word of the catalog (惣菜 of 惣菜の売れ筋), its
    last eight letters at most, cut between tokens."""
    said = _words_apart(masked)
    out = []
    for run in said.runs(lambda t: t.script in ("katakana", "han")):
        then = said.starting(said.tokens[run.stop - 1].end, len(masked) + 1)
        particle = said.tokens[then.start] if then else None
        if particle is None or particle.surface != of_particle() or particle.start != said.tokens[run.stop - 1].end:
            continue
        after = masked[particle.end:particle.end + 8]
        if not (after[:1] == MASK or fold(after).startswith(known.long)):
            continue
        first = next((i for i in run if said.tokens[run.stop - 1].end - said.tokens[i].start <= _LONGEST_BEFORE_TOPIC),
                     run.stop)
        start, end = said.span(range(first, run.stop)) if first < run.stop else (0, 0)
        if end - start >= 2:
            out.append((start, end))
    return out


def _known(word: str, known: Known) -> bool:
    """Whether a word is known: one of the known words, inside one, or one followed by more (チェックイン何件, 売上高);
    a known word said after another word or inside one is not enough (ネット注文, レジ of クレジットカード)."""
    if word in known.words:
        return True
    for k in known.long:
        if word in k or word.startswith(k):
            return True
        if k in word:
            rest = word.replace(k, "", 1)
            if len(rest) < 2 or rest in known.words:
                return True
    return False
