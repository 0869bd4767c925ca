"""A plain yes or a plain no to a question the person was asked (words/replies.toml).

`reply("はい、お願いします。")` is "yes", `reply("cancel it")` is "no", `reply("いいです")` or `reply("はい？")` is
"unclear" (asked again), and a message that says anything more (「はい、唐揚げも追加で」, "yes, and a miso soup") is
None: a new request, never taken as an answer.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from functools import cache
from importlib import resources
from typing import Literal

Reply = Literal["yes", "no", "unclear"]
_SIDES = ("yes", "no", "polite", "unclear")

_PARTS = re.compile(r"[、。,.!！?？…~〜]+|\s{2,}|(?<=[^\x00-\x7f])\s|\s(?=[^\x00-\x7f])")


@cache
def _words() -> dict[str, dict[str, frozenset[str]]]:
    data = tomllib.loads(resources.files("concierge.language").joinpath("words/replies.toml").read_text("utf-8"))
    return {lang: {side: frozenset(_fold(w) for w in data[lang][side]) for side in _SIDES} for lang in data}


@cache
def _every() -> dict[str, frozenset[str]]:
    """Each side's words, of both languages together."""
    return {side: frozenset().union(*(w[side] for w in _words().values())) for side in _SIDES}


@cache
def _polite_longest_first() -> tuple[str, ...]:
    return tuple(sorted(_every()["polite"], key=len, reverse=True))


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower().replace("’", "'")


def reply(text: str) -> Reply | None:
    """"yes" or "no" when the whole message is one, else None."""
    parts = [" ".join(p.split()) for p in _PARTS.split(_fold(text)) if p.strip()]
    if not parts or len(parts) > 6:
        return None
    whole = _side(_unwrapped(" ".join(parts)))  # that's right, go ahead please
    sides = {whole} if whole in ("yes", "no", "unclear") else {_side(_unwrapped(part)) for part in parts} - {"polite"}
    side = sides.pop() if len(sides) == 1 else None
    if side in ("yes", "no") and text.rstrip().endswith(("?", "？")):  # はい？ is "pardon?"
        return "unclear"
    return side if side in ("yes", "no", "unclear") else None


def _unwrapped(said: str) -> str:
    """The words without the polite ones said around them (please go ahead -> go ahead)."""
    polite = _polite_longest_first()
    changed = True
    while changed:
        changed = False
        for word in polite:
            for cut in (f"{word} ", f" {word}"):
                if said.startswith(cut) or said.endswith(cut):
                    said = said[len(cut):] if said.startswith(cut) else said[: -len(cut)]
                    changed = True
    return said


def _side(part: str) -> Reply | Literal["polite"] | None:
    every = _every()
    for side in ("yes", "no", "unclear", "polite"):
        if part in every[side]:
            return side
    return _joined(part)


def _joined(part: str) -> Reply | None:
    """Words of one side said without a break (うん頼む, いいえ結構です, はいお願いします, OKです,
    キャンセルでお願いします)."""
    every = _every()
    for side in ("yes", "no", "unclear"):
        for head in every[side]:
            if not part.startswith(head) or len(head) == len(part) or head.isascii() and part[len(head)].isascii() \
                    and part[len(head)].isalpha():
                continue
            rest = part[len(head):].strip()
            if any(r in every[side] or r in every["polite"] for r in (rest, rest.removeprefix("で"))):
                return side
    return None
