"""Times and levels said as people say them, read through a whole conversation: the write a caller would see."""

from __future__ import annotations

import json

import anyio
import pytest

from concierge import evaluation

DAY = {"restaurant": ("2026-06-12", "phone"), "home": ("2026-11-20", "hanako")}


def calls(tmp_path, domain: str, *said: str) -> list[list[tuple[str, dict]]]:
    """The calls the offline planner makes for each turn said, in one conversation."""
    today, user = DAY[domain]
    case = {"id": "said", "domain": domain, "today": today, "user": user,
            "turns": [{"say": s, "calls": []} for s in said]}
    path = tmp_path / "said.jsonl"
    path.write_text(json.dumps(case, ensure_ascii=False) + "\n", "utf-8")
    report = anyio.run(evaluation.run, path)
    return [[(c["tool"], c["args"]) for c in turn.calls] for turn in report.cases[0].turns]


@pytest.mark.parametrize(("said", "pickup"), [
    ("7時10分前くらいに行きます", "18:50"), ("6時15分前に取りに行きます", "17:45"), ("ろくじはんに行きます", "18:30"),
    ("しちじに取りに行きます", "19:00"),
])
def test_a_pickup_time_said_as_people_say_it_is_the_time_meant(tmp_path, said, pickup):
    turns = calls(tmp_path, "restaurant", "からあげ弁当ひとつ", said)
    assert turns[1] == [("set_pickup_time", {"pickup_time": pickup})]


def test_a_brightness_said_in_tenths_is_that_percent(tmp_path):
    assert calls(tmp_path, "home", "リビングの明るさを7割くらいにしといて") == [
        [("light_brightness", {"light": "リビングの電気", "level": 70})]]
