"""Prompts and completions over MCP, driven by the SDK's own client: a role sees the prompts of its own tools,
and an enum argument completes from the values the data has."""

from __future__ import annotations

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from concierge.mcp.server import build_server

pytestmark = pytest.mark.anyio


def client(pipeline, user: str) -> Client:
    return Client(build_server(pipeline, user=pipeline.user(user)))


def _ref(name: str) -> types.PromptReference:
    return types.PromptReference(type="ref/prompt", name=name)


@pytest.mark.parametrize(("user", "expected"), [
    ("suzuki", {"get_customers", "get_sales"}),
    ("pos_analyst", {"compare_periods", "sales_ranking", "daily_sales"}),
])
async def test_a_role_lists_the_prompts_of_the_tools_it_may_call(pipeline, user, expected):
    async with client(pipeline, user) as c:
        assert c.server_capabilities.prompts is not None and c.server_capabilities.completions is not None
        listed = {p.name for p in (await c.list_prompts()).prompts}
        tools = {t.name for t in (await c.list_tools()).tools}
    assert listed == expected and listed <= tools


async def test_a_prompt_is_an_example_request_and_its_arguments_are_the_tools(pipeline):
    async with client(pipeline, "suzuki") as c:
        sales = next(p for p in (await c.list_prompts()).prompts if p.name == "get_sales")
        assert [a.name for a in sales.arguments or []] == [
            "code_customer", "code_sales", "date_sales_begin_str", "date_sales_end_str"]
        plain = await c.get_prompt("get_sales")
        assert plain.messages[0].role == "user"
        assert plain.messages[0].content.text == "顧客コード0009の先週の販売データを見せて"
        given = await c.get_prompt("get_sales", {"code_customer": "0009", "date_sales_begin_str": "2025-05-05"})
        text = given.messages[0].content.text
        assert "code_customer = 0009" in text and "date_sales_begin_str = 2025-05-05" in text


async def test_another_roles_prompt_is_not_found_and_a_wrong_argument_lists_the_right_ones(pipeline):
    async with client(pipeline, "suzuki") as c:
        with pytest.raises(MCPError, match="no prompt 'compare_periods'"):
            await c.get_prompt("compare_periods")
        with pytest.raises(MCPError, match="takes no customer; its arguments: code_customer, code_sales"):
            await c.get_prompt("get_sales", {"customer": "0009"})
        nothing = await c.complete(_ref("compare_periods"), {"name": "category", "value": ""})
    assert nothing.completion.values == [] and nothing.completion.total == 0


async def test_an_enum_argument_completes_from_the_data_by_what_was_typed(pipeline):
    async with client(pipeline, "pos_analyst") as c:
        every = await c.complete(_ref("compare_periods"), {"name": "category", "value": ""})
        typed = await c.complete(_ref("compare_periods"), {"name": "category", "value": "弁"})
        inside = await c.complete(_ref("compare_periods"), {"name": "category", "value": "料"})
        free = await c.complete(_ref("compare_periods"), {"name": "cur_start", "value": "2026"})
    assert set(every.completion.values) == {"おにぎり", "デザート", "弁当", "飲料"}
    assert every.completion.total == 4 and every.completion.has_more is False
    assert typed.completion.values == ["弁当"]
    assert inside.completion.values == ["飲料"]
    assert free.completion.values == []  # a date is not chosen from a list
