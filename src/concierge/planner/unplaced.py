"""Values a request for a write says that none of the message's calls takes: never dropped in silence.

「ハンバーグ弁当2つと枝豆で 7時半受け取り」 read as two bentos and a pickup time leaves the edamame out of the order;
"two beef bowls pick up at 7" read as a pickup time alone leaves the bowls out. A write made so is a wrong write,
whatever else it gets right. `unplaced` finds the first such value: a value of the data a write offered takes
(a product, a light), or a time of day or a day where a write takes one, that no call of the message uses, and that the
request did not say to leave alone (寝室はそのままで, 餃子だけ残して) or say in the negative (コーラじゃなくて).
The planner then makes none of the message's calls and says which words it could not place (planner/plan.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from concierge.catalog.model import DateExtract, TimeExtract
from concierge.language.japanese import and_particle
from concierge.language.tokens import tokenise
from concierge.planner import not_meant, words
from concierge.planner.lexicon import Lexicon, reads_data, takes
from concierge.planner.slots import Slots

__all__ = ["Unplaced", "unplaced"]


@dataclass(frozen=True)
class Unplaced:
    """Words no call takes; with `tool` and `param` where they look like a value of that parameter and name none
    (カレー said to change a bento, where no curry is on the menu)."""

    said: str
    tool: str | None = None
    param: str | None = None


def unplaced(requests: Sequence[tuple[Slots, Sequence[tuple[str, dict[str, Any]]]]],
             every_call: Sequence[tuple[str, dict[str, Any]]], lexicon: Lexicon, offered: set[str]) -> Unplaced | None:
    """The first value said in a request that makes a write and that no call uses, else None. `requests`: each
    request's words read and its calls (tool, arguments); `every_call`: all the message's calls."""
    writing = [(slots, made) for slots, calls in requests
               if (made := [name for name, _ in calls if lexicon.tools[name].mode == "write"])
               and not words.pattern("lines", "keep").search(slots.cue_text)]  # 餃子だけ残して: the others go
    if not writing:
        return None
    used = {str(v) for _, args in every_call for v in _flat(args.values())}
    dated = any(isinstance(lexicon.tools[name].params[p].extract, DateExtract) for name, args in every_call
                for p, v in args.items() if v is not None and p in lexicon.tools[name].params)
    writes = [lexicon.tools[t] for t in sorted(offered) if t in lexicon.tools and lexicon.tools[t].mode == "write"]
    groups = {p.enum.key for tool in writes for p in tool.params.values() if p.enum is not None and reads_data(p)}
    timed = any(takes(tool, TimeExtract) for tool in writes)
    takes_days = any(takes(tool, DateExtract) for tool in writes)
    for slots, made in writing:
        found = _value_left(slots, used, groups) or _moment_left(slots, used, timed, takes_days and not dated) \
            or _unknown_left(slots, lexicon, made[0]) or _listed_left(slots)
        if found is not None:
            return found
    return None


def _value_left(slots: Slots, used: set[str], groups: set[str]) -> Unplaced | None:
    """A value of the data said that no argument is or holds (キャベツ is in the goods キャベツ2玉)."""
    left = slots.kept | not_meant.values(slots)
    for hit in slots.enums:
        values = [v for key, v in hit.value if key in groups]
        if values and not any(v in left or any(str(v) in arg for arg in used) for v in values):
            return Unplaced(slots.text[hit.start:hit.end])
    return None


def _moment_left(slots: Slots, used: set[str], timed: bool, undated: bool) -> Unplaced | None:
    """A time of day that no call takes, where a write offered takes one; or a day said where a write offered takes
    one and no call does (`undated`: a day is read against the clock of its tool's catalog, not compared)."""
    if timed:
        for value, (start, end) in slots.times:
            if str(value) not in used:
                return Unplaced(slots.text[start:end].strip())
    if slots.dates and undated:
        first = slots.dates[0]
        return Unplaced(slots.text[first.start_index:first.end_index].strip())
    return None


def _unknown_left(slots: Slots, lexicon: Lexicon, tool: str) -> Unplaced | None:
    """A word that looks like a value of the write's data and names none (カレー, not on the menu)."""
    param = next((n for n, p in lexicon.tools[tool].params.items() if reads_data(p)), None)
    if param is None or not slots.unknown:
        return None
    return Unplaced(slots.unknown[0][0], tool, param)


def _listed_left(slots: Slots) -> Unplaced | None:
    """A noun said in a list after a value read, that no reading took (鮭 of 唐揚げと鮭 ふたつずつ: said as one of the
    goods, read as nothing): said alone or before its count, never a word of the sentence (唐揚げと一緒に)."""
    said = tokenise(slots.text).tokens
    read = [(h.start, h.end) for h in slots.enums] + [u.span for u in slots.unsure] + [s for _, s in slots.unknown]
    for joiner, noun, after in zip(said, said[1:], [*said[2:], None], strict=False):
        listed = joiner.surface == and_particle() and any(end == joiner.start for _, end in read)
        alone = after is None or after.start > noun.end or after.is_numeral
        if listed and noun.is_noun and not noun.is_numeral and alone \
                and not any(start < noun.end and noun.start < end for start, end in read):
            return Unplaced(noun.surface)
    return None


def _flat(values: Iterable[Any]) -> Iterable[Any]:
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from v
        elif v is not None:
            yield v
