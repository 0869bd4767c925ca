"""Google Gemini through google-genai: function declarations with a JSON Schema.

Declared with `parameters_json_schema` (the older `parameters` field rejects
type lists with null). Automatic function calling is off: our loop runs the
calls. Gemini 3 requires the thought signature of each function call to come
back with the history of the current turn; they are kept per call id, and a
call whose signature is unknown (a conversation continued after a restart)
gets the documented placeholder that skips the check. `stream` reads the same request as
server-sent chunks (`generate_content_stream`), passing the answer's text on as it arrives
(`concierge.agent.streaming`).
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncGenerator, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, cast

import httpx2
from google import genai
from google.genai import errors, types

from concierge.agent.providers.interface import (
    Capabilities,
    Message,
    ModelReply,
    ModelRequest,
    Provider,
    Speech,
    ToolCall,
    Usage,
)
from concierge.agent.providers.wire import http_error, messages_with_context, tool_names, tool_payload

NAME = "gemini"
OUR_ID = "gm_"  # prefix of ids we made up for calls that came without one
SKIP_SIGNATURE = b"skip_thought_signature_validator"
# The HTTP responses a `stream` call opened: the SDK's nested generators leave the connection open when the
# stream is left early, so `stream` closes them itself.
_OPENED: ContextVar[list[httpx2.Response] | None] = ContextVar("gemini_opened", default=None)


async def _opened(response: httpx2.Response) -> None:
    if (opened := _OPENED.get()) is not None:
        opened.append(response)


class GeminiProvider(Provider):
    name = NAME
    capabilities = Capabilities(streams=True)

    def __init__(self, model: str, *, api_key: str, base_url: str | None = None, timeout: float = 120.0):
        self.model = model
        # httpx2 as without aiohttp: the SDK switches to aiohttp when it is installed (the twilio package brings it)
        options = types.HttpOptions(base_url=base_url, timeout=int(timeout * 1000),
                                    async_client_args={"transport": httpx2.AsyncHTTPTransport(),
                                                       "event_hooks": {"response": [_opened]}})
        self.client = genai.Client(api_key=api_key, http_options=options)
        self._signatures: dict[str, bytes] = {}
        self._needs_signatures = not model.removeprefix("models/").startswith(("gemini-1", "gemini-2"))

    async def aclose(self) -> None:
        await self.client.aio.aclose()

    async def complete(self, request: ModelRequest) -> ModelReply:
        with vendor_errors():
            response = await self.client.aio.models.generate_content(
                model=self.model, contents=self.to_contents(request), config=_config(request)
            )
        return self.from_response(response)

    async def stream(self, request: ModelRequest, speech: Speech) -> ModelReply:
        parts: list[types.Part] = []
        meta = None
        opened: list[httpx2.Response] = []
        scope = _OPENED.set(opened)
        with vendor_errors():
            chunks = cast(AsyncGenerator[types.GenerateContentResponse, None],
                          await self.client.aio.models.generate_content_stream(
                              model=self.model, contents=self.to_contents(request), config=_config(request)))
            try:
                async for chunk in chunks:
                    meta = chunk.usage_metadata or meta  # the last chunk's counts are the reply's
                    for part in _parts(chunk):
                        parts.append(part)
                        if part.text and not part.thought:
                            await speech.on_text(part.text)
                    if speech.stop.is_set() and not any(p.function_call for p in parts):
                        break
            finally:
                _OPENED.reset(scope)
                await chunks.aclose()
                for response in opened:
                    await response.aclose()
        return self._reply(parts, meta)

    def to_contents(self, request: ModelRequest) -> list[types.Content]:
        messages = messages_with_context(request)
        names = tool_names(messages)
        out: list[types.Content] = []
        for message in messages:
            role, parts = ("model", self._model_parts(message)) if message.role == "assistant" else (
                "user", _user_parts(message, names))
            if not parts:
                continue
            if out and out[-1].role == role:
                out[-1].parts = [*(out[-1].parts or []), *parts]
            else:
                out.append(types.Content(role=role, parts=parts))
        return out

    def _model_parts(self, message: Message) -> list[types.Part]:
        parts = [types.Part(text=message.text)] if message.text else []
        calls = [
            types.Part(
                function_call=types.FunctionCall(id=None if c.id.startswith(OUR_ID) else c.id, name=c.name,
                                                 args=c.args if isinstance(c.args, dict) else {}),
                thought_signature=self._signatures.get(c.id),
            )
            for c in message.tool_calls
        ]
        if calls and self._needs_signatures and not any(p.thought_signature for p in calls):
            calls[0].thought_signature = SKIP_SIGNATURE
        return parts + calls

    def from_response(self, response: Any) -> ModelReply:
        return self._reply(_parts(response), response.usage_metadata)

    def _reply(self, parts: list[types.Part], meta: Any) -> ModelReply:
        texts, calls = [], []
        for part in parts:
            if part.function_call:
                fc = part.function_call
                call = ToolCall(fc.id or OUR_ID + secrets.token_hex(6), fc.name or "", dict(fc.args or {}))
                if part.thought_signature:
                    self._signatures[call.id] = part.thought_signature
                calls.append(call)
            elif part.text and not part.thought:
                texts.append(part.text)
        usage = None
        if meta is not None:
            output = (meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0)
            usage = Usage(meta.prompt_token_count or 0, output)
        return ModelReply(text="".join(texts) or None, tool_calls=calls, usage=usage)


def _config(request: ModelRequest) -> types.GenerateContentConfig:
    return types.GenerateContentConfig(
        system_instruction=request.system,
        tools=[types.Tool(function_declarations=[
            types.FunctionDeclaration(name=t.name, description=t.description, parameters_json_schema=t.input_schema)
            for t in request.tools
        ])] if request.tools else None,
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )


def _parts(response: Any) -> list[types.Part]:
    """The first candidate's parts (a whole reply, or one chunk of a streamed one)."""
    candidate = (response.candidates or [None])[0]
    return list((candidate.content.parts if candidate and candidate.content else None) or [])


@contextmanager
def vendor_errors() -> Iterator[None]:
    try:
        yield
    except errors.APIError as err:
        raise http_error(NAME, err.code, err.message or str(err.status)) from err
    except httpx2.TransportError as err:
        raise http_error(NAME, None, f"{type(err).__name__}: {err}") from err


def _user_parts(message: Message, names: dict[str, str]) -> list[types.Part]:
    if message.role == "tool":
        result = message.result
        key = "error" if result is not None and result.is_error else "output"
        call_id = message.tool_call_id or ""
        return [types.Part(function_response=types.FunctionResponse(
            id=None if call_id.startswith(OUR_ID) else call_id,
            name=names.get(call_id, result.tool if result is not None else ""),
            response={key: tool_payload(result)},
        ))]
    return [types.Part(text=message.text)] if message.text else []
