"""Colloquial forms written back to the plain ones (language/plain.py), as people type them."""

from __future__ import annotations

import pytest

from concierge.language.plain import plain


@pytest.mark.parametrize(("said", "plainly"), [
    ("電気けしといて", "電気けして"), ("つけちゃって", "つけて"), ("消しといて", "消して"), ("けしちゃって", "けして"),
    ("電気けしとって", "電気けして"), ("テレビみといて", "テレビみて"), ("ドアしめちゃった", "ドアしめた"),
    ("まどあけといて", "まどあけて"), ("でんきけしといてね", "でんきけしてね"), ("書いといて", "書いて"),
    ("とっといて", "とって"), ("エアコン消しちゃって", "エアコン消して"),
])
def test_an_auxiliary_of_aspect_goes(said, plainly):
    assert plain(said) == plainly


@pytest.mark.parametrize("said", ["しといて", "ねちゃった", "といて", "ちゃって", "明日とって", "いっしょにいて"])
def test_words_that_only_look_like_an_auxiliary_stay_as_said(said):
    assert plain(said) == said


@pytest.mark.parametrize(("said", "plainly"), [
    ("からべん ふたつ", "からべん 2つ"), ("ふたりで", "2人で"), ("a couple of cokes", "2 cokes"),
    ("tv on n volume up", "tv on and volume up"),
])
def test_counts_and_shorthand_are_written_plainly(said, plainly):
    assert plain(said) == plainly
