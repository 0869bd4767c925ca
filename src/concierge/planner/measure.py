"""Which figure of a summary the request names: its money, its quantity, or its count of rows.

A summary drafted for a table sums its additive measures and counts its rows (docs/onboarding.md): "2010年の
売上合計は？" names the money, 「何個売れた？」 the quantity, 「件数」 the count. The planner ranks by the
figure named (`rank_by`) and the answer states that one figure with the count (planner/answer/sentences.py),
not every sum the tool returns. The words are data (planner/words/questions.toml); a measure whose own label or
`rank_by` phrase is said (freight, 合計金額が) is named too.
"""

from __future__ import annotations

from concierge.catalog.model import EnumExtract, Tool
from concierge.language.japanese import of_particle
from concierge.language.tokens import Utterance, tokenise
from concierge.planner import words
from concierge.planner.text import fold, normalise, said_as

RANK = "rank_by"
COUNT_OF = "count_of_"
EACH_OF = "each_of_"  # a column asked of each row (カットはいくら: what one costs), never what the rows add up to
HEADS_OF = "heads_of_"  # how many groups of people a summary gives (生徒は何人: the students, not the lessons)


def ranks(tool: Tool) -> list[str]:
    """The figures a summary ranks by (its `rank_by` values): count_of_<rows>, then its measures."""
    p = tool.params.get(RANK)
    return list(p.enum.values or []) if p is not None and p.enum is not None else []


def count_of(tool: Tool) -> str | None:
    """The `rank_by` value that counts a summary's rows (count_of_lessons), or None for a tool that has none."""
    return next((v for v in ranks(tool) if v.startswith(COUNT_OF)), None)


def named(tool: Tool, text: str) -> str | None:
    """The `rank_by` value of the one figure the request names (text folded), or None when it names none or
    the tool is no summary."""
    values = ranks(tool)
    if not values:
        return None
    said = by_name(tool, text)
    if said:
        return said
    words_said = tokenise(text)
    kinds = [kind for kind in ("quantity", "money", "count") if says_kind(words_said, kind)]
    for kind in kinds:
        found = _of_kind(tool, values, kind)
        if found:
            return found
    return None


def says_kind(said: Utterance, kind: str) -> bool:
    """Whether the request (folded) says a word of `[measures] kind`: a Japanese one from the start of a token on
    (売上高, 稼いだ), an English one as words of their own or with an ending (amounts, earned)."""
    listed = words.words("measures", kind)
    return any(_said_from(said, token.start, w) for token in said.tokens for w in listed)


def _said_from(said: Utterance, start: int, word: str) -> bool:
    if not said.text.startswith(word, start):
        return False
    end = start + len(word)
    if not word.isascii() or said.ends_at(end):
        return True
    within = said.tokens[said.starting(0, end).stop - 1]
    return said.text[end:within.end] in words.said("measure_said", "endings")


def names_a_measure(word: str) -> bool:
    """Whether a word (folded) is one of `[measures]`: it names money, a quantity or a count (売上, sales, 件数)."""
    return any(words.pattern("measures", kind).fullmatch(word) for kind in ("money", "quantity", "count"))


def by_name(tool: Tool, text: str) -> str | None:
    """The `rank_by` value of a measure whose own phrase or label the request says (合計金額が, freight)."""
    values = ranks(tool)
    return (_by_phrase(tool, text, values) or _by_label(tool, text, values)) if values else None


def column(tool: Tool, value: str) -> str:
    """The result column a `rank_by` value ranks by: count_of_orders counts the rows of the column orders."""
    return value.removeprefix(COUNT_OF)


def _of_kind(tool: Tool, values: list[str], kind: str) -> str | None:
    money = set(tool.result.money)
    counts = [v for v in values if v.startswith(COUNT_OF)]
    if kind == "count":
        return counts[0] if counts else None
    measures = [v for v in values if not v.startswith(COUNT_OF)]
    if kind == "money":
        return next((v for v in measures if v in money), None)
    quantity = [v for v in measures if v not in money]
    named_so = [v for v in quantity if words.pattern("measures", "quantity").search(labels(tool, v))]
    return next(iter(named_so or quantity), None)


def _by_phrase(tool: Tool, text: str, values: list[str]) -> str | None:
    """A `rank_by` synonym said (合計金額が, by total amount): the longest."""
    x = tool.params[RANK].extract
    synonyms = x.synonyms if isinstance(x, EnumExtract) else {}
    said = [(len(p), v) for p, v in synonyms.items() if v in values and fold(normalise(p)) in text]
    return max(said)[1] if said else None


def total_named(tool: Tool, text: str) -> str | None:
    """The column of a read tool's totals whose label the request says (発注10167の金額: the amount), the longest
    label said first; None where it says none."""
    said = [] if ranks(tool) else _labels_said(tool, text, list(tool.result.totals))
    return max(said)[1] if said else None


def column_named(tool: Tool, text: str) -> str | None:
    """A column of a list's rows, none of its totals, whose label the request says (胡蝶蘭の単価: the unit price),
    the longest label first; None for a summary, or where it names none."""
    if ranks(tool):
        return None
    said = _labels_said(tool, text, [c for c in tool.result.labels if c not in tool.result.totals])
    return max(said)[1] if said else None


def price_asked(text: str) -> bool:
    """Whether the request asks the price of one thing (カットいくら, the price of the Prius), not a total."""
    return bool(words.pattern("measures", "price").search(text)) and not (
        words.pattern("measures", "money").search(text) or words.pattern("measures", "not_price").search(text))


def kinds_asked(text: str) -> bool:
    """Whether the request asks how many kinds of a thing there are (何種類, how many kinds)."""
    return bool(words.pattern("measures", "kinds").search(text))


def one_price_asked(text: str, period_said: bool) -> bool:
    """Whether the request asks what one thing costs (カットはいくら？): a price with no period said (先月のカットの料金
    asks what they came to)."""
    return price_asked(text) and not period_said


def price_of(tool: Tool, text: str) -> str | None:
    """The one money column of a list of things whose price the request asks (ヘッドスパの値段: its price)."""
    money = list(tool.result.money)
    return money[0] if len(money) == 1 and not ranks(tool) and price_asked(text) else None


def said_length(tool: Tool, text: str) -> int:
    """How long the label of a measure of the tool said in the request is (0 where none is said): the longer
    names the figure more closely ("amount paid" over "amount")."""
    return max((n for n, _ in _labels_said(tool, text, ranks(tool))), default=0)


def _by_label(tool: Tool, text: str, values: list[str]) -> str | None:
    """A measure whose label is said (freight, 合計金額), the longest label first; not a word any money is said by."""
    money = words.words("measures", "money")
    said = _labels_said(tool, text, values, skip=money)
    return max(said)[1] if said else None


def _labels_said(tool: Tool, text: str, columns: list[str], skip: tuple[str, ...] = ()) -> list[tuple[int, str]]:
    """(length of the label, column) for each label of a measure (not a count) said in the request (folded); a
    Japanese compound label is said with の too (患者負担額: 患者の負担額)."""
    texts = [(t, [w.surface for w in tokenise(t).tokens]) for t in (text, _without_linking_of(text))]
    return [(len(label), c) for c in columns if not c.startswith(COUNT_OF) for label in labels(tool, c).split("|")
            if len(label) > 1 and label not in skip and any(_label_in(label, t, said) for t, said in texts)]


def _label_in(label: str, text: str, said: list[str]) -> bool:
    """Whether a label is said in `text` (`said`: its words): a Japanese one anywhere, an English one as words of
    their own, its last one perhaps plural (amounts; never the id of "did")."""
    if not label.isascii():
        return label in text
    named = label.split()
    return any(said[i:i + len(named) - 1] == named[:-1] and said[i + len(named) - 1] in _forms(named[-1])
               for i in range(len(said) - len(named) + 1))


def _forms(word: str) -> tuple[str, ...]:
    return word, word + "s", word + "es"


def _without_linking_of(text: str) -> str:
    """The text without each の that links two nouns (患者の負担額: 患者負担額), read in its words as said."""
    said = tokenise(said_as(text))
    linking = [t for before, t, after in zip(said.tokens, said.tokens[1:], said.tokens[2:], strict=False)
               if t.surface == _OF and t.is_particle and before.is_noun and after.is_noun
               and before.end == t.start and t.end == after.start]
    for t in reversed(linking):
        text = text[:t.start] + text[t.end:]
    return text


_OF = of_particle()


def labels(tool: Tool, value: str) -> str:
    """A figure's labels and name, folded, joined by |."""
    text = tool.result.labels.get(value)
    forms = [text.ja, text.en] if text is not None else []
    return "|".join(fold(normalise(f)) for f in [*forms, value.replace("_", " ")] if f)
