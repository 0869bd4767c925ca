"""The Jaffle Shop flow of test_jaffle_flow.py on MariaDB, as it runs there on SQLite and PostgreSQL: the same tests
in a module of their own, so that the third database runs on another test worker."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from test_jaffle_flow import (  # noqa: F401  (the flow's fixtures and tests, run here on MariaDB)
    Shop,
    jaffle_rows,
    opened_shop,
    test_ask_answers_with_the_figure_plain_sql_gives,
    test_ask_as_written_answers_how_many_customers,
    test_ask_counts_the_items_of_a_product_whose_name_has_a_hyphen,
    test_ask_counts_the_orders_of_one_customer_named_in_words,
    test_ask_names_the_busiest_day_first,
    test_ask_names_the_product_ordered_most_often_first,
    test_init_writes_the_settings_and_a_draft_of_every_table,
    test_mcp_config_starts_a_server_that_lists_the_drafted_tools,
    test_orders_are_compared_by_customer_over_two_months_with_the_figures_plain_sql_gives,
    test_rerunning_init_keeps_the_reviewed_draft_and_writes_the_new_one_beside_it,
    test_serve_answers_the_same_questions_in_the_web_chat,
    test_the_draft_is_checked_against_the_live_database_and_passes,
    test_the_user_is_added_with_a_role_of_the_catalog,
)


@pytest.fixture(scope="module", params=[pytest.param("mysql", marks=pytest.mark.mysql)])
def shop(request, jaffle_rows, tmp_path_factory) -> Iterator[Shop]:  # noqa: F811
    with opened_shop(request, jaffle_rows, tmp_path_factory) as s:
        yield s
