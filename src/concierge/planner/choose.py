"""Which tools one request asks for, from the catalog's `intents`.

In order:
1. A request for SQL, or to delete or change data that no tool's keyword covers, is
   refused: no tool runs SQL, and nothing deletes.
2. The tools whose keywords are said (values such as codes and names masked first, so
   顧客コード0009 is a code, not a question about codes). When a write tool is among them
   the request is that write (「販売登録して…売った」 is not also a question about sales).
   A tool of the user's own business that the user may not call stays chosen, so the
   answer can say so; a keyword of another business the user has no tool of is ignored,
   and so is one of another catalog when the request cannot fill it but can fill this one.
3. With no keyword: the tool of the previous turn, when the request only changes its
   values (「0010は？」); else the tool that takes most of the values said, counting its
   topics, with the nearest example breaking ties. A request with no value and no topic
   a tool could use asks for nothing the business does.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, replace
from functools import lru_cache

from concierge.catalog.model import (
    AmountExtract,
    CodeExtract,
    CountExtract,
    DateExtract,
    EnumExtract,
    ItemsExtract,
    NameExtract,
    TimeExtract,
    Tool,
)
from concierge.language.dates import normalise
from concierge.language.japanese import of_particle, subsidiary_verbs
from concierge.language.tokens import Token, tokenise
from concierge.planner import comparisons, date_pairs, leftover, measure, people_tables, words
from concierge.planner.counting import counts_rows_of, how_many
from concierge.planner.leftover import said
from concierge.planner.lexicon import (
    KEYWORD,
    TOPIC,
    Lexicon,
    code_pattern,
    finds_by_name,
    of_fixed_values,
    reads_data,
    takes_code,
    takes_dates,
)
from concierge.planner.measure import kinds_asked, one_price_asked, price_asked
from concierge.planner.nouns import belongs_to, noun
from concierge.planner.ranking import GROUP, asks_groups, entity_of
from concierge.planner.slots import Slots, count, english_items
from concierge.planner.text import MASK, Disjoint, Hit, fold, mask

JOINER = words.joiners()  # two things asked
_JOINERS = frozenset(words.said("joiners", "words"))
_TE = frozenset(words.said("joiners", "te"))
_AFTER_COUNT = frozenset(words.said("joiners", "after_count"))


@dataclass(frozen=True)
class Choice:
    tools: tuple[str, ...] = ()
    refused: str | None = None  # "sql" | "change"
    follow_up: bool = False  # the previous turn's call, with this request's values
    again: tuple[str, dict] | None = None  # the command in focus whose arguments the call keeps (planner/focus.py)
    tied: tuple[str, ...] = ()  # other reads that fit the request as well as the one tool chosen: asked which
    said: str | None = None  # the words the values are read from, where not all the request (600円じゃなくて700円で)


@dataclass(frozen=True)
class Part:
    """One thing asked for by keyword: its tool, and where its text starts (after the と / and before it)."""

    tool: str
    start: int
    tied: tuple[str, ...] = ()  # reads that fit what is said as well as `tool`: which is meant is asked


def keyword_parts(slots: Slots, lexicon: Lexicon, offered: Collection[str] = (), reads: bool = False) -> list[Part]:
    """Keywords joined by と / 、 / and ask for one tool each (電話番号と、販売件数); keywords in one
    phrase (先週落ちた商品トップ3) ask for one tool: one the user may call, named most, taking most
    of the values said, named first. Writes among them are the whole request (販売登録して…売った
    is not also a question about sales); writes joined by と / 、 / and are one each (電気をつけて、明るさを40%に).
    `reads`: only the keywords of reads count (明るさ今いくつ？ asks, whatever write 明るさ names)."""
    key = ("parts", id(lexicon), frozenset(offered), reads)
    if key not in slots.memo:
        slots.memo[key] = _keyword_parts(slots, lexicon, offered, reads)
    return list(slots.memo[key])


def _labels_said(slots: Slots, lexicon: Lexicon, offered: Collection[str]) -> list[tuple[int, int]]:
    """Where the request names a column of a read's rows by its label (daily rate, 1日料金): a keyword inside one
    (daily: by day) is no keyword said."""
    return [(h.start, h.end) for t in offered if lexicon.tools[t].mode == "read"
            for h in lexicon.columns(t).find(slots.cue_text)]


def _inner(slots: Slots, lexicon: Lexicon, hit: Hit, offered: Collection[str]) -> Hit:
    """A keyword said inside a longer one, where the longer one's tools take nothing and the request says values
    that the shorter one's take, all of them: いくら of いくらになります said of a cake and its size asks its price, not
    the order's total (ガトーショコラって 6号だといくらになります？)."""
    named = [t for t, k in hit.value if k == KEYWORD]
    if not named or any(lexicon.tools[t].params for t in named) or not said(slots, lexicon):
        return hit  # only a tool that takes nothing gives way, where something is said
    inner = [(p, v) for p, v in lexicon.cues.values.items() if len(p) < len(hit.phrase) and p in hit.phrase]
    for phrase, value in sorted(inner, key=lambda pv: -len(pv[0])):
        taking = frozenset((t, k) for t, k in value if k == KEYWORD and _kinds(slots, lexicon, t)
                           and not leftover.left(lexicon.tools[t], slots, lexicon, set(offered)))
        if taking:
            at = hit.phrase.find(phrase)
            return Hit(hit.start + at, hit.start + at + len(phrase), phrase, taking)
    return hit


def _compares(slots: Slots, start: int) -> bool:
    """Whether the words at `start` compare with a count said right before them (2つ以上, three or more): no
    keyword of a tool, whatever else they say."""
    said = tokenise(slots.text)
    at = next(iter(said.starting(start, start + 1)), 0)
    counted = at > 0 and (said.tokens[at - 1].is_numeral or (at > 1 and said.tokens[at - 2].is_numeral))
    return counted and any(p.at(said, at) for p, _ in words.phrases("compare", "after"))


def _keyword_parts(slots: Slots, lexicon: Lexicon, offered: Collection[str], reads: bool) -> list[Part]:
    labels = _labels_said(slots, lexicon, offered)
    cues = [_inner(slots, lexicon, h, offered) for h in lexicon.cues.find(slots.cue_text)
            if not any(a <= h.start and h.end <= b and b - a > h.end - h.start for a, b in labels)]
    hits = [h for h in cues if any(k == KEYWORD for _, k in h.value) and not _compares(slots, h.start)]
    if reads:
        hits = [replace(h, value=frozenset((t, k) for t, k in h.value if lexicon.tools[t].mode == "read"))
                for h in hits if any(lexicon.tools[t].mode == "read" for t, k in h.value if k == KEYWORD)]
    writes = [h for h in hits if any(k == KEYWORD and lexicon.tools[t].mode == "write" for t, k in h.value)
              and not _object_of_next(slots, h, hits)]
    asks_politely = all(_only_asking(slots, h.start, h.end) for h in writes)
    if writes and not (asks_politely and any(h not in writes for h in hits)):  # 確認お願いします: a read, asked
        then = [h for h in hits if h not in writes and h.start >= writes[-1].end and (
            _te_form(slots, writes[-1].end, h.start) is not None
            or ((j := _joiner(slots, writes[-1].end, h.start)) is not None and not _values_from(slots, j[1])))]
        # 枝豆やめて|全部でいくら, make the miso soups three and|whats my total: then a read
        hits = [replace(h, value=frozenset((t, k) for t, k in h.value if lexicon.tools[t].mode == "write"))
                for h in writes] + then[:1]
    groups: list[tuple[int, list[str]]] = []
    end: int | None = None
    previous: set[str] = set()
    for hit in hits:
        named = [t for t, k in sorted(hit.value) if k == KEYWORD]
        joined = _joiner(slots, end, hit.start) if end is not None else None
        another = end is not None and bool(writes) and not previous & set(named)
        te = _te_form(slots, end, hit.start) if another and end is not None else None
        pause = _pause(slots, lexicon, (end, hit.start), previous, named) if another and end is not None and all(
            lexicon.tools[t].mode == "write" for t in (*previous, *named)) else None
        if te is not None and joined is None:
            groups.append((te, named))  # テレビつけてボリューム上げて: one command after another
        elif pause is not None:
            groups.append((pause, named))  # 唐揚げ弁当1つと のり弁2つ|7時半に取りに行きます
        elif end is not None and joined is None:
            groups[-1][1].extend(named)
        else:
            groups.append((joined[1] if joined else 0, named))
        end, previous = hit.end, set(named)

    # What a tool's rank takes from the request is worked out once per tool, not once per time it is named.
    unmet_by = functools.cache(lambda tool: unmet(slots, lexicon, tool))

    @functools.cache
    def fit(tool: str) -> tuple:
        kinds = _kinds(slots, lexicon, tool) - _said_by_keyword(slots, lexicon, tool, hits)
        return tool in offered, -unmet_by(tool), (len(kinds), _takes_dates_said(slots, lexicon, tool))

    def rank(tool: str, named: list[str]) -> tuple:
        may_call, unfilled, takes = fit(tool)
        figure = measure.by_name(lexicon.tools[tool], slots.cue_text)
        labelled = figure is not None and not figure.startswith(measure.COUNT_OF)  # 支払額の合計: the stays'
        money = asks_money and bool(lexicon.tools[tool].result.money)  # what guests paid: a tool of money
        counted = counts_rows_of(lexicon.tools[tool], slots.cue_text)  # how many visits … of male customers
        changes = asks_change and lexicon.tools[tool].result.summary is not None  # a figure's change, computed
        asked = not comparisons.unasked(lexicon.tools[tool], slots)  # 東京倉庫の先月の出荷件数: no comparison
        head = not _modifier(slots, hits, tool)
        return may_call, asked, -_unsaid_noun_words(slots, lexicon, tool), changes, counted, head, named.count(tool), \
            unfilled, labelled, money, takes, topics_said(tool), -named.index(tool)

    def topics_said(tool: str) -> int:
        """How many of the tool's topics are said: two comparisons named by 落ちた, the one by 顧客 is asked by
        先週から売上が落ちたお客様は？"""
        return sum((tool, TOPIC) in h.value for h in topic_hits)

    # which branch, a grouping's keyword, says the topic branch too
    topic_hits = [*cues, *(i for h in cues for i in lexicon.topics.find(slots.cue_text[h.start:h.end])
                           if i.phrase != h.phrase)]
    asks_change = comparisons.asks_change(slots)
    asks_money = bool(words.pattern("measures", "money").search(slots.cue_text)) \
        and not words.pattern("measures", "count").search(slots.cue_text)
    def chosen(named: list[str], start: int) -> Part:
        by_rank = functools.partial(rank, named=named)
        best = max(dict.fromkeys(named), key=by_rank)
        return Part(best, start, _tied(lexicon, best, named, hits, topic_hits, by_rank))

    parts = [chosen(named, start) for start, named in groups]
    # With several catalogs a word can be another business's keyword (売上を前週と比べて, with the
    # farm's 売上): a part the request cannot fill gives way to one of another catalog it can.
    fillable = {lexicon.tools[p.tool].catalog for p in parts if not unmet_by(p.tool)}
    kept = [p for p in parts if not fillable or not unmet_by(p.tool) or lexicon.tools[p.tool].catalog in fillable]
    return [replace(p, start=0) if i == 0 else p for i, p in enumerate(kept)]


def _modifier(slots: Slots, hits: list[Hit], tool: str) -> bool:
    """Whether every keyword of the tool said is joined by の to another tool's that follows it: 大阪のお客様の修理の
    合計 asks about the repairs, お客様 only says whose; a grouping (日別の売れ行き: by day) says how, not whose."""
    said = [i for i, h in enumerate(hits) if (tool, KEYWORD) in h.value]
    if any(hits[i].phrase.endswith(_GROUPED) for i in said):
        return False
    return bool(said) and all(i + 1 < len(hits) and (tool, KEYWORD) not in hits[i + 1].value
                              and slots.cue_text[hits[i].end:hits[i + 1].start] == _OF for i in said)


def _tied(lexicon: Lexicon, best: str, named: list[str], hits: list[Hit], topic_hits: list[Hit],
          rank: Callable[[str], tuple]) -> tuple[str, ...]:
    """The reads named by the very words that name `best`, that fit the request as well (売上: the books' or the
    café's?); a topic said of one alone (カフェの売上) sets it apart."""
    def named_by(tool: str) -> frozenset[int]:
        return frozenset(i for i, h in enumerate(hits) if (tool, KEYWORD) in h.value)

    def own_topics(tool: str) -> int:
        return sum((tool, TOPIC) in h.value and (tool, KEYWORD) not in h.value for h in topic_hits)

    ranked = rank(best)[:-1]
    return tuple(t for t in dict.fromkeys(named) if t != best and _alike_reads(lexicon, t, best)
                 and named_by(t) == named_by(best) and own_topics(t) == own_topics(best) and rank(t)[:-1] == ranked)


def _alike_reads(lexicon: Lexicon, one: str, other: str) -> bool:
    """Two reads of one business over different rows, neither the other's (書籍の売上, カフェの売上): a word both are
    named by does not say which."""
    a, b = lexicon.tools[one], lexicon.tools[other]
    return a.mode == b.mode == "read" and a.catalog == b.catalog and noun(a).many != noun(b).many \
        and not belongs_to(a, b) and not belongs_to(b, a)


@functools.lru_cache(maxsize=8)
def _nouns(lexicon: Lexicon) -> frozenset[str]:
    """The nouns the catalog's tools are named by (orders, big orders), once per catalog set."""
    return frozenset(noun(t).many for t in lexicon.tools.values())


def _joiner(slots: Slots, start: int, end: int) -> tuple[int, int] | None:
    """Where the word joining two keywords is (と, 、, and: a word of `[joiners]`, outside any code or name read)."""
    said = tokenise(slots.text)
    for i in said.starting(start, end):
        t = said.tokens[i]
        if t.end <= end and t.surface.lower() in _JOINERS and MASK not in slots.cue_text[t.start:t.end]:
            return t.start, t.end
    return None


_OBJECT_MARKS = frozenset(words.said("refusal", "object_marks"))


def _values_from(slots: Slots, start: int) -> bool:
    """Whether values are said from `start` on (codes, sums, goods, values of the data): the write's own."""
    spans = [(c.start, c.end) for c in slots.codes] + [s for _, s in slots.amounts] + [s for _, s in slots.items] \
        + [(h.start, h.end) for h in slots.enums]
    return any(a >= start for a, _ in spans)


def _object_of_next(slots: Slots, hit: Hit, hits: list[Hit]) -> bool:
    """Whether a write's keyword is a noun that the next keyword, of other tools, takes as its object: 注文 of
    「注文 確認してもらえますか」 is what is checked, not an order placed."""
    later = next((h for h in hits if h.start >= hit.end), None)
    if later is None or {t for t, _ in later.value} & {t for t, _ in hit.value}:
        return False
    if slots.cue_text[hit.end:later.start].strip() not in _OBJECT_MARKS:
        return False
    u = tokenise(slots.text)
    return all(u.tokens[i].is_noun for i in u.starting(hit.start, hit.end))


def _only_asking(slots: Slots, start: int, end: int) -> bool:
    """Whether a keyword is only the words a request is asked with (お願いします, ください, もらえますか): verbs that
    help another, auxiliaries, particles, prefixes; no word of what is asked."""
    u = tokenise(slots.text)
    words = [u.tokens[i] for i in u.starting(start, end)]
    return bool(words) and all(t.is_particle or t.is_auxiliary or t.is_prefix  # 直して asks a change
                               or (t.may_be_subsidiary and t.lemma in subsidiary_verbs()) for t in words)


def _te_form(slots: Slots, end: int, start: int) -> int | None:
    """Where the て of a verb ends that joins one command to the next (つけて|3チャンネル, 4チャンネルにして|音量):
    the last conjunctive て or で from the end of one keyword to the start of the next; None if there is none."""
    u = tokenise(slots.text)
    tokens = u.tokens
    joints = [i for i in u.starting(end - 1, start)
              if tokens[i].is_conjunctive_particle and tokens[i].surface in _TE]
    if not joints or (joints[-1] + 1 < len(tokens) and tokens[joints[-1] + 1].lemma in subsidiary_verbs()):
        return None  # 取り消してください: one request, said politely
    return tokens[joints[-1]].end


def _pauses(text: str, end: int, start: int) -> list[tuple[int, int]]:
    """The spaces between `end` and `start` with a Japanese word on either side (のり弁2つ 7時半に)."""
    tokens = tokenise(text).tokens
    return [(a.end, b.start) for a, b in zip(tokens, tokens[1:], strict=False)
            if end <= a.end < b.start < start and not (a.surface.isascii() and b.surface.isascii())]


def _pause(slots: Slots, lexicon: Lexicon, between: tuple[int, int], before: Collection[str],
           after: Collection[str]) -> int | None:
    """Where a pause ends (a space beside Japanese words) between one write's keyword and another's, said with no
    punctuation: the first pause with the values said before it taken by the first write, and those after it by
    the second (唐揚げ弁当1つと のり弁2つ|7時半に取りに行きます; 10時に取りに行くので|あんぱん5個 お願いします)."""
    def taken(hit: Hit, tools: Collection[str]) -> bool:
        return any(g in lexicon.enum_groups(t) for t in tools for g, _ in hit.value)

    end, start = between
    for cut, resume in sorted(_pauses(slots.text, end, start) + _after_counts(slots, end, start)):
        said_before = [h for h in slots.enums if end <= h.start < cut]
        said_after = [h for h in slots.enums if resume <= h.start < start]
        if all(taken(h, before) for h in said_before) and all(taken(h, after) for h in said_after):
            return resume
    return None


def _after_counts(slots: Slots, end: int, start: int) -> list[tuple[int, int]]:
    """The で after a count that ends what is ordered (餃子1つで|6時半に取りに行きます), as a pause does."""
    u = tokenise(slots.text)
    tokens = u.tokens
    return [(t.start, t.end) for i in u.starting(end, start) if i > 0 and (t := tokens[i]).surface in _AFTER_COUNT
            and t.is_particle and (tokens[i - 1].is_counter or tokens[i - 1].is_suffix)]


def _unsaid_noun_words(slots: Slots, lexicon: Lexicon, name: str) -> int:
    """How many words qualifying a tool's English noun the request leaves unsaid where it says the noun's head:
    "orders" is the orders, not the big orders (a view of some of them), however many keywords each shares
    with the request."""
    tool = lexicon.tools[name]
    if tool.intents is None or not tool.intents.keywords:
        return 0
    said = _english_words(slots)
    *qualifiers, head = noun(tool).many.split() or [""]
    if not qualifiers or not ({head, head.removesuffix("s")} & said) or head not in _nouns(lexicon):
        return 0  # "orders" asks for the sales orders where no table is the orders alone
    return sum(w not in said and w.removesuffix("s") not in said for w in qualifiers)


def _english_words(slots: Slots) -> set[str]:
    """The English words of the request (lower case), but those of values and names already read."""
    return {t.surface.lower() for t in tokenise(slots.text).tokens
            if t.surface.isascii() and t.surface.isalpha() and MASK not in slots.cue_text[t.start:t.end]}


def keyword_tools(slots: Slots, lexicon: Lexicon, offered: Collection[str] = (), reads: bool = False) -> list[str]:
    return list(dict.fromkeys(part.tool for part in keyword_parts(slots, lexicon, offered, reads)))


def refusal(slots: Slots, lexicon: Lexicon) -> str | None:
    """"sql" for a request about SQL; "change" for deleting or changing data that no keyword covers, in whole or in
    part."""
    said = tokenise(slots.text)
    if any(p.search(said) for p in words.token_patterns("sql_said", "words")):
        return "sql"
    hits = lexicon.cues.find(slots.cue_text)
    covered = Disjoint((h.start, h.end) for h in hits if any(kind == KEYWORD for _, kind in h.value))
    for start, end in _changes(slots.text):  # 入庫数を直|したい: a keyword ends inside the verb, which it covers
        if covered.free(start, end) and not any(s <= start < e for s, e in slots.alone):
            return "change"
    return None


def _changes(text: str) -> list[tuple[int, int]]:
    """Where a request says to delete or change data (削除, 消して, 変更して, delete): words of `[refusal] change`."""
    if not words.may_match("refusal", "change", text):
        return []
    said = tokenise(text)
    return [(m.start, m.end) for p in words.token_patterns("refusal", "change") for m in p.finditer(said)]


def choose(slots: Slots, lexicon: Lexicon, offered: Collection[str], previous_tool: str | None,
           reads: bool = False) -> Choice:
    refused = refusal(slots, lexicon)
    if refused:
        return Choice(refused=refused)
    keyword = keyword_tools(slots, lexicon, offered, reads)
    if keyword and all(lexicon.tools[t].mode == "read" and unmet(slots, lexicon, t) for t in keyword):
        best = _best_by_values(slots, lexicon, offered)  # another business's tool the request can fill
        if best and not unmet(slots, lexicon, best) and all(
                lexicon.tools[best].catalog != lexicon.tools[t].catalog for t in keyword):
            return Choice((best,))
    mine = {lexicon.tools[t].catalog for t in offered}
    if any(t in offered or lexicon.tools[t].catalog in mine for t in keyword):
        parts = keyword_parts(slots, lexicon, offered, reads)
        tied = tuple(t for t in (parts[0].tied if len(parts) == 1 else ()) if t in offered)
        chosen = tuple(_by_topic(slots, lexicon, offered, _rows_over_totals(
            slots, lexicon, offered, _taking_values(slots, lexicon, offered, t))) for t in keyword)
        if len(chosen) == 1 and chosen[0] not in offered and len(tied) == 1:
            return Choice(tied)  # of two data alike, the one offered (the other set aside when asked which)
        return Choice(chosen, tied=tied)
    if previous_tool is not None and previous_tool in offered and _takes_what_is_said(slots, lexicon, previous_tool) \
            and (coverage(slots, lexicon, previous_tool)[0] or says_only_values(slots)) \
            and not (lexicon.tools[previous_tool].mode == "read" and recorded_write(slots, lexicon, offered)):
        return Choice((previous_tool,), follow_up=True)
    best = _best_by_values(slots, lexicon, offered)
    if best:
        best = _column_owner(slots, lexicon, offered, _rows_over_totals(slots, lexicon, offered, best))
    return Choice((best,) if best else tuple(keyword))


_ROWS_ASKED = frozenset(words.said("rows_asked", "words"))
_OF = of_particle()
_GROUPED = tuple(words.said("ranking", "affix_after"))


def _rows_over_totals(slots: Slots, lexicon: Lexicon, offered: Collection[str], name: str) -> str:
    """A summary chosen for the values said, where the request groups, ranks and counts nothing and asks who or
    which the rows are (which customers are in Osaka), a figure only the rows give (胡蝶蘭の単価, the unit price) or
    the price of a thing with no period (カットの価格はいくら？): the list of the same rows that takes those values; a
    count or a sum of them is not the answer."""
    tool = lexicon.tools[name]
    if GROUP not in tool.params or how_many(slots.cue_text) or asks_groups(tool, slots, lexicon):
        return name
    forms = tokenise(slots.cue_text).forms_said
    who = bool(forms & _ROWS_ASKED)
    each = one_price_asked(slots.cue_text, bool(slots.dates))  # カットの価格はいくら: what one costs, the rows' price
    said, dates = coverage(slots, lexicon, name)
    values = (said - (entity_of(tool, slots, lexicon) is not None), dates)  # which customers: no value of the rows
    lists = [lexicon.tools[t] for t in offered if t != name and lexicon.tools[t].catalog == tool.catalog
             and lexicon.tools[t].mode == "read" and GROUP not in lexicon.tools[t].params]
    named = [t for t in lists if who and _noun_said(t, forms, slots.cue_text)]  # which customers: the customers
    named = named if len(named) == 1 else []  # 目黒区のお客様のレンタルの一覧: the rentals, the summary's own rows
    for other in named + [t for t in lists if noun(t).many == noun(tool).many]:
        if coverage(slots, lexicon, other.name) >= values and not unmet(slots, lexicon, other.name) \
                and (who or each or _only_rows_give(slots, lexicon, other, tool)):
            return other.name
    return name


def _noun_said(tool: Tool, forms: frozenset[str], text: str) -> bool:
    """Whether the request names a tool's rows: their noun as a word (customers), or a keyword of one word of theirs
    in Japanese (お客様)."""
    n = noun(tool)
    said = tool.intents.keywords if tool.intents else []
    return n.one.lower() in forms or n.many.lower() in forms or any(
        not k.isascii() and len(k) > 1 and fold(k) in text and _a_noun(k) for k in said)


@lru_cache(maxsize=4096)
def _a_noun(word: str) -> bool:
    """Whether a keyword is a noun alone (お客様, 顧客一覧; not お客様は何人)."""
    tokens = tokenise(word).tokens
    return bool(tokens) and all(t.is_noun or t.is_prefix or t.is_suffix for t in tokens)


def _column_owner(slots: Slots, lexicon: Lexicon, offered: Collection[str], name: str) -> str:
    """A read chosen for the values said, where the request names a column of rows it does not give and one other
    list of its catalog does, whose rows the values said name (daily rate of the Prius: the cars' rate, not the
    rentals of the Prius by day)."""
    tool = lexicon.tools[name]
    if tool.mode != "read":
        return name
    reads = [t for t in offered if lexicon.tools[t].mode == "read" and GROUP not in lexicon.tools[t].params
             and lexicon.tools[t].catalog == tool.catalog and t != name and not unmet(slots, lexicon, t)
             and (coverage(slots, lexicon, t)[0] > 0 or finds_by_name(lexicon.tools[t]))]
    missing = set().union(*(_labels_named(slots, lexicon, t) for t in [name, *reads])) - _labels(lexicon, name)
    if missing:
        owners = [t for t in reads if missing <= _labels(lexicon, t)]
    elif price_asked(slots.cue_text) and takes_dates(tool):  # ヘッドスパの値段: the menu's price, not the visits'
        owners = [t for t in reads if not takes_dates(lexicon.tools[t]) and lexicon.tools[t].result.money]
    elif kinds_asked(slots.cue_text):  # ケーキって何種類: the products, not the lines they were sold on
        owners = [t for t in reads if t in _looked_up(tool) and coverage(slots, lexicon, t)[0] > 0]
    else:
        owners = []
    return owners[0] if len(owners) == 1 else name


def _looked_up(tool: Tool) -> set[str]:
    """The tools whose rows a tool's rows point at (the products of the lines sold: their codes are looked up there)."""
    return {p.extract.lookup.tool for p in tool.params.values()
            if isinstance(p.extract, CodeExtract) and p.extract.lookup is not None}


def _only_rows_give(slots: Slots, lexicon: Lexicon, rows: Tool, summary: Tool) -> bool:
    """Whether the request names a column of the rows that their summary does not give (単価: a price per piece)."""
    return bool(_labels_named(slots, lexicon, rows.name) - _labels(lexicon, summary.name))


def _labels_named(slots: Slots, lexicon: Lexicon, name: str) -> set[str]:
    """The labels of a tool's columns the request says (電話番号, phone), folded."""
    return {hit.value for hit in lexicon.columns(name).find(slots.cue_text)}


def _labels(lexicon: Lexicon, name: str) -> set[str]:
    """The labels of a tool's columns, folded."""
    return set(lexicon.columns(name).values.values())


def _by_topic(slots: Slots, lexicon: Lexicon, offered: Collection[str], name: str) -> str:
    """A write whose keyword is said but whose topic is not, and that leaves a value unmet, gives way to a write
    of the topic said that takes the same command: 「テレビだけつけて」 turns the TV on, not a light."""
    tool = lexicon.tools[name]
    said = topics(lexicon, slots.cue_text)
    if tool.mode != "write" or name in said or not unmet(slots, lexicon, name):
        return name
    commands = {key for h in slots.enums for key, _ in h.value if key in lexicon.static_values}
    for other in dict.fromkeys(said):
        if other in offered and lexicon.tools[other].mode == "write" and commands \
                and commands <= lexicon.enum_groups(other) and not _unmet_but_device(slots, lexicon, other):
            return other
    return name


def _unmet_but_device(slots: Slots, lexicon: Lexicon, name: str) -> list[str]:
    """The required parameters nothing said fills, but the one of the data the topic named (テレビだけつけて: which
    TV is the only one there is, or is asked)."""
    return [p for p in unmet_params(slots, lexicon, name) if not reads_data(lexicon.tools[name].params[p])]


def _takes_what_is_said(slots: Slots, lexicon: Lexicon, name: str) -> bool:
    """Whether a tool can take the period said: そのお客様の3月の販売 after a customer lookup is not a lookup."""
    return not slots.dates or bool(_takes_dates_said(slots, lexicon, name))


def _taking_values(slots: Slots, lexicon: Lexicon, offered: Collection[str], name: str) -> str:
    """The keyword's tool, or a read tool of its catalog that also takes the values said that it cannot
    (ぷりんはどのくらい売れた: a ranking takes no product; the daily sales of プリン answer it)."""
    tool = lexicon.tools[name]
    people = slots.groups_of_people() if finds_by_name(tool) else set()  # 顧客の佐藤 花子さん
    said = _groups_said(slots, lexicon) - people
    if tool.mode != "read" or said <= lexicon.enum_groups(name) or counts_rows_of(tool, slots.cue_text) \
            or _each_value_taken(slots, lexicon, name, said):
        return name  # how many visits … : the visits, or a word of what could not be applied
    fits = [t for t in lexicon.tools if t in offered and t != name and lexicon.tools[t].catalog == tool.catalog
            and lexicon.tools[t].mode == "read" and said <= lexicon.enum_groups(t) and not unmet(slots, lexicon, t)]
    # ヘルメットの売上: the orders' summary takes no product; the summary of their lines does, not the products
    return min(fits, key=lambda t: _kinship(tool, lexicon.tools[t]), default=name)


def _each_value_taken(slots: Slots, lexicon: Lexicon, name: str, said: set[str]) -> bool:
    """Whether the tool takes every value said as one of the things it may be (ドイツのお客様: Germany is the customers'
    country, and an invoice's billing country too: the customers take it)."""
    groups = lexicon.enum_groups(name)
    return all(any(key in groups for key, _ in h.value) for h in slots.enums
               if any(key in said for key, _ in h.value))


def _kinship(tool: Tool, other: Tool) -> tuple[bool, bool]:
    """How far another tool is from a keyword's tool: a tool of the same kind (a summary for a summary) whose
    rows are the same or belong to them (注文明細 of 注文) is nearest; the catalog's order breaks ties."""
    return ("group_by" in tool.params) != ("group_by" in other.params), not belongs_to(other, tool)


def _groups_said(slots: Slots, lexicon: Lexicon) -> set[str]:
    """The enum groups read from the data whose values the request says (a product, a category)."""
    return {key for h in slots.enums for key, _ in h.value if key not in lexicon.static_values}


def _best_by_values(slots: Slots, lexicon: Lexicon, offered: Collection[str]) -> str | None:
    """The tool that takes most of the values said, counting its topics; the nearest example breaks ties."""
    said_topics = topics(lexicon, slots.cue_text)
    best, best_ranked = None, None
    for name in (t for t in lexicon.tools if t in offered):
        values, dates = coverage(slots, lexicon, name)
        if dates and not _event_said(slots, lexicon.tools[name]) and people_tables.own_row_named(slots, lexicon, name):
            dates = 0  # 佐藤 健太さんの今月の予約: what they booked this month, never whether they joined this month
        said = said_topics.count(name)
        if not values and not said:
            continue
        if lexicon.tools[name].mode == "write" and not _says_goods_or_money(slots, lexicon, name):
            continue  # a write is chosen by its keyword, or by the goods, sums or counts it records
        if comparisons.unasked(lexicon.tools[name], slots):
            continue
        # A write said with no keyword is the first that records what is said (のり弁 3つ: an order, not a change
        # of one; a change or a removal is said with its verb); a read is the one nearest its examples.
        near = similarity(slots.read_text, lexicon.tools[name]) if lexicon.tools[name].mode == "read" else 0
        score = 2 * values + dates + said + near + _event_said(slots, lexicon.tools[name])
        if lexicon.tools[name].mode == "read" and leftover.left(lexicon.tools[name], slots, lexicon, set(offered)):
            score -= 1  # units shipped of SKU-00412: the sales lines take "shipped"; the purchase lines do not
        # 佐藤 花子さんの電話番号: the tool that has the phone number
        ranked = (score, _columns_asked(slots, lexicon, lexicon.tools[name]))
        if score > 0 and (best_ranked is None or ranked > best_ranked):
            best, best_ranked = name, ranked
    return best


def _event_said(slots: Slots, tool: Tool) -> int:
    """1 where the period said is of a date of the tool's whose event the request names (先月の出荷件数: shipped),
    else 0: the shipments of last month are not the stock counted last month."""
    return int(bool(slots.dates) and bool(date_pairs.words_of(tool, date_pairs.chosen(tool, slots))))


def _columns_asked(slots: Slots, lexicon: Lexicon, tool: Tool) -> int:
    """How many of the columns a read gives back are named in the request (電話番号, phone)."""
    return len(_labels_named(slots, lexicon, tool.name)) if tool.mode == "read" else 0


def recorded_write(slots: Slots, lexicon: Lexicon, offered: Collection[str]) -> str | None:
    """The write a text with no keyword asks for by what it records (one nori bento, かぼちゃ4個を600円で),
    or None."""
    best = _best_by_values(slots, lexicon, offered)
    return best if best is not None and lexicon.tools[best].mode == "write" else None


# Punctuation, quotes (they only set a value apart: 『ランキング』です), spaces and the values masked.
_MARKS = frozenset(" \t\n\u3000" + MASK + "?？、。,.!！「」『』\"“”'‘’")


@functools.cache
def _fillers() -> tuple[frozenset[str], int]:
    """The words of `[filler]` (folded), and the most tokens one of them is cut into."""
    said = frozenset(w for key in ("interjections", "ja", "en") for w in words.words("filler", key))
    return said, max(len(tokenise(w).tokens) for w in said)


def beyond_filler(text: str) -> str:
    """The words of `text` (folded) that are none of `[filler]` (えっと, です, please), no punctuation, quote or
    MASK, each one after the other: じゃ100で gives 100, えっと麦茶です with 麦茶 masked gives nothing."""
    said, longest = _fillers()
    tokens, rest, i = tokenise(text).tokens, [], 0
    while i < len(tokens):
        if _MARKS.issuperset(tokens[i].surface):
            i += 1
            continue
        last = next((j for j in range(min(len(tokens), i + longest) - 1, i - 1, -1)
                     if " ".join(text[tokens[i].start:tokens[j].end].split()) in said
                     or (j == i and tokens[i].normal in said)), None)
        if last is None:
            rest.append(tokens[i].surface)
        i = i + 1 if last is None else last + 1
    return "".join(rest)


def is_filler(token: Token) -> bool:
    """Whether a token is one of the `[filler]` words by its forms, or punctuation or a quote."""
    said = _fillers()[0]
    return token.surface.lower() in said or token.normal in said or _MARKS.issuperset(token.surface)


def says_only_values(slots: Slots) -> bool:
    """A request that says only values (先月は？, and last month?, 麦茶です): a follow-up of the previous one,
    or the answer to what the planner asked."""
    said = [u.span for u in slots.unsure] + [(h.start, h.end) for h in slots.enums]
    values = slots.dates or slots.codes or said or slots.amounts or slots.items or slots.times
    return bool(values) and not beyond_filler(mask(slots.read_text, said))


def _says_goods_or_money(slots: Slots, lexicon: Lexicon, name: str) -> bool:
    """Goods or a sum the write records, a value said by its name (赤), the value of fixed ones that makes the
    command (off), or how many of a value of the data (唐揚げ弁当2つ, two karaage bento)."""
    params = lexicon.tools[name].params
    kinds = {type(p.extract) for p in params.values()}
    if (AmountExtract in kinds and slots.amounts) or (ItemsExtract in kinds and slots.items):
        return True
    if any((c.by_name or _only_written(lexicon, c.pattern))
           and any(code_pattern(p) == c.pattern for p in params.values()) for c in slots.codes):
        return True  # 赤にして, to 255:180:100: a colour only the colour tool takes
    if any(p.required and of_fixed_values(p) and slots.enum_values(lexicon.enum_of[(name, n)].key)
           for n, p in params.items()):
        return True  # リビングのlightもoffで: the command's own value (off) is said
    keyed = any(p.required and reads_data(p) and _group_said(slots, lexicon.enum_of[(name, n)].key)
                for n, p in params.items())
    options = [lexicon.enum_of[(name, n)].key for n, p in params.items()
               if not p.required and (name, n) in lexicon.enum_of]
    if keyed and any(_only_written_group(lexicon, g) and _ordered_so(slots, g) for g in options) \
            and not words.pattern("lines", "asking").search(slots.cue_text):
        return True  # 牛丼と親子丼を大盛りで: an option only an order takes, said of items (is the gyudon big: asked)
    counted = any(isinstance(p.extract, CountExtract) and count(slots, lexicon, name, n) is not None
                  for n, p in params.items())
    return counted and (any(p.required and reads_data(p) and _group_said(slots, lexicon.enum_of[(name, n)].key)
                            for n, p in params.items())
                        or name in topics(lexicon, slots.cue_text))  # R-5015の人数を3名にして: the count of its topic


def _ordered_so(slots: Slots, group: str) -> bool:
    """Whether a value of the group is said last, or right before a word of `[lines] option_after` (大盛りで)."""
    said = tokenise(slots.text)
    after = set(words.words("lines", "option_after"))
    for hit in slots.enums:
        if any(k == group for k, _ in hit.value):
            rest = (said.tokens[i] for i in said.starting(hit.end, len(said.text)) if not is_filler(said.tokens[i]))
            first = next(rest, None)
            if first is None or first.surface in after:
                return True
    return False


def _only_written_group(lexicon: Lexicon, group: str) -> bool:
    """Whether the values of an enum group are only ever written, never read by (大盛り, an option of an order)."""
    return not any(g.key == group and lexicon.tools[tool].mode == "read" for (tool, _), g in lexicon.enum_of.items())


def _only_written(lexicon: Lexicon, pattern: str) -> bool:
    """Whether codes of this shape are only ever written, never read by (255:180:100, a colour)."""
    return not any(t.mode == "read" and code_pattern(p) == pattern for t in lexicon.tools.values()
                   for p in t.params.values())


def _group_said(slots: Slots, group: str) -> bool:
    """Whether a value of the group is said, or a word that names several of them (teas: which one is asked)."""
    return bool(slots.enum_values(group)) or any(u.of(group) for u in slots.unsure)


def topics(lexicon: Lexicon, text: str) -> list[str]:
    """The tools whose topics are said, once per phrase said."""
    return [tool for hit in lexicon.cues.find(text) for tool, k in sorted(hit.value) if k == TOPIC]


def unmet(slots: Slots, lexicon: Lexicon, name: str) -> int:
    """How many required parameters of the tool nothing in the request could fill."""
    return len(unmet_params(slots, lexicon, name))


def unmet_params(slots: Slots, lexicon: Lexicon, name: str) -> list[str]:
    """The required parameters of the tool nothing in the request could fill."""
    missing = []
    for pname, p in lexicon.tools[name].params.items():
        x = p.extract
        if not p.required or x is None:
            continue
        if isinstance(x, CodeExtract):
            said = any(takes_code(p, c.value, c.pattern) for c in slots.codes) or pname in slots.referred \
                or bool(x.lookup and slots.names)
        elif isinstance(x, DateExtract):
            said = bool(slots.dates)
        elif isinstance(x, EnumExtract):
            said = bool(slots.enum_values(lexicon.enum_of[(name, pname)].key))
        elif isinstance(x, AmountExtract):
            said = bool(slots.amounts)
        elif isinstance(x, ItemsExtract):
            said = bool(slots.items or english_items(slots))
        elif isinstance(x, CountExtract):
            said = count(slots, lexicon, name, pname) is not None
        elif isinstance(x, TimeExtract):
            said = bool(slots.times)
        else:
            said = bool(slots.names)
        if not said:
            missing.append(pname)
    return missing


def _said_by_keyword(slots: Slots, lexicon: Lexicon, name: str, hits: list) -> set[str]:
    """Kinds of value said only by the tool's own keyword: トップ3 is a ranking's keyword, its count and its
    order, said once; it is not three reasons to rank (先週売上が落ちた商品トップ3 compares)."""
    tool = lexicon.tools[name]
    spans = Disjoint((h.start, h.end) for h in hits if (name, KEYWORD) in h.value)
    phrases = {h.phrase for h in hits if (name, KEYWORD) in h.value}
    out = set()
    for pname, p in tool.params.items():
        x = p.extract
        if isinstance(x, CountExtract) and phrases & {fold(normalise(c)) for c in x.cues}:
            out.add("count")
        elif isinstance(x, EnumExtract):
            key = lexicon.enum_of[(name, pname)].key
            mine = [h for h in slots.enums if any(k == key for k, _ in h.value)]
            if mine and all(spans.within(h.start, h.end) for h in mine):
                out.add(f"enum:{pname}")
    return out


def coverage(slots: Slots, lexicon: Lexicon, name: str) -> tuple[int, int]:
    """(how many kinds of value said this tool takes, besides dates; 1 if it takes the dates said)."""
    return len(_kinds(slots, lexicon, name)), _takes_dates_said(slots, lexicon, name)


def _takes_dates_said(slots: Slots, lexicon: Lexicon, name: str) -> int:
    """1 when the request says a period and the tool takes dates, else 0."""
    return int(bool(slots.dates) and takes_dates(lexicon.tools[name]))


def _kinds(slots: Slots, lexicon: Lexicon, name: str) -> frozenset[str]:
    """The kinds of value said (codes of a pattern, a name, an amount, goods, an enum, a count) the tool takes."""
    key = ("kinds", id(lexicon), name)
    if key not in slots.memo:
        slots.memo[key] = frozenset(_kinds_taken(slots, lexicon, name))
    return slots.memo[key]


def _kinds_taken(slots: Slots, lexicon: Lexicon, name: str) -> set[str]:
    tool = lexicon.tools[name]
    kinds: set[str] = set()
    for pname, p in tool.params.items():
        x = p.extract
        if isinstance(x, CodeExtract):
            if any(takes_code(p, c.value, c.pattern) for c in slots.codes):
                kinds.add(f"code:{code_pattern(p)}")
            if pname in slots.referred:
                kinds.add("referred")
            if x.lookup and slots.names:
                kinds.add("name")
        elif isinstance(x, NameExtract) and (slots.names or any(
                not people_tables.elsewhere(slots, lexicon, name, span)
                for _, span in slots.people(lexicon.enum_groups(name)))):
            kinds.add("name")
        elif isinstance(x, AmountExtract) and slots.amounts:
            kinds.add("amount")
        elif isinstance(x, ItemsExtract) and (slots.items or english_items(slots)):
            kinds.add("items")
        elif isinstance(x, EnumExtract) and _group_said(slots, lexicon.enum_of[(name, pname)].key):
            kinds.add(f"enum:{pname}")
        elif isinstance(x, CountExtract) and count(slots, lexicon, name, pname) is not None:
            kinds.add("count")
        elif isinstance(x, TimeExtract) and slots.times:
            kinds.add("time")
    return kinds


def similarity(text: str, tool: Tool) -> float:
    """The best bigram overlap between the request and one of the tool's examples (0..1)."""
    mine = _bigrams(text)
    if not mine:
        return 0.0
    examples = _example_bigrams(tuple(tool.intents.examples) if tool.intents else ())
    return max((len(mine & ex) / len(mine | ex) for ex in examples), default=0.0)


def prepare(tools: Iterable[Tool]) -> None:
    """Read every tool's examples now (the analyser reads each), so that no request pays for the first to."""
    for tool in tools:
        _example_bigrams(tuple(tool.intents.examples) if tool.intents else ())


@lru_cache(maxsize=256)
def _example_bigrams(examples: tuple[str, ...]) -> list[frozenset[str]]:
    return [_bigrams(fold(normalise(e))) for e in examples]


_NOT_COMPARED = frozenset("\x00、。,.?？!！")


def _bigrams(text: str) -> frozenset[str]:
    chars = "".join(c for c in text if not (c.isspace() or c.isdecimal() or c in _NOT_COMPARED))
    return frozenset(chars[i : i + 2] for i in range(len(chars) - 1))

