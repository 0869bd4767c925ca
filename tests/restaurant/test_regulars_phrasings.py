"""Phrasings of regular callers, from a case set written apart (tests/restaurant/regulars_cases.jsonl), each a wrong
write before: an option said alone is the line in focus that takes it, never another line (asked where two take
it); a count said again with は sets a part apart; a time said with a verb of changing is the pickup time; a time
said last after goods with no keyword is taken; a change to another item said of part of the only line swaps that
part; an English word before a category is asked."""

from __future__ import annotations

import pytest
from order_call import OrderCall

pytestmark = pytest.mark.anyio


@pytest.fixture
def call(restaurant, phone) -> OrderCall:
    return OrderCall(restaurant, phone)


@pytest.mark.parametrize(("said", "option"), [("大盛りで", "大盛り"), ("ご飯少なめで", "小盛り")])
async def test_an_option_said_alone_changes_the_line_just_ordered(call, said, option):
    await call.say("ハンバーグ弁当ひとつ")
    await call.say(said)
    assert call.order() == {("ハンバーグ弁当", option): 1}


async def test_an_option_said_alone_with_two_lines_in_focus_asks_which(call):
    await call.say("牛丼ひとつと親子丼ひとつ")
    turn = await call.say("大盛りで")
    assert call.order() == {("牛丼", None): 1, ("親子丼", None): 1}
    assert "牛丼" in turn.answer and "親子丼" in turn.answer


async def test_an_option_said_alone_goes_to_the_one_line_in_focus_that_takes_it(call):
    await call.say("牛丼ひとつとコーラひとつ")
    await call.say("大盛りで")  # a cola is never 大盛り
    assert call.order() == {("牛丼", "大盛り"): 1, ("コーラ", None): 1}


@pytest.mark.parametrize(("said", "lines"), [
    ("唐揚げ弁当 ふたつ ひとつは大盛りで", {("唐揚げ弁当", None): 1, ("唐揚げ弁当", "大盛り"): 1}),
    ("牛丼3つ 2つは大盛りで", {("牛丼", None): 1, ("牛丼", "大盛り"): 2}),
])
async def test_a_count_said_again_with_wa_is_a_part_set_apart(call, said, lines):
    await call.say(said)
    assert call.order() == lines


async def test_a_time_said_with_a_verb_of_changing_moves_the_pickup(call):
    await call.say("枝豆ひとつ")
    await call.say("6時45分に取りに行きます")
    await call.say("やっぱり 7時半に変えてください")
    assert (call.order(), call.pickup()) == ({("枝豆", None): 1}, "19:30")


@pytest.mark.parametrize(("said", "lines"), [
    ("唐揚げ弁当3つ 7時半", {("唐揚げ弁当", None): 3}),
    ("からあげ弁当の大盛り みっつ 7時半", {("唐揚げ弁当", "大盛り"): 3}),
])
async def test_a_time_said_last_after_goods_is_their_pickup_time(call, said, lines):
    await call.say(said)
    assert (call.order(), call.pickup()) == (lines, "19:30")


async def test_an_order_typed_with_full_width_digits_and_no_spaces_is_read_whole(call):
    await call.say("牛丼２こ大盛り１８時")
    assert (call.order(), call.pickup()) == ({("牛丼", "大盛り"): 2}, "18:00")


async def test_part_of_the_only_line_changed_to_another_item_is_swapped(call):
    await call.say("しゃけ弁 ふたつ おねがいします")
    await call.say("すいません ひとつ のり弁に 変えてもらえますか")
    assert call.order() == {("鮭弁当", None): 1, ("のり弁当", None): 1}


@pytest.mark.parametrize("said", ["2 teriyaki bento and a coke", "can i get 2 yakiniku bento and 1 oyako don"])
async def test_a_word_before_a_category_that_names_no_item_is_asked_and_nothing_is_added(call, said):
    turn = await call.say(said)
    assert call.order() == {} and " bento" in turn.answer


@pytest.mark.parametrize("said", ["牛丼と親子丼 両方とも大盛りで", "牛丼と親子丼 全部大盛りで"])
async def test_items_said_with_an_option_and_no_count_are_ordered_so(call, said):
    await call.say(said)
    assert call.order() == {("牛丼", "大盛り"): 1, ("親子丼", "大盛り"): 1}


@pytest.mark.parametrize("said", ["is the gyudon big", "牛丼って 大盛りだと いくらになるんですか"])
async def test_an_option_asked_about_is_never_ordered(call, said):
    await call.say("牛丼 ひとつ")
    turn = await call.say(said)
    assert call.order() == {("牛丼", None): 1} and "read orders" not in turn.answer


async def test_a_short_name_the_catalog_describes_as_a_reading_is_read_as_the_item(call):
    await call.say("唐揚げ弁当ふたつとのり弁当ひとつ")
    await call.say("あ からあげのほう 大盛りで")
    assert call.order() == {("唐揚げ弁当", "大盛り"): 2, ("のり弁当", None): 1}


@pytest.mark.parametrize("closing", ["that's it", "じゃあ以上で"])
async def test_a_closing_phrase_places_the_order(call, closing):
    await call.say("a beef bowl please")
    await call.say("pick up at 7")
    turn = await call.say(closing)
    assert "1" in turn.answer and call.order() == {}  # placed: the draft is empty, a ticket number is said
