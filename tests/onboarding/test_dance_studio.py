"""A dance studio's students, teachers, classes and lessons, a schema written for this test (after reviews' runs on
a language school and a bicycle shop).

How many people did something is how many of them, never how many rows of what they did (51 lessons were taken by
13 students, not "51人"): 先月レッスンを受けた生徒は何人 counts the students of last month's lessons; サルサを受けている
生徒は何人 the students of the Salsa lessons (the class is a value of the lessons, not one class counted in 人); two
students of one name are two; 生徒は何人 and 渋谷区の生徒は何人 still count the students' own rows.

A status that is also a word of questions (予約) said before the noun of the rows it is a status of (予約のレッスン,
予約中のレッスン) is that status, never dropped for every lesson; and the 中 of 予約中 is no part of the teacher 中村's
name. A grouping said by a word no summary groups by (指導員ごと) is refused with what it can group by, never
answered with the total of every lesson. The most popular class (一番人気のクラス) is the one with the most lessons,
never the list of classes. 月別のレッスン数 gives the months, in their order, not only the total of all of them. A
figure worked out from others (キャンセル率, 平均料金) is said to be out of reach, never answered with a count."""

from __future__ import annotations

from datetime import date

import pytest
from drafted import ask, figures, schema_fixture

TODAY = date(2026, 12, 5)
STUDENTS = [(1, "佐藤 美咲", "渋谷区"), (2, "佐藤 美咲", "港区"), (3, "田中 翔太", "渋谷区"),
            (4, "鈴木 花子", "目黒区"), (5, "高橋 健", "港区"), (6, "伊藤 さくら", "渋谷区")]
TEACHERS = [(1, "山本 玲奈"), (2, "中村 大輔")]
CLASSES = [(1, "サルサ"), (2, "ヒップホップ"), (3, "バレエ")]
# (student, teacher, class, month, day, fee, status): student 6 never came; November has more lessons than students
LESSONS = [(1, 1, 1, 10, 5, 3000, "受講済"), (1, 1, 1, 10, 26, 3000, "受講済"), (2, 1, 1, 10, 12, 3000, "受講済"),
           (3, 2, 2, 10, 19, 2500, "受講済"),
           (1, 1, 1, 11, 2, 3000, "受講済"), (1, 1, 1, 11, 9, 3000, "受講済"), (1, 2, 2, 11, 16, 2500, "受講済"),
           (2, 1, 1, 11, 3, 3000, "受講済"), (2, 1, 1, 11, 10, 3000, "キャンセル"), (3, 2, 2, 11, 4, 2500, "受講済"),
           (3, 2, 2, 11, 11, 2500, "受講済"), (3, 2, 2, 11, 18, 2500, "受講済"), (4, 1, 3, 11, 25, 4000, "受講済"),
           (5, 2, 2, 12, 1, 2500, "予約"), (4, 1, 3, 12, 2, 4000, "受講済")]


def _statements() -> list[str]:
    lessons = [f"({n}, {s}, {t}, {c}, '2026-{month:02d}-{day:02d}', {fee}, '{status}')"
               for n, (s, t, c, month, day, fee, status) in enumerate(LESSONS, 1)]
    return [
        "CREATE TABLE students (student_id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL, ward VARCHAR(20) NOT NULL)",
        "CREATE TABLE teachers (teacher_id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL)",
        "CREATE TABLE classes (class_id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL)",
        "CREATE TABLE lessons (lesson_id INTEGER PRIMARY KEY,"
        " student_id INTEGER NOT NULL REFERENCES students(student_id),"
        " teacher_id INTEGER NOT NULL REFERENCES teachers(teacher_id),"
        " class_id INTEGER NOT NULL REFERENCES classes(class_id), lesson_date DATE NOT NULL, fee INTEGER NOT NULL,"
        " status VARCHAR(20) NOT NULL)",
        "INSERT INTO students VALUES " + ", ".join(f"({i}, '{n}', '{w}')" for i, n, w in STUDENTS),
        "INSERT INTO teachers VALUES " + ", ".join(f"({i}, '{n}')" for i, n in TEACHERS),
        "INSERT INTO classes VALUES " + ", ".join(f"({i}, '{n}')" for i, n in CLASSES),
        "INSERT INTO lessons VALUES " + ", ".join(lessons),
    ]


studio = schema_fixture("studio", _statements, TODAY)


@pytest.mark.anyio
@pytest.mark.parametrize(("said", "where"), [
    ("先月レッスンを受けた生徒は何人", "l.lesson_date BETWEEN '2026-11-01' AND '2026-11-30'"),
    ("先月レッスンに来た生徒の人数は？", "l.lesson_date BETWEEN '2026-11-01' AND '2026-11-30'"),
    ("サルサを受けている生徒は何人", "c.name = 'サルサ'"),
    ("10月にレッスンを受けた生徒は何人？", "l.lesson_date BETWEEN '2026-10-01' AND '2026-10-31'")])
async def test_people_who_did_something_are_counted_once_each(studio, said, where):
    people = studio.scalar("SELECT COUNT(DISTINCT l.student_id) FROM lessons l"
                           f" JOIN classes c ON c.class_id = l.class_id WHERE {where}")
    rows = studio.scalar(f"SELECT COUNT(*) FROM lessons l JOIN classes c ON c.class_id = l.class_id WHERE {where}")
    assert people != rows  # the data tells the two apart
    turn = await ask(studio.agent, studio.pipeline, said)
    assert [c.status for c in turn.calls] == ["ok"], turn.answer
    assert people in figures(turn.answer) and rows not in figures(turn.answer), turn.answer
    assert f"{people}人" in turn.answer, turn.answer


@pytest.mark.anyio
async def test_two_students_of_one_name_are_two(studio):
    turn = await ask(studio.agent, studio.pipeline, "10月にサルサを受けた生徒は何人？")
    assert "2人" in turn.answer and "1人" not in turn.answer, turn.answer  # the two 佐藤 美咲


@pytest.mark.anyio
@pytest.mark.parametrize(("said", "expected"), [("生徒は何人", "6人"), ("渋谷区の生徒は何人", "3人")])
async def test_the_people_themselves_are_still_counted_by_their_rows(studio, said, expected):
    turn = await ask(studio.agent, studio.pipeline, said)
    assert [c.status for c in turn.calls] == ["ok"] and expected in turn.answer, turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["予約のレッスンは何件", "予約中のレッスンは何件？"])
async def test_a_status_said_before_the_rows_it_is_a_status_of_is_applied(studio, said):
    booked = studio.scalar("SELECT COUNT(*) FROM lessons WHERE status = '予約'")
    every = studio.scalar("SELECT COUNT(*) FROM lessons")
    turn = await ask(studio.agent, studio.pipeline, said)
    assert [c.args.get("status") for c in turn.calls] == ["予約"], turn.answer
    assert booked in figures(turn.answer) and every not in figures(turn.answer), turn.answer
    assert "中村" not in turn.answer, turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["指導員ごとの先月のレッスン件数", "先月のレッスン件数を指導員ごとに"])
async def test_a_grouping_no_summary_makes_is_never_answered_with_the_total(studio, said):
    november = studio.scalar("SELECT COUNT(*) FROM lessons WHERE lesson_date BETWEEN '2026-11-01' AND '2026-11-30'")
    turn = await ask(studio.agent, studio.pipeline, said)
    assert turn.calls == [] and november not in figures(turn.answer), turn.answer
    assert "指導員" in turn.answer and "教師" in turn.answer, turn.answer  # what was said, and what it can group by


@pytest.mark.anyio
@pytest.mark.parametrize(("said", "group", "table"), [("一番人気のクラスは？", "class", "classes"),
                                                      ("一番人気の先生は？", "teacher", "teachers")])
async def test_the_most_popular_is_the_one_chosen_most_often(studio, said, group, table):
    key = f"{group}_id"
    name, lessons = studio.scalar(f"SELECT t.name || ':' || COUNT(*) FROM lessons l JOIN {table} t ON t.{key} = l.{key}"
                                  f" GROUP BY t.name ORDER BY COUNT(*) DESC LIMIT 1").split(":")
    turn = await ask(studio.agent, studio.pipeline, said)
    assert [c.args.get("group_by") for c in turn.calls] == [group], turn.answer
    assert name in turn.answer and int(lessons) in figures(turn.answer), turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize("said", ["月別のレッスン数", "月別のレッスン件数を教えて"])
async def test_a_grouping_said_gives_the_groups_in_their_order(studio, said):
    months = [(f"2026-{m:02d}", studio.scalar(f"SELECT COUNT(*) FROM lessons WHERE lesson_date BETWEEN "
                                               f"'2026-{m:02d}-01' AND '2026-{m:02d}-{d}'"))
              for m, d in ((10, 31), (11, 30), (12, 31))]
    turn = await ask(studio.agent, studio.pipeline, said)
    assert [(c.args.get("group_by"), c.args.get("rank_by")) for c in turn.calls] == [("month", None)], turn.answer
    lines = [line for line in turn.answer.splitlines() if line.startswith("| 2026-")]
    assert [line.split("|")[1].strip() for line in lines] == [m for m, _ in months], turn.answer
    assert [int(line.split("|")[2]) for line in lines] == [n for _, n in months], turn.answer


@pytest.mark.anyio
@pytest.mark.parametrize(("said", "words"), [("先月のキャンセル率は？", "キャンセル率"),
                                             ("先月のレッスンの平均料金", "平均料金"),
                                             ("What was the average fee of a lesson last month?", "average")])
async def test_a_figure_worked_out_from_others_is_said_to_be_out_of_reach(studio, said, words):
    november = studio.scalar("SELECT COUNT(*) FROM lessons WHERE lesson_date BETWEEN '2026-11-01' AND '2026-11-30'")
    cancelled = studio.scalar("SELECT COUNT(*) FROM lessons WHERE status = 'キャンセル'"
                              " AND lesson_date BETWEEN '2026-11-01' AND '2026-11-30'")
    turn = await ask(studio.agent, studio.pipeline, said)
    assert turn.calls == [] and words in turn.answer, turn.answer
    assert not figures(turn.answer) & {november, cancelled}, turn.answer
