"""An answer as it is said on the phone: short sentences, no tables, no result ids, numbers and times
the way a person reads them out.

    「からあげ弁当を2つ、合計1,380円です [r_0a1b]。受け取りは18:30です。」
    -> 「からあげ弁当を2つ、合計1,380円です。」「受け取りは18時30分です。」

`Sentences` cuts text that arrives piece by piece (a model's tokens) into sentences as soon as each
one ends, so the first can be spoken while the model still writes the rest. Twilio's voice reads the
text; nothing here makes or hears audio.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterator

from concierge.agent.grounding import ISO_IN_TEXT
from concierge.language.detect import Lang

MAX_SENTENCES = 3  # an answer the planner wrote for a screen is cut to what a caller can take in

_RESULT_ID = re.compile(r"\s*[\[(]\s*r_[0-9a-z]+(?:\s*[,、]\s*r_[0-9a-z]+)*\s*[\])]", re.IGNORECASE)
_TABLE_LINE = re.compile(r"^\s*\|.*\|\s*$")
_BULLET = re.compile(r"^\s*(?:[-*・•]|\d+[.)])\s+")
_MARKUP = re.compile(r"[*_`#]+")
# 18:30, not 18:30:15, not a time already said with am / pm
_TIME = re.compile(r"(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?!\d|:\d|\s*[apAP]\.?[mM]\b)")
_DAY = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})(?![\d/])")
_YEN_EN = re.compile(r"[¥￥]\s?(\d[\d,]*)")
_RANGE = re.compile(r"(?<=\S)\s*[〜~～]\s*(?=\S)")
# A sentence ends at 。！？ (and !? .) — a period only before a space or the end, so 2.5 and 1,380.5 stay whole.
_END = re.compile(r"[。！？!?]+[」』)）]*|\.(?=\s|$)|\n+")


def spoken(text: str, lang: Lang) -> str:
    """One piece of an answer made speakable (a sentence or a few)."""
    lines = []
    for raw in text.splitlines():
        if _TABLE_LINE.match(raw):
            continue
        line = _BULLET.sub("", raw)
        lines.append(line.strip())
    text = ("、" if lang == "ja" else ", ").join(line for line in lines if line)
    text = _MARKUP.sub("", _RESULT_ID.sub("", text))
    text = ISO_IN_TEXT.sub(lambda m: _date(int(m[2]), int(m[3]), lang), text)
    text = _TIME.sub(lambda m: _time(int(m[1]), int(m[2]), lang), text)
    text = _DAY.sub(lambda m: _date(int(m[1]), int(m[2]), lang), text)
    if lang == "en":
        text = _YEN_EN.sub(lambda m: f"{m[1]} yen", text)
    text = _RANGE.sub("から" if lang == "ja" else " to ", text)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def sentences(text: str) -> list[str]:
    """The sentences of a whole text, each with its closing mark."""
    cut = Sentences()
    return [*cut.feed(text), *cut.flush()]


def say(text: str, lang: Lang, limit: int = MAX_SENTENCES) -> list[str]:
    """A whole answer as the sentences to speak, at most `limit` of them."""
    out = [s for s in (spoken(part, lang) for part in sentences(text)) if s]
    return out[:limit]


class Sentences:
    """Text fed in pieces comes out as whole sentences, each as soon as it ends."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> Iterator[str]:
        self._held += piece
        while True:
            found = _END.search(self._held)
            # "2." at the very end may be "2.5" still arriving; wait for the next piece
            if found is None or (found.group() == "." and found.end() == len(self._held)):
                return
            sentence, self._held = self._held[: found.end()].strip(), self._held[found.end():]
            if sentence:
                yield sentence

    def flush(self) -> Iterator[str]:
        rest, self._held = self._held.strip(), ""
        if rest:
            yield rest


def _time(hour: int, minute: int, lang: Lang) -> str:
    if lang == "ja":
        return f"{hour}時" + (f"{minute}分" if minute else "")
    suffix = "am" if hour < 12 else "pm"
    shown = hour % 12 or 12
    return f"{shown}:{minute:02d} {suffix}" if minute else f"{shown} {suffix}"


def _date(month: int, day: int, lang: Lang) -> str:
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return f"{month}/{day}"
    return f"{month}月{day}日" if lang == "ja" else f"{calendar.month_name[month]} {day}"
