"""Figures worked out from others (an average, a rate, a share) are no count and no total: asked, the answer says
so.

「先月のキャンセル率」, 「1レッスンあたりの平均単価」, "the average quantity per sale": no drafted tool gives such a
figure (the planner never works one out), and the count or the total it would be worked out from is not its answer
(6件 is no rate). The words are data (questions.toml [computed]); a column whose own label says them (割引率,
average price) is read as that column, as any other.
"""

from __future__ import annotations

from concierge.catalog.model import Tool
from concierge.language.tokens import Utterance, tokenise
from concierge.planner import words
from concierge.planner.slots import Slots
from concierge.planner.text import fold


def asked(tool: Tool, slots: Slots) -> str | None:
    """The words that ask such a figure of `tool`'s rows (キャンセル率, 平均単価, average), where none of its labels
    says them; None where none is asked."""
    said = tokenise(slots.text)
    listed = frozenset(words.said("computed", "words"))
    labels = [fold(t) for text in tool.result.labels.values() for t in (text.ja, text.en) if t]
    labels += [fold(t) for p in tool.params.values() for t in (p.description.ja, p.description.en)]
    for i, token in enumerate(said.tokens):
        glued = token.surface.endswith("っ") and token.surface[:-1] in listed  # 率って, cut as 率っ|て
        if token.surface.lower() not in listed and not glued:
            continue
        start, end = _compound(said, i, glued)
        words_said = said.text[start:end - glued]
        if not any(fold(words_said) in label for label in labels):
            return words_said
    return None


def _compound(said: Utterance, i: int, glued: bool = False) -> tuple[int, int]:
    """The nouns said together with token i, none apart (キャンセル|率, 平均|単価): their span. A token `glued` to
    the particle after it (率っ|て) ends them."""
    first = last = i
    while first > 0 and _joined(said, first - 1, first, i if glued else -1):
        first -= 1
    while not glued and last + 1 < len(said.tokens) and _joined(said, last, last + 1):
        last += 1
    return said.tokens[first].start, said.tokens[last].end


def _joined(said: Utterance, a: int, b: int, glued: int = -1) -> bool:
    left, right = said.tokens[a], said.tokens[b]
    return left.end == right.start and not left.surface.isascii() and all(
        t.is_noun or t.is_suffix or k == glued for k, t in ((a, left), (b, right)))
