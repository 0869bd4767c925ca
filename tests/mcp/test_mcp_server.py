"""The MCP server in process, driven by the SDK's own client, on SQLite and PostgreSQL."""

from __future__ import annotations

import jsonschema
import pytest
import sqlalchemy as sa
from mcp import Client
from mcp.shared.exceptions import MCPError

from concierge.demo.farm import tables as farm_tables
from concierge.mcp.server import build_server
from concierge.storage import users

pytestmark = pytest.mark.anyio

APRIL_MAY_0002 = {"code_customer": "0002", "date_sales_begin_str": "2025-04-01", "date_sales_end_str": "2025-05-31"}
WEEKS = {"cur_start": "2026-08-24", "cur_end": "2026-08-30", "prev_start": "2026-08-17", "prev_end": "2026-08-23"}


def client(pipeline, user: str) -> Client:
    return Client(build_server(pipeline, user=pipeline.user(user)))


def sales_with(pipeline, products: str) -> int:
    with pipeline.db.read() as conn:
        query = sa.select(sa.func.count()).select_from(farm_tables.farm_sales).where(
            farm_tables.farm_sales.c.products == products)
        return conn.scalar(query)


@pytest.mark.parametrize(("user", "expected"), [
    ("admin", {"get_customers", "get_sales", "add_sale", "compare_periods", "sales_ranking", "daily_sales"}),
    ("tanaka", {"get_customers", "get_sales", "add_sale"}),
    ("suzuki", {"get_customers", "get_sales"}),
    ("pos_analyst", {"compare_periods", "sales_ranking", "daily_sales"}),
])
async def test_lists_the_tools_the_user_may_call(pipeline, user, expected):
    async with client(pipeline, user) as c:
        listed = await c.list_tools()
    assert {t.name for t in listed.tools} == expected


async def test_declarations_carry_schemas_from_the_data_and_annotations(pipeline):
    async with client(pipeline, "admin") as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    sales = tools["get_sales"].input_schema
    assert sales["additionalProperties"] is False
    assert sales["required"] == ["code_customer"]
    assert sales["properties"]["date_sales_begin_str"]["format"] == "date"
    category = tools["compare_periods"].input_schema["properties"]["category"]
    assert set(category["enum"]) == {"おにぎり", "デザート", "弁当", "飲料", None}
    assert "2026-07-01 .. 2026-08-31" in tools["compare_periods"].input_schema["properties"]["cur_start"]["description"]
    assert tools["get_sales"].annotations.read_only_hint is True
    write = tools["add_sale"]
    assert write.annotations.read_only_hint is False
    assert "confirmation_token" in write.input_schema["properties"]
    assert "confirmation_token" not in write.input_schema["required"]
    assert "confirmation_token" in write.description and "preview" in write.description
    assert "confirmation_token" not in sales["properties"]
    assert {"status", "rows", "totals", "message"} <= set(write.output_schema["properties"])


async def test_each_demo_tool_answers_with_structured_and_text_content(pipeline):
    async with client(pipeline, "admin") as c:
        customers = await c.call_tool("get_customers", {"name_str_customer": "佐藤"})
        sales = await c.call_tool("get_sales", APRIL_MAY_0002)
        compare = await c.call_tool("compare_periods", {**WEEKS, "category": None})
        ranking = await c.call_tool("sales_ranking", {"start": "2026-08-01", "end": "2026-08-31", "category": "弁当",
                                                      "top_n": 3, "order": "desc"})
        daily = await c.call_tool("daily_sales", {"start": "2026-08-24", "end": "2026-08-30", "product": "プリン",
                                                  "category": None})
    for result in (customers, sales, compare, ranking, daily):
        assert result.is_error is False
        assert result.structured_content["status"] == "ok"
    assert [r["code_customer"] for r in customers.structured_content["rows"]] == ["0001", "0009"]
    assert sales.structured_content["totals"] == {"count": 4, "price": 2180}
    assert '"price":2180' in sales.content[0].text
    summary = compare.structured_content["summary"]
    assert (summary["current_total"], summary["previous_total"], summary["change"]) == (635010, 647940, -12930)
    assert [d["product"] for d in summary["top_decreases"]] == ["ハンバーグ弁当", "明太子おにぎり", "麦茶"]
    assert '"current_total":635010' in compare.content[0].text
    assert ranking.structured_content["row_count"] == 3
    assert {r["category"] for r in ranking.structured_content["rows"]} == {"弁当"}
    assert [r["date"] for r in daily.structured_content["rows"]][0] == "2026-08-24"
    assert daily.structured_content["row_count"] == 7


@pytest.mark.parametrize(("name", "args"), [
    ("get_sales", {"code_customer": "12"}),
    ("get_sales", {"code_customer": "0002", "date_sales_begin_str": "2025-05-31", "date_sales_end_str": "2025-04-01"}),
    ("compare_periods", {**WEEKS, "category": "パン"}),
    ("get_customers", {"code": "0009"}),
    ("drop_tables", {}),
])
async def test_a_refusal_is_an_error_result_with_the_guards_message(pipeline, name, args):
    expected = pipeline.invoke(name, args, pipeline.user("admin"))
    async with client(pipeline, "admin") as c:
        result = await c.call_tool(name, args)
    assert result.is_error is True
    assert result.structured_content["status"] == "refused"
    assert result.content[0].text.splitlines()[0] == expected.message
    assert "Traceback" not in result.content[0].text


async def test_a_permission_refusal_says_who_may_not_call_what(pipeline):
    async with client(pipeline, "suzuki") as c:
        result = await c.call_tool("add_sale", {"code_customer": "0003", "products": "ナス1個", "price": 60})
    assert result.is_error is True
    assert result.structured_content["code"] == "not_permitted"
    assert result.content[0].text == "user suzuki (role viewer) is not permitted to call add_sale"


async def test_tanaka_cannot_see_customer_0002(pipeline):
    async with client(pipeline, "tanaka") as c:
        hidden = await c.call_tool("get_sales", APRIL_MAY_0002)
        not_listed = await c.call_tool("get_customers", {"code_customer": "0002"})
        own = await c.call_tool("get_customers", {"code_customer": "0011"})
    assert hidden.is_error is True
    assert hidden.structured_content["code"] == "not_found"
    assert "2180" not in hidden.content[0].text and "John Smith" not in hidden.content[0].text
    assert not_listed.structured_content["row_count"] == 0
    assert own.structured_content["row_count"] == 1


async def test_a_write_waits_for_its_token_and_runs_once(pipeline):
    sale = {"code_customer": "0011", "products": "MCPかぼちゃ3個", "price": 360}
    async with client(pipeline, "tanaka") as c:
        preview = await c.call_tool("add_sale", sale)
        assert preview.is_error is False
        assert preview.structured_content["status"] == "confirm"
        assert preview.structured_content["preview"]["products"] == sale["products"]
        token = preview.structured_content["confirmation_token"]
        assert token in preview.content[0].text
        assert sales_with(pipeline, sale["products"]) == 0

        altered = await c.call_tool("add_sale", {**sale, "price": 999, "confirmation_token": token})
        assert altered.is_error is True and altered.structured_content["code"] == "confirmation_invalid"
        written = await c.call_tool("add_sale", {**sale, "confirmation_token": token})
        assert written.is_error is False
        assert written.structured_content["rows"][0]["price"] == 360
        replay = await c.call_tool("add_sale", {**sale, "confirmation_token": token})
    assert replay.is_error is True
    assert replay.structured_content["code"] == "confirmation_invalid"
    assert sales_with(pipeline, sale["products"]) == 1


async def test_every_result_matches_the_declared_output_schema(pipeline):
    calls = [("add_sale", {"code_customer": "0003", "products": "ナス2個", "price": 180}),
             ("add_sale", {"code_customer": "99"}),
             ("get_sales", {"code_customer": "0020"}),
             ("get_customers", {"name_str_customer": "佐藤"}),
             ("compare_periods", {**WEEKS, "category": None}),
             ("sales_ranking", {"start": "2026-08-01", "end": "2026-08-31", "category": "弁当", "top_n": 3,
                                "order": "desc"}),
             ("daily_sales", {"start": "2026-08-24", "end": "2026-08-30", "product": "プリン", "category": None})]
    async with client(pipeline, "admin") as c:
        schemas = {t.name: t.output_schema for t in (await c.list_tools()).tools}
        results = [(name, await c.call_tool(name, args)) for name, args in calls]
    assert {name for name, _ in calls} == set(schemas)  # every tool the user has
    for name, result in results:  # each result against its own tool's schema
        assert schemas[name], f"{name} declares no output schema"
        jsonschema.validate(result.structured_content, schemas[name])


async def test_resources_show_catalogs_and_valid_values_of_the_users_tools(pipeline):
    async with client(pipeline, "admin") as c:
        uris = {r.uri for r in (await c.list_resources()).resources}
        values = await c.read_resource("concierge://tool/compare_periods")
        catalog = await c.read_resource("concierge://catalog/farm")
    assert {"concierge://catalog/farm", "concierge://catalog/pos", "concierge://tool/daily_sales"} <= uris
    text = values.contents[0].text
    assert '"おにぎり"' in text and '"min": "2026-07-01"' in text and '"max": "2026-08-31"' in text
    assert "顧客" in catalog.contents[0].text and '"today": "2025-05-15"' in catalog.contents[0].text

    async with client(pipeline, "tanaka") as c:
        uris = {r.uri for r in (await c.list_resources()).resources}
        with pytest.raises(MCPError, match="no resource"):
            await c.read_resource("concierge://tool/compare_periods")
    assert uris == {"concierge://catalog/farm", "concierge://tool/get_customers", "concierge://tool/get_sales",
                    "concierge://tool/add_sale"}


async def test_a_system_error_is_a_protocol_error_of_one_line_without_sql_or_traceback(pipeline):
    with pipeline.db.write() as conn:
        conn.execute(sa.text("DROP TABLE farm_sales"))
    async with client(pipeline, "admin") as c:
        with pytest.raises(MCPError) as failure:
            await c.call_tool("get_sales", {"code_customer": "0009"})
        still = await c.call_tool("get_customers", {"code_customer": "0009"})
    message = failure.value.error.message
    assert message and "\n" not in message and "SELECT" not in message and "Traceback" not in message
    assert still.structured_content["row_count"] == 1


async def test_the_header_check_needs_no_call_to_tools_list(pipeline):
    """The SDK checks a call's `Mcp-Param-*` headers against the arguments the tool's schema marks for a header;
    no listed schema marks any, so the server tells it so without the tools/list per call it would run."""
    server = build_server(pipeline, user=pipeline.user("admin"))
    async with Client(server) as c:
        listed = {t.name: t.input_schema for t in (await c.list_tools()).tools}
    assert server.get_tool_input_schema is not None
    for name, schema in listed.items():
        assert "x-mcp-header" not in str(schema), name
        assert server.get_tool_input_schema(name) is None


async def test_a_call_is_decided_on_the_rights_the_user_has_now(pipeline):
    """The server's user is read at every call: a role taken away counts at once, and a user removed while the
    server runs gets a refusal that says so, as a tool result, and nothing runs."""
    week = {"code_customer": "0009", "date_sales_begin_str": "2025-05-05", "date_sales_end_str": "2025-05-11"}
    users.add(pipeline.state, "leaver", "viewer", "Leaver")
    async with client(pipeline, "leaver") as c:
        assert not (await c.call_tool("get_sales", week)).is_error
        users.set_role(pipeline.state, "leaver", "pos_analyst")
        assert (await c.call_tool("get_sales", week)).is_error
        users.remove(pipeline.state, "leaver")
        gone = await c.call_tool("get_sales", week)
    assert gone.is_error and "no longer exists" in gone.content[0].text
