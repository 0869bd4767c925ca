"""Values said to be left as they are: 寝室はそのままで, 寝室以外, leave the bedroom alone, all but the kitchen.

A command is never made on them. The words that say so (words/questions.toml `[left_alone]`) and the values they
are said of are taken out of what the request is read for; a value said with "all but" (以外, except) makes the
command one for every other value. Japanese clauses are found by the analyser: the words before そのまま back to
the punctuation or the verb that ends the clause before (テレビ消して、|電気は全部そのままで).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from concierge.language.patterns import Match, Pattern
from concierge.language.tokens import Utterance, tokenise
from concierge.planner import words

Span = tuple[int, int]


@dataclass(frozen=True)
class LeftAlone:
    spans: tuple[Span, ...]  # what says it, with the values it is said of
    values: tuple[Span, ...]  # where in those the values are said (寝室 of 寝室以外)
    every_but: bool  # 寝室以外: a command for every other value


def left_alone(text: str, folded: str) -> LeftAlone:
    spans: list[Span] = []
    values: list[Span] = []
    every_but = False
    u = tokenise(text)  # once: a long request is cut once, never once per phrase in it
    for key in ("as_is", "but_ja"):
        for m in words.pattern("left_alone", key).finditer(folded):
            start = _clause_start(u, m.start())
            spans.append((start, m.end()))
            values.append((start, m.start()))
            every_but = every_but or key == "but_ja"
    for but in _phrases_said(u, "but_en"):
        spans.append((but.start, _next_end(u, but.end, "clause_end")))
        values.append((but.end, spans[-1][1]))
        every_but = True
    spans += _instead(u, folded) + _not_this(u, folded)
    return LeftAlone(tuple(spans), tuple(values), every_but)


def _not_this(u: Utterance, folded: str) -> list[Span]:
    """A command said in the negative with another said after it (寝室は消さないで、リビングだけ消して): the
    negated one, with the words it is said of, is left alone and the other is the request. Said alone, it is
    the planner's to refuse (planner/negated.py). A verb that holds its negation is a command (いらなくて)."""
    spans = []
    after = words.pattern("negation", "after")
    removing = [w for w in words.words("lines", "remove") if "な" in w]
    last_verb = max((t.start for t in u.tokens if t.is_verb), default=-1)
    for t in u.tokens:
        m = after.match(folded, t.end) if t.is_verb else None
        if m is None or any(w in folded[t.start:m.end() + 2] for w in removing):
            continue
        if last_verb >= m.end():  # another verb said after it
            spans.append((_clause_start(u, t.start), m.end()))
    return spans


def _instead(u: Utterance, folded: str) -> list[Span]:
    """Commands said not to be made in favour of another (消す|んじゃなくて, instead of turning it off): from the
    verb before the words to their end in Japanese, from the words to the clause's end in English."""
    spans = []
    for m in words.pattern("left_alone", "instead_ja").finditer(folded):
        verb = u.ending_at(m.start())
        if verb is not None and verb.is_predicate:
            spans.append((verb.start, m.end()))
    for said in _phrases_said(u, "instead_en"):
        spans.append((said.start, _next_end(u, said.end, "verb_phrase_end")))  # instead of turning off|the light
    return spans


def _phrases_said(u: Utterance, key: str) -> list[Match]:
    """The phrases of `[left_alone] key` said (all but, instead of), the longest where two begin together."""
    patterns, first = _phrases(key)
    if not any(w in u.text.lower() for w in first):
        return []
    out: list[Match] = []
    for m in sorted((m for p in patterns for m in p.finditer(u)), key=lambda m: (m.start, -m.end)):
        if not out or m.start >= out[-1].end:
            out.append(m)
    return out


@cache
def _phrases(key: str) -> tuple[tuple[Pattern, ...], frozenset[str]]:
    """The phrases of `[left_alone] key` as token patterns, a word a slot, and their first words."""
    said = words.said("left_alone", key)
    return tuple(Pattern.parse([{"form": w} for w in p.split()]) for p in said), frozenset(p.split()[0] for p in said)


@cache
def _ends(key: str) -> tuple[Pattern, ...]:
    """The marks that end a clause, and the words of `[joining] key`, as token patterns."""
    return (*words.token_patterns("clause_marks", "marks"), Pattern.parse([{"form": list(words.said("joining", key))}]))


def _next_end(u: Utterance, start: int, key: str) -> int:
    """Where the first mark or word of `[joining] key` from `start` on begins (the lamp, and | the fan), else the
    text's end."""
    return min((m.start for p in _ends(key) if (m := p.search(u, start))), default=len(u.text))


def _clause_start(u: Utterance, at: int) -> int:
    """Where the words that a そのまま or 以外 ending at `at` is said of begin: in English after punctuation or a
    joining word; in Japanese the noun phrase right before it, by the analyser (電気は全部|そのまま,
    キッチンとリビング|以外), never across a predicate, a space or punctuation (牛丼3つで 時間は|そのまま)."""
    text = u.text
    if text[:at].isascii():
        ends = [m.end for p in _ends("clause_end") for m in p.finditer(u, 0, at)]
        return max(ends, default=0)
    start = len(text[:at].rstrip())
    topic = False
    for i in reversed(u.starting(0, start)):
        token = u.tokens[i]
        if token.end > start:
            continue  # a word the phrase's end falls inside
        if token.end < start and text[token.end:start].strip() != "":
            break  # a space between: another phrase
        if token.is_particle and token.surface in _PHRASE_PARTICLES:
            if token.surface in _TOPIC_PARTICLES:
                if topic:
                    break
                topic = True
        elif token.pos[0] not in _NOUN_PARTS:
            break
        start = token.start
    return start


_NOUN_PARTS = words.said("left_alone", "phrase_parts")
_PHRASE_PARTICLES = words.said("left_alone", "phrase_particles")
_TOPIC_PARTICLES = words.said("left_alone", "topic_particles")
