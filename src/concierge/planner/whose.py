"""Which name parameter of a tool a name said fills: the row's own name, or the name of the row it belongs to.

A table's read tool can filter by its own name (an album's title) and by the name of the row it points at (the
artist's name). A name said after a label fills the parameter of that label (the album titled X, artist X). A
name said with no label fills the tool's own name when the sentence names the row (Let There Be Rock, the
album Let There Be Rock), and the name of the row it belongs to when the sentence says the rows are that one's
(AC/DC albums, albums of AC/DC, by AC/DC, AC/DC's albums, does AC/DC have, AC/DCのアルバム). Where that leaves
several parameters the planner asks which; where it leaves none the name is not applied, and the answer says so.

A parameter is the row's own name when one of its labels says so (named, called) or names the tool's own noun
(album title for the albums); any other name parameter names a row it points at.
"""

from __future__ import annotations

from functools import cache

from concierge.catalog.model import CodeExtract, NameExtract, Tool
from concierge.language.japanese import of_particle
from concierge.language.patterns import Pattern
from concierge.language.tokens import Utterance, tokenise
from concierge.planner import words
from concierge.planner.slots import Slots
from concierge.planner.text import fold

Span = tuple[int, int]


def fills(tool: Tool, slots: Slots, span: Span, offered: set[str]) -> list[str]:
    """The parameters of `tool` the name said at `span` may fill (several: ask which; none: not applied)."""
    names = [n for n, p in tool.params.items() if isinstance(p.extract, NameExtract)]
    label = slots.name_labels.get(span)
    if label is not None:
        labelled = [n for n in names if fold(label) in {fold(w) for w in _labels(tool, n)}]
        if labelled:
            return labelled
    own = [n for n in names if _own(tool, n)]
    theirs = [n for n in names if n not in own]
    if _said_as_owner(slots, span, tool):
        return theirs or _lookups(tool, offered)
    return own or theirs or _lookups(tool, offered)


def _labels(tool: Tool, pname: str) -> list[str]:
    x = tool.params[pname].extract
    return list(x.labels) if isinstance(x, NameExtract) else []


def _own(tool: Tool, pname: str) -> bool:
    nouns = {fold(t) for t in (tool.intents.topics if tool.intents else [])}
    own = words.said("owner", "own_labels")
    for label in (fold(w) for w in _labels(tool, pname)):
        if label in own or any(n in label.split() or (not n.isascii() and n in label) for n in nouns):
            return True
    return False


def _said_as_owner(slots: Slots, span: Span, tool: Tool) -> bool:
    """Whether the sentence says the tool's rows are the named one's: albums of / by / from X, X's albums, X
    albums, does X have, Xのアルバム; not Xの顧客コード or X's phone (a word of the row itself follows)."""
    if _asked_if_having(slots.text, span):
        return True
    utterance = tokenise(slots.text)
    for n in (fold(t) for t in (tool.intents.topics if tool.intents else [])):
        if n.isascii() and n.split():
            if _owner_before(utterance, span, n) or _owner_after(utterance, span, n):
                return True
        elif not n.isascii() and _owner_in_japanese(utterance, span, n):
            return True
    return False


@cache
def _rows_of_owner(noun: str) -> tuple[Pattern, Pattern]:
    """(albums of [the], albums): the tool's noun, singular or plural, and the words that say whose before a name."""
    *head, last = noun.split()
    said = Pattern.parse([*({"form": w} for w in head), {"form": [last, last + "s", last + "es"]}])
    return Pattern((*said.slots, *words.token_pattern("whose", "of_before_name").slots)), said


def _owner_before(utterance: Utterance, span: Span, noun: str) -> bool:
    """albums of / by / from / for [the] X."""
    return _rows_of_owner(noun)[0].ending(utterance, span[0]) is not None


def _owner_after(utterance: Utterance, span: Span, noun: str) -> bool:
    """X albums, X's albums: the noun said after the name, apart from it."""
    text = utterance.text
    start = span[1] + next((len(s) for s in words.said("whose", "possessive") if text.startswith(s, span[1])), 0)
    following = utterance.starting(start + 1, len(text) + 1)
    return bool(following) and not text[start:utterance.tokens[following[0]].start].strip() \
        and _rows_of_owner(noun)[1].at(utterance, following[0]) is not None


def _owner_in_japanese(utterance: Utterance, span: Span, noun: str) -> bool:
    """Xのアルバム, where a word of the rows themselves does not follow (Xのアルバム一覧, not Xの顧客コード)."""
    text = utterance.text
    end = span[1] + len(of_particle()) + len(noun)
    if not fold(text[span[1]:end]).startswith(of_particle() + noun):
        return False
    if end == len(text.rstrip()):
        return True
    following = utterance.starting(end, len(text) + 1)
    if not following or not utterance.starts_at(end):
        return False
    after = utterance.tokens[following[0]]
    return not ((after.is_noun and not after.is_numeral) or after.is_suffix) \
        or after.surface in words.said("owner", "ja_after_noun")


def _asked_if_having(text: str, span: Span) -> bool:
    """does X have, did X release: the name between a verb of asking and one of having (questions.toml [owner])."""
    utterance = tokenise(text)
    before, after = utterance.starting(0, span[0]), utterance.starting(span[1], len(text) + 1)
    return bool(before and after and utterance.tokens[before[-1]].end <= span[0]
                and words.token_pattern("owner", "asking").at(utterance, before[-1])
                and words.token_pattern("owner", "having").at(utterance, after[0]))


def _lookups(tool: Tool, offered: set[str]) -> list[str]:
    """Code parameters found from a name through another tool (the customer code of a customer's name)."""
    return [n for n, p in tool.params.items()
            if isinstance(p.extract, CodeExtract) and p.extract.lookup is not None and p.extract.lookup.tool in offered]
