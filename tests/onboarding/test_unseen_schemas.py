"""Business schemas nobody here designed (tests/support/business_schemas): their data, their drafts, their answers.

Each schema is built once per engine; its catalog is drafted once, as `concierge init` drafts it, and
every question is asked once through the offline planner (tests/support/business_eval.py). A wrong
answer (a figure that is not the one asked for) fails; an honest one (an ask, a refusal, a stated
limitation) does not. `tests/onboarding/unseen_report.py` prints the same verdicts with the answers.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType

import business_eval
import pytest
import sqlalchemy as sa
from business_eval import Figure, judge
from business_schemas import NAMES, schema
from pg_databases import fresh_database

from concierge.catalog.loader import parse_catalog
from concierge.language.detect import language

# The least share of right answers per schema and engine: a little under what the drafts and the planner answer
# now (`python tests/onboarding/unseen_report.py --backend both` prints the verdicts), so a change that answers
# fewer questions right fails here. No answer may be wrong, whatever the floor.
FLOOR = {"music_store": 0.85, "classic_shop": 0.85, "romaji_wholesale": 0.85, "film_rental": 0.8, "clinic": 0.75,
         "hotel": 0.65, "cycle_works": 0.8, "salon": 0.8, "warehouse": 0.6,
         "gym": 0.55}

KINDS = {"count", "count_by_entity_name", "per_entity_key", "top_entity", "total_in_period", "count_in_category",
         "list_filtered", "follow_up", "sum_lines"}


@dataclass(frozen=True)
class Business:
    name: str
    module: ModuleType
    url: str
    expected: dict[str, business_eval.Expected]


@contextmanager
def _database(backend: str, request, tmp_path_factory) -> Iterator[str]:
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('business') / 'business.db'}"
        return
    with fresh_database(request.getfixturevalue("pg_server"), prefix="unseen") as url:
        yield url


@pytest.fixture(scope="module", params=[
    pytest.param((name, backend), id=f"{name}-{backend}",
                 marks=[pytest.mark.postgres] if backend == "postgres" else [])
    for name in NAMES for backend in ("sqlite", "postgres")])
def business(request, tmp_path_factory) -> Iterator[Business]:
    name, backend = request.param
    module = schema(name)
    with _database(backend, request, tmp_path_factory) as url:
        module.create(url)
        yield Business(name, module, url, business_eval.expected_figures(module, url))


@pytest.fixture(scope="module")
def drafted(business) -> str:
    return business_eval.draft(business.module, business.url)


@pytest.fixture(scope="module")
def outcomes(business, drafted) -> list[business_eval.Outcome]:
    return business_eval.ask_all(business.module, business.url, drafted, expected=business.expected)


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


def test_the_schemas_and_their_figures(business):
    engine = sa.create_engine(business.url)
    try:
        tables = sa.inspect(engine).get_table_names()
        with engine.connect() as conn:
            assert all(conn.execute(sa.select(sa.func.count()).select_from(sa.table(t))).scalar() for t in tables)
    finally:
        engine.dispose()
    assert set(business.expected) == {q.id for q in business.module.QUESTIONS}
    for q in business.module.QUESTIONS:  # every statement gave one value (NULL raises in expected_figures)
        figures = business.expected[q.id]
        assert (len(figures.figures), len(figures.allowed)) == (len(q.figures_sql), len(q.may_state)), q.id


def test_the_traps_are_in_the_data(business):
    """What each schema claims to hold that a careless draft gets wrong is really there."""
    business.module.traps(business.url)


# --- the draft and the answers ------------------------------------------------------------------------
def test_the_drafted_catalog_loads(business, drafted):
    catalog = parse_catalog(drafted, f"{business.name}.yaml")
    assert catalog.tools


def test_no_answer_is_wrong(business, outcomes):
    wrong = [o for o in outcomes if o.verdict == "wrong"]
    assert not wrong, "\n".join(
        f"{o.question.id} ({o.question.say}): expected {', '.join(map(str, o.expected))}; "
        f"stated {', '.join(o.extra)}; calls {[(c.name, c.args) for c in o.calls]}" for o in wrong)
    right = sum(o.verdict == "right" for o in outcomes)
    assert right >= FLOOR[business.name] * len(outcomes), f"{right} right of {len(outcomes)}"


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
