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

from concierge.protocol import ModelReply, ModelRequest, ToolCall, Usage

Step = ModelReply | Callable[[ModelRequest], ModelReply]


class ScriptedProvider:
    """Answers each model request with the next scripted reply (or reply-making function)."""

    name = "scripted"

    def __init__(self, model: str = "scripted-model"):
        self.model = model
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
