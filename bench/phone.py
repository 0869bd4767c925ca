"""A whole phone order, placed by a scripted caller over the real WebSocket, and where each turn's time went.

    .venv/bin/python bench/phone.py                        # offline planner and a scripted LLM, 10 calls each
    .venv/bin/python bench/phone.py --calls 30 --llm-delay-ms 80 --provider offline
    .venv/bin/python bench/phone.py --transcript           # also print one call, as the caller heard it

The restaurant demo is served in this process (uvicorn on 127.0.0.1, a fresh SQLite file) with the phone
channel on; the caller does what Twilio does: a signed POST /phone/twiml, then the signed relay socket, a
`setup`, one `prompt` per utterance, until `end`. Each call orders in Japanese (two items with an option,
a sold-out item, a change of quantity, a pickup time refused then accepted, the read-back, はい, goodbye).

The scripted LLM is a local server in OpenAI's Chat Completions wire format (tests/support/agent_fakes.py)
streaming its reply in server-sent chunks with a fixed delay before each chunk: the same tool calls and
sentences a model would send, so the figures are the channel's and the agent's own cost plus that delay.

Per phase, p50 and p95 over every turn (ms):
  decide          each model request (or planner step)
  tool <name>     each tool call, by tool
  first text      turn start -> first piece of the answer (agent side)
  turn total      the agent's whole turn
  prompt->text    the `prompt` message read -> the first `text` token sent (server side)
  caller first    the caller's `prompt` sent -> first `text` token received (over the socket)
  caller last     the caller's `prompt` sent -> the answer's `last` token received
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import machine

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))  # the scripted caller and the wire-format server

from agent_fakes import WireServer, streamed_calls, streamed_text  # noqa: E402
from phone_caller import TOKEN, dial  # noqa: E402
from web_fakes import live  # noqa: E402

from concierge.settings import PhoneSettings  # noqa: E402

Step = tuple[str | None, list[tuple[str, dict]] | None, list[str] | None]  # None: the same turn goes on
ORDER: list[Step] = [  # the caller's words; the tool calls and the sentences the scripted model answers them with
    ("もしもし、注文をお願いしたいのですが", [], ["お電話ありがとうございます。", "ご注文をどうぞ。"]),
    ("唐揚げ弁当を大盛りで2つください", [("add_item", {"item": "唐揚げ弁当", "quantity": 2, "option": "大盛り"})],
     ["唐揚げ弁当の大盛りを2つ、", "合計1,580円です。"]),
    ("のり弁当を1つお願いします", [("add_item", {"item": "のり弁当", "quantity": 1, "option": None})],
     ["のり弁当を1つ、", "合計2,030円です。"]),
    ("エビフライ弁当も1つください", [("add_item", {"item": "エビフライ弁当", "quantity": 1, "option": None})],
     ["申し訳ありません、エビフライ弁当は売り切れです。", "鮭弁当はいかがですか？"]),
    ("唐揚げ弁当を3つに変更してください", [("change_item", {"item": "唐揚げ弁当", "quantity": 3, "option": None})],
     ["唐揚げ弁当を3つにしました。", "合計2,820円です。"]),
    ("22時に受け取りに行きます", [("set_pickup_time", {"pickup_time": "22:00"})],
     ["申し訳ありません、22時にはお渡しできません。", "11時から21時の間でお願いします。"]),
    ("18時半に受け取りに行きます", [("set_pickup_time", {"pickup_time": "18:30"})], None),
    (None, [("confirm_order", {})], None),  # its own reply: calls of one reply run at once, this one reads the time
    ("はい", None, ["ご注文を承りました。", "18時30分にお待ちしております。"]),
    ("ありがとう、失礼します", [("end_call", {})], ["お電話ありがとうございました。"]),
]
PLANNER_ORDER = [words for words, _, _ in ORDER[:6] if words] + [
    "18時半に受け取りに行きます", "今の注文を確認してください", "以上でお願いします", "はい", "ありがとう、失礼します"]
CALLER = "+819012345678"


class Phases(logging.Handler):
    """Collects the figures of the `concierge.latency` log records (concierge.agent.latency)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.samples: dict[str, list[float]] = defaultdict(list)
        self.last_turn = None

    def emit(self, record: logging.LogRecord) -> None:
        turn = getattr(record, "turn", None)
        if turn is None:
            return
        if getattr(record, "channel", ""):  # the phone's line: its own figures
            for name, ms in record.phases.items():  # type: ignore[attr-defined]
                if ms is not None:
                    self.samples["prompt->text" if name == "prompt_to_first_text" else name].append(ms)
            return
        self.last_turn = turn
        self.samples["decide"] += turn.timings.model_ms
        for call in turn.calls:
            self.samples[f"tool {call.name}"].append(call.ms)
        if turn.timings.first_text_ms is not None:
            self.samples["first text"].append(turn.timings.first_text_ms)
        self.samples["turn total"].append(turn.timings.total_ms)


def script_model(server: WireServer, delay_s: float) -> None:
    """What the scripted model replies to one call's requests, in order."""
    if server.script:
        print(f"  ! {len(server.script)} scripted replies were left over by the last call", file=sys.stderr)
        server.script.clear()
    n = 0
    for _words, calls, sentences in ORDER:
        if calls:
            n += 1
            ids = [(f"call_{n}_{i}", name, args) for i, (name, args) in enumerate(calls)]
            server.enqueue((200, streamed_calls(*ids, delay_s=delay_s)))
        if sentences:
            server.enqueue((200, streamed_text(*sentences, delay_s=delay_s)))


async def one_call(url: str, words: list[str], phases: Phases, transcript: bool) -> bool:
    samples = phases.samples
    async with dial(url, TOKEN, caller=CALLER) as call:
        for said in words:
            reply = await call.say(said)
            if transcript:
                print(f"  caller: {said}\n  phone:  {reply.text}")
            if reply.first_token_s is not None:
                samples["caller first"].append(reply.first_token_s * 1000)
            samples["caller last"].append(reply.total_s * 1000)
        try:
            end = await call.listen()
        except TimeoutError:
            turn = phases.last_turn
            print(f"  ! the call did not end; its last turn: {turn.answer if turn else '?'!r}, calls "
                  f"{[(c.name, c.status, c.message) for c in turn.calls] if turn else '?'}", file=sys.stderr)
            return False
        if transcript:
            print(f"  (end: {json.dumps(end.end, ensure_ascii=False)})")
        return end.end is not None and end.end.get("reason") == "end"


def run(provider: str, calls: int, delay_ms: float, transcript: bool) -> tuple[dict[str, list[float]], int, int]:
    phases = Phases()
    logger = logging.getLogger("concierge.latency")
    logger.addHandler(phases)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    folder = tempfile.mkdtemp(prefix="concierge-phone-bench-")
    database = f"sqlite:///{folder}/restaurant.db"
    phone = PhoneSettings(user="phone", catalog="restaurant")
    server = WireServer() if provider == "llm" else None
    options = {}
    if server is not None:
        server.thread.start()
        options = {"provider_name": "openai-chat", "model": "scripted", "base_url": server.url + "/v1"}
    ended = 0
    try:
        with live(database, None, catalogs=("restaurant",), phone=phone, **options) as url:
            words = [w for w, _, _ in ORDER if w] if server is not None else PLANNER_ORDER
            for _ in range(calls):
                if server is not None:
                    script_model(server, delay_ms / 1000)
                ended += asyncio.run(one_call(url, words, phases, transcript))
    finally:
        logger.removeHandler(phases)
        if server is not None:
            server.httpd.shutdown()
            server.httpd.server_close()
    return phases.samples, ended, _orders(database)


def _orders(database: str) -> int:
    import sqlalchemy as sa

    engine = sa.create_engine(database)
    with engine.connect() as conn:
        n = conn.scalar(sa.text("SELECT count(*) FROM restaurant_orders"))
    engine.dispose()
    return int(n or 0)


def percentile(values: list[float], q: float) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def report(title: str, samples: dict[str, list[float]]) -> None:
    print(f"\n{title}; {machine.load_average()}")
    print(f"  {'phase':<26} {'n':>5} {'p50 ms':>9} {'p95 ms':>9} {machine.LOAD}")
    order = ["decide", *sorted(k for k in samples if k.startswith("tool ")), "first text", "turn total",
             "prompt->text", "caller first", "caller last"]
    for name in order:
        values = samples.get(name)
        if values:
            print(f"  {name:<26} {len(values):>5} {percentile(values, 50):>9.1f} {percentile(values, 95):>9.1f} "
                  f"{machine.load()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10, help="whole calls per provider (default 10)")
    parser.add_argument("--provider", choices=["offline", "llm", "both"], default="both")
    parser.add_argument("--llm-delay-ms", type=float, default=50.0,
                        help="the scripted model's delay before each streamed chunk (default 50)")
    parser.add_argument("--transcript", action="store_true", help="print the first call as the caller heard it")
    args = parser.parse_args()
    os.environ.setdefault("TWILIO_AUTH_TOKEN", TOKEN)
    os.environ["TWILIO_AUTH_TOKEN"] = TOKEN  # the bench's caller signs with this token
    for provider in (["offline", "llm"] if args.provider == "both" else [args.provider]):
        if args.transcript:
            print(f"\n{provider}: one call")
        samples, ended, written = run(provider, args.calls, args.llm_delay_ms, args.transcript)
        what = "offline planner" if provider == "offline" else f"scripted LLM, {args.llm_delay_ms:.0f} ms per chunk"
        report(f"{what}: {args.calls} calls, {ended} ended by the agent, {written} orders written", samples)


if __name__ == "__main__":
    main()
