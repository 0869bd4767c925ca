"""What a caller hears and what a yes does after it: a refused item or option comes with what the shop offers
instead, and a yes takes the one offered (several offered: which is asked); a list of menu items is said in a
sentence, however long, with sold-out in words; "how much is that" is the order's total, not the menu."""

from __future__ import annotations

import pytest
from order_call import OrderCall

pytestmark = pytest.mark.anyio


@pytest.fixture
def call(restaurant, phone) -> OrderCall:
    return OrderCall(restaurant, phone)


@pytest.mark.parametrize("yes", ["yes please", "はい、それで", "お願いします"])
async def test_a_yes_to_the_one_option_offered_instead_takes_it(call, yes):
    turn = await call.say("コーラ大盛りで")  # a large cola is an Lサイズ one; 大盛り said of it is refused
    assert call.order() == {} and "Lサイズ" in turn.answer
    await call.say(yes)
    assert call.order() == {("コーラ", "Lサイズ"): 1}


async def test_a_yes_to_several_items_offered_asks_which_and_adds_none(call):
    turn = await call.say("天丼ひとつ")
    assert "売り切れ" in turn.answer and call.order() == {}
    turn = await call.say("はい")
    assert call.order() == {} and all(name in turn.answer for name in ("牛丼", "親子丼", "カツ丼"))
    await call.say("親子丼で")
    assert call.order() == {("親子丼", None): 1}


async def test_a_yes_after_an_item_added_adds_nothing_more(call):
    await call.say("牛丼ひとつ")
    await call.say("はい")
    assert call.order() == {("牛丼", None): 1}


async def test_a_category_of_more_than_five_items_is_said_in_one_sentence(call):
    turn = await call.say("弁当は何がありますか")
    assert turn.answer.startswith("弁当は唐揚げ弁当 690円、") and "|" not in turn.answer
    assert "エビフライ弁当 820円（本日売り切れ）" in turn.answer and "幕の内弁当 880円です。" in turn.answer


@pytest.mark.parametrize("said", ["how much is that", "so how much is that all together", "全部でいくら"])
async def test_how_much_is_that_is_the_orders_total(call, said):
    await call.say("a beef bowl and a coke")
    turn = await call.say(said)
    assert "780" in turn.answer and "唐揚げ弁当" not in turn.answer


async def test_today_said_of_the_menu_is_the_menu_as_it_is(call):
    turn = await call.say("あの 天丼って今日ありますか")
    assert "天丼" in turn.answer and "売り切れ" in turn.answer and "絞り込む" not in turn.answer


@pytest.mark.parametrize("asked", ["天丼ってできます？", "is the tempura bowl available?", "天丼ある？"])
async def test_an_item_asked_about_that_is_sold_out_comes_with_what_can_be_had_instead(call, asked):
    answer = (await call.say(asked)).answer
    assert "天丼" in answer and ("売り切れ" in answer or "sold out" in answer)
    assert all(name in answer for name in ("牛丼", "親子丼", "カツ丼", "海鮮丼")) and call.order() == {}


async def test_an_item_asked_about_that_is_not_sold_out_is_said_alone(call):
    assert (await call.say("カツ丼できる？")).answer == "カツ丼 700円です。"


async def test_the_whole_menu_is_counted_and_listed_never_an_empty_sentence_and_sold_out_is_words(call):
    answer = (await call.say("今日売り切れのものある？")).answer
    assert answer.startswith("25件") and not answer.startswith("です")
    sold = [line for line in answer.splitlines() if "エビフライ弁当" in line or "天丼" in line]
    assert len(sold) == 2 and all(line.rstrip(" |").endswith("本日売り切れ") for line in sold), sold
    assert "| 0 |" not in answer and "| 1 |" not in answer


async def test_a_change_to_an_option_the_item_lacks_names_the_one_it_has_and_a_yes_takes_it(call):
    await call.say("オレンジジュースひとつ")
    turn = await call.say("それ大盛りにして")
    assert "Lサイズ（+80円）" in turn.answer and call.order() == {("オレンジジュース", None): 1}
    await call.say("はい")
    assert call.order() == {("オレンジジュース", "Lサイズ"): 1}


@pytest.mark.parametrize("said", ["弁当は何がある？のり弁当以外で", "唐揚げ弁当以外で弁当は何がありますか"])
async def test_a_list_with_one_item_left_out_still_names_the_others(call, said):
    turn = await call.say(said)  # no figure is asked: the list is the answer, never "no figure with a part left out"
    assert "鮭弁当" in turn.answer and "ハンバーグ弁当" in turn.answer and "除いた" not in turn.answer, turn.answer
