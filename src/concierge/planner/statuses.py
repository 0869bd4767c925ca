"""Money asked of rows that have a status: only the rows that brought money in are added up, and the answer says so.

A salon's appointments are done, no-show or booked; a repair shop's jobs paid, invoiced or cancelled. 「先月の売上は？」
of such rows is the money of those that happened: adding up the no-shows and the bookings still to come states a
figure broader than the question. Where the tool filters by a status column whose values are all no-money words
(questions.toml [statuses]) but one, the call takes that one and the answer names what it left out; where several
values remain, a summary groups its money by status (a list adds up every row) and the answer says which statuses
may bring no money in. Rows asked as what happened (何回来た, how many times did she come in) are counted so too. A
status the request names, or a grouping by it, is the person's own choice and is kept. Rows counted or added up
without money asked (予約は何件, 料金の合計) are every row, as asked, and the answer says that those of no money are
among them: a total of prices that holds the cancelled ones is never read as what came in. So does the total
after a list whose rows hold both kinds (田村さんの予約を見せて).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from concierge.catalog.model import Tool
from concierge.language.tokens import tokenise
from concierge.planner import words
from concierge.planner.counting import COUNTING
from concierge.planner.lexicon import reads_data
from concierge.planner.measure import ranks, says_kind
from concierge.planner.text import fold, normalise

_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Counted:
    """What a call's money adds up: the status `param` taken (`value`, None where every row is counted) and the
    values it left out (or, where every row is counted, those of no money it holds); `grouped`: the money is
    shown by status instead."""

    tool: str
    param: str
    value: str | None
    others: tuple[str, ...]
    grouped: bool = False
    each: tuple[str, ...] = ()  # the statuses of money counted apart, one call each (店別の売上)


def counted(tool: Tool, text: str, values: dict[str, list[Any]], known: Callable[[str], list[str]]
            ) -> Counted | None:
    """The status a call asked for money (or for what happened) takes, into `values` (`known`: a status
    parameter's values in the data); None where it asks neither, the tool has no status filter, or the request
    names a status or groups by it."""
    statuses = [p for p, param in tool.params.items() if not param.required and reads_data(param)
                and is_status(tool, p)] if tool.mode == "read" else []
    if not statuses:
        return None
    happened = _asks_what_happened(tool, text)
    if not happened and not (ranks(tool) or COUNTING.search(text)):
        return None
    for pname in statuses:
        if pname in values or any(pname in said for said in values.values()):  # status=no-show, group_by=status
            continue
        data = known(pname)
        none_in = [v for v in data if _brings_nothing(v)]
        kept = [v for v in data if v not in none_in]
        if not none_in or not kept:
            continue
        if not happened:  # 予約は何件, 料金の合計: every row, as asked; the answer says which are among them
            return Counted(tool.name, pname, None, tuple(none_in))
        if len(kept) == 1:
            values[pname] = kept
            return Counted(tool.name, pname, kept[0], tuple(none_in))
        grouping = _grouping_by(tool, pname)
        if grouping is not None and grouping not in values:
            values[grouping] = [pname]
        grouped = grouping is not None and values[grouping] == [pname]
        if grouping is not None and not grouped:  # 店別の売上: grouped by another, each status of money apart
            values[pname] = kept
            return Counted(tool.name, pname, None, tuple(none_in), each=tuple(kept))
        return Counted(tool.name, pname, None, tuple(none_in), grouped=grouped)
    return None


def held_in_rows(tool: Tool, rows: list[dict[str, Any]], row_count: int) -> tuple[str, tuple[str, ...]] | None:
    """The status column of listed rows and its values of no money among them, where the rows hold both those and
    others: a total of such rows (価格の合計) adds up the cancelled with the done, and the answer says so. None where
    no column is a status, the rows are all of one kind, or some rows are not shown (what they hold is not known)."""
    if not rows or len(rows) < row_count:
        return None
    for column in rows[0]:
        said = tool.result.labels.get(column)
        if not names_status(column, said.ja if said is not None else ""):
            continue
        values = list(dict.fromkeys(str(r[column]) for r in rows if r.get(column) is not None))
        none_in = tuple(v for v in values if _brings_nothing(v))
        if none_in and len(none_in) < len(values):
            return column, none_in
    return None


def _grouping_by(tool: Tool, pname: str) -> str | None:
    """The parameter of a summary that groups by the status column, where it has one."""
    return next((name for name, param in tool.params.items()
                 if param.enum is not None and param.enum.values and pname in param.enum.values), None)


def _asks_what_happened(tool: Tool, text: str) -> bool:
    """Money asked of rows that keep it (売上, sales), or the rows that happened (何回来た, visited)."""
    money = bool(tool.result.money) and says_kind(tokenise(text), "money")
    return money or words.pattern("statuses", "happened").search(text) is not None


def is_status(tool: Tool, pname: str) -> bool:
    """A parameter that filters by a status column: its name or its label says so (appt_status, 状態)."""
    return names_status(pname, tool.params[pname].description.get("ja") or "")


def names_status(name: str, label: str) -> bool:
    """Whether a column's or a parameter's name or its label says it holds a status (appt_status, 状態)."""
    names = words.words("statuses", "columns")
    folded = fold(normalise(label))
    return any(w in names for w in _WORD.findall(name.lower())) or any(n in folded for n in names if not n.isascii())


def _brings_nothing(value: str) -> bool:
    """A status that says no money came in: a listed word, whole or as one of its words (no_show, 無断キャンセル)."""
    latin_keys, japanese = _no_money_words()
    folded = fold(normalise(value))
    latin = _WORD.findall(folded)
    return "".join(latin) in latin_keys or any(w in latin_keys for w in latin) or any(w in folded for w in japanese)


@cache
def _no_money_words() -> tuple[frozenset[str], tuple[str, ...]]:
    """The no-money words of a status: the Latin ones as their letters and digits alone (no show: noshow), and the
    Japanese ones."""
    listed = words.words("statuses", "not_sales")
    return (frozenset("".join(_WORD.findall(w)) for w in listed if w.isascii()),
            tuple(w for w in listed if not w.isascii()))
