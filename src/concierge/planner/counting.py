"""Whether a request asks how many: 何件, 何枚, how many, number of …s, いくつ, 件数.

A read tool's answer to it is its row count over every matching row (planner/answer), and a question of how
many were sold is the quantity a line summary adds up (planner/sold.py). Both read the request's tokens
(questions.toml [how_many]).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from concierge.catalog.model import Tool
from concierge.language.patterns import Pattern, Slot
from concierge.language.tokens import tokenise
from concierge.planner import words
from concierge.planner.nouns import noun
from concierge.planner.text import fold

# Counters said after 何 in a question of how many (アルバムは何枚, 得意先は何社): the answer counts with the same.
COUNTERS = words.said("counters", "counting")


@dataclass(frozen=True)
class Asked:
    """A question of how many, and the counter said after 何 (何枚: 枚), where one is."""

    counter: str | None

    def __getitem__(self, name: str) -> str | None:  # asked["counter"], as its readers take it
        return self.counter if name == "counter" else None


def how_many(text: str) -> Asked | None:
    """Whether the request asks how many, and with which counter."""
    utterance = tokenise(text)
    counted = _counted().search(utterance)
    if counted is not None:
        return Asked(counted.said(utterance, "counter"))
    glued = next((t for t in utterance.tokens if _glued_counter(t.surface) is not None), None)
    if glued is not None:  # 何人: the analyser's one word
        return Asked(_glued_counter(glued.surface))
    if any(p.search(utterance) is not None for p in words.token_patterns("how_many", "asked")):
        return Asked(None)
    return None


class _Counting:
    """`COUNTING.search(text)`: how_many, for the readers that take it as a pattern."""

    @staticmethod
    def search(text: str) -> Asked | None:
        return how_many(text)


COUNTING = _Counting()


def _glued_counter(surface: str) -> str | None:
    """The counter of one word that is 何 and a counter of [counters] counting (何人, 何名), if it is one."""
    for before in words.token_pattern("how_many", "before_counter").slots[0].forms:
        if surface.startswith(before) and surface[len(before):] in COUNTERS:
            return surface[len(before):]
    return None


@cache
def _counted() -> Pattern:
    """何 and a counter of [counters] counting (何枚, 何社), the counter named."""
    before = words.token_pattern("how_many", "before_counter")
    return Pattern((*before.slots, Slot.parse({"form": list(COUNTERS), "name": "counter"})))


@cache
def _phrase(said: str) -> Pattern:
    """A noun's words (purchase orders), each a token."""
    return Pattern.parse([{"form": w} for w in said.split()])


@cache
def _rows_of(many: str) -> tuple[Pattern, Pattern]:
    """how many <noun>, and [show me] [all|the] <noun> at the start of a request."""
    noun_slots = _phrase(many).slots
    return (Pattern((*words.token_pattern("how_many", "rows_counted").slots, *noun_slots)),
            Pattern((*words.token_pattern("how_many", "rows_before").slots, *noun_slots)))


def counts_rows_of(tool: Tool, text: str) -> bool:
    """Whether a request (folded) asks for the tool's own rows: counts them (how many visits, 来店は何件, 来店数)
    or starts with them (loans of books by Japanese authors; show the loans …): the rows it is about, whatever
    else it narrows them by."""
    n = noun(tool)
    utterance = tokenise(text)
    many = n.many.lower()
    if many.split():
        counted, listed = _rows_of(many)
        if counted.search(utterance) is not None or (utterance.tokens and listed.at(utterance, 0) is not None):
            return True
    return bool(n.ja) and _counted_in_japanese(fold(n.ja), text)


def _counted_in_japanese(ja: str, text: str) -> bool:
    """The noun said, then a word of counting or listing (来店は何件, 来店数, 顧客の一覧)."""
    utterance = tokenise(text)
    after = words.token_pattern("how_many", "after_noun")
    at = text.find(ja)
    while at >= 0:
        end = at + len(ja)
        following = utterance.starting(end, len(text) + 1)
        if following and utterance.tokens[following[0]].start == end and after.at(utterance, following[0]):
            return True
        at = text.find(ja, at + 1)
    return False
