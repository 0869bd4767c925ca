"""The adapters' `stream`, through each official SDK, against a local server streaming that vendor's events.

For every streaming adapter: the first words reach `on_text` while the server still holds the rest, tool
calls and usage come back whole, setting `stop` closes the stream with what arrived, and a streamed reply
is the one `complete` returns for the same answer.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

import pytest
from agent_fakes import (
    USAGE_IN,
    USAGE_OUT,
    Piece,
    Streamed,
    anthropic_message,
    anthropic_stream,
    gemini_body,
    gemini_stream,
    responses_body,
    responses_stream,
)

from concierge.agent.providers.anthropic import AnthropicProvider
from concierge.agent.providers.gemini import GeminiProvider
from concierge.agent.providers.interface import Message, ModelReply, ModelRequest, Provider, ToolCall, Usage
from concierge.agent.providers.openai_responses import OpenAIResponsesProvider
from concierge.agent.streaming import Speech
from concierge.errors import ProviderError

pytestmark = pytest.mark.anyio

SALES = {"code_customer": "0009", "date_sales_begin_str": "2025-05-05", "date_sales_end_str": "2025-05-11"}
REQUEST = ModelRequest(system="You answer questions about a farm's sales.", messages=[Message("user", text="もしもし")],
                       tools=[], today=date(2025, 5, 15), user="admin")


@dataclass(frozen=True)
class Vendor:
    name: str
    path: str
    make: Callable[[str], Any]
    whole: Callable[..., dict]  # the reply to a request without `stream`
    streamed: Callable[..., Streamed]
    error_event: dict  # what the vendor streams when the reply fails after it began
    error_says: str  # how that error begins, as a ProviderError
    refused: dict  # a 401's body

    def __repr__(self) -> str:
        return self.name


ANTHROPIC = Vendor(
    name="anthropic", path="/v1/messages",
    make=lambda url: AnthropicProvider("claude-sonnet-4-6", api_key="sk-ant-test", base_url=url, max_retries=0),
    whole=anthropic_message, streamed=anthropic_stream,
    error_event={"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    error_says="anthropic: the reply failed while streaming: overloaded_error: Overloaded",
    refused={"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}},
)
RESPONSES = Vendor(
    name="openai", path="/v1/responses",
    make=lambda url: OpenAIResponsesProvider("gpt-4.1-mini", api_key="sk-test", base_url=url + "/v1",
                                             max_retries=0),
    whole=responses_body, streamed=responses_stream,
    error_event={"type": "error", "code": "server_error", "message": "The server had an error.", "param": None,
                 "sequence_number": 9},
    error_says="openai: the reply failed while streaming: server_error: The server had an error.",
    refused={"error": {"message": "invalid x-api-key", "type": "invalid_request_error", "param": None,
                       "code": "invalid_api_key"}},
)
GEMINI = Vendor(
    name="gemini", path="/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    make=lambda url: GeminiProvider("gemini-2.5-flash", api_key="gm-test", base_url=url),
    whole=gemini_body, streamed=gemini_stream,
    error_event={"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}},
    error_says="gemini: HTTP 503: The model is overloaded. (the provider had a problem: try again shortly)",
    refused={"error": {"code": 401, "message": "invalid x-api-key", "status": "UNAUTHENTICATED"}},
)
VENDORS = [ANTHROPIC, RESPONSES, GEMINI]


@pytest.fixture(params=VENDORS, ids=[v.name for v in VENDORS])
def vendor(request) -> Vendor:
    return request.param


@pytest.fixture
async def provider(vendor, wire_server) -> AsyncIterator[Any]:
    made = vendor.make(wire_server.url)
    try:
        yield made
    finally:
        await made.aclose()


class Heard:
    """What `on_text` received, and whether the server's hold had been released when each piece came."""

    def __init__(self, held: threading.Event | None = None, *, stop_after: int | None = None):
        self.held, self.stop_after = held, stop_after
        self.pieces: list[tuple[str, bool]] = []
        self.speech = Speech(self.on_text)

    async def on_text(self, text: str) -> None:
        self.pieces.append((text, self.held.is_set() if self.held else True))
        if self.stop_after is not None and len(self.pieces) == self.stop_after:
            self.speech.stop.set()  # the caller interrupted
        elif self.held is not None:
            self.held.set()  # the first words are out: let the server send the rest


def test_the_adapters_stream(vendor):
    provider = vendor.make("http://127.0.0.1:9")
    assert provider.capabilities.streams and type(provider).stream is not Provider.stream


async def test_the_first_words_arrive_while_the_server_holds_the_rest(vendor, provider, wire_server):
    held = threading.Event()
    wire_server.enqueue((200, vendor.streamed("お電話", "ありがとうございます。", held, "ご注文を", "どうぞ。")))
    heard = Heard(held)

    reply = await provider.stream(REQUEST, heard.speech)

    assert heard.pieces[0] == ("お電話", False)  # heard before the server sent the rest
    assert [p for p, _ in heard.pieces] == ["お電話", "ありがとうございます。", "ご注文を", "どうぞ。"]
    assert reply == ModelReply(text="お電話ありがとうございます。ご注文をどうぞ。", usage=Usage(USAGE_IN, USAGE_OUT))
    [sent] = wire_server.requests
    assert sent["path"] == vendor.path and sent["body"].get("stream", True) is True  # Gemini: by its path


async def test_tool_calls_and_usage_come_back_whole(vendor, provider, wire_server):
    wire_server.enqueue((200, vendor.streamed("確認します。", ("call_a", "get_sales", SALES),
                                              ("call_b", "get_customers", {"name_str_customer": "佐藤"}))))
    heard = Heard()

    reply = await provider.stream(REQUEST, heard.speech)

    assert [p for p, _ in heard.pieces] == ["確認します。"]  # words said before the calls are heard too
    assert reply.text == "確認します。"
    assert reply.tool_calls == [ToolCall("call_a", "get_sales", SALES),
                                ToolCall("call_b", "get_customers", {"name_str_customer": "佐藤"})]
    assert reply.usage == Usage(USAGE_IN, USAGE_OUT)


async def test_stop_closes_the_stream_and_keeps_what_arrived(vendor, provider, wire_server):
    held = threading.Event()
    streamed = vendor.streamed("本日のお弁当は唐揚げ弁当です。", held, "唐揚げ弁当は690円です。",
                               "のり弁当は450円です。")
    wire_server.enqueue((200, streamed))
    heard = Heard(held, stop_after=1)

    reply = await provider.stream(REQUEST, heard.speech)
    held.set()
    assert streamed.over.wait(10)

    assert reply.text == "本日のお弁当は唐揚げ弁当です。" and reply.tool_calls == []
    assert [p for p, _ in heard.pieces] == ["本日のお弁当は唐揚げ弁当です。"]
    assert streamed.closed_early  # the connection was closed, not read to the end


@pytest.mark.parametrize("answer", [
    ("お電話ありがとうございます。", "ご注文をどうぞ。"),
    ("確認します。", ("call_a", "get_sales", SALES), ("call_b", "add_item", {"item": "唐揚げ弁当", "quantity": 2})),
    (("call_c", "confirm_order", {}),),
], ids=["text", "text-and-calls", "a-call-without-arguments"])
async def test_a_streamed_reply_is_the_one_complete_returns(vendor, provider, wire_server, answer: tuple[Piece, ...]):
    wire_server.enqueue((200, vendor.whole(*answer)), (200, vendor.streamed(*answer)))

    whole = await provider.complete(REQUEST)
    streamed = await provider.stream(REQUEST, Heard().speech)

    assert streamed == whole
    assert whole.usage == Usage(USAGE_IN, USAGE_OUT) and (whole.text or whole.tool_calls)


async def test_an_http_error_is_the_same_streamed_or_not(vendor, provider, wire_server):
    wire_server.enqueue((401, vendor.refused), (401, vendor.refused))

    with pytest.raises(ProviderError) as whole:
        await provider.complete(REQUEST)
    with pytest.raises(ProviderError) as streamed:
        await provider.stream(REQUEST, Heard().speech)

    assert str(streamed.value) == str(whole.value)
    assert str(streamed.value).startswith(f"{vendor.name}: HTTP 401") and "invalid x-api-key" in str(streamed.value)
    assert (streamed.value.status, streamed.value.retryable) == (401, False)


async def test_an_error_event_in_the_stream_is_a_provider_error(vendor, provider, wire_server):
    streamed = vendor.streamed("お電話", "ありがとうございます。")
    streamed.chunks[-1:] = [vendor.error_event]  # the reply fails after its first words
    wire_server.enqueue((200, streamed))
    heard = Heard()

    with pytest.raises(ProviderError) as caught:
        await provider.stream(REQUEST, heard.speech)

    assert str(caught.value) == vendor.error_says
    assert heard.pieces[0][0] == "お電話"

    assert caught.value.retryable  # overloaded / a server error: the same request may succeed later
    assert caught.value.provider == vendor.name


async def test_an_error_chat_completions_streams_after_its_first_words_is_a_provider_error(wire_server):
    """Chat Completions (and the servers that copy it) report a failure mid-stream as a chunk with `error`."""
    from agent_fakes import chat_chunk

    from concierge.agent.providers.openai_chat import OpenAIChatProvider

    failure = {"error": {"message": "The server had an error while processing your request.", "type": "server_error",
                         "code": "server_error"}}
    wire_server.enqueue((200, Streamed([chat_chunk({"role": "assistant", "content": "お電話"}), failure])))
    provider = OpenAIChatProvider("gpt-4.1-mini", api_key="sk-test", base_url=wire_server.url + "/v1", max_retries=0)
    heard = Heard()
    try:
        with pytest.raises(ProviderError) as caught:
            await provider.stream(REQUEST, heard.speech)
    finally:
        await provider.aclose()

    assert str(caught.value) == ("openai-chat: the reply failed while streaming: server_error: The server had an "
                                 "error while processing your request.")
    assert caught.value.retryable and heard.pieces[0][0] == "お電話"
