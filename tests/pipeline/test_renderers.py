"""Every status of a tool result through every renderer: each shows what that status means, none leaks
the confirmation token (only MCP, whose caller must send it back, carries it)."""

from __future__ import annotations

import json
import re

import click
import pytest
from click.testing import CliRunner

from concierge.agent.providers.interface import Message
from concierge.agent.providers.wire import tool_output
from concierge.agent.store import message_from_json, message_to_json
from concierge.cli.render import print_result
from concierge.errors import ResultCode
from concierge.mcp.tools import call_result
from concierge.planner.answer import render
from concierge.sources.result import Confirmation, Failure, Refusal, Rows, ToolResult, from_json

TOKEN = "tok-SECRET-0123456789"
RESULTS = {
    "ok": Rows(tool="get_sales", columns=["date_sales", "price"],
               rows=[{"date_sales": "2025-05-10", "price": 1050}], row_count=1,
               totals={"count": 1, "price": 1050}),
    "empty": Rows(tool="get_sales", columns=["date_sales", "price"], row_count=0,
                  totals={"count": 0, "price": 0}),
    "refused": Refusal(tool="get_sales", code=ResultCode.BAD_ARGUMENT, param="code_customer",
                       message="code_customer: must match ^\\d{4}$", valid={"values": ["0001", "0002"]}),
    "error": Failure(tool="get_sales", code=ResultCode.NOT_FOUND, message="customer not found",
                     message_ja="顧客コードのお客様が見つかりません"),
    "confirm": Confirmation(tool="add_sale", message="Nothing is written yet.",
                            preview={"products": "かぼちゃ4個", "price": 600}, confirmation_token=TOKEN),
}
# What a person must see for each status, in any renderer (a Japanese answer says the Japanese message).
MUST_SHOW = {"ok": ["1050"], "empty": ["0"], "refused": ["0001"], "error": ["not found"],
             "confirm": ["かぼちゃ4個", "600"]}


def cli(result: ToolResult) -> str:
    @click.command()
    def show() -> None:
        print_result(result)

    return CliRunner().invoke(show).output


def mcp_text(result: ToolResult) -> str:
    return call_result(result).content[0].text


def planner_en(result: ToolResult) -> str:
    return render(result, "en", None)


def planner_ja(result: ToolResult) -> str:
    return render(result, "ja", None)


def model_wire(result: ToolResult) -> str:
    return tool_output(result)


def stored(result: ToolResult) -> str:
    return json.dumps(message_to_json(Message("tool", tool_call_id="c1", result=result)), ensure_ascii=False)


RENDERERS = [cli, mcp_text, planner_en, planner_ja, model_wire, stored]


@pytest.mark.parametrize("status", list(RESULTS))
@pytest.mark.parametrize("renderer", RENDERERS, ids=lambda r: r.__name__)
def test_every_renderer_shows_what_the_status_means(renderer, status):
    text = renderer(RESULTS[status])
    facts = ["見つかりません"] if (status, renderer) == ("error", planner_ja) else MUST_SHOW[status]
    for fact in facts:
        assert fact in re.sub(r"(?<=\d),(?=\d)", "", text), (renderer.__name__, status, text)  # 1,050 says 1050


@pytest.mark.parametrize("renderer", RENDERERS, ids=lambda r: r.__name__)
def test_only_mcp_carries_the_confirmation_token(renderer):
    text = renderer(RESULTS["confirm"])
    assert (TOKEN in text) is (renderer is mcp_text)
    assert TOKEN not in RESULTS["confirm"].model_dump_json()


def test_the_mcp_structured_content_carries_the_token_for_its_caller():
    assert call_result(RESULTS["confirm"]).structured_content["confirmation_token"] == TOKEN


@pytest.mark.parametrize("status", list(RESULTS))
def test_the_status_is_the_kind_of_result_read_back(status):
    kinds = {"ok": Rows, "empty": Rows, "refused": Refusal, "error": Failure, "confirm": Confirmation}
    assert isinstance(RESULTS[status], kinds[status])
    assert type(from_json(RESULTS[status].to_json())) is kinds[status]


@pytest.mark.parametrize("status", list(RESULTS))
def test_a_stored_result_loads_back_equal_but_for_the_token(status):
    back = message_from_json(json.loads(stored(RESULTS[status]))).result
    sent = RESULTS[status]
    assert back == (sent.model_copy(update={"confirmation_token": None}) if isinstance(sent, Confirmation) else sent)


def test_every_value_a_database_returns_is_made_json_ready():
    import uuid
    from datetime import date, datetime, time, timedelta
    from decimal import Decimal

    from concierge.agent.prompts import dynamic_context
    from concierge.agent.providers.interface import ToolCall
    from concierge.sources.result import plain

    key = uuid.UUID("12345678-1234-5678-1234-567812345678")
    row = {"id": key, "day": date(2025, 5, 10), "at": datetime(2025, 5, 10, 9, 30), "open": time(9),
           "wait": timedelta(minutes=5), "raw": b"\x01\xff", "amount": Decimal("12.50"), "tags": [key]}
    shown = {k: plain(v) for k, v in row.items()}
    assert json.loads(json.dumps(shown)) == {
        "id": str(key), "day": "2025-05-10", "at": "2025-05-10T09:30:00", "open": "09:00:00", "wait": "0:05:00",
        "raw": "01ff", "amount": 12.5, "tags": [str(key)]}
    result = Rows(tool="orders", columns=list(shown), rows=[shown], row_count=1)
    context = dynamic_context([Message("assistant", tool_calls=[ToolCall("c1", "orders", {})]),
                               Message("tool", tool_call_id="c1", result=result)], 0)
    assert str(key)[:20] in context
