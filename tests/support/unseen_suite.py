"""The tests of a business schema of tests/support/business_schemas, for a test module to run on some of them.

Each schema is built once per engine; its catalog is drafted once, as `concierge init` drafts it, and every
question is asked once through the offline planner (business_eval.py). A wrong answer (a figure that is not the
one asked for) fails; an honest one (an ask, a refusal, a stated limitation) does not. A module declares
`business = business_fixture(names)` and imports the fixtures and tests below; two modules split the schemas so
that two test workers build and ask them at once.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import business_eval
import pytest
import sqlalchemy as sa
from business_schemas import schema
from pg_databases import sqlite_or_postgres

from concierge.catalog.loader import parse_catalog

# The least share of right answers per schema and engine: a little under what the drafts and the planner answer
# now (`python tests/onboarding/unseen_report.py --backend both` prints the verdicts), so a change that answers
# fewer questions right fails here. No answer may be wrong, whatever the floor.
FLOOR = {"music_store": 0.85, "classic_shop": 0.85, "romaji_wholesale": 0.85, "film_rental": 0.8, "clinic": 0.75,
         "hotel": 0.65, "cycle_works": 0.8, "salon": 0.8, "warehouse": 0.6, "gym": 0.55}


@dataclass(frozen=True)
class Business:
    name: str
    module: ModuleType
    url: str
    expected: dict[str, business_eval.Expected]


def business_fixture(names: Sequence[str]) -> Any:
    """The `business` fixture of a test module: each of `names` built on SQLite and on PostgreSQL."""

    @pytest.fixture(scope="module", params=[
        pytest.param((name, backend), id=f"{name}-{backend}",
                     marks=[pytest.mark.postgres] if backend == "postgres" else [])
        for name in names for backend in ("sqlite", "postgres")])
    def business(request, tmp_path_factory) -> Iterator[Business]:
        name, backend = request.param
        module = schema(name)
        with sqlite_or_postgres(backend, request, tmp_path_factory.mktemp("business"), "business") as url:
            module.create(url)
            yield Business(name, module, url, business_eval.expected_figures(module, url))

    return business


@pytest.fixture(scope="module")
def drafted(business) -> str:
    return business_eval.draft(business.module, business.url)


@pytest.fixture(scope="module")
def outcomes(business, drafted) -> list[business_eval.Outcome]:
    return business_eval.ask_all(business.module, business.url, drafted, expected=business.expected)


def test_the_schemas_and_their_figures(business):
    engine = sa.create_engine(business.url)
    try:
        declared = business.module.metadata.tables  # the business's, not concierge's own tables beside them
        tables = [t for t in sa.inspect(engine).get_table_names() if t in declared]
        assert len(tables) == len(declared)
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
