"""A caller editing the order in progress with the offline planner: what the order holds afterwards is what they
said, read against the lines it held as each turn began (planner/lines.py, catalog `rules.lines`)."""

from __future__ import annotations

import pytest
from order_call import OrderCall

pytestmark = pytest.mark.anyio


@pytest.fixture
def call(restaurant, phone) -> OrderCall:
    return OrderCall(restaurant, phone)


async def test_a_pronoun_changes_the_line_just_ordered_and_adds_nothing(call):
    await call.say("海鮮丼ください")
    await call.say("やっぱりそれ2つに")
    assert call.order() == {("海鮮丼", None): 2}
    await call.say("あと ざるそば")
    await call.say("actually make that three")
    assert call.order() == {("海鮮丼", None): 2, ("ざるそば", None): 3}


async def test_a_swap_keeps_the_quantity_of_the_line_it_replaces(call):
    await call.say("コーラ2本と唐揚げ弁当ふたつ")
    turn = await call.say("あ コーラをオレンジジュースに変えてください")
    assert call.order() == {("唐揚げ弁当", None): 2, ("オレンジジュース", None): 2}
    assert "1,820円" in turn.answer


async def test_swapping_some_of_a_line_swaps_only_those(call):
    await call.say("鮭弁当を3つ")
    await call.say("swap one of the salmon bentos for a nori bento")
    assert call.order() == {("鮭弁当", None): 2, ("のり弁当", None): 1}


async def test_one_less_counts_down_and_takes_the_line_out_at_zero(call):
    await call.say("幕の内 二つと 鮭弁当 一つ")
    await call.say("すみません 幕の内を一つ減らしてください")
    assert call.order() == {("幕の内弁当", None): 1, ("鮭弁当", None): 1}
    await call.say("鮭弁当も一つ減らして")
    assert call.order() == {("幕の内弁当", None): 1}


async def test_both_changes_every_line_and_a_count_with_tomo_only_says_which(call):
    await call.say("牛丼と親子丼をひとつずつ")
    await call.say("あ 両方とも大盛りにしてください")
    assert call.order() == {("牛丼", "大盛り"): 1, ("親子丼", "大盛り"): 1}
    await call.say("両方とも2つにしてください")
    assert call.order() == {("牛丼", "大盛り"): 2, ("親子丼", "大盛り"): 2}


async def test_an_option_for_an_item_ordered_changes_it_instead_of_adding_another(call):
    await call.say("oyakodon 2つと karaage bento 1つ")
    await call.say("karaageのほうは大盛りで")
    assert call.order() == {("親子丼", None): 2, ("唐揚げ弁当", "大盛り"): 1}


async def test_a_word_naming_two_lines_ordered_is_asked_and_nothing_is_written(call):
    await call.say("緑茶ひとつとウーロン茶ひとつ あと親子丼")
    turn = await call.say("お茶 ひとつ減らしてください")
    assert [c.name for c in turn.calls] == []
    assert "緑茶" in turn.answer and "ウーロン茶" in turn.answer
    assert call.order() == {("緑茶", None): 1, ("ウーロン茶", None): 1, ("親子丼", None): 1}
    await call.say("ウーロンのほう")
    assert call.order() == {("緑茶", None): 1, ("親子丼", None): 1}


async def test_a_count_after_two_lines_were_ordered_asks_which_one(call):
    await call.say("唐揚げ弁当3つとのり弁当3つ")
    turn = await call.say("やっぱ2つで")
    assert turn.calls == [] and "唐揚げ弁当" in turn.answer and "のり弁当" in turn.answer
    await call.say("のり弁当のほう")
    assert call.order() == {("唐揚げ弁当", None): 3, ("のり弁当", None): 2}


async def test_a_pronoun_with_nothing_ordered_writes_nothing(call):
    turn = await call.say("それ2つに")
    assert not [c for c in turn.calls if c.name in ("add_item", "change_item")]
    assert call.order() == {}


async def test_a_yes_after_the_read_back_places_the_order(call, restaurant):
    await call.say("カツ丼ふたつ")
    await call.say("えっと 1時間後に取りに行けます")
    await call.say("確認お願いします")
    turn = await call.say("はい お願いします")
    assert [c.name for c in turn.calls][:1] == ["confirm_order"]
    assert "受付番号" in turn.answer
    assert call.order() == {}  # the draft became the order


async def test_one_line_with_items_and_a_time_does_both(call):
    turn = await call.say("唐揚げ弁当ひとつと のり弁ふたつ 7時半に取りに行きます")
    assert call.order() == {("唐揚げ弁当", None): 1, ("のり弁当", None): 2}
    assert "19:30" in turn.answer


async def test_a_swap_to_a_sold_out_item_leaves_the_line_it_would_replace(call):
    await call.say("牛丼ふたつ 大盛りで")
    turn = await call.say("牛丼を天丼に変えてもらえますか")  # 天丼 is sold out today
    assert "売り切れ" in turn.answer
    assert call.order() == {("牛丼", "大盛り"): 2}


async def test_a_command_said_in_the_negative_is_never_made(call):
    await call.say("味噌汁ひとつと枝豆ひとつ")
    turn = await call.say("味噌汁は取り消さないで")
    assert not [c for c in turn.calls if c.name not in ("read_order", "search_menu")]
    turn = await call.say("don't remove the miso soup remove the edamame")  # English: asked again, nothing done
    assert call.order() == {("味噌汁", None): 1, ("枝豆", None): 1}
    await call.say("味噌汁は抜かないで 枝豆を抜いて")  # a verb of one kanji (抜く): only the command after it
    assert call.order() == {("味噌汁", None): 1}
    await call.say("枝豆ひとつ")
    await call.say("味噌汁は取り消さないで 枝豆を取り消して")
    assert call.order() == {("味噌汁", None): 1}


async def test_a_line_put_in_and_taken_back_in_one_breath_changes_nothing(call):
    await call.say("生姜焼き弁当と味噌汁 ください")
    turn = await call.say("味噌汁 もうひとつ…いや やっぱいらないです")
    assert turn.calls == []
    assert call.order() == {("生姜焼き弁当", None): 1, ("味噌汁", None): 1}


async def test_a_change_to_an_item_not_on_the_menu_names_it_and_changes_nothing(call):
    await call.say("鮭弁当 ふたつ お願いします")
    turn = await call.say("鮭弁当ひとつ カレーに変えてもらえる？")
    assert call.order() == {("鮭弁当", None): 2}  # never one salmon bento less, the curry dropped
    assert "カレー" in turn.answer and not turn.calls


@pytest.mark.parametrize(("said", "lines"), [
    ("牛丼 3つで", {("牛丼", None): 3}),  # the count the line is to have
    ("牛丼もう3つで", {("牛丼", None): 5}),  # more of it
    ("actually no more than one gyudon", {("牛丼", None): 1}),  # never the line taken out
])
async def test_a_count_said_of_a_line_held_sets_it_or_adds_to_it_as_said(call, said, lines):
    await call.say("牛丼ふたつください")
    await call.say(said)
    assert call.order() == lines


async def test_the_other_one_is_the_line_not_left_alone(call):
    await call.say("かけうどんと きつねうどん ひとつずつください")
    await call.say("きつねは そのままで もう一つのほうを大盛りに")
    assert call.order() == {("かけうどん", "大盛り"): 1, ("きつねうどん", None): 1}


async def test_and_also_an_item_after_the_total_was_read_is_another_line(call):
    await call.say("生姜焼き弁当ふたつ お願いします")
    await call.say("全部でいくらですか")
    await call.say("はい、あと味噌汁も")
    assert call.order() == {("生姜焼き弁当", None): 2, ("味噌汁", None): 1}


@pytest.mark.parametrize(("first", "more", "meant"), [
    ("鮭弁当と牛丼ひとつずつ", "あ、お弁当もうひとつ", "鮭弁当"),  # the one bento held, not the bowl put in last
    ("one salmon bento and a beef bowl", "one more bento please", "鮭弁当"),
    ("カツ丼とコーラひとつずつください", "どんぶりもう1個", "カツ丼"),
    ("鮭弁当ひとつ", "もうひとつ", "鮭弁当"),
])
async def test_one_more_of_a_kind_is_the_line_of_that_kind(call, first, more, meant):
    await call.say(first)
    held = call.order()
    await call.say(more)
    assert call.order() == {**held, (meant, None): held[(meant, None)] + 1}


@pytest.mark.parametrize(("first", "more", "named"), [
    ("鮭弁当とのり弁当ひとつずつ", "お弁当もう一つ", ["鮭弁当", "のり弁当"]),  # two bentos: which, never the last
    ("one salmon bento and one nori bento", "uh one more", ["鮭弁当", "のり弁当"]),
    ("牛丼ひとつ", "あと飲み物ひとつ", ["緑茶", "ウーロン茶", "コーラ", "オレンジジュース"]),  # no drink held
])
async def test_one_more_that_fits_several_lines_or_none_is_asked_and_adds_nothing(call, first, more, named):
    await call.say(first)
    held = call.order()
    turn = await call.say(more)
    assert call.order() == held
    assert all(n in turn.answer for n in named), turn.answer


async def test_a_kind_ordered_with_no_item_is_asked_with_the_items_of_that_kind(call):
    turn = await call.say("お弁当 ひとつ ください")
    assert call.order() == {}
    assert all(n in turn.answer for n in ["唐揚げ弁当", "のり弁当", "幕の内弁当"]) and "牛丼" not in turn.answer


@pytest.mark.parametrize(("first", "said", "after"), [
    ("a cola and a green tea", "make the tea large not the cola", {("コーラ", None): 1, ("緑茶", "Lサイズ"): 1}),
    ("a cola and a green tea", "make it large, not the cola", {("コーラ", None): 1, ("緑茶", "Lサイズ"): 1}),
    ("three salmon bentos", "no not three two", {("鮭弁当", None): 2}),
    ("three salmon bentos", "no, two", {("鮭弁当", None): 2}),
    ("three salmon bentos", "just two", {("鮭弁当", None): 2}),
    ("a cola and a green tea", "drop the tea", {("コーラ", None): 1}),  # tea: the one tea held
])
async def test_a_line_said_in_the_negative_or_a_count_corrected_edits_the_line_meant(call, first, said, after):
    await call.say(first)
    await call.say(said)
    assert call.order() == after


@pytest.mark.parametrize(("first", "said", "named"), [
    ("a cola, a green tea and an oolong tea", "make it large, not the cola", ["緑茶", "ウーロン茶"]),
    ("one green tea one oolong tea and a beef bowl", "drop the tea", ["緑茶", "ウーロン茶"]),
])
async def test_a_line_said_in_the_negative_or_by_a_word_of_several_is_asked_never_guessed(call, first, said, named):
    await call.say(first)
    held = call.order()
    turn = await call.say(said)
    assert call.order() == held
    assert all(n in turn.answer for n in named), turn.answer


@pytest.mark.parametrize(("said", "lines"), [
    ("唐揚げ弁当 大盛りみっつと 普通のをひとつ", {("唐揚げ弁当", "大盛り"): 3, ("唐揚げ弁当", None): 1}),
    ("唐揚げ弁当の大盛りをみっつと 普通の唐揚げ弁当をひとつ ください",
     {("唐揚げ弁当", "大盛り"): 3, ("唐揚げ弁当", None): 1}),
    ("牛丼 並盛りふたつと 大盛りひとつ", {("牛丼", None): 2, ("牛丼", "大盛り"): 1}),
    ("gyudon, two regular and one large", {("牛丼", None): 2, ("牛丼", "大盛り"): 1}),
])
async def test_one_item_said_with_parts_of_their_own_counts_is_one_line_a_part(call, said, lines):
    turn = await call.say(said)
    assert call.order() == lines, turn.answer


async def test_a_plain_one_said_after_large_ones_is_another_line_of_the_item(call):
    await call.say("唐揚げ弁当 大盛りで みっつ ください")
    await call.say("あと 普通の唐揚げ弁当も ひとつ ください")
    assert call.order() == {("唐揚げ弁当", "大盛り"): 3, ("唐揚げ弁当", None): 1}


@pytest.mark.parametrize(("first", "then"), [("餃子 大盛りで ひとつ", "じゃあ 普通ので"),
                                             ("gyoza, large, one", "ok a regular one then")])
async def test_the_plain_one_said_after_an_option_refused_is_the_item_with_none(call, first, then):
    refused = await call.say(first)
    assert call.order() == {}, refused.answer
    await call.say(then)
    assert call.order() == {("餃子", None): 1}


async def test_each_one_less_counts_every_line_down(call):
    await call.say("牛丼ふたつと カツ丼みっつ")
    await call.say("それぞれ ひとつずつ減らしてください")
    assert call.order() == {("牛丼", None): 1, ("カツ丼", None): 2}


async def test_a_one_kanji_word_of_an_item_said_alone_names_it(call):
    await call.say("唐揚げと鮭 ふたつずつ")
    assert call.order() == {("唐揚げ弁当", None): 2, ("鮭弁当", None): 2}


async def test_a_name_misspelt_by_a_letter_before_a_category_word_is_the_item_and_said_so(call):
    turn = await call.say("can i get 2 karage bento and 1 oyako don")
    assert call.order() == {("唐揚げ弁当", None): 2, ("親子丼", None): 1}
    assert "karage bento" in turn.answer and "唐揚げ弁当" in turn.answer
    turn = await call.say("and 2 teriyaki bento")  # no item close: asked, nothing written
    assert call.order() == {("唐揚げ弁当", None): 2, ("親子丼", None): 1}
    assert "teriyaki bento" in turn.answer


@pytest.mark.parametrize(("said", "after"), [
    ("one more of each", {("牛丼", None): 2, ("コーラ", None): 2}),
    ("それぞれもう一つ", {("牛丼", None): 2, ("コーラ", None): 2}),
    ("もう2つずつ", {("牛丼", None): 3, ("コーラ", None): 3}),  # two more each, never each set to two
    ("両方とも2つに", {("牛丼", None): 2, ("コーラ", None): 2}),
])
async def test_more_of_each_line_adds_to_every_line_and_a_count_for_both_sets_it(call, said, after):
    await call.say("牛丼とコーラひとつずつ")
    await call.say(said)
    assert call.order() == after


async def test_a_change_that_names_nothing_to_change_says_so_and_changes_nothing(call):
    await call.say("2 karaage bento and a gyoza please")
    turn = await call.say("make the karage ones larg")  # the size misspelt past reading: no new size was heard
    assert call.order() == {("唐揚げ弁当", None): 2, ("餃子", None): 1}
    assert "not changed" in turn.answer and "changed." not in turn.answer, turn.answer
    turn = await call.say("唐揚げのやつ、かえて")
    assert call.order() == {("唐揚げ弁当", None): 2, ("餃子", None): 1}
    assert "変えていません" in turn.answer and "変更しました" not in turn.answer, turn.answer
