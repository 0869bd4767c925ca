"""Edits of the lines a conversation holds (an order's items), read against the lines themselves.

A catalog whose `rules.lines` names the tools that add, change and remove a line of its state (and the one
that places them) lets the planner read what a caller says of the order in progress, from the state's rows as
the turn began (`ModelRequest.state`), never by guessing what earlier calls left:

- a line held, named with an option and no new count (「karaageのほうは大盛りで」, 「ラーメンはふたつとも大盛りで」):
  that line changes; another is not added;
- a line held, named with a count said as its new one (「牛丼 3つで」, "no more than two cokes"), and no word of
  another (もう3つ, あと2つ): that line is set to the count;
- "the other one" (もう一つのほう, もう一方) with one line named or left alone and two held: the other line;
- a line held, named with a word of lessening (「幕の内を一つ減らして」, "one less gyoza"): it is set to what it
  holds less the count said (one when none is), and taken out at zero;
- one line held and one value not held, with a word of putting one in place of another (「コーラをオレンジジュース
  に変えて」, "make the coke an OJ"): the held line is taken out and the other added with its quantity;
- no line named, a count or an option, and a pointing word or a verb of changing (「それ2つに」, "make that three",
  「それも ふたつで」): the line the last command added or changed; 両方 / 全部 / both / all: every line held;
- a yes (はい お願いします) right after the state was read back: the tool that places the lines.

Anything else is left to the general reading: a new item, or a line named with a count of its own (another
large one), is an add.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from concierge.catalog.model import CountExtract, Tool
from concierge.language.japanese import and_particle
from concierge.language.tokens import Utterance, tokenise
from concierge.planner import not_meant, words
from concierge.planner.choose import beyond_filler, keyword_tools
from concierge.planner.lexicon import Lexicon
from concierge.planner.loose import Unsure
from concierge.planner.slots import Slots, count
from concierge.planner.text import MASK, fold, mask
from concierge.planner.writes import count_said, counts_said, not_a_count, said_after

__all__ = ["Ask", "Edit", "Held", "Swap", "adds", "edit", "pointed"]

Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Held:
    """The lines the state held as the turn began, and the tools of `rules.lines` that edit them."""

    state: str  # the read tool whose rows they are
    add: str
    change: str | None
    remove: str | None
    place: str | None
    key: str  # the add tool's required parameter: it names a line
    rows: tuple[dict[str, Any], ...]
    # `EnumSource.key` -> a line's `key` value -> the values of that enum it takes (planner Context.enum_fits)
    fits: Mapping[str, Mapping[str, list[str]]] = field(default_factory=dict, compare=False)

    def names(self) -> list[Any]:
        return list(dict.fromkeys(r.get(self.key) for r in self.rows if r.get(self.key) is not None))

    def quantity(self, name: Any, column: str) -> int | None:
        counts = [c for r in self.rows if r.get(self.key) == name and isinstance(c := r.get(column), int)]
        return sum(counts) if counts else None


@dataclass(frozen=True)
class Swap:
    """The calls of a swap: the new item in, then the old line out, made only once the new item was taken. A new
    item refused (sold out) leaves the order as it was, never with neither."""

    calls: tuple[Call, Call]


@dataclass(frozen=True)
class Ask:
    """A word that names several values where one line is meant (お茶 with both teas held; うどん to swap for):
    which one is asked, with the candidates."""

    tool: str
    param: str
    said: str
    candidates: tuple[str, ...]


Edit = list[Call] | Swap | Ask | None  # the calls of an edit, what to ask first, or no edit of the lines


def edit(slots: Slots, lexicon: Lexicon, offered: Collection[str], held: Held | None,
         last_lines: tuple[Any, ...], last_call: Call | None) -> Edit:
    """The calls that edit the held lines as the request says, what to ask first, or None when the request is
    not such an edit."""
    if held is None or held.add not in offered:
        return None
    if held.place in offered and held.place and last_call is not None and last_call[0] == held.state \
            and _assents(slots):  # the rows are gone once the yes placed them: the turn goes on to its answer
        return [(held.place, {})]
    change = lexicon.tools.get(held.change) if held.change in offered and held.change else None
    if _states(slots):
        return [(held.state, {})]  # can you read that back; 今なにか入ってます？ (nothing yet, said by the state tool)
    if not held.rows or change is None:
        return None
    named = _named(slots, lexicon, held)
    if isinstance(named, Ask):
        return replace(named, tool=change.name)
    return _edit_named(slots, lexicon, offered, held, change, named, last_lines)


def _edit_named(slots: Slots, lexicon: Lexicon, offered: Collection[str], held: Held, change: Tool,
                named: tuple[list[Any], list[Any], list[Unsure]], last_lines: tuple[Any, ...]) -> Edit:
    """The edit of the lines the request names: a swap, lines taken out or kept, else a change of what is held."""
    kept, new, unsure = named
    text = slots.cue_text
    negated = [v for v in kept if v in not_meant.values(slots)]  # 春巻きじゃなくて枝豆を, not the coke an oolong tea
    kept = [v for v in kept if v not in negated]
    if len(negated) == 1 and len(new) == 1 and not kept:
        kept = negated  # not the coke, an oolong tea: the coke swapped
    elif negated and not kept and not new:  # make it large, not the cola: the other line; of several, which
        others = [n for n in held.names() if n not in negated]
        if len(others) == 1:
            return _edit_held(slots, lexicon, offered, held, change, others, last_lines)
        changes = _options(slots, lexicon, change, held.key) or _count(slots, lexicon, change, held.key) is not None
        return Ask(change.name, held.key, "", tuple(str(n) for n in others)) if others and changes else None
    if not kept and len(new) == 1 and (words.pattern("distributive", "part").search(text)
                                       or words.pattern("lines", "change_to").search(text)):
        kept = _in_focus(held, ())[:1] if len(held.names()) == 1 else []  # うち ひとつを 鮭弁当に; のり弁に変えて
    if len(kept) == 1 and (new or unsure) and (negated or _says("instead", text, slots, lexicon, offered, change.name)):
        if unsure:  # ラーメンじゃなくてうどんに: which udon
            return Ask(held.add, held.key, unsure[0].said, unsure[0].candidates)
        some = _count(slots, lexicon, change, held.key)
        return _swap(held, lexicon, change, kept[0], new[0], some) if len(new) == 1 else None
    if kept and held.remove and words.pattern("lines", "keep").search(text):
        return [(held.remove, {held.key: name}) for name in held.names() if name not in kept]  # 餃子だけ残して
    other = _the_other(slots, held, kept) if not new else None
    if other is not None:  # its 1つ names the line, it is no count
        said = _masked(slots, words.pattern("lines", "other_one"))
        return _edit_held(said, lexicon, offered, held, change, [other], last_lines)
    another = words.pattern("lines", "new").search(text) and not words.pattern("lines", "at_most").search(text)
    if (another or _more_counted(slots)) and not (new or unsure or kept) and _every(text) and held.add in offered:
        return _more_of_each(slots, lexicon, held, last_lines)
    if new or unsure or another or words.pattern("lines", "asking").search(text):
        return None  # あと味噌汁: another line (but no more than two: a count); 牛丼って大盛りだといくら: a question
    return _taken_out(slots, lexicon, held, change, kept) or _edit_held(slots, lexicon, offered, held, change, kept,
                                                                       last_lines)


def _taken_out(slots: Slots, lexicon: Lexicon, held: Held, change: Tool, kept: list[Any]) -> list[Call] | None:
    """Lines taken out: those named with a verb of taking out (scratch the coffee; 味噌汁 2つ取り消して: two of
    them)."""
    if not kept or not held.remove or _options(slots, lexicon, change, held.key) \
            or not _removes(slots, slots.cue_text) or words.pattern("lines", "at_most").search(slots.cue_text):
        return None  # no more than two cokes: two of them, never none
    some = _count(slots, lexicon, change, held.key)
    if some is not None and len(kept) > 1:
        return None  # make the beef bowl two and drop the coke: each of its own, read apart
    return _fewer(held, change, kept, some) if some is not None else [(held.remove, {held.key: n}) for n in kept]


def _edit_held(slots: Slots, lexicon: Lexicon, offered: Collection[str], held: Held, change: Tool, kept: list[Any],
               last_lines: tuple[Any, ...]) -> list[Call] | Ask | None:
    text = slots.cue_text
    options = _options(slots, lexicon, change, held.key)
    how_many = _count(slots, lexicon, change, held.key)
    focus = kept or _in_focus(held, last_lines)
    if words.pattern("distributive", "part").search(text) and options and how_many and len(focus) == 1:
        return _part_changed(held, change, focus[0], how_many, options)  # そのうち1つだけ大盛りに
    if words.pattern("lines", "fewer").search(text) and focus:
        if len(focus) > 1 and not kept and not _every(text):  # 一つ減らして after two lines were added: which one
            return Ask(change.name, held.key, "", tuple(str(t) for t in focus))
        return _fewer(held, change, focus, how_many or 1)  # ひとつ減らして
    counted = _count_param(change)
    extra = {counted: how_many} if how_many is not None and counted else {}  # 両方とも2つに
    if kept:
        return _kept_changed(slots, lexicon, offered, change, held, kept, options, extra)
    if not (options or how_many is not None):
        return None
    targets = _targets(slots, lexicon, offered, held, change, last_lines, options if how_many is None else None)
    if isinstance(targets, Ask):
        return targets
    return [(change.name, {held.key: name, **extra, **options}) for name in targets] or None


def _kept_changed(slots: Slots, lexicon: Lexicon, offered: Collection[str], change: Tool, held: Held,
                  kept: list[Any], options: dict[str, Any], extra: dict[str, Any]) -> list[Call] | None:
    """Lines named changed: a count said with a verb of changing or correcting (make the miso soups three, やっぱ
    メロンパン2つで), or an option (karaageのほうは大盛りで); a count of its own with an option is another line."""
    text = slots.cue_text
    each = bool(words.pattern("lines", "each").search(text))
    if extra and not options and (len(kept) == 1 or each) and (
            _says("instead", text, slots, lexicon, offered, change.name)
            or words.pattern("lines", "correcting").search(text)
            or words.pattern("references", "thing").search(text) or _sets_count(slots)):
        return [(change.name, {held.key: name, **extra}) for name in kept]
    if not options or (extra and not _every(text)):
        return None  # 唐揚げ弁当を大盛りで1つ: another, large
    return [(change.name, {held.key: name, **options}) for name in kept]


def _the_other(slots: Slots, held: Held, named: list[Any]) -> Any | None:
    """The one line held that "the other one" means: not named, not left alone (きつねはそのままで もう一つのほう)."""
    if not words.pattern("lines", "other_one").search(slots.cue_text):
        return None
    others = [n for n in held.names() if n not in named and n not in slots.kept]
    return others[0] if len(others) == 1 else None


def _masked(slots: Slots, said: words.WordList) -> Slots:
    """The request with the words `said` masked where its values and keywords are read."""
    def hide(text: str) -> str:
        return mask(text, [m.span() for m in said.finditer(text)])
    return replace(slots, read_text=hide(slots.read_text), cue_text=hide(slots.cue_text))


def _sets_count(slots: Slots) -> bool:
    """A count said as the line's new one (牛丼 3つで, no more than two cokes), with no word of another (もう3つ)."""
    if words.pattern("lines", "at_most").search(slots.cue_text):
        return True
    said, more = tokenise(slots.text), set(words.words("lines", "more_before"))
    found = [m for p in words.token_patterns("lines", "sets_count") for m in p.finditer(said)]
    return bool(found) and not words.pattern("lines", "new").search(slots.cue_text) and not any(
        m.first > 0 and said.tokens[m.first - 1].surface in more for m in found)


def _targets(slots: Slots, lexicon: Lexicon, offered: Collection[str], held: Held, change: Tool,
             last_lines: tuple[Any, ...], only_options: dict[str, Any] | None = None) -> list[Any] | Ask:
    """The lines a change that names none is about: every line (両方とも, all of them), or the one in focus; an
    option said alone (大盛りで, ご飯少なめで) is said of the line in focus, never another line; of the lines in focus,
    the one that takes it (それ Lサイズで after a bowl and a cola: the cola)."""
    text = slots.cue_text
    if _every(text):  # 両方とも大盛りに: every line held
        targets = held.names()
        if words.pattern("lines", "both").search(text) and len(targets) != 2:  # both, of three: which two
            return Ask(change.name, held.key, "", tuple(str(t) for t in targets))
        return targets
    if not (only_options or words.pattern("references", "thing").search(text)
            or words.pattern("lines", "correcting").search(text) or _count_corrected(slots)
            or keyword_tools(slots, lexicon, offered) == [change.name]):  # それ2つに, やっぱ2つで, make it two
        return []
    targets = _in_focus(held, last_lines)
    if _names_another(slots):  # 普通盛りのほうを2つに with only the large line: not the line in focus
        return Ask(change.name, held.key, "", tuple(str(t) for t in held.names()))
    if words.pattern("lines", "last").search(text):
        targets = targets[-1:]  # the last one, make it three
    if len(targets) > 1 and only_options:
        targets = _taking(held, change, targets, only_options) or targets
    if len(targets) > 1:  # やっぱ2つで after クロワッサン3つとメロンパン3つ: which one
        return Ask(change.name, held.key, "", tuple(str(t) for t in targets))
    return targets


def _more_of_each(slots: Slots, lexicon: Lexicon, held: Held, last_lines: tuple[Any, ...]) -> list[Call]:
    """One more of each, もう2つずつ: more of every line in focus, never each set to the count."""
    add = lexicon.tools[held.add]
    counted = _count_param(add)
    more = {counted: _count(slots, lexicon, add, held.key) or 1} if counted else {}
    return [(held.add, {held.key: name, **more}) for name in _in_focus(held, last_lines) or held.names()]


def _more_counted(slots: Slots) -> bool:
    """Whether a count is said right after a word of more (もう2つずつ, あと1つずつ)."""
    said, more = tokenise(slots.text), set(words.words("lines", "more_before"))
    return any(i > 0 and said.tokens[i - 1].surface in more and count_said(said, i) is not None
               for i in range(len(said.tokens)))


def _count_corrected(slots: Slots) -> bool:
    """Whether a count is said in the negative and another with it (3つじゃなくて2つ, not three, two)."""
    said = tokenise(slots.text)
    counts = [i for i in range(len(said.tokens)) if count_said(said, i) is not None]
    return len(counts) > 1 and any(not_a_count(said, i) is not None for i in counts)


def _taking(held: Held, change: Tool, lines: list[Any], options: dict[str, Any]) -> list[Any]:
    """The lines that take every option said (whose enum declares the values each line takes), in order."""
    enums = [(change.params[p].enum, v) for p, v in options.items()]
    fitted = [(held.fits.get(enum.key, {}), v) for enum, v in enums if enum is not None and enum.fits_param == held.key]
    return [line for line in lines if all(v in fits.get(str(line), ()) for fits, v in fitted)] if fitted else []


def _every(text: str) -> bool:
    """Whether the request says every line (両方とも, 全部, all of them, 2つずつ, two of each)."""
    return bool(words.pattern("lines", "each").search(text) or words.pattern("distributive", "before").search(text)
                or words.pattern("distributive", "after").search(text))


def _named(slots: Slots, lexicon: Lexicon, held: Held) -> tuple[list[Any], list[Any], list[Unsure]] | Ask:
    """The values of the lines' key said, held and not; a word naming several of them is the one line held
    among them (お茶 with only 緑茶 ordered), asked among those held, or left unsure when none is held."""
    group = lexicon.enum_of[(held.add, held.key)].key
    said = slots.enum_values(group)
    names = held.names()
    kept, new = [v for v in said if v in names], [v for v in said if v not in names]
    unsure = []
    for word in (u for u in slots.unsure if u.of(group)):
        ordered = [c for c in word.candidates if c in names]
        if len(ordered) == 1:
            kept.append(ordered[0])
        elif ordered:
            return Ask(held.add, held.key, word.said, tuple(ordered))
        else:
            unsure.append(word)
    return kept, new, unsure


def pointed(text: str, held: Held | None, values: tuple[Any, ...]) -> str:
    """The request with the values the answers since the last write showed in place of the words pointing at
    them: "one of each" after two prices asked is "one 海鮮丼 and one 生姜焼き弁当"; "one of those" after one
    item was looked up is that item; 「両方1つずつ」 is 「海鮮丼と生姜焼き弁当1つずつ」. Unchanged otherwise."""
    if held is None or not values:
        return text
    m = words.pattern("lines", "shown").search(fold(text))
    if m is None or (len(values) > 1 and not words.pattern("lines", "every_shown").search(m.group())):
        return text  # one of those, after several: which is not known
    names = [str(v) for v in values]
    if not m.group().isascii():
        return text[: m.start()] + and_particle().join(names) + text[m.end():]
    said = tokenise(text)
    before = said.starting(0, m.start())  # one of each
    if not before or said.tokens[before[-1]].end > m.start() or count_said(said, before[-1]) is None:
        return text
    n = said.tokens[before[-1]]
    return text[: n.start] + " and ".join(f"{n.surface} {name}" for name in names) + text[m.end():]


def adds(slots: Slots, lexicon: Lexicon, offered: Collection[str], held: Held | None,
         last_command: Call | None) -> bool:
    """Whether the request only names values no line holds, with no verb, after a line was changed or removed
    (あと ざるそば after それ2つに): new lines, never the change again with another value."""
    if held is None or not held.rows or last_command is None or last_command[0] not in (held.change, held.remove) \
            or keyword_tools(slots, lexicon, offered):
        return False
    said = slots.enum_values(lexicon.enum_of[(held.add, held.key)].key)
    return bool(said) and not set(said) & set(held.names())


def _swap(held: Held, lexicon: Lexicon, change: Tool, old: Any, new: Any, some: int | None
          ) -> list[Call] | Swap | None:
    """The held line taken out and the new value added with its quantity (its option may not apply); `some` of
    it said (swap one of the cheesecakes): that many fewer, and that many of the new."""
    add = lexicon.tools[held.add]
    counted = _count_param(add)
    quantity = held.quantity(old, counted) if counted else None
    if held.remove is None or quantity is None or counted is None:
        return None
    if some is not None and 0 < some < quantity:
        return [*(_fewer(held, change, [old], some) or []), (held.add, {held.key: new, counted: some})]
    return Swap(((held.add, {held.key: new, counted: quantity}), (held.remove, {held.key: old})))


def _part_changed(held: Held, change: Tool, name: Any, some: int, options: dict[str, Any]) -> list[Call] | None:
    """Some of a line given an option (そのうち1つだけ大盛りに, two beef bowls held): that many fewer as they are,
    and that many added with the option."""
    counted = _count_param(change)
    holds = held.quantity(name, counted) if counted else None
    if counted is None or holds is None or not 0 < some < holds:
        return None
    return [*(_fewer(held, change, [name], some) or []), (held.add, {held.key: name, counted: some, **options})]


def _names_another(slots: Slots) -> bool:
    """Whether the request names a line by words that are no value read (普通盛りのほう): the one meant is not known."""
    ends = {h.end for h in slots.enums}
    return any(m.start() not in ends for m in words.pattern("lines", "the_one").finditer(slots.folded) if m.start() > 0)


def _fewer(held: Held, change: Tool, kept: list[Any], less: int) -> list[Call] | None:
    counted = _count_param(change)
    if counted is None:
        return None
    calls: list[Call] = []
    for name in kept:
        holds = held.quantity(name, counted)
        if holds is None:
            return None
        left = max(holds - less, 0)
        calls.append((held.remove, {held.key: name}) if left == 0 and held.remove
                     else (change.name, {held.key: name, counted: left}))
    return calls


def _in_focus(held: Held, last_lines: tuple[Any, ...]) -> list[Any]:
    """The lines the last turn added or changed that the order still holds, else the only line held."""
    named = [name for name in last_lines if name in held.names()]
    if named:
        return named
    names = held.names()
    return names if len(names) == 1 else []


def _options(slots: Slots, lexicon: Lexicon, change: Tool, key: str) -> dict[str, Any]:
    """The change tool's values of fixed sets said (大盛り), one each; none when one is said twice over, and never
    one said in the negative (大盛りじゃなくて普通で)."""
    out: dict[str, Any] = {}
    negated = not_meant.values(slots)
    for pname, param in change.params.items():
        if pname == key or param.enum is None:
            continue
        said = [v for v in slots.enum_values(lexicon.enum_of[(change.name, pname)].key) if v not in negated]
        if len(said) == 1:
            out[pname] = said[0]
    return out


def _count_param(tool: Tool) -> str | None:
    return next((n for n, p in tool.params.items() if isinstance(p.extract, CountExtract)), None)


def _count(slots: Slots, lexicon: Lexicon, tool: Tool, key: str) -> int | None:
    """The count said (2つに, make that three), else None; never a number inside another value said (8枚切り,
    size 6), nor the count that says which lines are meant (ふたつとも大盛り)."""
    pname = _count_param(tool)
    if pname is None:
        return None
    slots = _without_other_values(slots, lexicon, tool, key)
    said, counts, negated = counts_said(slots)  # みっつじゃなくて ふたつ: the 2
    if any(said_after(said, i, "all_counted") for i, _ in counts):
        return None
    text = mask(slots.read_text, negated.values())
    found = count(replace(slots, read_text=text), lexicon, tool.name, pname)
    if found is not None:
        return found
    counts = [(i, n) for i, n in counts if i not in negated]
    bare = next((n for i, n in counts if _alone_at_end(said, i)), None)
    meant = [n for i, n in counts if not (n == 1 and _points_before(said, i))]  # that one: which, not how many
    return bare if bare is not None else meant[0] if len(meant) == 1 else None  # make it two actually


def _alone_at_end(said: Utterance, i: int) -> bool:
    """Whether count `i` ends the request, a particle and stops aside (make it two., 2で)."""
    if i + 1 == len(said.tokens):
        return True
    after = said_after(said, i, "bare_after")
    return after is not None and after.last == len(said.tokens)


def _points_before(said: Utterance, i: int) -> bool:
    """that, which: said right before "one", it points at a line (that one), it does not count."""
    before = said.tokens[i - 1] if i > 0 else None
    return before is not None and before.end < said.tokens[i].start \
        and before.surface.lower() in words.said("lines", "pointing")


def _without_other_values(slots: Slots, lexicon: Lexicon, tool: Tool, key: str) -> Slots:
    """The request with the values of the tool's other sets masked (8枚切り, 6号): a number in them is no count."""
    groups = {lexicon.enum_of[(tool.name, p)].key for p, param in tool.params.items() if param.enum and p != key}
    others = [h for h in slots.enums if any(g in groups for g, _ in h.value)]
    if not others:
        return slots
    return replace(slots, read_text=mask(slots.read_text, [(h.start, h.end) for h in others]),
                   enums=[h for h in slots.enums if h not in others])


def _says(key: str, text: str, slots: Slots, lexicon: Lexicon, offered: Collection[str], change: str | None) -> bool:
    return bool(words.pattern("lines", key).search(text)) or (change is not None
                                                                and change in keyword_tools(slots, lexicon, offered))


def _removes(slots: Slots, text: str) -> bool:
    """A verb of taking out (scratch, なしで), or a word said just before a value that takes it out (no udon)."""
    if words.pattern("lines", "remove").search(text):
        return True
    said = tokenise(slots.text)
    starts = [h.start for h in slots.enums] + [u.span[0] for u in slots.unsure]
    return any(m.end < start for start in starts for p in words.token_patterns("line_counts", "removed_before")
               if (m := p.ending(said, start, reach=2)))


def _states(slots: Slots) -> bool:
    """Whether the request asks for the order as it stands and names nothing else (read that back)."""
    return bool(words.pattern("lines", "state").search(slots.cue_text)) and not slots.enums and not slots.times \
        and not slots.dates


def _assents(slots: Slots) -> bool:
    """Whether the request only says yes (はい お願いします, yes please)."""
    assent = words.pattern("lines", "assent")
    rest = beyond_filler(assent.sub(lambda found: MASK * len(found.group()), slots.read_text))
    return bool(assent.search(slots.read_text)) and not rest
