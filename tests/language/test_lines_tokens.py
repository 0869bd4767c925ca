"""The lines of an order, the parts of a message and its clauses are read by words (token patterns), never by
characters: a request, and what is read from it."""

import pytest

from concierge.language.dates import normalise
from concierge.language.tokens import tokenise
from concierge.planner import lines, not_meant, writes
from concierge.planner.kept import left_alone
from concierge.planner.lines import Held
from concierge.planner.negated import hypothetical
from concierge.planner.segments import clauses
from concierge.planner.slots import Slots
from concierge.planner.text import fold


def said(text):
    return [text[c.start:c.end] for c in clauses(text)]


def counts(text):
    u = tokenise(text)
    return [(u.tokens[i].surface, n) for i in range(len(u.tokens)) if (n := writes.count_said(u, i)) is not None]


def counted(u):
    return [(i, n) for i in range(len(u.tokens)) if (n := writes.count_said(u, i)) is not None]


def test_sentences_end_at_their_marks_and_line_breaks_but_not_after_an_abbreviation():
    assert said("売上を見せて。在庫も！") == ["売上を見せて", "在庫も"]
    assert said("Show sales for Mr. Sato. List orders") == ["Show sales for Mr. Sato", "List orders"]
    assert said("show sales\nlist orders") == ["show sales", "list orders"]
    assert said("price is 3.5 yen") == ["price is 3.5 yen"]


def test_requests_joined_by_a_word_of_then_are_two_clauses():
    assert said(normalise("牛丼2つ、それから親子丼を1つ")) == ["牛丼2つ", "親子丼を1つ"]
    assert said("在庫を見て、その後売上を") == ["在庫を見て", "売上を"]
    assert said("味噌汁。あと、サラダ") == ["味噌汁", "あと、サラダ"]  # あと、 joins only after a space or a comma
    assert said("味噌汁 あと、サラダ") == ["味噌汁", "サラダ"]
    assert said("show sales, and then list orders") == ["show sales", "list orders"]
    assert said("show sales and please list orders") == ["show sales", "please list orders"]
    assert said("salt and pepper") == ["salt and pepper"]


def test_a_word_of_then_inside_another_word_joins_nothing():
    assert said("その後ろの棚") == ["その後ろの棚"]


def test_all_but_reaches_to_the_end_of_its_clause():
    text = "turn off all the lights except the kitchen, and the fan"
    alone = left_alone(text, fold(text))
    assert [text[a:b] for a, b in alone.spans] == ["except the kitchen"]
    assert alone.every_but


def test_a_count_is_a_number_said_as_a_word_never_one_glued_to_letters():
    assert counts(normalise("牛丼3つと親子丼二つ")) == [("3", 3), ("2", 2)]
    assert counts("one nori bento x2 and the 2nd one") == [("one", 1), ("one", 1)]
    assert counts("1000 yen") == []


def test_a_count_said_in_the_negative_or_of_a_whole_is_not_the_count():
    for text, negated in [(normalise("みっつじゃなくてふたつで"), "3つじゃなくて"), ("no, not three, two", "not three"),
                          (normalise("3つのうち1つを大盛りに"), "3つのうち")]:
        u = tokenise(text)
        found = [text[s[0]:s[1]] for i in range(len(u.tokens))
                 if writes.count_said(u, i) is not None and (s := writes.not_a_count(u, i))]
        assert found == [negated], text


def test_a_count_said_alone_at_the_end_is_the_count_asked_for():
    for text, alone in [("make it two.", True), ("2で", True), (normalise("2つで"), False), ("two cokes", False)]:
        u = tokenise(text)
        first = next(i for i in range(len(u.tokens)) if writes.count_said(u, i) is not None)
        assert lines._alone_at_end(u, first) is alone, text


def test_that_one_points_at_a_line_and_counts_nothing():
    u = tokenise("make that one large")
    assert lines._points_before(u, 2)
    assert not lines._points_before(tokenise("make it one"), 2)


def test_one_of_each_names_every_value_shown_with_its_count():
    held = Held("order", "add", "change", "remove", None, "item", ({"item": "牛丼"},))
    assert lines.pointed("one of each please", held, ("海鮮丼", "生姜焼き弁当")) == \
        "one 海鮮丼 and one 生姜焼き弁当 please"
    assert lines.pointed("両方1つずつ", held, ("海鮮丼", "生姜焼き弁当")) == "海鮮丼と生姜焼き弁当1つずつ"


@pytest.mark.parametrize(("said", "kept"), [("3つじゃなくて2つ", [2]), ("not three, two", [2]), ("3つのうち2つ", [2])])
def test_only_the_count_not_said_in_the_negative_nor_of_a_whole_is_left(said, kept):
    u = tokenise(said)
    assert [n for i, n in counted(u) if not writes.not_a_count(u, i)] == kept


@pytest.mark.parametrize(("said", "pointing"), [("that one", True), ("which one", True), ("just one", False)])
def test_one_after_that_points_at_a_line(said, pointing):
    u = tokenise(said)
    assert lines._points_before(u, len(u.tokens) - 1) is pointing


@pytest.mark.parametrize(("said", "count"), [("やっぱり3に", 3), ("make it two!", 2), ("2で。", 2)])
def test_a_count_said_alone_is_the_count_asked_for(said, count):
    u = tokenise(said)
    assert [n for i, n in counted(u) if lines._alone_at_end(u, i)] == [count]


def test_values_joined_by_a_word_or_a_mark_are_each_one():
    said = "牛丼と親子丼、rice and miso soup & tea"
    u = tokenise(said)
    cuts = [writes._joined_after(u, a, b) for a, b in [(2, 3), (5, 7), (11, 16), (26, 28)]]
    assert [said[c - 1] for c in cuts if c] == ["と", "、", "d", "&"]


def test_a_word_inside_another_does_not_join():
    assert writes._joined_after(tokenise("brandy"), 0, 6) is None
    assert writes._joined_after(tokenise(normalise("牛丼もっと親子丼")), 2, 5) is None


def test_the_words_after_a_value_that_say_it_is_not_meant():
    for text, value, negated in [("春巻きじゃなくて枝豆", "春巻き", "じゃなくて"),
                                 ("郊外店ではなく本店", "郊外店", "ではなく"), ("コーラで", "コーラ", None)]:
        end = not_meant._not_after(tokenise(text), len(value))
        assert (text[len(value):end] if end else None) == negated, text
    assert not_meant._not_before(tokenise("not the coke, the tea"), 8)


def test_instead_of_reaches_to_the_verb_alone_and_other_than_is_a_phrase_of_words():
    text = "dim the lights instead of turning off the kitchen light"
    alone = left_alone(text, fold(text))
    assert [text[a:b].strip() for a, b in alone.spans] == ["instead of turning off"]
    text = "turn off every light other than the porch"
    assert [text[a:b] for a, b in left_alone(text, fold(text)).spans] == ["other than the porch"]
    assert left_alone("the brother light", "the brother light").spans == ()


def test_a_command_said_of_a_case_that_may_come_is_hypothetical():
    for text, word in [("If I'm late, can I cancel the order?", "if"), ("もし遅れたらキャンセルできますか", "もし"),
                       ("cancel the gift order", None), ("もしもし、注文を取り消して", None)]:
        text = normalise(text)
        assert hypothetical(Slots(text, fold(text), cue_text=fold(text))) == word, text
