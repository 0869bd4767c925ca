"""The business schemas after the first five (test_unseen_schemas.py says what is tested of each), in a module of
their own so that two test workers build and ask them at once."""

from __future__ import annotations

from business_schemas import NAMES
from unseen_suite import (  # noqa: F401  (the fixtures and tests of each schema, run here on these)
    business_fixture,
    drafted,
    outcomes,
    test_no_answer_is_wrong,
    test_the_drafted_catalog_loads,
    test_the_schemas_and_their_figures,
    test_the_traps_are_in_the_data,
)

business = business_fixture(NAMES[5:])
