"""A driving school's lessons, a schema written for this test, where two instructors gave the most lessons last
month and two share the third place. A question for the one at the top names both, with the figure they share;
the top three are every instructor in the first three places; where one is first alone, one is named. Never one
of those tied as if alone: a figure with a name it does not belong to alone is a wrong answer."""

from __future__ import annotations

from datetime import date

import pytest
from drafted import ask, figures, schema_fixture

TODAY = date(2026, 12, 5)
INSTRUCTORS = {1: "大野 健", 2: "石井 誠", 3: "Smith John", 4: "青木 美香", 5: "松本 亮"}
LESSONS = {1: (4, 5000), 2: (4, 4500), 3: (3, 5000), 4: (3, 4500), 5: (2, 4500)}  # November: how many, each fee
NOVEMBER = "lesson_date BETWEEN '2026-11-01' AND '2026-11-30'"


def _statements() -> list[str]:
    lessons, n = [], 0
    for instructor, (count, fee) in LESSONS.items():
        for _ in range(count):
            n += 1
            lessons.append(f"({n}, {1 + n % 3}, {instructor}, '2026-11-{3 + n:02d}', {fee})")
    lessons.append(f"({n + 1}, 1, 5, '2026-10-20', 4500)")  # October: not last month
    return [
        "CREATE TABLE instructors (instructor_id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL)",
        "CREATE TABLE students (student_id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL)",
        "CREATE TABLE lessons (lesson_id INTEGER PRIMARY KEY,"
        " student_id INTEGER NOT NULL REFERENCES students(student_id),"
        " instructor_id INTEGER NOT NULL REFERENCES instructors(instructor_id),"
        " lesson_date DATE NOT NULL, fee INTEGER NOT NULL)",
        "INSERT INTO instructors VALUES " + ", ".join(f"({i}, '{name}')" for i, name in INSTRUCTORS.items()),
        "INSERT INTO students VALUES (1, '佐藤 太郎'), (2, '鈴木 花子'), (3, '高橋 翔')",
        "INSERT INTO lessons VALUES " + ", ".join(lessons),
    ]


school = schema_fixture("school", _statements, TODAY)


def _counts(school) -> dict[str, int]:
    return dict(school.rows(f"SELECT i.name, COUNT(*) FROM lessons l JOIN instructors i "
                            f"ON i.instructor_id = l.instructor_id WHERE {NOVEMBER} GROUP BY i.name"))


def _prose(answer: str) -> str:
    return "\n".join(line for line in answer.splitlines() if not line.startswith("|"))


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["先月一番レッスンが多い講師は？", "先月レッスンの数が一番多い講師",
                                  "Which instructor taught the most lessons last month?"])
async def test_the_most_names_every_instructor_tied_at_the_top(school, said):
    counts = _counts(school)
    most = max(counts.values())
    first = sorted(name for name, n in counts.items() if n == most)
    assert len(first) == 2  # the data has a tie at the top
    turn = await ask(school.agent, school.pipeline, said)
    (call,) = turn.calls
    assert (call.args["group_by"], call.args["top_n"]) == ("instructor", 1)
    prose = _prose(turn.answer)
    assert all(name in prose for name in first), turn.answer
    assert not any(name in prose for name in INSTRUCTORS.values() if name not in first), turn.answer
    assert figures(prose) >= {most} and ("同数" in prose or "tied" in prose), turn.answer


@pytest.mark.anyio
async def test_one_first_alone_is_named_alone(school):
    fees = dict(school.rows(f"SELECT i.name, SUM(l.fee) FROM lessons l JOIN instructors i "
                            f"ON i.instructor_id = l.instructor_id WHERE {NOVEMBER} GROUP BY i.name"))
    top = max(fees.values())
    (first,) = [name for name, fee in fees.items() if fee == top]
    turn = await ask(school.agent, school.pipeline, "先月、料金が一番多い講師は？")
    prose = _prose(turn.answer)
    assert first in prose and top in figures(prose), turn.answer
    assert not any(name in prose for name in INSTRUCTORS.values() if name != first) and "同数" not in prose


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["先月のレッスン数の上位3人の講師",
                                  "top 3 instructors by number of lessons last month"])
async def test_the_top_three_keep_those_tied_at_the_third_place(school, said):
    counts = _counts(school)
    third = sorted(counts.values(), reverse=True)[2]
    kept = {name for name, n in counts.items() if n >= third}
    assert len(kept) == 4  # two share the third place
    turn = await ask(school.agent, school.pipeline, said)
    (call,) = turn.calls
    assert (call.args["group_by"], call.args["top_n"], call.args["rank_by"]) == ("instructor", 3, "count_of_lessons")
    assert {r["group_value"] for r in call.result.rows} == kept
    assert [r["lessons"] for r in call.result.rows] == sorted((counts[n] for n in kept), reverse=True)
    prose = _prose(turn.answer)
    assert all(name in prose for name in kept), turn.answer
    assert "3位が同数のため4件" in prose or "with a tie for 3rd place (4 in all)" in prose, turn.answer
