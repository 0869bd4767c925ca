"""An answer as it is said on the phone: short sentences, no result ids, numbers, prices and times
the way a person reads them out, a table as one sentence naming its items.

    「からあげ弁当を2つ、合計1,380円です [r_0a1b]。受け取りは18:30です。」
    -> 「からあげ弁当を2つ、合計1,380円です。」「受け取りは18時30分です。」
    「です。」 and a table of the 25 items of the menu (the planner's answer for a screen)
    -> 「唐揚げ弁当、のり弁当、鮭弁当、ハンバーグ弁当、エビフライ弁当ほか20件です。」
    "Green tea ¥150, cola ¥200." -> "Green tea 150 yen, cola 200 yen."

`Sentences` cuts text that arrives piece by piece (a model's tokens) into sentences as soon as each
one ends, so the first can be spoken while the model still writes the rest; a table's lines are held
until it ends, with the sentence that leads into it when that one is an empty frame (「です。」,
「弁当はです。」, "Bento: ."), and go out as one piece that `spoken` says as a sentence (its first
column's items, `language.spoken.listing`). Twilio's voice reads the text; nothing here makes or hears audio.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterator

from concierge.agent.grounding import ISO_IN_TEXT
from concierge.language.detect import Lang
from concierge.language.spoken import listing, yen

MAX_SENTENCES = 3  # an answer the planner wrote for a screen is cut to what a caller can take in

_RESULT_ID = re.compile(r"\s*[\[(]\s*r_[0-9a-z]+(?:\s*[,、]\s*r_[0-9a-z]+)*\s*[\])]", re.IGNORECASE)
_TABLE_LINE = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^[\s|:-]*-[\s|:-]*$")  # |---|:--:|
# a sentence with nothing in it but the frame of a list that a table fills: です。 / 弁当はです。 / Bento: .
_EMPTY_LEAD = re.compile(r"^(?:(?P<topic>.+?)\s*(?:は|:|：)\s*)?(?:です)?\s*[。.]?$")
_BULLET = re.compile(r"^\s*(?:[-*・•]|\d+[.)])\s+")
_MARKUP = re.compile(r"[*_`#]+")
# 18:30, not 18:30:15, not a time already said with am / pm
_TIME = re.compile(r"(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?!\d|:\d|\s*[apAP]\.?[mM]\b)")
_DAY = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})(?![\d/])(?:\((?P<w>[月火水木金土日])\))?")  # 5/6(火)
_YEN = re.compile(r"[¥￥]\s?(\d{1,3}(?:,\d{3})+(?!\d)|\d+)")  # ¥1,380 and ¥150, — not the comma after it
_RANGE = re.compile(r"(?<=\S)\s*[〜~～]\s*(?=\S)")
# A sentence ends at 。！？ (and !? .) — a period only before a space or the end, so 2.5 and 1,380.5 stay whole.
_END = re.compile(r"[。！？!?]+[」』)）]*|\.(?=\s|$)|\n+")


def spoken(text: str, lang: Lang) -> str:
    """One piece of an answer made speakable (a sentence or a few)."""
    lines = [_BULLET.sub("", line).strip() for line in _tables_said(text.splitlines(), lang)]
    text = ("、" if lang == "ja" else ", ").join(line for line in lines if line)
    text = _MARKUP.sub("", _RESULT_ID.sub("", text))
    text = ISO_IN_TEXT.sub(lambda m: _date(int(m[2]), int(m[3]), lang), text)
    text = _TIME.sub(lambda m: _time(int(m[1]), int(m[2]), lang), text)
    text = _DAY.sub(lambda m: _date(int(m[1]), int(m[2]), lang) + (f"{m['w']}曜日" if m["w"] else ""), text)
    text = _YEN.sub(lambda m: yen(m[1], lang), text)
    text = _RANGE.sub("から" if lang == "ja" else " to ", text)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def _tables_said(lines: list[str], lang: Lang) -> list[str]:
    """The lines with each table as one sentence naming its items, in the empty frame before it if any."""
    out: list[str] = []
    table: list[str] = []
    for line in [*lines, ""]:
        if _TABLE_LINE.match(line):
            table.append(line)
            continue
        if table:
            _say_table(out, table, lang)
            table = []
        out.append(line)
    return out


def _say_table(out: list[str], table: list[str], lang: Lang) -> None:
    label, names = _items(table)
    if not names:
        return
    items = listing(names, lang)
    lead = next((i for i in range(len(out) - 1, -1, -1) if out[i].strip()), None)
    frame = _EMPTY_LEAD.match(_MARKUP.sub("", out[lead]).strip()) if lead is not None else None
    if lead is not None and frame is not None:
        out[lead] = _sentence(frame["topic"] or "", items, lang)
    else:
        out.append(_sentence(label if lang == "ja" else label.capitalize(), items, lang))


def _items(table: list[str]) -> tuple[str, list[str]]:
    """A table's first column: its header and the items below it."""
    rows = [[_MARKUP.sub("", cell).strip() for cell in line.strip().strip("|").split("|")] for line in table]
    header = rows[0][0] if len(rows) > 1 and _TABLE_RULE.match(table[1]) else ""
    body = [row for line, row in zip(table, rows, strict=True) if not _TABLE_RULE.match(line)]
    return header, [row[0] for row in body[1 if header else 0:] if row[0]]


def _sentence(topic: str, items: str, lang: Lang) -> str:
    if lang == "ja":
        return f"{topic}は{items}です。" if topic else f"{items}です。"
    return f"{topic}: {items}." if topic else f"{items}."


def sentences(text: str) -> list[str]:
    """The sentences of a whole text, each with its closing mark."""
    cut = Sentences()
    return [*cut.feed(text), *cut.flush()]


def say(text: str, lang: Lang, limit: int = MAX_SENTENCES) -> list[str]:
    """A whole answer as the sentences to speak, at most `limit` of them."""
    out = [s for s in (spoken(part, lang) for part in sentences(text)) if s]
    return out[:limit]


class Sentences:
    """Text fed in pieces comes out as whole sentences, each as soon as it ends; a table as one piece,
    with the empty frame that leads into it."""

    def __init__(self) -> None:
        self._held = ""
        self._lead = ""  # an empty frame (「です。」) held: a table may follow to fill it
        self._table: list[str] = []

    def feed(self, piece: str) -> Iterator[str]:
        self._held += piece
        while True:
            found = _END.search(self._held)
            # "2." at the very end may be "2.5" still arriving; wait for the next piece
            if found is None or (found.group() == "." and found.end() == len(self._held)):
                return
            sentence, self._held = self._held[: found.end()].strip(), self._held[found.end():]
            if sentence:
                yield from self._group(sentence)

    def flush(self) -> Iterator[str]:
        rest, self._held = self._held.strip(), ""
        if rest:
            yield from self._group(rest)
        yield from self._release()

    def _group(self, sentence: str) -> Iterator[str]:
        if _TABLE_LINE.match(sentence):
            self._table.append(sentence)
            return
        yield from self._release()
        if _EMPTY_LEAD.match(_MARKUP.sub("", sentence)):
            self._lead = sentence
        else:
            yield sentence

    def _release(self) -> Iterator[str]:
        held = "\n".join(part for part in (self._lead, *self._table) if part)
        self._lead, self._table = "", []
        if held:
            yield held


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
