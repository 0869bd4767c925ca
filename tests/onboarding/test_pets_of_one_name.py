"""A pet shop's pets, a schema written for this test: two pets are called モモ (a cat and a dog of two owners). A pet
is one animal, as a customer is one person: 「モモの来店は何件？」 asks which モモ, by its key, and never adds up the
visits of both; the key answered gives that pet's visits."""

from __future__ import annotations

from datetime import date

import pytest
from drafted import ask, figures, schema_fixture

TODAY = date(2026, 12, 5)
PETS = [(1, "モモ", "猫"), (2, "モモ", "犬"), (3, "ソラ", "犬")]
# (pet, month, day, status)
VISITS = [(1, 10, 3, "完了"), (1, 11, 4, "完了"), (2, 10, 8, "完了"), (2, 11, 9, "完了"), (2, 11, 20, "完了"),
          (2, 11, 28, "キャンセル"), (3, 11, 2, "完了")]


def _statements() -> list[str]:
    visits = [f"({n}, {pet}, '2026-{m:02d}-{d:02d}', '{status}')" for n, (pet, m, d, status) in enumerate(VISITS, 1)]
    return [
        "CREATE TABLE pets (id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL, species VARCHAR(10) NOT NULL)",
        "CREATE TABLE visits (id INTEGER PRIMARY KEY, pet_id INTEGER NOT NULL REFERENCES pets(id),"
        " visit_date DATE NOT NULL, status VARCHAR(20) NOT NULL)",
        "INSERT INTO pets VALUES " + ", ".join(f"({i}, '{n}', '{s}')" for i, n, s in PETS),
        "INSERT INTO visits VALUES " + ", ".join(visits),
    ]


pets = schema_fixture("pets", _statements, TODAY)


@pytest.mark.anyio
async def test_two_pets_of_one_name_are_asked_about_never_added_up(pets):
    both = pets.scalar("SELECT COUNT(*) FROM visits v JOIN pets p ON p.id = v.pet_id WHERE p.name = 'モモ'"
                       " AND v.status = '完了'")
    asked = await ask(pets.agent, pets.pipeline, "モモの来店は何件？")
    assert asked.calls == [] and both not in figures(asked.answer), asked.answer
    turn = await ask(pets.agent, pets.pipeline, "ペットID 2", asked.session_id)
    done = pets.scalar("SELECT COUNT(*) FROM visits WHERE pet_id = 2 AND status = '完了'")
    assert [c.status for c in turn.calls] == ["ok"] and done in figures(turn.answer), turn.answer
