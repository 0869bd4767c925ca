"""What a request says to leave as it is (planner/kept.py): the words that say so and the words they are said of,
found by the analyser's noun phrases in Japanese and by clauses in English."""

from __future__ import annotations

import pytest

from concierge.planner.kept import left_alone
from concierge.planner.text import fold


def said(text: str) -> list[str]:
    alone = left_alone(text, fold(text))
    return [text[s:e] for s, e in alone.spans]


@pytest.mark.parametrize("text,expected", [
    ("テレビ消して、電気は全部そのままで", ["電気は全部そのまま"]),
    ("牛丼 3つで 時間はそのままで", ["時間はそのまま"]),  # never across a space: the count is another phrase
    ("キッチンとリビング以外は消して", ["キッチンとリビング以外"]),
    ("寝室は消すんじゃなくて暗くして", ["消すんじゃなくて"]),
    ("寝室は消さないで、リビングだけ消して", ["寝室は消さないで"]),
    ("turn off all the lights except the kitchen, thanks", ["except the kitchen"]),
    ("instead of turning off the kitchen light, dim it", ["instead of turning off "]),
])
def test_the_words_left_alone_are_the_phrase_they_are_said_of(text, expected):
    assert said(text) == expected


def test_all_but_makes_a_command_for_every_other_value_and_as_it_is_does_not():
    assert left_alone("寝室以外消して", fold("寝室以外消して")).every_but
    assert not left_alone("寝室はそのままで", fold("寝室はそのままで")).every_but


@pytest.mark.parametrize("text", ["取り消さないで", "ポテトはいらなくて、コーラ2つ", "寝室の電気消して"])
def test_a_negation_alone_or_a_verb_that_holds_it_leaves_nothing_alone(text):
    assert said(text) == []
