"""What a tool's rows are called, in each language, for sentences about a tool that declares no templates.

A drafted tool says its noun through its `intents`: "how many albums" and "list of albums" give the plural,
its topics the singular and the Japanese (顧客), "顧客一覧" or "顧客の合計" the Japanese where no topic has
it. Without any of them the tool's name in words is the noun.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import regex

from concierge.catalog.model import Tool
from concierge.language.scripts import KATAKANA
from concierge.planner import words
from concierge.planner.text import fold

_MANY = re.compile(rf"^(?:{'|'.join(words.said('nouns', 'many_before'))})\s+(?P<n>[a-z][a-z \-]*)$", re.IGNORECASE)
_JA = re.compile(rf"^(?P<n>[^\sA-Za-z0-9]+?)(?:{'|'.join(words.said('nouns', 'ja_after'))})$")


@dataclass(frozen=True)
class Noun:
    one: str  # album
    many: str  # albums
    ja: str  # アルバム, 顧客

    def said(self, lang: str, n: int | None = None) -> str:
        """The noun in the language: singular for one, plural otherwise (English)."""
        if lang == "ja":
            return self.ja
        return self.one if n == 1 else self.many


_MADE: dict[int, tuple[Tool, Noun]] = {}  # a tool's noun, read once per loaded tool (by identity)
_MADE_KEPT = 4096


_ANY_JA = "データ"
_KATAKANA = regex.compile(rf"[{KATAKANA}]")


def noun(tool: Tool | None) -> Noun:
    if tool is None:
        return Noun("result", "results", _ANY_JA)
    found = _MADE.get(id(tool))
    if found is not None and found[0] is tool:
        return found[1]
    made = _noun(tool)
    if len(_MADE) >= _MADE_KEPT:
        _MADE.clear()
    _MADE[id(tool)] = (tool, made)
    return made


def _noun(tool: Tool) -> Noun:
    keywords = list(tool.intents.keywords) if tool.intents else []
    topics = list(tool.intents.topics) if tool.intents else []
    many = next((m["n"].strip() for k in keywords if (m := _MANY.match(k.strip()))), None)
    one = next((t for t in topics if t.isascii() and many and many.startswith(t)), None)
    many = many or next((k for k in keywords if re.fullmatch(r"[a-z]+s", k.strip())), None)
    if many is None:
        base = re.sub(r"^(?:get|find|list|show)_|_summary$", "", tool.name).replace("_", " ")
        many = base if base.endswith("s") else base + "s"
    one = one or (many[:-1] if many.endswith("s") else many)
    ja = next((m["n"] for k in keywords if (m := _JA.match(k.strip())) and _whole(k.strip(), m["n"])), None) or next(
        (t for t in topics if not t.isascii()), None) or _ANY_JA  # never a tool's English name in Japanese
    return Noun(one, many, ja)


def _whole(keyword: str, n: str) -> bool:
    """Whether a keyword's noun is a whole word: not cut out of one (どのスタイ|リスト of どのスタイリスト, a
    grouping's phrase: its last letter and the first of what follows are both katakana)."""
    rest = keyword[len(n):]
    return not (rest and _KATAKANA.fullmatch(n[-1]) and _KATAKANA.fullmatch(rest[0]))


def belongs_to(other: Tool, tool: Tool) -> bool:
    """Whether another tool's rows are the tool's own or belong to them: its noun holds the tool's (注文明細 of 注文,
    order lines of orders)."""
    mine, its = noun(tool), noun(other)
    return bool(mine.ja and fold(mine.ja) in fold(its.ja)) or mine.one.lower() in its.one.lower()
