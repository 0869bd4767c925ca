"""Conditions read by token rules over words of questions.toml: the figure, its operator, none and some."""

from __future__ import annotations

import pytest

from concierge.planner.conditions import EN_INFIX, EN_PREFIX, JA_MARKER, parse


@pytest.mark.parametrize("clause,measure,op,value", [
    ("今月の販売件数がまだ0件の場合", "count", "==", 0), ("30件以上なら", "count", ">=", 30),
    ("1000円以下の場合", "amount", "<=", 1000), ("1,500円未満", "amount", "<", 1500),
    ("3件より少ない", "count", "<", 3),
    ("10件を超える", "count", ">", 10), ("30件超", "count", ">", 30),
    ("if there are fewer than 5 sales", "count", "<", 5),
    ("no more than 3 orders", "count", "<=", 3), ("at least 2 purchases", "count", ">=", 2),
    ("5 orders or more", "count", ">=", 5), ("over 500 yen", "amount", ">", 500),
])
def test_a_figure_and_how_it_is_compared(clause, measure, op, value):
    condition = parse(clause)
    assert condition is not None and (condition.measure, condition.op, condition.value) == (measure, op, value)


@pytest.mark.parametrize("clause,op,value", [
    ("売上がない場合", "==", 0), ("まだ一件もなければ", "==", 0), ("購入がありません", "==", 0),
    ("売れていない", "==", 0),
    ("ゼロなら", "==", 0), ("if no sales", "==", 0), ("if the customer hasn't bought", "==", 0),
    ("if the customer has not bought", "==", 0), ("nothing", "==", 0),
    ("購入があれば", ">=", 1), ("注文があった", ">=", 1),
])
def test_none_and_some(clause, op, value):
    condition = parse(clause)
    assert condition is not None and (condition.measure, condition.op, condition.value) == ("count", op, value)


@pytest.mark.parametrize("clause", ["少ない商品", "先週の売上", "the best seller"])
def test_no_condition(clause):
    assert parse(clause) is None


def test_the_words_that_end_or_begin_a_condition():
    assert JA_MARKER.search("売上がなければ、登録して").group() == "なければ、"
    assert JA_MARKER.search("0件の場合は、登録").group() == "の場合は、"
    assert EN_PREFIX.match("Only if there are none, register").group() == "Only if "
    assert EN_INFIX.search("register it but only if there are none").group() == " but only if "
