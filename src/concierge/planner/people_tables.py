"""Where a person of the data is listed: only a tool that reads that table searches for them by name.

山本 翔さんの11月の件数は？ of a company whose staff and customers are two tables: 山本 翔 is a value of
the data, listed by the staff's names (an enum of some tool). The customers' search by name would find nobody and
answer 0: where the customers' names are listed too (an enum reads the same column of the customers' table) and
the person is not among them, that search does not take the person, and the tool that reads the staff does. Where
nothing lists the names of a tool's table, or a statement cannot be read, the person may be anyone's, as before.
"""

from __future__ import annotations

from concierge.catalog.model import NameExtract
from concierge.language.japanese import honorifics
from concierge.language.tokens import tokenise
from concierge.planner.lexicon import Lexicon
from concierge.planner.slots import Slots, Span


def elsewhere(slots: Slots, lexicon: Lexicon, tool: str, span: Span) -> bool:
    """Whether the person said at `span` is listed only by tables `tool` does not read, while the names of a table it
    does read are listed too, without them."""
    read = lexicon.reads(tool)
    if not read:
        return False
    theirs = [lexicon.listed(key) for h in slots.enums if (h.start, h.end) == span for key, _ in h.value]
    if not theirs or any(t is None or t[0] in read for t in theirs):
        return False
    columns = {t[1] for t in theirs if t is not None}
    return any(found is not None and found[0] in read and found[1] in columns
               for found in map(lexicon.listed, lexicon.enums))


def own_row_named(slots: Slots, lexicon: Lexicon, tool: str) -> bool:
    """Whether the request names a person of the data whom `tool` searches for among its own rows by name (the
    customers' search for 佐藤 健太): a row of theirs is the person, whatever date it has; a period said with them,
    or how many times, is of what they did, not of their row."""
    t = lexicon.tools[tool]
    if slots.people(lexicon.enum_groups(tool)) and any(isinstance(p.extract, NameExtract) for p in t.params.values()):
        return True
    read = lexicon.reads(tool)  # else its own rows' names may be an enum of the tool (a small table's)
    own = {g for g in lexicon.enum_groups(tool) if (listed := lexicon.listed(g)) is not None
           and read == frozenset({listed[0]})}
    people = {s for _, s in slots.named_values}
    return any(k in own for h in slots.enums if (h.start, h.end) in people for k, _ in h.value)


def unplaced_people(slots: Slots, lexicon: Lexicon, tool: str) -> list[tuple[str, Span]]:
    """People said whom several groups name (佐藤さん: 佐藤 健一 of the staff, 佐藤 花子 of the customers), where `tool`
    takes none of those groups: the words said, without their honorific, for its search by name (顧客に佐藤さんは何人:
    the customers called 佐藤), never dropped."""
    groups = lexicon.enum_groups(tool)
    out = []
    for u in slots.unsure:
        if u.also and not any(u.of(g) for g in groups):
            said = tokenise(u.said)
            last = said.tokens[-1] if said.tokens else None
            end = last.start if last is not None and last.surface in honorifics() and last.start > 0 else len(u.said)
            out.append((u.said[:end].strip(), (u.span[0], u.span[0] + end)))
    return out
