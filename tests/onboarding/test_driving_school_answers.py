"""A driving school's lessons (the schema of test_tied_rankings_answers.py), asked as its staff type:

- a person's full name as the data writes it, with its space, then 先生 or さん (青木 美香先生): the name is read
  whole, and the honorific is no value of its own to ask about;
- a figure by its own Japanese name (料金はいくら, 料金の合計): the total of that figure, never "I cannot answer"."""

from __future__ import annotations

import pytest
from drafted import ask, figures, schema_fixture
from test_tied_rankings_answers import NOVEMBER, TODAY, _statements

school = schema_fixture("school_names", _statements, TODAY)


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["青木 美香先生の先月のレッスン数", "青木 美香 先生の先月のレッスンは何件？",
                                  "先月の大野 健先生のレッスン数", "青木 美香さんの先月のレッスン数"])
async def test_a_full_name_with_its_space_and_an_honorific_is_read_whole(school, said):
    name = "大野 健" if "大野" in said else "青木 美香"
    count = school.scalar(f"SELECT COUNT(*) FROM lessons l JOIN instructors i ON i.instructor_id = l.instructor_id "
                          f"WHERE i.name = '{name}' AND {NOVEMBER}")
    turn = await ask(school.agent, school.pipeline, said)
    assert [c.status for c in turn.calls] == ["ok"], turn.answer
    assert name in turn.answer.splitlines()[0] and count in figures(turn.answer.splitlines()[0]), turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["先月の料金はいくら？", "先月の料金の合計"])
async def test_a_figure_by_its_japanese_name_is_its_total(school, said):
    total = school.scalar(f"SELECT SUM(fee) FROM lessons WHERE {NOVEMBER}")
    count = school.scalar(f"SELECT COUNT(*) FROM lessons WHERE {NOVEMBER}")
    turn = await ask(school.agent, school.pipeline, said)
    (call,) = turn.calls
    assert call.name == "lessons_summary" and call.status == "ok", turn.answer
    assert figures(turn.answer) >= {total, count} and "レッスンは" in turn.answer, turn.answer
