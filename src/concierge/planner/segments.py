"""Cutting one message into clauses: sentences, requests joined by それから / and then, conditions.

A clause that states a condition ("…0件の場合、", "If …,", "… only if …") is marked with
the parsed `Condition` and always comes just before the clause it governs. Clauses that
ask for nothing on their own (「販売登録して。」 followed by the details) are joined again
by the planner, which knows the catalog's keywords; this module only cuts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from concierge.planner import words
from concierge.planner.conditions import EN_INFIX, EN_PREFIX, JA_MARKER, Condition, parse


@dataclass(frozen=True)
class Clause:
    start: int
    end: int
    condition: Condition | None = None  # this clause is the condition of the next one


_SENTENCE = re.compile(r"[。！？!?\n;]+|\.(?=\s|$)")
_ABBREVIATIONS = frozenset(words.said("clauses", "abbreviations"))


def _listed(key: str) -> str:
    """A list of questions.toml [clauses] as an alternation, the longest first."""
    said = sorted(words.said("clauses", key), key=len, reverse=True)
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in said)


_CONNECTOR = re.compile(
    rf"(?:{_listed('then')})[、,]?"
    rf"|(?<![^\s、,])(?:{_listed('then_marked')})[、,]"
    rf"|(?:,\s*|\s+)(?:{_listed('then_en')})\b[,\s]*"
    rf"|,?\s+and\s+(?=(?:please\s+)?(?:{_listed('asking_en')})\b)",
    re.IGNORECASE,
)


def clauses(text: str) -> list[Clause]:
    """The clauses of a normalised message, in the order they should be handled."""
    out: list[Clause] = []
    for start, end in _split(text, _sentences(text)):
        out.extend(_conditions(text, start, end))
    return out


def _sentences(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for m in _SENTENCE.finditer(text):
        if m.group() == ".":
            word = re.search(r"([A-Za-z]+)\s*$", text[start : m.start()])
            if word and word.group(1).lower() in _ABBREVIATIONS:
                continue
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return spans


def _split(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out = []
    for start, end in spans:
        cursor = start
        for m in _CONNECTOR.finditer(text, start, end):
            out.append((cursor, m.start()))
            cursor = m.end()
        out.append((cursor, end))
    return [(s, e) for s, e in (_trim(text, s, e) for s, e in out) if e > s]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in " \t、,:：":
        start += 1
    while end > start and text[end - 1] in " \t、,:：":
        end -= 1
    return start, end


def _conditions(text: str, start: int, end: int) -> list[Clause]:
    clause = text[start:end]
    m = JA_MARKER.search(clause)
    if m and m.end() < len(clause):
        condition = parse(clause[: m.end()])
        if condition:
            return [Clause(start, start + m.start(), condition), Clause(*_trim(text, start + m.end(), end))]
    prefix = EN_PREFIX.match(clause)
    if prefix:
        comma = clause.find(",", prefix.end())
        cut = comma if comma > 0 else len(clause)
        condition = parse(clause[prefix.end() : cut])
        if condition and comma > 0:
            return [Clause(start + prefix.end(), start + comma, condition), Clause(*_trim(text, start + comma, end))]
        if condition:
            return [Clause(start + prefix.end(), end, condition)]
    infix = EN_INFIX.search(clause)
    if infix:
        condition = parse(clause[infix.end() :])
        if condition:
            return [Clause(start + infix.end(), end, condition), Clause(start, start + infix.start())]
    return [Clause(start, end)]
