"""Words read around values by token rules: names with rare kanji, joiners, numbered people, ranks."""

from __future__ import annotations

import pytest

from concierge.planner.choose import keyword_parts, refusal
from concierge.planner.slots import read
from concierge.planner.text import normalise


def slots_of(planning, text):
    return read(normalise(text), planning.today, planning.lexicon, dict(planning.pipeline.guard_context().enum_values))


@pytest.mark.parametrize("text,names", [
    ("山﨑さんの先週の売上", ["山﨑"]), ("𠮷田さん", ["𠮷田"]),
    ("髙橋様の住所", ["髙橋"]), ("德川さんの注文", ["德川"]),
])
def test_names_with_rare_kanji(farm_plan, text, names):
    assert [n for n, _ in slots_of(farm_plan, text).names] == names


@pytest.mark.parametrize("text,refused", [
    ("データを削除して", "change"), ("売上を書き換えて", "change"), ("顧客の名前を変更してください", "change"),
    ("注文を取り消して", "change"), ("delete the sales of last week", "change"), ("消去", "change"),
    ("変更はありますか", None), ("先週の売上", None), ("editorial sales", None),
])
def test_a_request_to_delete_or_change_data_is_refused(farm_plan, text, refused):
    assert refusal(slots_of(farm_plan, text), farm_plan.lexicon) == refused


@pytest.mark.parametrize("text,tools", [
    ("先週の売上と顧客一覧", 2), ("トップの売上", 1),
])
def test_two_things_asked_are_joined_by_a_joiner(farm_plan, text, tools):
    assert len(keyword_parts(slots_of(farm_plan, text), farm_plan.lexicon)) == tools
