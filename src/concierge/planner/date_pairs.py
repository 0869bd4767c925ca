"""Which of a tool's dates a period said fills: the default one (its date parameters with no `extract.words`),
or another whose words the request says (orders shipped last month: the shipped date, not the order date).
Never both; where two dates' words are said, the one said nearest the period."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from datetime import date
from functools import lru_cache
from typing import Any

from concierge.catalog.model import DateExtract, EnumExtract, Tool
from concierge.language.dates import find_dates
from concierge.language.patterns import Pattern
from concierge.language.tokens import Utterance, tokenise
from concierge.planner import words
from concierge.planner.slots import Slots
from concierge.planner.text import fold, mask


def chosen(tool: Tool, slots: Slots, carried: Mapping[str, Any] | None = None) -> dict[tuple[str, str], str]:
    """The date parameters a period said fills, by (part, period): {} where none may take it. A follow-up that
    says no date's words keeps the date of the call it follows (units shipped last month, and the month before?:
    the ship date again)."""
    pairs: dict[tuple[str, ...], dict[tuple[str, str], str]] = {}
    for name, p in tool.params.items():
        if isinstance(p.extract, DateExtract):
            pairs.setdefault(tuple(p.extract.words), {})[(p.extract.part, p.extract.period)] = name
    where = slots.dates[0].start_index if slots.dates else 0
    said = [(distance, words) for words in pairs if words
            for distance in [_nearest(words, slots.cue_text or fold(slots.text), where)] if distance is not None]
    if said:
        return pairs[min(said)[1]]
    kept = next((pair for words, pair in pairs.items() if words and set(pair.values()) & set(carried or {})), None)
    return kept or pairs.get((), {})


def words_of(tool: Tool, params: dict[tuple[str, str], str]) -> list[str]:
    """The words the chosen date parameters are said with (none for the default date)."""
    x = _extract_of(tool, params)
    return x.words if x else []


def events_of(tool: Tool, params: dict[tuple[str, str], str]) -> list[str]:
    """The words of the event the chosen date parameters record: their `words`, or the default date's `event`."""
    x = _extract_of(tool, params)
    return (x.words or x.event) if x else []


def _extract_of(tool: Tool, params: dict[tuple[str, str], str]) -> DateExtract | None:
    return next((x for name in params.values() if isinstance(x := tool.params[name].extract, DateExtract)), None)


def implied(tool: Tool, slots: Slots, values: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """The values said without the conditions the chosen date's own event sets: a yes/no condition of another
    date's words, where a period is said (shipped last month: the period of the shipped date says so already), and
    a value said as that event done (今月受付した修理: the repairs received this month, whatever became of them
    since; 一番たくさん受付したスタッフ: the staff who received the most, never those whose role is 受付; 受付の修理
    alone is still the status)."""
    if not any(isinstance(tool.params[p].extract, EnumExtract) for p in values):
        return values  # nothing an event could imply: no date is read for it
    params = chosen(tool, slots)
    said = {fold(w) for w in words_of(tool, params)} if slots.dates else set()  # shipped alone: the condition
    events = {fold(w) for w in events_of(tool, params)}
    out = {}
    for pname, vals in values.items():
        x = tool.params[pname].extract
        if isinstance(x, EnumExtract) and said:
            by = [fold(phrase) for phrase, value in x.synonyms.items() if value in vals]
            if any(phrase.startswith(w) for phrase in by for w in said):  # shipped, 出荷された; not 未出荷
                continue
        if isinstance(x, EnumExtract) and events and vals and all(
                isinstance(v, str) and fold(v) in events and _said_done(slots, v) for v in vals):
            continue
        out[pname] = vals
    return out


def _said_done(slots: Slots, value: str) -> bool:
    """Whether a value read from the request is said as something done (受付した, 完了された, 完了済みの)."""
    said = tokenise(slots.text)
    for hit in slots.enums:
        after = said.starting(hit.end, len(slots.text) + 1)
        if any(v == value for _, v in hit.value) and after and any(p.at(said, after.start) for p in _DONE):
            return True
    return False


_DONE = words.token_patterns("conditions", "done")


def _nearest(words: tuple[str, ...], text: str, where: int) -> int | None:
    """How far from `where` one of the words is said in the folded `text`; None where none is."""
    said = tokenise(text)
    found = [abs(start - where) for w in words for start in _said_at(said, fold(w))]
    return min(found) if found else None


def _said_at(said: Utterance, word: str) -> Iterator[int]:
    """Where a date's word is said: English words as whole tokens, a Japanese word from the start of a token on
    (出荷 of 出荷日, 未出荷)."""
    if word.isascii():
        yield from (m.start for m in _phrase(word).finditer(said))
    else:
        yield from (t.start for t in said.tokens if said.text.startswith(word, t.start))


@lru_cache(maxsize=256)
def _phrase(word: str) -> Pattern:
    return Pattern.parse([{"form": w} for w in word.split()])


def days_to_come(tool: Tool, text: str, dated: list[str]) -> bool:
    """Whether a day named alone (土曜, 24日) is the coming one: a day bounded from today (a pickup), or the one day
    a read takes with no bounds, asked of but not in the past (日曜って何時からやってます？, 火曜日はお休みでしたっけ;
    not 日曜は何時まで開いてた？)."""
    params = [tool.params[n] for n in dated]
    if any(p.bounds is not None and p.bounds.min == "today" for p in params):
        return True
    one_day = all(p.bounds is None and isinstance(p.extract, DateExtract) and p.extract.part == "day" for p in params)
    return tool.mode == "read" and bool(params) and one_day and not _said_of_the_past(text)


def with_days_to_come(tool: Tool, slots: Slots, today: date) -> Slots:
    """The request read with the days it names alone as the coming ones, where the tool's are (じゃあ水曜で, after
    a pickup on a Tuesday was refused); as it was read otherwise."""
    dated = [n for n, p in tool.params.items() if isinstance(p.extract, DateExtract)]
    if not days_to_come(tool, slots.text, dated):
        return slots
    dates = find_dates(slots.text, today, slots.focus, ahead=True)
    read = mask(slots.read_text, [(d.start_index, d.end_index) for d in dates])
    return replace(slots, dates=dates, read_text=read)


def _said_of_the_past(text: str) -> bool:
    """Whether a request speaks in the past tense (開いてた, did you open), but for a fact recalled (でしたっけ)."""
    tokens = tokenise(text).tokens
    return any(t.lemma.lower() in _PAST and (i + 1 == len(tokens) or tokens[i + 1].surface not in _RECALLED)
               for i, t in enumerate(tokens))


_PAST = frozenset(words.said("days", "past"))
_RECALLED = frozenset(words.said("days", "recalled"))
