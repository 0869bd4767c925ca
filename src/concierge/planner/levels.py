"""A level said against the one it has: もう少し暗く, a bit brighter, the next channel (`extract.relative`).

The new level is one `step` up or down from the last one the conversation knows for the same device: the last
value set, or the value its `current` tool last read. Where none is known, the current tool is read first and the
level follows from its result (`Ref.by`); the parameter's `current` names that tool. The words of going up and
down are the catalog's, never the planner's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from concierge.catalog.model import CountExtract, Param, Relative, Tool
from concierge.planner import words
from concierge.planner.text import fold, normalise

Key = tuple[str, str, frozenset[tuple[str, Any]]]  # (tool, parameter, the call's other arguments)


def relative(param: Param) -> Relative | None:
    x = param.extract
    return x.relative if isinstance(x, CountExtract) else None


def key(tool: str, pname: str, args: Mapping[str, Any]) -> Key:
    """Which level: a tool's parameter for the device (or other values) of the call."""
    return tool, pname, frozenset((k, v) for k, v in args.items() if k != pname and v is not None)


def direction(said: str, rel: Relative) -> int:
    """+1 for a word of going up said in the folded text, -1 for one of going down, 0 for neither or both."""
    up = _words(tuple(rel.up)).search(said) is not None
    down = _words(tuple(rel.down)).search(said) is not None
    return 0 if up == down else (1 if up else -1)


def moves(tool: Tool, said: str) -> bool:
    """Whether the folded text moves a level of the tool up or down (もう少し暗く: a command to it)."""
    return any((rel := relative(p)) is not None and direction(said, rel) for p in tool.params.values())


def moved_said(param: Param, said: str) -> bool:
    """Whether the folded text moves the parameter's level up or down (もう少し暗く: a brightness said)."""
    rel = relative(param)
    return rel is not None and direction(said, rel) != 0


def moved(level: Any, by: int) -> int | None:
    """`level` moved by `by` (None when the level read is no number); past the parameter's bounds it is not
    written (`within`), never replaced by the bound."""
    try:
        return int(level) + by
    except (TypeError, ValueError):
        return None


def within(level: int, param: Param) -> bool:
    return (param.min is None or level >= param.min) and (param.max is None or level <= param.max)


def known(calls: list[tuple[str, dict[str, Any], list[dict[str, Any]]]], tools: Mapping[str, Tool]) -> dict[Key, Any]:
    """The last level the conversation knows of each device: set by a call (its argument), or read by the
    parameter's current tool (its column). `calls` are the successful ones, in order, with their rows."""
    levels: dict[Key, Any] = {}
    relatives = [(t.name, n, p.current) for t in tools.values() for n, p in t.params.items() if relative(p)]
    for name, args, rows in calls:
        for tool, pname, current in relatives:
            if name == tool and args.get(pname) is not None:
                levels[key(tool, pname, args)] = args[pname]
            elif current is not None and name == current.tool and rows and rows[0].get(current.column) is not None:
                levels[key(tool, pname, args)] = rows[0][current.column]
    return levels


def _words(said: tuple[str, ...]) -> words.WordList:
    return words.WordList(tuple(fold(normalise(w)) for w in said))
