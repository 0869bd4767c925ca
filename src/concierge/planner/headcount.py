"""How many people did something is how many of them the rows of what they did hold, never how many rows.

「先月レッスンを受けた生徒は何人」, 「修理を頼んだことのあるお客さんは何人」, "how many customers had repairs": a
question of how many people (何人, 何名, 人数; how many customers), said with a word for the people of a table of
people (生徒, お客さん, customers), about the rows of another table (the lessons, the repairs), goes to the summary
of those rows grouped by that person (by their key: two people of one name are two), taking every value the
request says. The figure stated is how many people the groups are (planner/answer/sentences.py), not how many
rows: 51 lessons were taken by 13 students.

A table of people is one whose rows the noun of a party names (customer, student, pet: `language.english.parties`)
and whose tool searches it by a name; a word for its people is one of `Lexicon.role_words` of the group listing
those names (顧客, お客さん of the customers' names).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from concierge.catalog.model import NameExtract, Tool
from concierge.language.english import parties
from concierge.language.patterns import Pattern, Slot
from concierge.language.tokens import tokenise
from concierge.planner import leftover, ranking, words
from concierge.planner.counting import COUNTING
from concierge.planner.lexicon import Lexicon
from concierge.planner.nouns import noun
from concierge.planner.slots import Slots
from concierge.planner.text import fold

PEOPLE_COUNTERS = frozenset(words.said("counters", "people"))  # 何人, 何名
_HEADCOUNT = frozenset(words.said("counters", "headcount"))  # 人数: how many people, with no counter


@dataclass(frozen=True)
class Headcount:
    """The summary that answers, grouped by the people counted (`group`, its `group_by` value)."""

    tool: Tool
    group: str
    args: dict[str, Any]


def people_counted(tool: Tool, slots: Slots, lexicon: Lexicon, offered: Collection[str]) -> Headcount | None:
    """The summary grouped by the people the request counts (of `tool`'s rows where one groups them so, else of other
    rows that take every value said: ビジネス英語を受けている生徒 are the lessons' students, not the course), where it
    counts people who are not `tool`'s rows; None where it counts no people, counts the people's own rows, names the
    person, or no summary groups by them and takes all else it says."""
    text = slots.text
    if tool.mode != "read" or not _asks_people(text):
        return None
    read = lexicon.reads(tool.name)
    people = _people_columns(lexicon)
    if read is None or not people or any(read == frozenset({table}) for table, _ in people):
        return None  # the rows are people (顧客は何人): counting them is the answer
    if slots.named_values:
        return None  # 佐藤さんは何人: the people so named
    folded = fold(text)
    summaries = ranking.summaries(lexicon, tool.catalog, offered)
    for summary in sorted(summaries, key=lambda t: not ranking.about(t, tool)):  # of its own rows first
        group = _group_of_people(summary, lexicon, people, folded)
        if group is None or leftover.left(summary, slots, lexicon, set(offered)):
            continue
        top = summary.params[ranking.TOP]
        return Headcount(summary, group, {ranking.GROUP: group, ranking.TOP: top.max or top.default})
    return None


def _asks_people(text: str) -> bool:
    """何人, 何名, 人数, or how many (the people it names are read after: `_says`)."""
    asked = COUNTING.search(text)
    if asked is not None and asked["counter"] in PEOPLE_COUNTERS:
        return True
    said = tokenise(text)
    return any(t.surface in _HEADCOUNT for t in said.tokens) or \
        words.token_pattern("how_many", "rows_counted").search(said) is not None


def _people_columns(lexicon: Lexicon) -> set[tuple[str, str]]:
    """(table, column) of the names of each table of people: a tool that reads that table alone, whose rows are
    people (its noun is one of `parties`), searches it by a person's name."""
    out = set()
    for name, tool in lexicon.tools.items():
        read = lexicon.reads(name)
        head = noun(tool).one.split()[-1:]
        if read is not None and len(read) == 1 and head and head[0].lower() in parties():
            out |= {(next(iter(read)), p) for p, param in tool.params.items() if isinstance(param.extract, NameExtract)}
    return out


def _group_of_people(summary: Tool, lexicon: Lexicon, people: set[tuple[str, str]], folded: str) -> str | None:
    """The `group_by` value of `summary` that groups by people whose words the request says (the customer of
    お客さん), where one does."""
    by = summary.params[ranking.GROUP]
    for value in by.enum.values or [] if by.enum is not None else []:
        key = lexicon.enum_of.get((summary.name, value))
        listed = lexicon.listed(key.key) if key is not None else None
        if listed is None or listed not in people:
            continue
        said = lexicon.role_words(key.key) if key is not None else frozenset()
        if any(_says(folded, w) for w in said):
            return value
    return None


def _says(folded: str, word: str) -> bool:
    """Whether the request says the Japanese word (two letters or more: 顧客, not 客), or asks how many of the English
    one (how many customers)."""
    if not word.isascii():
        return len(word) > 1 and word in folded
    counted = words.token_pattern("how_many", "rows_counted").slots
    plural = Slot.parse({"form": [word, f"{word}s", f"{word}es"]})
    return Pattern((*counted, plural)).search(tokenise(folded)) is not None
