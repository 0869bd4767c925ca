"""The command in focus: what a short follow-up to a command means (a light switched, a channel set).

- A request that only names another value the command takes repeats it with that value: 「キッチンも」 after
  the living-room light was switched off switches the kitchen light off; 「あとりびんぐも」 likewise. The
  command's required values (off) hold; what it was optionally given (a quantity, 大盛り) does not.
- A value said alone after the guard refused a command asks for the command with that value in place of the
  refused one (22時 refused: じゃあ9時で; brightness 150 refused: じゃ100で).
- Values said after a write was shown for a yes, and before the yes, change that write: 「700円にして」,
  「0017のお客様で」, "make it 5 pumpkins" after 「かぼちゃ4個を600円で売った」 show it again with those values in place
  of its own, its other values kept (`amended`). A question of another tool is not a change (0017の販売は？).
- A verb with no device goes to the device of the last command when the verb's own tools need one the request
  does not say, and a tool of that device takes the verb: 「消して」 after the TV was switched on, or its volume
  turned down, switches the TV off. A request that names another kind of device by a topic (電気) is not
  about the one in focus.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import replace
from datetime import date
from typing import Any

from concierge.catalog.model import CountExtract, ItemsExtract, Param
from concierge.language.tokens import Token, Utterance, tokenise
from concierge.planner import date_pairs, words
from concierge.planner.choose import (
    Choice,
    beyond_filler,
    coverage,
    keyword_tools,
    says_only_values,
    topics,
    unmet_params,
)
from concierge.planner.lexicon import Lexicon, of_fixed_values, reads_data, takes_code
from concierge.planner.slots import Slots, count
from concierge.planner.text import fold, mask, normalise

__all__ = ["Command", "adds_another", "again", "amended", "instead_text"]

Command = tuple[str, dict[str, Any]]
_NUMBERS = re.compile(r"\d+")  # the digits of a command's own value (かぼちゃ4個), not of the request
_ALONE_DIGITS = 4  # the most digits of a count said alone
_ALONE_UNIT_CHARS = 2  # the most characters of a unit said after it (個, つ)


def amended(slots: Slots, lexicon: Lexicon, offered: Collection[str], previewed: Command | None) -> Choice | None:
    """The write shown for a yes, to be shown again with the values said now in place of its own; None when the
    request says none of its values, or asks another tool something."""
    if previewed is None or previewed[0] not in offered:
        return None
    name, args = previewed
    if not any(coverage(slots, lexicon, name)):
        recounted = _recounted(slots, lexicon.tools[name].params, args)  # 5個にして: of the one item it has
        return Choice((name,), follow_up=True, again=(name, recounted)) if recounted else None
    if slots.text.rstrip().endswith(("?", "？")):  # 0017の販売は？ asks about sales
        return None
    catalog = lexicon.tools[name].catalog  # a topic of another business (the POS's date) asks nothing of this card
    others = [t for t in [*keyword_tools(slots, lexicon, offered),
                          *(t for t in topics(lexicon, slots.cue_text) if lexicon.tools[t].catalog == catalog)]
              if t != name and t in offered]
    if others and not (_given_instead(slots) and all(lexicon.tools[t].mode == "read" for t in others)):
        return None
    return Choice((name,), follow_up=True, again=(name, dict(args)))


def instead_text(text: str) -> str:
    """The words that give a value in place of another: after the last 「じゃなくて」 (600円じゃなくて700円で ->
    700円で), without an English "not 600" / "instead of 600", and without a yes or a "but" said first
    (はい、でも5個に -> 5個に, yes but make it 5 -> make it 5)."""
    said = text
    for word in words.words("lines", "not_after"):
        if word in said:
            said = said[said.rindex(word) + len(word):]
    utterance = tokenise(text)
    start = len(text) - len(said)
    figures = _figures_not_meant(utterance, start)
    begin = _lead_end(utterance, start, figures)
    return _without(text, begin, figures).strip() or text


def _said_at(said: Utterance, offset: int, section: str, key: str) -> int | None:
    """Where the longest word of a list of questions.toml said at `offset` ends, spelled by whole tokens there (でも
    as で|も after 、, instead of), lower case as any; None where none is."""
    if not said.starts_at(offset):
        return None
    low = said.text.lower()
    for word in sorted(words.said(section, key), key=len, reverse=True):
        end = offset + len(word)
        if low.startswith(word.lower(), offset) and said.ends_at(end) and end > offset:
            return end
    return None


def _figures_not_meant(said: Utterance, start: int) -> list[tuple[int, int]]:
    """The figures said not to be meant after `start` (not 600 yen, instead of ¥600): a word of `[clauses]
    not_this`, spaces, a figure and perhaps its unit."""
    out = []
    for i in said.starting(start, len(said.text)):
        end = _said_at(said, said.tokens[i].start, "clauses", "not_this")
        after = _after_spaces(said, end) if end is not None else None
        figure = _figure(said, after) if after is not None and said.tokens[after].start != end else None
        if figure is not None:
            out.append((said.tokens[i].start, figure))
    return out


def _after_spaces(said: Utterance, offset: int) -> int | None:
    """The first token's index after `offset` with only spaces between, if one is."""
    at = said.starting(offset, len(said.text) + 1)
    return at.start if at and not said.text[offset:said.tokens[at.start].start].strip() else None


def _figure(said: Utterance, i: int) -> int | None:
    """Where a figure said from token `i` ends ($600, 1,500, 600 yen, 600円), if one is said there."""
    tokens = said.tokens
    if tokens[i].surface in words.said("recount", "currency") and i + 1 < len(tokens) \
            and tokens[i + 1].start == tokens[i].end:
        i += 1
    if not tokens[i].surface[:1].isdigit():
        return None
    while i + 1 < len(tokens) and tokens[i + 1].start == tokens[i].end and _of_figure(tokens[i + 1]):
        i += 1
    unit = _after_spaces(said, tokens[i].end) if i + 1 < len(tokens) else None
    end = _said_at(said, tokens[unit].start, "clauses", "figure_units") if unit is not None else None
    return end if end is not None else tokens[i].end


def _of_figure(token: Token) -> bool:
    return token.surface.replace(",", "").isdigit() or token.surface == ","


def _lead_end(said: Utterance, start: int, figures: list[tuple[int, int]]) -> int:
    """Where the words said first that are no part of an amended request end (はい、でも, yes but, then): a word of
    `[joining] lead_assent` perhaps, then one of `lead_but`, marks after each; `start` where none is said."""
    at = _past(said, start, figures, marks=False)
    assent = _said_at(said, at, "joining", "lead_assent")
    for first in ([] if assent is None else [_past(said, assent, figures, marks=True)]) + [at]:
        but = _said_at(said, first, "joining", "lead_but")
        if but is not None:
            return _past(said, but, figures, marks=True)
    return start


def _past(said: Utterance, offset: int, figures: list[tuple[int, int]], marks: bool) -> int:
    """The offset of the first token from `offset` on that is no figure not meant (nor a mark of `[recount]
    marks`, where `marks`)."""
    for i in said.starting(offset, len(said.text)):
        token = said.tokens[i]
        if not (any(a <= token.start < b for a, b in figures)
                or (marks and token.surface in words.said("recount", "marks"))):
            return token.start
    return len(said.text)


def _without(text: str, begin: int, figures: list[tuple[int, int]]) -> str:
    """The text from `begin`, a space in place of each figure not meant."""
    out, at = [], begin
    for start, end in figures:
        if start >= at:
            out += [text[at:start], " "]
            at = end
    return "".join([*out, text[at:]])


def adds_another(text: str) -> bool:
    """Whether the words ask for one more (あと0017にも, and also 0017), not a change of the one shown."""
    said = fold(normalise(text))
    return bool(words.pattern("lines", "new").search(said) or words.pattern("amend", "also").search(said))


def _recounted(slots: Slots, params: dict[str, Param], args: dict[str, Any]) -> dict[str, Any] | None:
    """The write's values with a count said alone (5個にして, make it 5) in place of the count of the one item its
    goods say (かぼちゃ4個 -> かぼちゃ5個); None when it says more, or the goods are not one item with a count."""
    said = _count_alone(slots.text, words.value_said(slots.text, words.words("lines", "correcting")).lstrip("、, "))
    goods = [n for n, p in params.items() if isinstance(p.extract, ItemsExtract) and isinstance(args.get(n), str)]
    if said is None or len(goods) != 1 or len(_NUMBERS.findall(args[goods[0]])) != 1:
        return None
    return {**args, goods[0]: _NUMBERS.sub(said, args[goods[0]])}


def _count_alone(text: str, value: str) -> str | None:
    """The digits of a count said alone, where `value` (a part of `text`) is one: 5, 5個, 5 pieces, 5 of them."""
    start = text.find(value) if value else -1
    said = tokenise(text)
    at = said.starting(start, start + len(value)) if start >= 0 else range(0)
    if not at or said.tokens[at.stop - 1].end != start + len(value):
        return None
    number, rest = said.tokens[at.start], said.tokens[at.start + 1:at.stop]
    if not (number.surface.isdigit() and len(number.surface) <= _ALONE_DIGITS):
        return None
    return number.surface if not rest or _a_unit(said, rest) else None


def _a_unit(said: Utterance, rest: tuple[Token, ...]) -> bool:
    """Whether the tokens after a count alone are its unit: a word of `[recount] units` (pieces, of them), or
    one or two characters glued, no digit (個, つ)."""
    end = _said_at(said, rest[0].start, "recount", "units")
    if end == rest[-1].end:
        return True
    glued = all(a.end == b.start for a, b in zip(rest, rest[1:], strict=False))
    return glued and rest[-1].end - rest[0].start <= _ALONE_UNIT_CHARS and not any(
        c.isdigit() for t in rest for c in t.surface)


def _given_instead(slots: Slots) -> bool:
    """Said as a value given in place of another (0017のお客様で, 700円にして, make it 0017, change the date to …)."""
    low = slots.cue_text.strip().rstrip("。.!！ ").lower()
    if words.pattern("amend", "change").search(low):
        return True
    return low.endswith(tuple(words.words("answer", "after"))) \
        or any(words.pattern(*key).match(low) for key in (("lines", "correcting"), ("answer", "before")))


def again(slots: Slots, lexicon: Lexicon, offered: Collection[str], command: Command | None,
          refused: date | None = None) -> Choice | None:
    """The choice a follow-up to `command` makes, or None when the request is not one; `refused`: the guard
    refused the command, and a value said now is asked for in place of the one refused (its tool's today)."""
    if command is None or command[0] not in offered:
        return None
    keyword = keyword_tools(slots, lexicon, offered)
    instead = _instead(slots, lexicon, command, refused) if not keyword and refused else None
    if instead is not None:
        return instead
    if not keyword:  # キッチンも; もうけしといて after the TV's channel was set: its command's own value (off)
        counted = not _says_data(slots, lexicon) and any(_counted(slots, lexicon, t) for t in offered
                                                           if t in lexicon.tools)  # 8chにして after the TV's volume
        return _same_command(slots, lexicon, command) or (
            _same_device(slots, lexicon, offered, command) if _says_a_command(slots, lexicon) or counted else None) \
            or _other_kind(slots, lexicon, offered, command)
    if all(unmet_params(slots, lexicon, t) for t in keyword) and not _names_another(slots, lexicon, keyword, command):
        return _same_device(slots, lexicon, offered, command)
    return None


def _names_another(slots: Slots, lexicon: Lexicon, keyword: list[str], command: Command) -> bool:
    """Whether a keyword says the kind of device its tool acts on (テレビ of テレビつけて) and that is not the kind
    the command in focus acted on: テレビつけて after a light is about the TV; 消して after the TV is not."""
    name, args = command
    groups = {g for k in args if (g := _group(lexicon, name, k))}
    for hit in lexicon.cues.find(slots.cue_text):
        for tool in (t for t, _ in hit.value if t in keyword):
            intents = lexicon.tools[tool].intents
            said = intents is not None and any(fold(w) in hit.phrase for w in intents.topics)
            if said and not any(_group(lexicon, tool, k) in groups for k in lexicon.tools[tool].params):
                return True
    return False


def _same_command(slots: Slots, lexicon: Lexicon, command: Command) -> Choice | None:
    name, args = command
    if not says_only_values(slots) or not coverage(slots, lexicon, name)[0]:
        return None
    tool = lexicon.tools[name]
    if any(not any(takes_code(p, c.value, c.pattern) for p in tool.params.values()) for c in slots.codes):
        return None  # and the kitchen one pink, after a light switched on: a colour, no second switch
    kept = {k: v for k, v in args.items() if k in tool.params and tool.params[k].required}
    return Choice((name,), follow_up=True, again=(name, kept))


def _instead(slots: Slots, lexicon: Lexicon, command: Command, today: date) -> Choice | None:
    """The refused command with the values said now in place of the refused ones (22時 refused: じゃあ9時で; 150%
    refused: じゃ100で; a Tuesday refused: じゃあ水曜の同じ時間で): its other values hold, the same ones said or not;
    or with no option where the plain one is said (大盛り refused: じゃあ普通ので)."""
    name, args = command
    tool = lexicon.tools[name]
    said = _the_same_kept(date_pairs.with_days_to_come(tool, slots, today))
    if says_only_values(said) and any(coverage(said, lexicon, name)):
        return Choice((name,), follow_up=True, again=(name, dict(args)))
    if not beyond_filler(words.pattern("lines", "plain").sub(" ", slots.read_text)).strip():  # じゃあ普通ので
        plain = {p: v for p, v in args.items() if p not in tool.params or tool.params[p].required
                 or tool.params[p].enum is None}
        return Choice((name,), follow_up=True, again=(name, plain)) if plain != args else None
    counts = [p for p in args if p in tool.params and isinstance(tool.params[p].extract, CountExtract)]
    if len(counts) != 1:
        return None
    number = _bare_number(slots) or count(slots, lexicon, name, counts[0])  # じゃ100で, じゃあマックスで
    if number is None:
        return None
    return Choice((name,), follow_up=True, again=(name, {**args, counts[0]: number}))


def _the_same_kept(slots: Slots) -> Slots:
    """The request without the words that keep a value as it was (同じ時間, the same time): a command asked for
    again holds its values."""
    said = tokenise(slots.text)
    same = [(t.start, said.tokens[i + 1].end) for i, t in enumerate(said.tokens[:-1])
            if fold(t.surface) in _SAME and (said.tokens[i + 1].is_noun or said.tokens[i + 1].surface.isalpha())
            and not said.tokens[i + 1].is_numeral]
    return replace(slots, read_text=mask(slots.read_text, same)) if same else slots


_SAME = frozenset(words.words("same_alone", "words"))


def _bare_number(slots: Slots) -> int | None:
    """The number a request says and nothing else (じゃ100で, 2で): a value in place of one refused."""
    rest = beyond_filler(slots.read_text)
    return int(rest) if rest.isdigit() and len(rest) <= 6 else None


def _same_device(slots: Slots, lexicon: Lexicon, offered: Collection[str], command: Command) -> Choice | None:
    name, args = command
    devices = {g: v for k, v in args.items() if (g := _group(lexicon, name, k))}
    takers = [t for t in lexicon.tools if t in offered
              and lexicon.tools[t].catalog == lexicon.tools[name].catalog
              and any(_group(lexicon, t, k) in devices for k in lexicon.tools[t].params)]
    said_topics = set(topics(lexicon, slots.cue_text))
    if said_topics and not said_topics & set(takers):
        return None  # 電気もつけて after the TV: the lights' topic is said, not the device in focus
    for other in takers:
        kept = {k: devices[g] for k in lexicon.tools[other].params if (g := _group(lexicon, other, k)) in devices}
        if (_takes_a_command(slots, lexicon, other) or _counted(slots, lexicon, other)) \
                and set(unmet_params(slots, lexicon, other)) <= set(kept):
            return Choice((other,), follow_up=True, again=(other, kept))
    return None


def _other_kind(slots: Slots, lexicon: Lexicon, offered: Collection[str], command: Command) -> Choice | None:
    """The command in focus given to a device of another kind said alone (テレビも, and the tv, after the lights
    were switched on): the one tool of that kind's topic that takes the command's own values (on)."""
    name, args = command
    named = [(h.start, h.end) for h in lexicon.cues.find(slots.cue_text)]
    if beyond_filler(mask(slots.cue_text, named)) or _says_data(slots, lexicon):
        return None  # テレビも: the kind of device and nothing else
    fixed = {k: v for k, v in args.items() if k in lexicon.tools[name].params
             and of_fixed_values(lexicon.tools[name].params[k])}
    said = [t for t in dict.fromkeys(topics(lexicon, slots.cue_text)) if t != name and t in offered]
    takers = [t for t in said if lexicon.tools[t].mode == "write" and fixed and all(
        k in lexicon.tools[t].params and of_fixed_values(p := lexicon.tools[t].params[k])
        and p.enum is not None and p.enum.values is not None and v in p.enum.values for k, v in fixed.items())]
    return Choice((takers[0],), follow_up=True, again=(takers[0], fixed)) if len(takers) == 1 else None


def _says_a_command(slots: Slots, lexicon: Lexicon) -> bool:
    """Whether the request says a value of fixed ones that makes a command (off, up), not only values of the data."""
    return any(key in lexicon.static_values for h in slots.enums for key, _ in h.value)


def _takes_a_command(slots: Slots, lexicon: Lexicon, tool: str) -> bool:
    """Whether the tool takes a value of fixed ones the request says (消して: the TV's power)."""
    groups = {lexicon.enum_of[(tool, p)].key for p, param in lexicon.tools[tool].params.items()
              if of_fixed_values(param)}
    return any(key in groups for h in slots.enums for key, _ in h.value)


def _says_data(slots: Slots, lexicon: Lexicon) -> bool:
    """Whether the request names a value of the data (緑茶, the kitchen light)."""
    return any(key not in lexicon.static_values for h in slots.enums for key, _ in h.value)


def _counted(slots: Slots, lexicon: Lexicon, tool: str) -> bool:
    """Whether a write takes a count said with one of its own units (8ch: the TV's channel)."""
    if lexicon.tools[tool].mode != "write":
        return False
    for pname, param in lexicon.tools[tool].params.items():
        units = lexicon.count_units(tool, pname) if isinstance(param.extract, CountExtract) else None
        if units is not None and units.search(slots.read_text):
            return True
    return False


def _group(lexicon: Lexicon, tool: str, pname: str) -> str | None:
    """The value set a parameter reads from the data (the lights, the TVs), or None."""
    param = lexicon.tools[tool].params.get(pname)
    if param is None or not reads_data(param):
        return None
    return lexicon.enum_of[(tool, pname)].key
