"""Fakes for the agent tests: a scripted provider, and a local HTTP server for the SDKs to talk to."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from concierge.agent.providers.interface import Capabilities, ModelReply, ModelRequest, Provider, ToolCall, Usage

Step = ModelReply | Callable[[ModelRequest], ModelReply]


class ScriptedProvider(Provider):
    """Answers each model request with the next scripted reply (or reply-making function). It does not stream:
    a channel that speaks hears a final answer whole (`Provider.stream`'s default)."""

    name = "scripted"

    def __init__(self, model: str = "scripted-model", *, capabilities: Capabilities | None = None):
        self.model = model
        self.capabilities = capabilities or Capabilities()
        self.script: list[Step] = []
        self.requests: list[ModelRequest] = []

    def enqueue(self, *steps: Step) -> ScriptedProvider:
        self.script.extend(steps)
        return self

    async def complete(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        if not self.script:
            raise AssertionError("the provider got a request no reply was scripted for")
        step = self.script.pop(0)
        return step(request) if callable(step) else step


def calls(*specs: tuple[str, dict], usage: Usage | None = None) -> ModelReply:
    """A reply asking for tool calls; ids are c1, c2, … in order."""
    return ModelReply(tool_calls=[ToolCall(f"c{i}", name, args) for i, (name, args) in enumerate(specs, 1)],
                      usage=usage)


def answer(text: str, usage: Usage | None = None) -> ModelReply:
    return ModelReply(text=text, usage=usage)


def last_results(request: ModelRequest) -> list[dict]:
    """The tool results at the end of a request's conversation (those of the previous reply), as the
    JSON a model reads."""
    out = []
    for message in reversed(request.messages):
        if message.role != "tool":
            break
        out.insert(0, message.result.to_json() if message.result is not None else {})
    return out


# --- a local HTTP server speaking whatever the test scripts ---------------------------
@dataclass
class Streamed:
    """A reply sent as server-sent events: each chunk as `data: {json}`, then `data: [DONE]`. A
    `threading.Event` among the chunks holds the rest until the test sets it; `delay_s` waits before each.
    With `named`, each chunk is preceded by `event: <its "type">` (Anthropic, Responses); `done` is the
    last data line (None: none, as Anthropic and Responses end)."""

    chunks: list[dict | threading.Event]
    delay_s: float = 0.0
    closed_early: bool = False  # the client went away before the last chunk
    named: bool = False
    done: str | None = "[DONE]"
    over: threading.Event = field(default_factory=threading.Event)  # set when the server has stopped sending


Reply = tuple[int, dict | Streamed] | Callable[[dict], tuple[int, dict | Streamed]]


class WireServer:
    """Replies to each POST with the next scripted (status, JSON body); records what it received."""

    def __init__(self) -> None:
        self.script: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the http.server API)
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                if server.script:
                    step = server.script.pop(0)
                    status, payload = step(body) if callable(step) else step
                else:
                    status, payload = 599, {"error": {"message": "no reply scripted"}}
                if isinstance(payload, Streamed):
                    self._stream(payload)
                    return
                data = json.dumps(payload, ensure_ascii=False).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, reply: Streamed) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                self.close_connection = True
                try:
                    for chunk in [*reply.chunks, *([reply.done] if reply.done is not None else [])]:
                        if isinstance(chunk, threading.Event):
                            chunk.wait(30)
                            if _hung_up(self.connection):
                                reply.closed_early = True
                                return
                            continue
                        time.sleep(reply.delay_s)
                        data = chunk if isinstance(chunk, str) else json.dumps(chunk, ensure_ascii=False)
                        name = f"event: {chunk['type']}\n" if reply.named and isinstance(chunk, dict) else ""
                        self.wfile.write(f"{name}data: {data}\n\n".encode())
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    reply.closed_early = True
                finally:
                    reply.over.set()

            def log_message(self, *_args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def enqueue(self, *replies: Reply) -> WireServer:
        self.script.extend(replies)
        return self


def _hung_up(connection: socket.socket) -> bool:
    """Whether the client has closed its end (a held stream it stopped reading)."""
    try:
        return connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


# --- Chat Completions as a stream (stream=True) ---------------------------------------
def chat_chunk(delta: dict, finish: str | None = None, usage: dict | None = None) -> dict:
    return {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1_747_000_000, "model": "gpt-4.1-mini",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}], "usage": usage}


_USAGE = {"prompt_tokens": 300, "completion_tokens": 20, "total_tokens": 320}


def streamed_text(*pieces: str | threading.Event, delay_s: float = 0.0) -> Streamed:
    """An answer streamed piece by piece (an Event among the pieces holds the rest)."""
    chunks: list[dict | threading.Event] = [chat_chunk({"role": "assistant", "content": ""})]
    chunks += [p if isinstance(p, threading.Event) else chat_chunk({"content": p}) for p in pieces]
    chunks.append(chat_chunk({}, "stop", _USAGE))
    return Streamed(chunks, delay_s)


def streamed_calls(*calls: tuple[str, str, dict], delay_s: float = 0.0) -> Streamed:
    """Tool calls (id, name, arguments) streamed as OpenAI does: the name first, the arguments in two parts."""
    chunks: list[dict | threading.Event] = [chat_chunk({"role": "assistant", "content": None})]
    for index, (call_id, name, args) in enumerate(calls):
        text = json.dumps(args, ensure_ascii=False)
        half = len(text) // 2
        chunks.append(chat_chunk({"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                                  "function": {"name": name, "arguments": text[:half]}}]}))
        chunks.append(chat_chunk({"tool_calls": [{"index": index, "function": {"arguments": text[half:]}}]}))
    chunks.append(chat_chunk({}, "tool_calls", _USAGE))
    return Streamed(chunks, delay_s)


# --- Anthropic Messages and OpenAI Responses, whole or streamed --------------------------
# An answer is written as a list of pieces: text (consecutive pieces are one block of text), tool calls
# (id, name, arguments), and Events that hold a stream there until the test sets them (a whole reply skips them).
Piece = str | tuple[str, str, dict] | threading.Event
USAGE_IN, USAGE_OUT = 300, 20


def _grouped(pieces: tuple[Piece, ...]) -> list[list[str | threading.Event] | tuple[str, str, dict]]:
    """The pieces as blocks: a list of text pieces (with the Events among them), or one tool call."""
    blocks: list[list[str | threading.Event] | tuple[str, str, dict]] = []
    for piece in pieces:
        if isinstance(piece, tuple):
            blocks.append(piece)
        elif blocks and isinstance(blocks[-1], list):
            blocks[-1].append(piece)
        else:
            blocks.append([piece])
    return blocks


def _halves(args: dict) -> list[str]:
    text = json.dumps(args, ensure_ascii=False)
    return [text[: len(text) // 2], text[len(text) // 2:]]


def _text_of(block: list[str | threading.Event]) -> str:
    return "".join(p for p in block if isinstance(p, str))


def anthropic_message(*pieces: Piece) -> dict:
    """The Messages API's reply to a request without `stream`."""
    content = [{"type": "tool_use", "id": b[0], "name": b[1], "input": b[2]} if isinstance(b, tuple)
               else {"type": "text", "text": _text_of(b)} for b in _grouped(pieces)]
    stop = "tool_use" if any(isinstance(b, tuple) for b in _grouped(pieces)) else "end_turn"
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6", "content": content,
            "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": USAGE_IN, "output_tokens": USAGE_OUT}}


def anthropic_stream(*pieces: Piece, delay_s: float = 0.0) -> Streamed:
    """The same reply as Anthropic streams it: message_start, each block's start / deltas / stop (tool input as
    input_json_delta in two parts), message_delta with the stop reason and output tokens, message_stop."""
    whole = anthropic_message(*pieces)
    start = {**whole, "content": [], "stop_reason": None, "usage": {"input_tokens": USAGE_IN, "output_tokens": 1}}
    chunks: list[dict | threading.Event] = [{"type": "message_start", "message": start}, {"type": "ping"}]
    for index, block in enumerate(_grouped(pieces)):
        if isinstance(block, tuple):
            call_id, name, args = block
            chunks.append({"type": "content_block_start", "index": index,
                           "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}}})
            chunks += [{"type": "content_block_delta", "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": part}} for part in ["", *_halves(args)]]
        else:
            chunks.append({"type": "content_block_start", "index": index,
                           "content_block": {"type": "text", "text": ""}})
            chunks += [p if isinstance(p, threading.Event) else
                       {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": p}}
                       for p in block]
        chunks.append({"type": "content_block_stop", "index": index})
    chunks.append({"type": "message_delta", "delta": {"stop_reason": whole["stop_reason"], "stop_sequence": None},
                   "usage": {"output_tokens": USAGE_OUT}})
    chunks.append({"type": "message_stop"})
    return Streamed(chunks, delay_s, named=True, done=None)


def _responses_items(pieces: tuple[Piece, ...]) -> list[dict]:
    return [{"type": "function_call", "id": f"fc_{b[0]}", "call_id": b[0], "name": b[1],
             "arguments": json.dumps(b[2], ensure_ascii=False), "status": "completed"} if isinstance(b, tuple)
            else {"type": "message", "id": f"msg_{i}", "role": "assistant", "status": "completed",
                  "content": [{"type": "output_text", "text": _text_of(b), "annotations": [], "logprobs": []}]}
            for i, b in enumerate(_grouped(pieces))]


def responses_body(*pieces: Piece, status: str = "completed", output: list[dict] | None = None) -> dict:
    """The Responses API's reply to a request without `stream` (and the `response` its stream events carry)."""
    done = status == "completed"
    return {"id": "resp_1", "object": "response", "created_at": 1_747_000_000, "status": status,
            "model": "gpt-4.1-mini", "output": _responses_items(pieces) if output is None else output,
            "parallel_tool_calls": True, "tool_choice": "auto", "tools": [], "store": False, "error": None,
            "incomplete_details": None, "instructions": None, "metadata": {}, "temperature": 1.0, "top_p": 1.0,
            "usage": {"input_tokens": USAGE_IN, "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens": USAGE_OUT, "output_tokens_details": {"reasoning_tokens": 0},
                      "total_tokens": USAGE_IN + USAGE_OUT} if done else None}


def responses_stream(*pieces: Piece, delay_s: float = 0.0) -> Streamed:
    """The same reply as the Responses API streams it: response.created / in_progress, per item
    output_item.added, its content part or argument deltas and their done events, output_item.done, then
    response.completed with the whole response and its usage."""
    events: list[dict | threading.Event] = [{"type": "response.created", "response": responses_body(
        status="in_progress", output=[])}, {"type": "response.in_progress", "response": responses_body(
        status="in_progress", output=[])}]
    for index, (block, item) in enumerate(zip(_grouped(pieces), _responses_items(pieces), strict=True)):
        if isinstance(block, tuple):
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": {**item, "arguments": "", "status": "in_progress"}})
            events += [{"type": "response.function_call_arguments.delta", "item_id": item["id"],
                        "output_index": index, "delta": part} for part in _halves(block[2])]
            events.append({"type": "response.function_call_arguments.done", "item_id": item["id"],
                           "output_index": index, "name": item["name"], "arguments": item["arguments"]})
        else:
            part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            where = {"item_id": item["id"], "output_index": index, "content_index": 0}
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": {**item, "content": [], "status": "in_progress"}})
            events.append({"type": "response.content_part.added", **where, "part": part})
            events += [p if isinstance(p, threading.Event) else
                       {"type": "response.output_text.delta", **where, "delta": p, "logprobs": []} for p in block]
            events.append({"type": "response.output_text.done", **where, "text": _text_of(block), "logprobs": []})
            events.append({"type": "response.content_part.done", **where, "part": item["content"][0]})
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    events.append({"type": "response.completed", "response": responses_body(*pieces)})
    numbered = iter(range(len(events)))
    return Streamed([e if isinstance(e, threading.Event) else {**e, "sequence_number": next(numbered)}
                     for e in events], delay_s, named=True, done=None)


# --- Gemini (generateContent, and streamGenerateContent?alt=sse) ----------------------------
def _gemini_chunk(parts: list[dict], usage: dict, finish: str | None = None) -> dict:
    candidate = {"content": {"role": "model", "parts": parts}, "index": 0,
                 **({"finishReason": finish} if finish else {})}
    return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": "gemini-2.5-flash",
            "responseId": "resp-gm-1"}


_GEMINI_USAGE = {"promptTokenCount": USAGE_IN, "candidatesTokenCount": USAGE_OUT,
                 "totalTokenCount": USAGE_IN + USAGE_OUT}


def _gemini_part(piece: str | tuple[str, str, dict]) -> dict:
    if isinstance(piece, tuple):
        return {"functionCall": {"id": piece[0], "name": piece[1], "args": piece[2]}}
    return {"text": piece}


def gemini_body(*pieces: Piece) -> dict:
    """Gemini's reply to generateContent: text (one part per block of text) and function calls."""
    parts = [_gemini_part(b if isinstance(b, tuple) else _text_of(b)) for b in _grouped(pieces)]
    return _gemini_chunk(parts, _GEMINI_USAGE, "STOP")


def gemini_stream(*pieces: Piece, delay_s: float = 0.0) -> Streamed:
    """The same reply as streamGenerateContent sends it: one chunk per piece of text or call (`data:` lines, no
    event names, no end marker), the prompt's tokens on each, the finish reason and all counts on the last."""
    sent = [p for p in pieces if not isinstance(p, threading.Event)]
    chunks: list[dict | threading.Event] = []
    for piece in pieces:
        if isinstance(piece, threading.Event):
            chunks.append(piece)
            continue
        last = piece is sent[-1]
        usage = _GEMINI_USAGE if last else {"promptTokenCount": USAGE_IN, "totalTokenCount": USAGE_IN}
        chunks.append(_gemini_chunk([_gemini_part(piece)], usage, "STOP" if last else None))
    return Streamed(chunks, delay_s, done=None)
