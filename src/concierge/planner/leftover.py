"""What a request says that a read tool's call would leave unused.

A result broader than the question is never its answer: "How many albums does AC/DC have?" answered with
every album, or "the invoices of customer 5" with every invoice, states a figure the person did not ask for.
`said` lists the request's content: the values of the data it names, codes, keys said as one (ALFKI),
names (AC/DC, Chika Smith), its periods, sums of money, a number said after a noun of the catalog
(customer 5), words that look like a value and name none (an unknown katakana word, 山田商店 before の),
and a state said of the rows that no value read (haven't shipped yet, 販売中止になった, 未返却:
planner/words/questions.toml). `left` is what of that content one tool
takes no parameter for. The planner then moves the call to a tool the request names that takes it all, or
says what could not be applied and makes no call (planner/plan.py).

The words of the question's structure (a ranking's order, what to group by, how many to show) are not
content here: they are values of a catalog's own lists, and a tool that does not take them still answers.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from concierge.catalog.model import (
    AmountExtract,
    CodeExtract,
    CountExtract,
    DateExtract,
    EnumExtract,
    Tool,
)
from concierge.language.english import common_words, function_words
from concierge.language.scripts import HIRAGANA
from concierge.language.tokens import Token, Utterance, tokenise
from concierge.planner import date_pairs, whose, words
from concierge.planner.lexicon import Lexicon, code_pattern, takes_key
from concierge.planner.measure import names_a_measure
from concierge.planner.ranking import GROUP
from concierge.planner.slots import Slots, count
from concierge.planner.text import MASK, fold, overlaps

Span = tuple[int, int]

@dataclass(frozen=True)
class Said:
    """One piece of a request's content: the words, where they are, and what kind of value they are."""

    text: str
    span: Span
    kind: str  # enum | code | key | name | date | amount | number | condition | unknown | group | rows
    groups: frozenset[str] = frozenset()  # enum: the groups whose value it is; code: its pattern


def said(slots: Slots, lexicon: Lexicon) -> list[Said]:
    """The request's content, in the order said."""
    out = [Said(slots.text[h.start:h.end], (h.start, h.end), "enum", frozenset(k for k, _ in h.value))
           for h in slots.enums if any(k not in lexicon.static_values or k in lexicon.conditions for k, _ in h.value)]
    out += [Said(slots.text[c.start:c.end], (c.start, c.end), "code", frozenset({c.pattern})) for c in slots.codes]
    out += [Said(name, span, "name") for name, span in slots.names]
    out += [Said(slots.text[d.start_index:d.end_index], (d.start_index, d.end_index), "date") for d in slots.dates]
    out += [Said(slots.text[s[0]:s[1]], s, "amount") for _, s in slots.amounts]
    values = [s.span for s in out if s.kind == "enum"]  # room 203: the room, a value of the data
    out += [n for n in _numbers(slots, lexicon) if not any(n.span[0] < a < n.span[1] <= b for a, b in values)]
    out += [Said(key, span, "key") for key, span in slots.keys]
    out += [Said(word, span, "unknown") for word, span in slots.unknown if not overlaps(span, [s.span for s in out])]
    read = [s.span for s in out] + [(h.start, h.end) for h in slots.enums]  # 売れなかった: the order asc
    out += [c for c in _conditions(slots, lexicon) if not overlaps(c.span, read)]
    read = [s.span for s in out]
    out += [g for g in _groupings(slots, lexicon) if not overlaps(g.span, read)]
    read = [s.span for s in out]
    out += [r for r in rows_unknown(slots, lexicon) if not overlaps(r.span, read)]
    return sorted(out, key=lambda s: s.span)


def left(tool: Tool, slots: Slots, lexicon: Lexicon, offered: set[str]) -> list[Said]:
    """The content of the request that no parameter of `tool` takes."""
    people = {span for _, span in slots.people(lexicon.enum_groups(tool.name))}
    return [s for s in said(slots, lexicon) if not _takes(tool, s, slots, lexicon, offered, people)]


def _takes(tool: Tool, s: Said, slots: Slots, lexicon: Lexicon, offered: set[str], people: set[Span]) -> bool:
    keywords = tool.intents.keywords if tool.intents else []
    if s.kind == "date" and fold(s.text.strip()) in _TODAY and _of_now(tool):
        return True  # 天丼って今日ありますか: the menu as it is today
    if s.kind in ("group", "condition", "rows") and not (s.kind == "group" and GROUP in tool.params) \
            and any(_begins_a_word_of(fold(s.text), fold(k)) for k in keywords):
        return True  # 日別 of a tool of daily sales, 在庫 of the stock's tool: what it answers (not 店別 of 支店別);
        # a summary groups by what its own parameter takes, never by a word of its keywords
    # Words that look like a value fill a name only where no name is said; 佐藤 花子さん, a person of the data,
    # fills one too.
    if s.kind in ("name", "unknown") or (s.kind == "enum" and s.span in people):
        return not (s.kind == "unknown" and slots.names) and bool(whose.fills(tool, slots, s.span, offered))
    for pname, p in tool.params.items():
        x = p.extract
        if s.kind in ("enum", "group") and isinstance(x, EnumExtract) \
                and lexicon.enum_of[(tool.name, pname)].key in s.groups:
            return True
        if s.kind == "enum" and isinstance(x, DateExtract) and slots.dates and s.groups <= lexicon.conditions \
                and pname in date_pairs.chosen(tool, slots).values() \
                and any(fold(w) in fold(s.text) for w in x.words):
            return True  # shipped last month: the period of the ship date says shipped already
        if s.kind == "code" and isinstance(x, CodeExtract) and code_pattern(p) in s.groups:
            return True
        if s.kind == "key" and takes_key(p):
            return True
        if s.kind == "date" and isinstance(x, DateExtract) and pname in date_pairs.chosen(tool, slots).values():
            return True
        if s.kind == "amount" and isinstance(x, AmountExtract):
            return True
        if s.kind == "number" and isinstance(x, CountExtract) \
                and str(count(slots, lexicon, tool.name, pname)) in s.text:
            return True
    return False


def rows_unknown(slots: Slots, lexicon: Lexicon) -> list[Said]:
    """A noun said as what is counted or added up (入荷件数, 貸出は何件) that is no word of the catalog nor of any
    request: rows the catalog does not know, never answered with the figures of other rows (the items)."""
    utterance = tokenise(slots.text)
    out = []
    dates = [(d.start_index, d.end_index) for d in slots.dates]
    for m in words.token_pattern("leftover", "counted_noun").finditer(utterance):
        token = utterance.tokens[m.first]
        span = m.named["w"]
        word = fold(slots.text[span[0]:span[1]])
        first = len(token.surface)  # 入荷 of 入荷数量: the word that says which rows
        if MASK in slots.cue_text[span[0]:span[1]] or "副詞可能" in token.pos or overlaps(span, dates) \
                or first < 2 or _HIRAGANA.search(slots.text, span[0], span[1]) or word in lexicon.known.words \
                or any(word.startswith(k) and len(k) >= first for k in lexicon.known.long):
            continue
        out.append(Said(slots.text[span[0]:span[1]], span, "rows"))
    for m in words.token_pattern("leftover", "counted_noun_en").finditer(utterance):
        span = m.named["w"]
        word = slots.text[span[0]:span[1]].lower()
        if MASK not in slots.cue_text[span[0]:span[1]] and not _known_in_english(word, lexicon):
            out.append(Said(slots.text[span[0]:span[1]], span, "rows"))  # how many flyers: rows no one listed
    return out


def _known_in_english(word: str, lexicon: Lexicon) -> bool:
    forms = {word, word.removesuffix("s"), word.removesuffix("es"), word[:-3] + "y" if word.endswith("ies") else word}
    return bool(forms & (lexicon.known.words | lexicon.catalog_words | lexicon.nouns | _EN_NOT_ROWS))


def _begins_a_word_of(phrase: str, keyword: str) -> bool:
    """Whether a phrase is said in a keyword from the start of one of its words (日別 in 日別売上 and 商品の日別, never
    店別 in 支店別)."""
    at = keyword.find(phrase)
    while at >= 0:
        if at == 0 or keyword[at - 1] in _WORD_EDGES:
            return True
        at = keyword.find(phrase, at + 1)
    return False


_HIRAGANA = regex.compile(rf"[{HIRAGANA}]")  # 検品のやつ: a word of talk, not of the rows
_EN_NOT_ROWS = frozenset(words.said("leftover", "counted_not_rows_en")) | function_words() | common_words()
_WORD_EDGES = frozenset(" のと・、")
_TODAY = frozenset(fold(w) for w in words.said("days", "today"))
_DAY_WORDS = words.said("leftover", "day_words")


def _of_now(tool: Tool) -> bool:
    """Whether a read keeps no day: no parameter takes one and no column of its rows is named as one."""
    if tool.mode != "read" or any(isinstance(p.extract, DateExtract) or p.type in ("date", "datetime")
                                  for p in tool.params.values()):
        return False
    named = [w for label in tool.result.labels.values() for w in (label.ja, label.en) if w]
    named += list(tool.result.columns or []) + list(tool.result.labels)
    return not any(day in fold(n) for n in named for day in _DAY_WORDS)


def _conditions(slots: Slots, lexicon: Lexicon) -> list[Said]:
    """A state said of the rows that no value of the data read (haven't shipped yet, 販売中止になった, 未返却):
    a parameter that takes it reads it as one of its values (a yes/no filter's synonyms); else it is left."""
    text = slots.cue_text
    for m in words.pattern("conditions", "not_conditions").finditer(text):
        text = text[:m.start()] + MASK * (m.end() - m.start()) + text[m.end():]
    found = [m.span() for key in ("ja", "en") for m in words.pattern("conditions", key).finditer(text)]
    found += [span for span, word in _states(slots.text, text) if _a_state(word, lexicon)]
    found += [span for span in _qualities(slots.text, text, lexicon) if not overlaps(span, found)]
    return [Said(slots.text[s:e], (s, e), "condition") for s, e in sorted(found)]


def _qualities(said: str, masked: str, lexicon: Lexicon) -> list[Span]:
    """An adjective said of a thing (赤い花): a state of the rows unless it ranks or compares (多い) or the
    catalog knows the word. Words masked in `masked` are none."""
    utterance = tokenise(said)
    out = []
    for m in words.token_pattern("conditions", "quality").finditer(utterance):
        start, end = m.named["w"]
        word = utterance.tokens[m.first].lemma
        if MASK not in masked[start:end] and word not in _NOT_QUALITIES \
                and not {fold(word), fold(said[start:end])} & (lexicon.known.words | lexicon.catalog_words):
            out.append((start, end))
    return out


_NOT_QUALITIES = frozenset(words.said("conditions", "not_qualities"))


def _states(said: str, masked: str) -> list[tuple[Span, str]]:
    """A participle said of the rows (orders are backordered, backordered orders, the refunded ones, repairs
    waiting for parts): where, and the participle (lower case). Words masked in `masked` are none."""
    utterance = tokenise(said)
    out: list[tuple[Span, str]] = []
    for key in ("state_said", "state_before_word", "state_after_word"):
        for m in words.token_pattern("leftover", key).finditer(utterance):
            word = (m.said(utterance, "w") or "").lower()
            span = (m.start, m.end) if key == "state_said" else m.named["w"]
            if _a_participle(word) and MASK not in masked[m.start:m.end] and not overlaps(span, [s for s, _ in out]):
                out.append((span, word))
    return out


def _a_participle(word: str) -> bool:
    """Letters only, three or more before -ed or -ing (backordered, waiting; not red, fed, king)."""
    return len(word) >= 5 + word.endswith("ing") and word.isascii() and word.isalpha()


def _a_state(word: str | None, lexicon: Lexicon) -> bool:
    """Whether a participle names a state of the rows the catalog does not know (backordered): not one of how
    an answer is asked for (listed, grouped), nor a word of the catalog (shipped, ordered, paid)."""
    if not word or word in words.words("conditions", "not_states"):
        return False
    stems = {word, word[:-1], word[:-2], word[:-2] + "ing", word[:-3] + "y" if word.endswith("ied") else word}
    return not any(s in lexicon.known.words or s in lexicon.catalog_words for s in stems)


def _groupings(slots: Slots, lexicon: Lexicon) -> list[Said]:
    """A grouping asked that no value read took ("extras by type", 種類別): a summary that cannot group by it
    answers its totals, which is not what was asked."""
    out = []
    for span, word in _grouped_by(slots.text):
        if word in words.words("groupings", "not_groups") or MASK in slots.cue_text[span[0]:span[1]] \
                or names_a_measure(word):
            continue  # "best selling by units": what ranks, not what groups
        by = frozenset(k for h in slots.enums if overlaps((h.start, h.end), [span]) for k, _ in h.value)
        if by and not by <= set(lexicon.static_values):
            continue  # a value of the data said after "by" (sales by Anna): read as that value
        out.append(Said(slots.text[span[0]:span[1]], span, "group", by))
    return out


def _grouped_by(text: str) -> list[tuple[Span, str]]:
    """Where a grouping is said, and the word it groups by (folded): by type, 種類別, 種類ごと (the analyser's one
    word 国別 too)."""
    said = tokenise(text)
    out: list[tuple[Span, str]] = []
    for key in ("by_en", "by_ja", "by_ja_glued"):
        for m in words.token_pattern("groupings", key).finditer(said):
            word = fold(m.said(said, "w") or "")
            end = m.end
            if key == "by_ja":  # the noun and its suffixes: all before 別 (整備士ごと: 整備士)
                last = said.tokens[m.last - 1]
                word = fold(text[m.start:last.start])
                end = m.end if last.surface in _GROUP_WORDS else last.start + 1  # 店舗|別売|上: the 別 alone
            if key == "by_ja_glued":
                word = next((word[:-len(e)] for e in _GROUP_AFTER if word.endswith(e)), word)
            if (key != "by_en" or (word.isascii() and word.isalpha() and len(word) >= 3)) \
                    and not overlaps((m.start, end), [s for s, _ in out]):
                out.append(((m.start, end), word))
    return sorted(out)


_GROUP_AFTER = tuple(sorted(words.token_pattern("groupings", "by_ja_glued").slots[0].ends, key=len, reverse=True))
_GROUP_WORDS = frozenset(_GROUP_AFTER)  # 別, ごと, 毎: a last token of by_ja that is the grouping word whole


def _counted_numbers(slots: Slots, key: str) -> list[Span]:
    """A number of up to four digits and a word of [numbers] `key` right after it, whole tokens (3階, 5番線, 3名),
    none masked in the text read."""
    utterance = tokenise(slots.text)
    said = frozenset(words.words("numbers", key))
    tokens = utterance.tokens
    out = []
    for i, t in enumerate(tokens[:-1]):
        if not (t.surface.isdigit() and len(t.surface) <= _COUNTED_DIGITS):
            continue
        end = _word_after(utterance, i + 1, said)
        if end is not None and MASK not in slots.read_text[t.start:end]:
            out.append((t.start, end))
    return out


_COUNTED_DIGITS = 4
_COUNTED_TOKENS = 3  # 号|館: a word of the list may be cut in several tokens


def _word_after(utterance: Utterance, first: int, said: frozenset[str]) -> int | None:
    """Where a word of `said` ends that is the tokens from `first` on, the longest, spaces before it allowed."""
    tokens = utterance.tokens
    found = None
    joined = ""
    for j in range(first, min(len(tokens), first + _COUNTED_TOKENS)):
        if j > first and tokens[j].start != tokens[j - 1].end:
            break
        joined += fold(tokens[j].surface)
        if joined in said:
            found = tokens[j].end
    return found


def _numbers_after_nouns(text: str) -> list[tuple[Span, str]]:
    """A number said after a noun (customer 5, invoice #98, album no. 3, 得意先5), with a mark between or none,
    and the noun (folded); not a count, a price or a date (5件, 3rd, 1.5, 12:30)."""
    said, out = tokenise(text), []
    for i, n in enumerate(said.tokens):
        if not (n.surface.isdigit() and len(n.surface) <= _NUMBER_DIGITS) or _unit_after(said, i):
            continue
        mark = _mark_before(said, i)
        start = _noun_before(said, mark)
        if start is not None:
            out.append(((start, n.end), fold(text[start:said.tokens[mark - 1].end])))
    return out


def _noun_before(said: Utterance, i: int) -> int | None:
    """Where the noun said right before token i begins: an English word, or Japanese nouns glued together (得意|先),
    up to eight characters."""
    if i == 0:
        return None
    last = said.tokens[i - 1]
    if last.surface.isascii():
        return last.start if last.surface[:1].isalpha() else None
    if not _a_noun(last):
        return None
    first = i - 1
    while first > 0 and said.tokens[first - 1].end == said.tokens[first].start \
            and _a_noun(said.tokens[first - 1]) and last.end - said.tokens[first - 1].start <= _NOUN_CHARS:
        first -= 1
    return said.tokens[first].start


def _a_noun(token: Token) -> bool:
    """A noun in kanji (顧客, 得意先): a word in katakana before a number is a name's (トップ3 is a count's cue, read
    by the count)."""
    return token.is_noun and not token.is_numeral and not token.surface.isascii() \
        and fold(token.surface) == token.surface.lower()


_NOUN_CHARS = 8


_NUMBER_DIGITS = 9
_NUMBER_MARKS = frozenset(words.said("clauses", "number_marks"))
_NUMBER_UNITS = tuple(fold(u) for u in words.said("clauses", "number_units"))


def _mark_before(said: Utterance, i: int) -> int:
    """The first token of a mark said right before token i (no., #, number), or i where none is."""
    for back in (2, 1):
        if i - back >= 0 and "".join(t.surface.lower() for t in said.tokens[i - back:i]) in _NUMBER_MARKS \
                and said.tokens[i - back - 1:i - back] and said.tokens[i - back - 1].surface.isalpha():
            return i - back
    return i


def _unit_after(said: Utterance, i: int) -> bool:
    """Whether the number at token i goes on (1.5, 12:30) or a unit follows it (5件, 3rd, 2 pm)."""
    n = said.tokens[i]
    rest = said.text[n.end:]
    if rest[:1] in (".", ",", ":", "/") or rest[:1].isdigit():
        return True
    rest = fold(rest.lstrip())
    return any(rest.startswith(u) and not (u.isascii() and rest[len(u):len(u) + 1].isalpha()) for u in _NUMBER_UNITS)


def _numbers(slots: Slots, lexicon: Lexicon) -> list[Said]:
    """Numbers said after a noun the catalog knows (customer 5) or a count's cue (top 3), that no other reading
    took: only a count that reads the number takes it."""
    out = []
    for span, word in _numbers_after_nouns(slots.text):
        if MASK in slots.read_text[span[0]:span[1]]:
            continue
        glued = not word.isascii() and any(word.endswith(n) for n in lexicon.nouns)  # 得意先5, 顧客5
        if word in lexicon.count_cues or word in lexicon.nouns or glued:
            out.append(Said(slots.text[span[0]:span[1]], span, "number"))
    out += [Said(slots.text[s:e], (s, e), "number") for s, e in _counted_numbers(slots, "places")]  # 3階の部屋
    for span in [*_counted_numbers(slots, "counted"), *_counted_numbers(slots, "durations")]:  # 3名に, 1か月以上
        if not overlaps(span, [s.span for s in out]):
            out.append(Said(slots.text[span[0]:span[1]], span, "number"))
    return out
