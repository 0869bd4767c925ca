"""Business schemas nobody here designed (tests/support/business_schemas): their data, their drafts, their answers.

Each schema is built once per engine; its catalog is drafted once, as `concierge init` drafts it, and
every question is asked once through the offline planner (tests/support/business_eval.py). A wrong
answer (a figure that is not the one asked for) fails; an honest one (an ask, a refusal, a stated
limitation) does not. `tests/onboarding/unseen_report.py` prints the same verdicts with the answers. The
tests of each schema are tests/support/unseen_suite.py's: this module runs them on the first five schemas,
test_unseen_schemas_later.py on the others, so that two workers build and ask them at once.
"""

from __future__ import annotations

import pytest
from business_eval import Figure, judge
from business_schemas import NAMES, schema
from unseen_suite import (  # noqa: F401  (the fixtures and tests of each schema, run here on the first five)
    business_fixture,
    drafted,
    outcomes,
    test_no_answer_is_wrong,
    test_the_drafted_catalog_loads,
    test_the_schemas_and_their_figures,
    test_the_traps_are_in_the_data,
)

from concierge.language.detect import language

KINDS = {"count", "count_by_entity_name", "per_entity_key", "top_entity", "total_in_period", "count_in_category",
         "list_filtered", "follow_up", "sum_lines"}

business = business_fixture(NAMES[:5])

# --- the cases themselves ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_the_questions_are_well_formed(name):
    module = schema(name)
    questions = module.QUESTIONS
    ids = [q.id for q in questions]
    assert 20 <= len(questions) <= 30 and len(set(ids)) == len(ids)
    assert {q.kind for q in questions} <= KINDS
    for q in questions:
        assert q.figures_sql, q.id
        assert (q.kind == "follow_up") == (q.follow_up is not None), q.id
        if q.follow_up:
            assert ids.index(q.follow_up) < ids.index(q.id), q.id
    japanese = sum(language(q.say) == "ja" for q in questions)
    assert japanese * 5 >= len(questions) * 2 if name != "romaji_wholesale" else japanese * 2 > len(questions)


# --- the judge ----------------------------------------------------------------------------------------
def _money(text: str) -> Figure:
    return Figure.of(float(text))


@pytest.mark.parametrize(("answer", "expected", "allowed", "verdict"), [
    ("With genre Rock, there are 319 in all.", [319], [], "right"),
    ("全部で1,284件ありました。", [1284], [], "right"),
    ("There are 75 in all.", [3], [], "wrong"),  # every album, not AC/DC's
    ("With genre Rock, there are 319 in all.\nTotals: unit price 315.81, milliseconds 95,285,624.", [319], [],
     "wrong"),  # sums that must never be summed
    ("期間 先週（12/9〜12/15）で、全部で2件ありました。\n合計: 合計 22.78。", [2], [_money("22.78")], "right"),
    ("The total is 81.23999999999998.", [_money("81.24")], [], "wrong"),  # a float printed raw
    ("The total is 81.24.", [_money("81.24")], [], "right"),
    ("With period last month (Sep 1–30), the total is ¥3,344,618.", [3344618], [], "right"),
    ("その内容にはお答えできません。", [75], [], "honest"),
    ("『ドイツ』に当たる国が見つかりません。国をもう一度教えてください。", [4], [], "honest"),
    ("There is 1 result.\n| group | total |\n|---|---|\n| Frank | 167.36 |", ["Harris"], [], "wrong"),
    ("There is 1 result.\n| customer | total |\n|---|---|\n| Holý | 130.76 |", ["Holý", _money("130.76")], [],
     "right"),
    ("There are 2 results.\n| product |\n|---|\n| Chai |\n| Côte de Blaye |", ["Côte de Blaye"], [],
     "wrong"),  # a listing names the answer, but not first
    ("The best seller is Water Bottle - 30 oz. (238).", ["Water Bottle - 30 oz.", 238], [], "right"),  # its 30
    ("The best seller is Water Bottle - 30 oz. (238), 12 more than Road-150.", ["Water Bottle - 30 oz.", 238], [],
     "wrong"),
])
def test_the_judge(answer, expected, allowed, verdict):
    figures = [f if isinstance(f, Figure) else Figure.of(f) for f in expected]
    assert judge("How many?", answer, figures, allowed)[0] == verdict


def test_the_judge_ignores_the_question_s_own_numbers_and_dates():
    assert judge("Show me the invoices of customer 5 in March 2009", "Customer 5 had 2 invoices in 2009-03.",
                 [Figure.of(2)])[0] == "right"
    refused = "『受注番号1024』で絞り込むことはできません。"
    assert judge("受注番号1024の合計金額は？", refused, [Figure.of(19018)])[0] == "honest"
