"""The table a verb names: "the most rented film" counts the rentals, not the copies held.

A ranking of an entity can be answered by several summaries that group by it (the film: inventory, rentals,
payments). A verb of the request that names one summary's rows (rented, booked, 予約された, 借りられた, paid:
the rental, the booking, the payment) chooses that summary. English verbs name rows whose noun starts with the
verb's stem (rented: rental, booked: booking, ordered: order); Japanese ones are the noun said before a verb
ending (予約された). Verbs of another form are data (planner/words/questions.toml, [verbs]).
"""

from __future__ import annotations

from collections.abc import Iterable

from concierge.catalog.model import Tool
from concierge.language.tokens import Utterance, tokenise
from concierge.planner import words
from concierge.planner.nouns import noun
from concierge.planner.text import fold, normalise

MIN_STEM = 3


def named_rows(tools: Iterable[Tool], text: str) -> list[Tool]:
    """The tools whose rows a verb of the text (folded) names, in the order given."""
    said = tokenise(text)
    stems = _stems(said)
    irregular = {n for verb in words.keys("verbs") if fold(normalise(verb)) in text for n in words.words("verbs", verb)}
    out = []
    for tool in tools:
        own = noun(tool)
        forms = {fold(normalise(f)) for f in (own.one, own.many, own.ja) if f}
        english = [f for f in forms if f.isascii()]
        if any(f.startswith(s) for f in english for s in stems) or forms & irregular \
                or any(_done(said, f) for f in forms if not f.isascii()):
            out.append(tool)
    return out


def _done(said: Utterance, noun: str) -> bool:
    """Whether a Japanese noun is said as a verb, with する after it (予約された, 予約して)."""
    endings = words.token_patterns("verb_forms", "ja")
    return any(said.text.endswith(noun, 0, token.start) and any(p.at(said, i) for p in endings)
               for i, token in enumerate(said.tokens))


def _stems(said: Utterance) -> set[str]:
    """The stems of the English verbs said (rented: rent, shipped: ship, booked: book)."""
    out = set()
    endings = words.said("verb_forms", "en_endings")
    for m in words.token_patterns("verb_forms", "en")[0].finditer(said):
        word = said.text[m.start:m.end]
        if not word.isascii() or not word.isalpha():
            continue
        stem = next(word[:-len(e)] for e in endings if word.endswith(e))
        out.add(stem)
        if len(stem) > MIN_STEM and stem[-1] == stem[-2]:
            out.add(stem[:-1])
    return {s for s in out if len(s) >= MIN_STEM}
