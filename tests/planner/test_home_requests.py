"""Kinds of request to the home demo: the lights and TV said as family members say them (the offline planner)."""

from __future__ import annotations

import json

import anyio
import pytest

from concierge import evaluation

LIGHTS = ("リビングの電気", "寝室の電気", "Kitchen Light", "玄関の電気")

CASES = [
    # a number said right after the device, the TV's topic included, in clauses apart: one write each
    ("split", [{"say": "寝室20、テレビ3", "calls": [
        {"tool": "light_brightness", "args": {"light": "寝室の電気", "level": 20}},
        {"tool": "tv_channel", "args": {"tv": "テレビ", "channel": 3}}]}]),
    # もうちょっと after a level moved: one more step from the level it set
    ("more", [{"say": "寝室もう少し暗くして", "calls": [
        {"tool": "light_status", "args": {"light": "寝室の電気"}},
        {"tool": "light_brightness", "args": {"light": "寝室の電気", "level": 90}}], "ordered": True},
        {"say": "もうちょっと", "calls": [
            {"tool": "light_brightness", "args": {"light": "寝室の電気", "level": 80}}]}]),
    ("more_after_set", [{"say": "キッチン40にして", "calls": [
        {"tool": "light_brightness", "args": {"light": "Kitchen Light", "level": 40}}]},
        {"say": "寝室とキッチン40にして", "calls": [
            {"tool": "light_brightness", "args": {"light": "寝室の電気", "level": 40}},
            {"tool": "light_brightness", "args": {"light": "Kitchen Light", "level": 40}}]},
        {"say": "もう少し暗く", "calls": [
            {"tool": "light_brightness", "args": {"light": "寝室の電気", "level": 30}},
            {"tool": "light_brightness", "args": {"light": "Kitchen Light", "level": 30}}]}]),
    # a level moved with no device: which one is asked, not how bright
    ("which", [{"say": "ちょっと明るくして", "calls": [], "answer_contains": ["どの"],
                "answer_lacks": ["明るさが必要"]}]),
    # a question of where: every light is read
    ("where", [{"say": "どの電気が消えてる？", "calls": [
        {"tool": "light_status", "args": {"light": v}} for v in LIGHTS]}]),
    # how many of a topic's devices: the values counted, not every device
    ("how_many", [{"say": "照明って何台ある？", "calls": [], "answer_contains": ["4"], "answer_lacks": ["6"]}]),
    # the same value as the device in focus
    ("same", [{"say": "寝室の電気を青にして", "calls": [
        {"tool": "light_color", "args": {"light": "寝室の電気", "color": "0:0:255"}}]},
        {"say": "キッチンも同じ色にして", "calls_any": [
            [{"tool": "light_color", "args": {"light": "Kitchen Light", "color": "0:0:255"}}],
            [{"tool": "light_status", "args": {"light": "寝室の電気"}},
             {"tool": "light_color", "args": {"light": "Kitchen Light", "color": "0:0:255"}}]]}]),
    # a command after one asked for a case to come, nothing done: that command's device, not another kind
    ("later", [{"say": "if the kids are asleep by 9 switch off the tv", "calls": []},
               {"say": "actually switch it off now", "calls": [
                   {"tool": "tv_power", "args": {"tv": "テレビ", "power": "turnOff"}}]}]),
    # a colour not of its form: asked again, with the form
    ("form", [{"say": "キッチンの色を0:0:999にして", "calls": [], "answer_contains": ["0〜255"]}]),
]


@pytest.mark.parametrize(("name", "turns"), CASES, ids=[name for name, _ in CASES])
def test_a_home_request_of_this_kind_is_planned(name, turns, tmp_path):
    path = tmp_path / "cases.jsonl"
    case = {"id": name, "domain": "home", "today": "2026-11-20", "user": "hanako", "turns": turns}
    path.write_text(json.dumps(case, ensure_ascii=False) + "\n", encoding="utf-8")
    report = anyio.run(evaluation.run, path)
    assert all(c.passed for c in report.cases), [c.line() for c in report.cases]
