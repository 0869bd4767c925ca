"""A stored conversation as the page shows it: one exchange per question, shaped like a live turn.

The page draws a reloaded conversation with the same code as a streamed
answer, so each exchange carries the question, the answer and the calls in
the fields a `Turn` uses.
"""

from __future__ import annotations

from typing import Any

from concierge.agent.providers.interface import Message
from concierge.sources.result import Rows


def exchanges(messages: list[Message]) -> list[dict[str, Any]]:
    """One exchange per question; an exchange that showed a write for a yes says what became of it (`ended`,
    as a live turn's `settled`), read from the exchange after it."""
    out: list[dict[str, Any]] = []
    calls: dict[str, dict[str, Any]] = {}
    for message in messages:
        if message.role == "user":
            out.append({"question": message.text or "", "answer": "", "calls": [],
                        "answers_card": "yes" if message.confirms else "no" if message.cancels
                        else "again" if message.repeats else None})
            calls = {}
            continue
        if not out:  # a conversation always starts with the user; skip anything else
            continue
        current = out[-1]
        if message.role == "assistant":
            for call in message.tool_calls:
                calls[call.id] = {"id": call.id, "name": call.name, "args": call.args, "status": "requested",
                                  "result_id": "", "row_count": 0, "ms": 0.0, "result": {}}
                current["calls"].append(calls[call.id])
            if message.text and not message.tool_calls:
                current["answer"] = message.text
        elif message.role == "tool" and message.tool_call_id in calls and message.result is not None:
            result = message.result
            calls[message.tool_call_id].update(
                status=result.status, code=None if isinstance(result, Rows) else result.code, message=result.message,
                result_id=result.result_id, row_count=result.any_row_count(), ms=result.ms, result=result.to_json(),
            )
    for shown, after in zip(out, out[1:], strict=False):
        if _previewed(shown):
            shown["ended"] = _ended(after)
    for exchange in out:
        del exchange["answers_card"]
    return out


def _previewed(exchange: dict[str, Any]) -> bool:
    return bool(exchange["calls"]) and exchange["calls"][-1]["status"] == "confirm"


def _ended(after: dict[str, Any]) -> str:
    """What became of a write shown for a yes, by the exchange that followed it."""
    if after["answers_card"] == "no":
        return "cancelled"
    if after["answers_card"] == "again":
        return "repeated"
    if after["answers_card"] == "yes":
        first = after["calls"][0]["status"] if after["calls"] else None
        return {"ok": "confirmed", "confirm": "changed", None: "expired"}.get(first, "failed")
    return "replaced" if _previewed(after) else "dropped"
