"""Times of day as said, read as HH:MM (the planner's `time` extract)."""

from __future__ import annotations

import pytest

from concierge.language.times import find_times


@pytest.mark.parametrize(("said", "value"), [
    ("18時半に受け取り", "18:30"), ("18時45分", "18:45"), ("午後6時", "18:00"), ("夕方6時半", "18:30"),
    ("6時半", "06:30"), ("18:30で", "18:30"), ("6:30 pm", "18:30"), ("7pm", "19:00"), ("at 7", "07:00"),
    ("12 am", "00:00"),
])
def test_a_time_is_read_as_said(said, value):
    assert [t.value for t in find_times(said)] == [value]


@pytest.mark.parametrize("said", ["25時", "18:75", "13 pm", "2026-06-12"])
def test_a_time_that_does_not_exist_is_not_read(said):
    assert find_times(said) == []
