"""Settings said to devices in one breath, each with the device said right before it.

「リビングを赤で寝室を青にして」 sets the living room's light red and the bedroom's blue, never both lights both
colours; 「キッチンは50でリビングは20にしといて」 gives each its level; 「寝室の電気半分でつけといて」 switches the
light on and sets it at half, and "turn on the bedroom light and make it purple" does both. Devices said with
nothing between them share what follows (リビングとキッチン30にして). A number said alone as what a device is set
to (30にして, 50で) is the one count its writes take as their setting: a light's level, read from the catalog.

The writes are those that take a device (a value read from the data) and one setting besides: a value of fixed
ones (on, off), a code (a colour) or a count (a level). A request is read so only where it names devices of one
kind and the settings said are the only values it says; and only where the reading is more than one write's with
its values: devices given settings apart, several settings, or a number set alone. Else `calls` is None, and the
request is planned as any other.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from concierge.catalog.model import CodeExtract, CountExtract
from concierge.language.tokens import Token, Utterance, tokenise
from concierge.planner import levels, words
from concierge.planner.lexicon import TOPIC, Lexicon, of_fixed_values, reads_data, takes_code
from concierge.planner.slots import Slots, count

__all__ = ["calls", "listed_unknown", "negative"]

Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class _Setter:
    tool: str
    device: str  # the parameter naming the device
    setting: str  # the one other value it takes


def calls(slots: Slots, lexicon: Lexicon, offered: Collection[str], read: Callable[[str], Slots]) -> list[Call] | None:
    """The writes a request makes of devices and their settings, each setting with the devices said before it;
    None when the request is not only that, or one write with its values reads it whole."""
    if _says_more(slots) or _asks(slots):
        return None
    hits = sorted((h for h in slots.enums if _data_keys(h.value, lexicon)), key=lambda h: h.start)
    kinds = {k for h in hits for k in _data_keys(h.value, lexicon)}
    if not hits or len(kinds) != 1:
        return None
    (kind,) = kinds
    setters = _setters(lexicon, offered, kind)
    if not setters:
        return None
    said: list[tuple[list[str], dict[_Setter, dict[str, Any]]]] = []
    waiting: list[str] = []
    alone = False
    for i, hit in enumerate(hits):
        end = hits[i + 1].start if i + 1 < len(hits) else len(slots.text)
        settings = _settings(read(slots.text[hit.start if i else 0 : end]), lexicon, setters)
        if settings is None:
            return None
        waiting += [v for k, v in sorted(hit.value) if k == kind and v not in waiting]
        if settings[0]:
            said.append((waiting, settings[0]))
            waiting, alone = [], alone or settings[1]
    if not said:
        return None
    said[-1][0].extend(waiting)  # 赤にして、寝室も: the devices said last take the settings before them
    if len(said) == 1 and len(said[0][0]) == 1 and len(said[0][1]) == 1 and not alone:
        return None  # one write of one device: planned as any other
    return [(s.tool, {s.device: device, **values})
            for devices, settings in said for device in devices for s, values in settings.items()]


def _data_keys(value: frozenset[tuple[str, str]], lexicon: Lexicon) -> set[str]:
    return {k for k, _ in value if k not in lexicon.static_values}


def _says_more(slots: Slots) -> bool:
    """Values no setting is (a day, a sum, goods), words naming several devices or none, a device left alone, or
    one said as the one copied (リビングと同じ明るさに)."""
    return bool(slots.dates or slots.amounts or slots.items or slots.times or slots.unsure or slots.unknown
                or slots.kept or slots.every_but or slots.twofold or slots.names or slots.referred) \
        or any(words.pattern("same", key).search(slots.folded) for key in ("after_source", "before_source"))


def _asks(slots: Slots) -> bool:
    """A question (リビング今何%?, 明るさは？): what a setting is, never a setting made."""
    return slots.text.rstrip().endswith(("?", "？")) or bool(words.pattern("lines", "how_much").search(slots.cue_text))


def negative(slots: Slots) -> str | None:
    """The verb of settings said in the negative (青に|しない|で): none is made, and what to do is asked again."""
    tokens, negation = tokenise(slots.text).tokens, frozenset(words.said("negation", "in_word"))
    return next((slots.text[a.start:b.end] for a, b in zip(tokens, tokens[1:], strict=False)
                 if a.is_verb and b.is_auxiliary and (b.lemma in negation or b.surface in negation)), None)


def _setters(lexicon: Lexicon, offered: Collection[str], kind: str) -> list[_Setter]:
    """The writes offered that take a device of this kind and one setting besides, required both, and run at once
    as commands do (a record kept for a yes, such as a receipt corrected, is no device's setting)."""
    out = []
    for name in (t for t in lexicon.tools if t in offered and lexicon.tools[t].mode == "write"
                 and not lexicon.tools[t].confirm):
        required = [n for n, p in lexicon.tools[name].params.items() if p.required]
        devices = [n for n in required if reads_data(lexicon.tools[name].params[n])
                   and lexicon.enum_of[(name, n)].key == kind]
        if len(required) == 2 and len(devices) == 1:
            out.append(_Setter(name, devices[0], next(n for n in required if n != devices[0])))
    return out


def _settings(sub: Slots, lexicon: Lexicon, setters: list[_Setter]
              ) -> tuple[dict[_Setter, dict[str, Any]], bool] | None:
    """The settings said in one stretch of the request (with the optional counts of each: 2つ of 音量2つ上げて), and
    whether a number alone was one; None when it says what none reads here (a level moved, もう少し暗く)."""
    out: dict[_Setter, Any] = {}
    for s in setters:
        value = _setting(sub, lexicon, s)
        if value is _MOVED:
            return None
        if value is not None:
            out[s] = value
    counted = [s for s in setters if isinstance(lexicon.tools[s.tool].params[s.setting].extract, CountExtract)]
    number = _number_set(sub.text) if len(counted) == 1 and counted[0] not in out else None
    if number is not None:
        out[counted[0]] = number
    return {s: {s.setting: v, **_optional(sub, lexicon, s)} for s, v in out.items()}, number is not None


_MOVED = object()


def _setting(sub: Slots, lexicon: Lexicon, s: _Setter) -> Any:
    """The one value of a setter's setting said, None if none; _MOVED where a level is moved or both of fixed
    values are said (on and off), which is no setting to make here."""
    param = lexicon.tools[s.tool].params[s.setting]
    if of_fixed_values(param):
        values = sub.enum_values(lexicon.enum_of[(s.tool, s.setting)].key)
        return _MOVED if len(values) > 1 else values[0] if values else None
    if isinstance(param.extract, CodeExtract):
        return next((c.value for c in sub.codes if takes_code(param, c.value, c.pattern)), None)
    if isinstance(param.extract, CountExtract):
        rel = levels.relative(param)
        return _MOVED if rel is not None and levels.direction(sub.cue_text, rel) else _count(sub, lexicon, s.tool,
                                                                                                 s.setting)
    return None


def _number_set(text: str) -> int | None:
    """The number said alone as what a device is set to (30にして, 50で, to 30); None if none or several."""
    said = tokenise(text)
    found = [said.tokens[i].surface for p in words.token_patterns("settings", "set_to") for m in p.finditer(said)
             for i in range(m.first, m.last) if said.tokens[i].surface.isdigit() and _alone(said.tokens, i)]
    return int(found[0]) if len(set(found)) == 1 else None


def _alone(tokens: Sequence[Token], i: int) -> bool:
    """Whether the number is a word of its own: no part of a code or figure (0 of 300:0:0, 255 of 255:180:100)."""
    glued = [t.surface for t in (tokens[i - 1] if i else None, tokens[i + 1] if i + 1 < len(tokens) else None)
             if t is not None and (t.end == tokens[i].start or t.start == tokens[i].end)]
    return all(w[-1].isalnum() and w[0].isalnum() and not w.isdigit() for w in glued)


def _optional(sub: Slots, lexicon: Lexicon, setter: _Setter) -> dict[str, Any]:
    """The optional counts a setter's tool takes that are said (the steps of a volume turned up)."""
    params = lexicon.tools[setter.tool].params
    said = {n: _count(sub, lexicon, setter.tool, n) for n, p in params.items()
            if not p.required and isinstance(p.extract, CountExtract)}
    return {n: v for n, v in said.items() if v is not None}


def _count(sub: Slots, lexicon: Lexicon, tool: str, pname: str) -> int | None:
    """A count said with its cue, unit or word (明るさ70%, 半分), never one of a value named (the bedroom one on)."""
    return count(replace(sub, enums=[]), lexicon, tool, pname)


def listed_unknown(slots: Slots, lexicon: Lexicon) -> str | None:
    """A word that names no value, said in a list with a value of the data that is said (エアコン of
    「エアコンとテレビ消して」 where there is no air conditioner): the call is made of the one said, and the other
    is said to be none there is; None where no such word is said."""
    said = tokenise(slots.text)
    joiners = frozenset(words.said("joiners", "words"))
    named = {(h.start, h.end) for h in slots.enums if _data_keys(h.value, lexicon)} | {
        (h.start, h.end) for h in lexicon.cues.find(slots.cue_text) if h.phrase in _topics(lexicon)}  # テレビ(消して)
    for word, (start, end) in slots.unknown:
        after = said.tokens[i] if (i := _token_at(said, end)) is not None else None
        before = said.ending_at(start)
        before = said.ending_at(before.start) if before is not None and before.is_prefix else before  # と|お|風呂
        joined = [t for t in (after, before) if t is not None and t.surface.lower() in joiners]
        if any(not slots.text[t.end:s].strip() or not slots.text[e:t.start].strip() for t in joined for s, e in named):
            return word
    return None


def _token_at(said: Utterance, offset: int) -> int | None:
    return next(iter(said.starting(offset, offset + 1)), None)


@lru_cache(maxsize=8)
def _topics(lexicon: Lexicon) -> frozenset[str]:
    """The phrases that name a kind of device: the tools' topics, and the keywords that hold one (テレビ消して)."""
    said = {p for p, v in lexicon.cues.values.items() if any(k == TOPIC for _, k in v)}
    return frozenset(p for p in lexicon.cues.values if any(t in p for t in said))
