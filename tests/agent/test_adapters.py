"""Each provider adapter, through its official SDK, against a local server speaking that wire format.

The same scenarios run for every provider; a `Dialect` knows how that
provider writes a reply and where a request carries tool results.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from concierge.agent.loop import Agent
from concierge.agent.providers.anthropic import AnthropicProvider
from concierge.agent.providers.gemini import GeminiProvider
from concierge.agent.providers.openai_chat import OpenAIChatProvider
from concierge.agent.providers.openai_responses import OpenAIResponsesProvider
from concierge.errors import ProviderError

pytestmark = pytest.mark.anyio

Call = tuple[str, str, dict]  # id, tool name, arguments
Output = tuple[str, dict, bool]  # call id, the result as the model reads it, flagged as an error
LAST_WEEK = {"date_sales_begin_str": "2025-05-05", "date_sales_end_str": "2025-05-11"}
USAGE_IN, USAGE_OUT = 321, 45


@dataclass(frozen=True)
class Dialect:
    name: str
    path: str
    make: Callable[[str], Any]
    calls: Callable[[list[Call]], dict]
    text: Callable[[str], dict]
    outputs: Callable[[dict], list[Output]]
    tools: Callable[[dict], dict[str, dict]]  # tool name -> the parameter schema as sent
    system: Callable[[dict], str]
    last_user_text: Callable[[dict], str]
    error: Callable[[int, str], dict]

    def __repr__(self) -> str:
        return self.name


# --- OpenAI Responses -------------------------------------------------------------
def _responses_reply(output: list[dict]) -> dict:
    return {"id": "resp_1", "object": "response", "created_at": 1_747_000_000, "status": "completed",
            "model": "gpt-4.1-mini", "output": output, "parallel_tool_calls": True, "tool_choice": "auto",
            "tools": [], "usage": {"input_tokens": USAGE_IN, "input_tokens_details": {"cached_tokens": 0},
                                   "output_tokens": USAGE_OUT, "output_tokens_details": {"reasoning_tokens": 0},
                                   "total_tokens": USAGE_IN + USAGE_OUT}}


RESPONSES = Dialect(
    name="openai",
    path="/v1/responses",
    make=lambda url: OpenAIResponsesProvider("gpt-4.1-mini", api_key="sk-test", base_url=url + "/v1",
                                             max_retries=0),
    calls=lambda calls: _responses_reply([
        {"type": "function_call", "id": f"fc_{i}", "call_id": i, "name": n, "arguments": json.dumps(a),
         "status": "completed"} for i, n, a in calls]),
    text=lambda text: _responses_reply([
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": text, "annotations": []}]}]),
    outputs=lambda body: [(i["call_id"], json.loads(i["output"]), json.loads(i["output"])["status"] != "ok")
                          for i in body["input"] if i.get("type") == "function_call_output"],
    tools=lambda body: {t["name"]: t["parameters"] for t in body["tools"]},
    system=lambda body: body["instructions"],
    last_user_text=lambda body: [i["content"] for i in body["input"] if i.get("role") == "user"][-1],
    error=lambda status, message: {"error": {"message": message, "type": "invalid_request_error",
                                             "param": None, "code": "invalid_api_key"}},
)


# --- Chat Completions ---------------------------------------------------------------
def _chat_reply(message: dict, finish: str) -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1_747_000_000, "model": "gpt-4.1-mini",
            "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
            "usage": {"prompt_tokens": USAGE_IN, "completion_tokens": USAGE_OUT,
                      "total_tokens": USAGE_IN + USAGE_OUT}}


CHAT = Dialect(
    name="openai-chat",
    path="/v1/chat/completions",
    make=lambda url: OpenAIChatProvider("gpt-4.1-mini", api_key="sk-test", base_url=url + "/v1", max_retries=0),
    calls=lambda calls: _chat_reply({"role": "assistant", "content": None, "tool_calls": [
        {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}} for i, n, a in calls]},
        "tool_calls"),
    text=lambda text: _chat_reply({"role": "assistant", "content": text}, "stop"),
    outputs=lambda body: [(m["tool_call_id"], json.loads(m["content"]), json.loads(m["content"])["status"] != "ok")
                          for m in body["messages"] if m["role"] == "tool"],
    tools=lambda body: {t["function"]["name"]: t["function"]["parameters"] for t in body["tools"]},
    system=lambda body: body["messages"][0]["content"],
    last_user_text=lambda body: [m["content"] for m in body["messages"] if m["role"] == "user"][-1],
    error=lambda status, message: {"error": {"message": message, "type": "invalid_request_error",
                                             "param": None, "code": None}},
)


# --- Anthropic Messages -----------------------------------------------------------------
def _anthropic_reply(content: list[dict], stop: str) -> dict:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": USAGE_IN, "output_tokens": USAGE_OUT}}


def _anthropic_outputs(body: dict) -> list[Output]:
    last = body["messages"][-1]
    assert last["role"] == "user"  # all results of one reply travel in one user message
    return [(b["tool_use_id"], json.loads(b["content"]), b["is_error"])
            for b in last["content"] if b["type"] == "tool_result"]


ANTHROPIC = Dialect(
    name="anthropic",
    path="/v1/messages",
    make=lambda url: AnthropicProvider("claude-sonnet-4-6", api_key="sk-ant-test", base_url=url, max_retries=0),
    calls=lambda calls: _anthropic_reply([{"type": "text", "text": "Let me look."}] + [
        {"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls], "tool_use"),
    text=lambda text: _anthropic_reply([{"type": "text", "text": text}], "end_turn"),
    outputs=_anthropic_outputs,
    tools=lambda body: {t["name"]: t["input_schema"] for t in body["tools"]},
    system=lambda body: body["system"],
    last_user_text=lambda body: [b["text"] for m in body["messages"] if m["role"] == "user"
                                 for b in m["content"] if b["type"] == "text"][-1],
    error=lambda status, message: {"type": "error", "error": {"type": "authentication_error", "message": message}},
)


# --- Gemini -----------------------------------------------------------------------------
def _gemini_reply(parts: list[dict]) -> dict:
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": USAGE_IN, "candidatesTokenCount": USAGE_OUT,
                              "totalTokenCount": USAGE_IN + USAGE_OUT},
            "modelVersion": "gemini-2.5-flash"}


def _gemini_outputs(body: dict) -> list[Output]:
    out = []
    for part in body["contents"][-1]["parts"]:
        if "functionResponse" in part:
            response = part["functionResponse"]["response"]
            out.append((part["functionResponse"]["id"], response.get("output") or response["error"],
                        "error" in response))
    return out


GEMINI = Dialect(
    name="gemini",
    path="/v1/models/gemini-2.5-flash:generateContent",
    make=lambda url: GeminiProvider("gemini-2.5-flash", api_key="gm-test", base_url=url),
    calls=lambda calls: _gemini_reply([{"functionCall": {"id": i, "name": n, "args": a}} for i, n, a in calls]),
    text=lambda text: _gemini_reply([{"text": text}]),
    outputs=_gemini_outputs,
    # the SDK writes this field with its proto name, which the API accepts as well as the camelCase one
    tools=lambda body: {f["name"]: f.get("parametersJsonSchema", f.get("parameters_json_schema"))
                        for t in body["tools"] for f in t["functionDeclarations"]},
    system=lambda body: body["systemInstruction"]["parts"][0]["text"],
    last_user_text=lambda body: [p["text"] for c in body["contents"] if c["role"] == "user"
                                 for p in c["parts"] if "text" in p][-1],
    error=lambda status, message: {"error": {"code": status, "message": message, "status": "UNAUTHENTICATED"}},
)

DIALECTS = [RESPONSES, CHAT, ANTHROPIC, GEMINI]


@pytest.fixture(params=DIALECTS, ids=[d.name for d in DIALECTS])
def dialect(request) -> Dialect:
    return request.param


@pytest.fixture
async def agent_for(farm, wire_server, dialect):
    made = []

    def make() -> Agent:
        made.append(dialect.make(wire_server.url))
        return Agent(farm, made[-1])

    yield make
    for provider in made:
        await provider.aclose()


async def test_two_parallel_calls_in_one_reply(farm, wire_server, dialect, agent_for):
    def answer(body):
        outputs = dialect.outputs(body)
        assert [(i, o["args"]["code_customer"], o["row_count"]) for i, o, _ in outputs] == [
            ("call_a", "0009", 1), ("call_b", "0010", 0)]
        return 200, dialect.text(f"0009: {outputs[0][1]['totals']['price']}円, 0010: 0件")

    wire_server.enqueue(
        (200, dialect.calls([("call_a", "get_sales", {"code_customer": "0009", **LAST_WEEK}),
                             ("call_b", "get_sales", {"code_customer": "0010", **LAST_WEEK})])),
        answer,
    )
    turn = await agent_for().ask("顧客コード0009と0010の、先週の販売データを見せて。", farm.user("admin"))

    assert [(c.id, c.status) for c in turn.calls] == [("call_a", "ok"), ("call_b", "ok")]
    assert turn.answer == "0009: 1050円, 0010: 0件" and turn.ungrounded == []
    assert {r["path"] for r in wire_server.requests} == {dialect.path}
    first = wire_server.requests[0]["body"]
    assert "Monday to Sunday" in dialect.system(first)
    assert sorted(dialect.tools(first)) == ["add_sale", "get_customers", "get_sales"]
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (2 * USAGE_IN, 2 * USAGE_OUT)


async def test_a_chain_where_the_second_call_needs_the_first_result(farm, wire_server, dialect, agent_for):
    def second(body):
        [(_, customers, _)] = dialect.outputs(body)
        code = customers["rows"][0]["code_customer"]
        return 200, dialect.calls([("call_2", "get_sales", {"code_customer": code,
                                                             "date_sales_begin_str": "2025-04-01",
                                                             "date_sales_end_str": "2025-04-30"})])

    def third(body):
        sales = dialect.outputs(body)[-1][1]
        return 200, dialect.text(f"{sales['args']['code_customer']}: {sales['totals']['price']}円 "
                                 f"[{sales['result_id']}]")

    wire_server.enqueue((200, dialect.calls([("call_1", "get_customers", {"name_str_customer": "山田"})])),
                        second, third)
    turn = await agent_for().ask("山田様の4月の販売合計は？", farm.user("admin"))

    assert [(c.name, c.args.get("code_customer")) for c in turn.calls] == [("get_customers", None),
                                                                          ("get_sales", "0003")]
    assert turn.answer.startswith("0003: ") and turn.ungrounded == [] and turn.steps == 3


async def test_a_guard_refusal_the_model_then_corrects(farm, wire_server, dialect, agent_for):
    def corrected(body):
        [(call_id, refusal, flagged)] = dialect.outputs(body)
        assert (call_id, refusal["status"], refusal["param"], flagged) == ("call_1", "refused", "code_customer", True)
        return 200, dialect.calls([("call_2", "get_sales", {"code_customer": "0009", **LAST_WEEK})])

    wire_server.enqueue((200, dialect.calls([("call_1", "get_sales", {"code_customer": "9", **LAST_WEEK})])),
                        corrected, (200, dialect.text("1件、1050円です。")))
    turn = await agent_for().ask("0009の先週の販売は？", farm.user("admin"))

    assert [c.status for c in turn.calls] == ["refused", "ok"]
    assert turn.answer == "1件、1050円です。" and turn.ungrounded == []


async def test_an_http_error_is_surfaced_clearly(farm, wire_server, dialect, agent_for):
    wire_server.enqueue((401, dialect.error(401, "Incorrect API key provided")))
    with pytest.raises(ProviderError, match=r"HTTP 401.*Incorrect API key provided") as caught:
        await agent_for().ask("hello", farm.user("admin"))
    assert caught.value.args[0].startswith(dialect.name + ":")


async def test_a_text_only_reply(farm, wire_server, dialect, agent_for):
    wire_server.enqueue((200, dialect.text("こんにちは。農園の販売データについてお手伝いします。")))
    turn = await agent_for().ask("こんにちは", farm.user("admin"))

    assert turn.answer == "こんにちは。農園の販売データについてお手伝いします。" and turn.calls == []
    sent = dialect.last_user_text(wire_server.requests[0]["body"])
    assert sent.startswith("こんにちは\n\n[context]")


async def test_a_connection_failure_names_the_provider(farm, dialect):
    provider = dialect.make("http://127.0.0.1:9")  # nothing listens on the discard port
    try:
        with pytest.raises(ProviderError, match=rf"^{dialect.name}: no response"):
            await Agent(farm, provider).ask("hello", farm.user("admin"))
    finally:
        await provider.aclose()


# --- what only one wire format has ---------------------------------------------------------
@pytest.mark.parametrize("dialect", [RESPONSES, CHAT], ids=["openai", "openai-chat"])
async def test_openai_tools_are_strict(farm, wire_server, dialect, agent_for):
    wire_server.enqueue((200, dialect.text("ok")))
    await agent_for().ask("hello", farm.user("admin"))
    body = wire_server.requests[0]["body"]
    schema = dialect.tools(body)["add_sale"]
    assert schema["required"] == ["code_customer", "products", "price", "date_sales_str"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["date_sales_str"]["type"] == ["string", "null"]
    assert "default" not in schema["properties"]["date_sales_str"]
    assert "2025-05-15" in schema["properties"]["date_sales_str"]["description"]
    strict = [t.get("strict", t.get("function", {}).get("strict")) for t in body["tools"]]
    assert strict == [True, True, True]


@pytest.mark.parametrize("dialect", [GEMINI], ids=["gemini"])
async def test_gemini_thought_signatures_go_back_with_their_calls(farm, wire_server, dialect, agent_for):
    signature = base64.b64encode(b"opaque-signature").decode()
    reply = dialect.calls([("call_1", "get_customers", {"code_customer": "0001"})])
    reply["candidates"][0]["content"]["parts"][0]["thoughtSignature"] = signature
    wire_server.enqueue((200, reply), (200, dialect.text("0001は佐藤太郎さんです。")))
    await agent_for().ask("0001は誰？", farm.user("admin"))

    model_turn = wire_server.requests[1]["body"]["contents"][1]
    assert model_turn["role"] == "model"
    assert model_turn["parts"][0]["functionCall"]["name"] == "get_customers"
    assert model_turn["parts"][0]["thoughtSignature"] == signature
    response = wire_server.requests[1]["body"]["contents"][2]["parts"][0]["functionResponse"]
    assert response["name"] == "get_customers" and response["response"]["output"]["rows"][0]["code_customer"] == "0001"
