"""A command said in the negative (味噌汁は取り消さないで, 時間はまだ確定じゃないです, don't remove the miso soup), or
of a case that may come (if I'm late, can I cancel the order?):
the words of a write followed by a negation in Japanese, or after one in English. No write is made on such a
request, whatever else it says: the planner asks again what to change, and nothing is changed meanwhile.

A word that holds its negation as a whole (いらない, なしで: a verb of taking out) is the command itself, not a
negated one. The words are data: `[negation]` in planner/words/questions.toml.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import lru_cache

import regex

from concierge.language.scripts import HAN
from concierge.language.tokens import tokenise
from concierge.planner import words
from concierge.planner.lexicon import KEYWORD, Lexicon
from concierge.planner.slots import Slots
from concierge.planner.text import MASK

__all__ = ["hypothetical", "negated"]

_HAN = regex.compile(rf"[{HAN}]")
_LINES = ("remove", "instead", "fewer", "assent", "correcting")  # the verbs of editing an order, as data


def negated(slots: Slots, lexicon: Lexicon, offered: Collection[str]) -> str | None:
    """The words of a write's command said in the negative, or None."""
    commands = _command_words(lexicon, frozenset(offered))
    return hypothetical(slots) or _japanese(slots, lexicon, offered, commands) or _english(slots, commands)


_HYPOTHETICAL = frozenset(words.words("negation", "hypothetical"))


def may_be_hypothetical(text: str) -> bool:
    """Whether the text says a word of a case that may come at all (`hypothetical` reads it to know)."""
    return any(t.surface in _HYPOTHETICAL or t.surface.lower() in _HYPOTHETICAL for t in tokenise(text).tokens)


def hypothetical(slots: Slots) -> str | None:
    """A word that says the command is of a case that may come (if, もし), said as a word of its own: もしもし
    is a greeting."""
    tokens = tokenise(slots.text).tokens
    word = next((t.surface for t in tokens if t.surface in _HYPOTHETICAL and not t.surface.isascii()), None)
    english = next((t.surface.lower() for t in tokens if t.surface.isascii() and t.surface.lower() in _HYPOTHETICAL
                    and MASK not in slots.cue_text[t.start:t.end]), None)
    return word or english


@lru_cache(maxsize=16)  # one per catalog set offered
def _command_words(lexicon: Lexicon, offered: frozenset[str]) -> tuple[str, ...]:
    keywords = [k for name in offered if name in lexicon.tools and lexicon.tools[name].mode == "write"
                and (intents := lexicon.tools[name].intents) for k in intents.keywords]
    return tuple(w for w in (*keywords, *(w for key in _LINES for w in words.words("lines", key))) if len(w) >= 2)


def _japanese(slots: Slots, lexicon: Lexicon, offered: Collection[str], commands: tuple[str, ...]) -> str | None:
    text = slots.cue_text
    after = words.pattern("negation", "after")
    whole = [h for h in lexicon.cues.find(text) if any(k == KEYWORD and t in offered for t, k in h.value)]
    for hit in whole:  # それで全部|じゃなくて, 確定|じゃないです
        m = after.match(text, hit.end)
        if m is not None and _left_alone(slots, hit.start):
            continue
        if m is not None and lexicon.tools[next(t for t, _ in hit.value)].mode == "write":
            return slots.text[hit.start:m.end()]
    u = tokenise(slots.text)
    for t in u.tokens[:-1]:  # 取り消さ|ないで, 変え|ないで: a verb of a command, negated
        stem = t.lemma[:-1]  # 外す: 外, 取り消す: 取り消; never a kana stem of one sound (いる: い)
        if not t.is_verb or not (len(stem) >= 2 or _HAN.match(stem)) or not any(c.startswith(stem) for c in commands):
            continue
        m = after.match(slots.folded, t.end)  # not the masked text: でいい of ないでいい is no value
        if m is not None and not _holds_it(slots.folded, t.start, m.end(), commands) \
                and not _left_alone(slots, t.start):
            return slots.text[t.start:m.end()]
    return None


def _left_alone(slots: Slots, at: int) -> bool:
    """Whether the words at `at` are of a command said not to be made in favour of another said after it
    (寝室は消さないで、リビングだけ消して: planner/kept.py)."""
    return any(s <= at < e for s, e in slots.alone)


def _holds_it(text: str, start: int, end: int, commands: tuple[str, ...]) -> bool:
    """Whether the negated words are themselves a command's word (いらない, やめません?): not a negation of one."""
    return any(c in text[start:end + 2] for c in commands if any(n in c for n in words.said("negation", "in_word")))


def _english(slots: Slots, commands: tuple[str, ...]) -> str | None:
    text = slots.cue_text
    for m in words.pattern("negation", "before").finditer(text):
        rest = text[m.end():m.end() + 40].split()
        if any(" ".join(rest[:n]).startswith(c) for c in commands if c.isascii() for n in range(1, 4)):
            return slots.text[m.start():m.end() + len(" ".join(rest[:3])) + 1].strip()
    return None
