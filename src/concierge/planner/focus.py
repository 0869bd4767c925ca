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
from functools import cache
from typing import Any

from concierge.catalog.model import CountExtract, ItemsExtract, Param
from concierge.planner import words
from concierge.planner.choose import FILLER, Choice, coverage, keyword_tools, says_only_values, topics, unmet_params
from concierge.planner.lexicon import Lexicon, of_fixed_values, reads_data, takes_code
from concierge.planner.slots import Slots, count
from concierge.planner.text import MASK, fold, mask, normalise

__all__ = ["Command", "adds_another", "again", "amended", "instead_text"]

Command = tuple[str, dict[str, Any]]
_NUMBER_ALONE = re.compile(r"(?P<n>\d{1,4})\s*(?:[^\d\s]{1,2}|pieces?|of them)?", re.IGNORECASE)  # 5, 5個, 5 pieces
_NUMBERS = re.compile(r"\d+")
_NOT_THIS = re.compile(rf"(?<![a-z])(?:{words.said_alternation('clauses', 'not_this')})\s+[¥$]?[\d,]+"
                       rf"(?:\s*(?:{words.said_alternation('clauses', 'figure_units')}))?", re.IGNORECASE)


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
    said = _NOT_THIS.sub(" ", said)
    return _lead().sub("", said).strip() or text


def adds_another(text: str) -> bool:
    """Whether the words ask for one more (あと0017にも, and also 0017), not a change of the one shown."""
    said = fold(normalise(text))
    return bool(words.pattern("lines", "new").search(said) or words.pattern("amend", "also").search(said))


def _recounted(slots: Slots, params: dict[str, Param], args: dict[str, Any]) -> dict[str, Any] | None:
    """The write's values with a count said alone (5個にして, make it 5) in place of the count of the one item its
    goods say (かぼちゃ4個 -> かぼちゃ5個); None when it says more, or the goods are not one item with a count."""
    said = _NUMBER_ALONE.fullmatch(words.value_said(slots.text, words.words("lines", "correcting")).lstrip("、, "))
    goods = [n for n, p in params.items() if isinstance(p.extract, ItemsExtract) and isinstance(args.get(n), str)]
    if said is None or len(goods) != 1 or len(_NUMBERS.findall(args[goods[0]])) != 1:
        return None
    return {**args, goods[0]: _NUMBERS.sub(said["n"], args[goods[0]])}


def _given_instead(slots: Slots) -> bool:
    """Said as a value given in place of another (0017のお客様で, 700円にして, make it 0017, change the date to …)."""
    low = slots.cue_text.strip().rstrip("。.!！ ").lower()
    if words.pattern("amend", "change").search(low):
        return True
    return low.endswith(tuple(words.words("answer", "after"))) \
        or low.startswith(tuple(words.words("lines", "correcting")) + tuple(words.words("answer", "before")))


def again(slots: Slots, lexicon: Lexicon, offered: Collection[str], command: Command | None,
          refused: bool = False) -> Choice | None:
    """The choice a follow-up to `command` makes, or None when the request is not one; `refused`: the guard
    refused the command, and a value said now is asked for in place of the one refused."""
    if command is None or command[0] not in offered:
        return None
    keyword = keyword_tools(slots, lexicon, offered)
    instead = _instead(slots, lexicon, command) if not keyword and refused else None
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


def _instead(slots: Slots, lexicon: Lexicon, command: Command) -> Choice | None:
    """The refused command with the value said now in place of the refused one (22時 refused: じゃあ9時で; 150%
    refused: じゃ100で): its other values hold."""
    name, args = command
    tool = lexicon.tools[name]
    if says_only_values(slots) and coverage(slots, lexicon, name)[0]:
        return Choice((name,), follow_up=True, again=(name, dict(args)))
    counts = [p for p in args if p in tool.params and isinstance(tool.params[p].extract, CountExtract)]
    if len(counts) != 1:
        return None
    number = _bare_number(slots) or count(slots, lexicon, name, counts[0])  # じゃ100で, じゃあマックスで
    if number is None:
        return None
    return Choice((name,), follow_up=True, again=(name, {**args, counts[0]: number}))


def _bare_number(slots: Slots) -> int | None:
    """The number a request says and nothing else (じゃ100で, 2で): a value in place of one refused."""
    rest = FILLER.sub("", slots.read_text)
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
    if FILLER.sub("", mask(slots.cue_text, named)).strip(MASK) or _says_data(slots, lexicon):
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


@cache
def _lead() -> re.Pattern[str]:
    """はい、でも / yes, but: said before an amended request, no part of it (questions.toml [joining])."""
    return re.compile(rf"^\s*(?:(?:{words.said_alternation('joining', 'lead_assent')})[、,\s]*)?"
                      rf"(?:{words.said_alternation('joining', 'lead_but')})[、,\s]*", re.IGNORECASE)
