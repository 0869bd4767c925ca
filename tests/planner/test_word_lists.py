"""A word list of the planner's data (planner/words/questions.toml) is found in a request where a word of it
begins, never as characters inside another word."""

from __future__ import annotations

from concierge.planner.text import fold, mask, normalise, remember
from concierge.planner.words import WordList


def found(said: tuple[str, ...], text: str) -> list[str]:
    return [m.group() for m in WordList(said).finditer(text)]


def test_a_word_inside_another_word_is_not_found():
    assert found(("メン",), "ラーメンください") == []
    assert found(("on",), "one onion, turn on the light") == ["on"]


def test_an_english_word_is_found_with_its_endings():
    assert found(("change", "best selling"), "i changed it; best selling items") == ["changed", "best selling"]


def test_a_word_in_a_folded_copy_is_cut_as_the_request_was_said():
    request = normalise("色もキッチンと同じにしといて")
    remember(request)
    said = fold(request)  # きっちんと: the analyser would cut きっ|ちんと
    assert found(("きっちん", "と同じ"), said) == ["きっちん", "と同じ"]
    assert found(("と同じ",), mask(said, [(2, 6)])) == ["と同じ"]


def test_a_stem_is_found_at_the_start_of_a_word_never_inside_one():
    assert found(("支払",), "顧客の支払い合計") == ["支払"]
    assert found(("払い",), "顧客の支払い合計") == []


def test_the_list_answers_as_a_regex_would():
    words = WordList(("大盛り", "large"))
    text = "牛丼を大盛りで, a large one"
    first = words.search(text)
    assert first is not None and first.span() == (3, 6) and first[0] == "大盛り"
    assert words.match(text, 3) is not None and words.match(text, 2) is None
    assert words.sub("_", text) == "牛丼を_で, a _ one"
    assert words.fullmatch("large") is not None and words.fullmatch("larger") is None


def test_a_catalogs_words_folded_by_the_thousand_never_push_out_a_requests_copies():
    request = normalise("色もキッチンと同じにしといて")
    remember(request)
    said = fold(request)
    for n in range(10_000):
        fold(f"カタログの言葉{n}")
    assert found(("と同じ",), said) == ["と同じ"]
