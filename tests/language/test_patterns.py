"""Token patterns read words: a rule for a counted thing or a verb of changing matches the analyser's tokens, not
characters that happen to spell them."""

import pytest

from concierge.language.patterns import Pattern, WordTable
from concierge.language.tokens import tokenise

COUNT = Pattern.parse([{"is": "numeral"}, {"is": "counter", "op": "?"}])
CHANGE = Pattern.parse([{"form": ["変える", "変更", "直す"]}, {"is": "ending", "op": "*"}])


def spans(pattern, text):
    return [text[m.start:m.end] for m in pattern.finditer(tokenise(text))]


def test_a_count_is_its_numeral_and_counter():
    assert spans(COUNT, "牛丼3つと親子丼2個") == ["3つ", "2個"]


def test_a_verb_of_changing_matches_in_every_form_it_is_said():
    for said, verb in [("人数を3名に変えて", "変えて"), ("チェックイン日を変更してください", "変更してください"),
                       ("入庫数を直したい", "直したい")]:
        assert spans(CHANGE, said) == [verb], said


def test_characters_inside_another_word_are_no_match():
    assert spans(Pattern.parse([{"form": "メン"}]), "ラーメンください") == []


def test_optional_and_repeated_slots_give_back_tokens_to_match_what_follows():
    pattern = Pattern.parse([{"is": "numeral", "op": "+"}, {"is": "numeral"}])
    assert spans(pattern, "3 4 5") == ["3 4 5"]
    assert spans(Pattern.parse([{"form": "the", "op": "?"}, {"form": "coke"}]), "make the coke an OJ") == ["the coke"]


def test_a_slot_with_a_key_it_does_not_know_is_refused_with_the_keys_it_does():
    with pytest.raises(ValueError, match="form, not, surface"):
        Pattern.parse([{"lema": "変える"}])


def test_a_named_slot_gives_the_words_it_took():
    pattern = Pattern.parse([{"is": "word", "name": "item", "op": "+", "not": ["sales"]}, {"form": "sales"}])
    utterance = tokenise("show me coffee beans sales")
    found = pattern.search(utterance)
    assert found is not None and found.said(utterance, "item") == "show me coffee beans"


def test_a_word_ending_in_a_suffix_is_told_from_the_suffix_alone():
    done = Pattern.parse([{"form": ["is", "was"]}, {"ends": "ed", "name": "state"}])
    utterance = tokenise("the order was cancelled, the bill is ed")
    assert [m.said(utterance, "state") for m in done.finditer(utterance)] == ["cancelled"]


def test_a_pattern_may_be_asked_to_end_where_a_word_ends_or_to_cover_a_span_whole():
    pointing = Pattern.parse([{"form": ["the", "that"]}, {"form": "one", "op": "?"}])
    text = "make that one three"
    utterance = tokenise(text)
    found = pointing.ending(utterance, text.index(" three"))
    assert found is not None and text[found.start:found.end] == "that one"
    assert pointing.ending(utterance, text.index("ne three")) is None  # inside a word
    assert pointing.whole(utterance, text.index("that"), text.index(" three")) is not None
    assert pointing.whole(utterance) is None


def test_a_search_keeps_within_the_span_it_is_given():
    utterance = tokenise("牛丼3つと親子丼2個")
    assert [utterance.text[m.start:m.end] for m in COUNT.finditer(utterance, 3)] == ["2個"]
    assert COUNT.search(utterance, 0, 3) is None


def test_a_word_table_finds_whole_words_only_and_the_longest_phrase():
    table = WordTable({"a couple of": 2, "couple of": 2, "n": "and"})
    utterance = tokenise("a couple of teas n b&n, couple  of cokes")
    assert [(utterance.text[s:e], v) for s, e, v in table.find(utterance)] == [
        ("a couple of", 2), ("n", "and"), ("couple  of", 2)]
