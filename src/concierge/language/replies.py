"""A plain yes or a plain no to a question the person was asked (words/replies.toml).

`reply("はい、お願いします。")` is "yes", `reply("cancel it")` is "no", and a message that says anything more
(「はい、唐揚げも追加で」, "yes, and a miso soup") is None: a new request, never taken as an answer.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from functools import cache
from importlib import resources
from typing import Literal

Reply = Literal["yes", "no"]

_PARTS = re.compile(r"[、。,.!！?？…~〜]+|\s{2,}|(?<=[^\x00-\x7f])\s|\s(?=[^\x00-\x7f])")


@cache
def _words() -> dict[str, dict[Reply | Literal["polite"], frozenset[str]]]:
    data = tomllib.loads(resources.files("concierge.language").joinpath("words/replies.toml").read_text("utf-8"))
    return {lang: {side: frozenset(_fold(w) for w in data[lang][side]) for side in ("yes", "no", "polite")}
            for lang in data}


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower().replace("’", "'")


def reply(text: str) -> Reply | None:
    """"yes" or "no" when the whole message is one, else None."""
    parts = [" ".join(p.split()) for p in _PARTS.split(_fold(text)) if p.strip()]
    if not parts or len(parts) > 6 or text.rstrip().endswith(("?", "？")):  # はい？ is "pardon?"
        return None
    whole = _side(_unwrapped(" ".join(parts)))  # that's right, go ahead please
    if whole in ("yes", "no"):
        return whole
    sides = {_side(_unwrapped(part)) for part in parts} - {"polite"}
    side = sides.pop() if len(sides) == 1 else None
    return side if side in ("yes", "no") else None


def _unwrapped(said: str) -> str:
    """The words without the polite ones said around them (please go ahead -> go ahead)."""
    polite = sorted({w for words in _words().values() for w in words["polite"]}, key=len, reverse=True)
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
    for words in _words().values():
        if part in words["yes"]:
            return "yes"
        if part in words["no"]:
            return "no"
    if any(part in words["polite"] for words in _words().values()):
        return "polite"
    return _polite_tail(part)


def _polite_tail(part: str) -> Reply | None:
    """A yes or no said with a polite ending in one piece: はいお願いします, キャンセルでお願いします."""
    for words in _words().values():
        for polite in words["polite"]:
            for ending in (polite, "で" + polite):
                if part.endswith(ending) and len(part) > len(ending):
                    head = part[: -len(ending)]
                    if head in words["yes"]:
                        return "yes"
                    if head in words["no"]:
                        return "no"
    return None
