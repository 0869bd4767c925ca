"""The table a verb names: "the most rented film" counts the rentals, not the copies held.

A ranking of an entity can be answered by several summaries that group by it (the film: inventory, rentals,
payments). A verb of the request that names one summary's rows (rented, booked, 予約された, 借りられた, paid:
the rental, the booking, the payment) chooses that summary. English verbs name rows whose noun starts with the
verb's stem (rented: rental, booked: booking, ordered: order); Japanese ones are the noun said before a verb
ending (予約された). Verbs of another form are data (planner/words/questions.toml, [verbs]).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from concierge.catalog.model import Tool
from concierge.planner import words
from concierge.planner.nouns import noun
from concierge.planner.text import fold, normalise

_ENGLISH = re.compile(r"(?<![a-z])([a-z]{3,}?)(?:ed|ing)(?![a-z])")
_JA_ENDING = r"(?:され|させ|した|して|する|し(?:た|ます))"
MIN_STEM = 3


def named_rows(tools: Iterable[Tool], text: str) -> list[Tool]:
    """The tools whose rows a verb of the text (folded) names, in the order given."""
    stems = _stems(text)
    irregular = {n for verb in words.keys("verbs") if fold(normalise(verb)) in text for n in words.words("verbs", verb)}
    out = []
    for tool in tools:
        own = noun(tool)
        forms = {fold(normalise(f)) for f in (own.one, own.many, own.ja) if f}
        english = [f for f in forms if f.isascii()]
        if any(f.startswith(s) for f in english for s in stems) or forms & irregular \
                or any(re.search(re.escape(f) + _JA_ENDING, text) for f in forms if not f.isascii()):
            out.append(tool)
    return out


def _stems(text: str) -> set[str]:
    """The stems of the English verbs said (rented: rent, shipped: ship, booked: book)."""
    out = set()
    for m in _ENGLISH.finditer(text):
        stem = m.group(1)
        out.add(stem)
        if len(stem) > MIN_STEM and stem[-1] == stem[-2]:
            out.add(stem[:-1])
    return {s for s in out if len(s) >= MIN_STEM}
