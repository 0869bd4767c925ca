"""`concierge ask` and `concierge chat`: the agent in a terminal.

The answer goes to stdout; progress (each tool call), ungrounded numbers,
timings and the session id go to stderr, so `concierge ask ... > answer.txt`
keeps only the answer. `--json` prints the whole turn to stdout instead.
A question longer than `MESSAGE_CHARS` (the limit of every channel) is refused before
anything opens: `ask` exits 2, `chat` says so and waits for the next line.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import click

from concierge.agent.loop import Agent
from concierge.agent.providers import make_provider
from concierge.agent.turn import MessageTooLong, Turn, check_message
from concierge.cli.options import (
    acting_user,
    current_settings,
    data_options,
    json_option,
    open_pipeline,
    provider_options,
    user_option,
)

EXIT_WORDS = {"exit", "quit", ":q", "/exit", "/quit"}


def register(main: click.Group) -> None:
    main.add_command(ask)
    main.add_command(chat)


def _agent_options(fn):
    for option in reversed([
        data_options,
        provider_options,
        user_option,
        click.option("--session", "session_id", default=None,
                     help="Continue this conversation (it is created when new)."),
        click.option("--yes", is_flag=True, help="Confirm writes without asking (for scripts and eval)."),
        json_option,
    ]):
        fn = option(fn)
    return fn


@click.command()
@click.argument("question")
@_agent_options
def ask(question: str, **options: Any) -> None:
    """Ask one question; the model (or the offline planner) answers through the declared tools."""
    check_message(question)
    anyio.run(_session, {**options, "settings": current_settings()}, [question])


@click.command()
@_agent_options
def chat(**options: Any) -> None:
    """Talk with the agent: one question per line; `exit` or Ctrl-D ends."""
    anyio.run(_session, {**options, "settings": current_settings()}, None)


async def _session(options: dict[str, Any], questions: list[str] | None) -> None:
    settings = options["settings"]
    pipeline = open_pipeline(settings)
    provider = None
    try:
        user = pipeline.user(acting_user(pipeline.state, options["user_name"]))
        provider = make_provider(settings.provider.name, model=settings.provider.model,
                                 base_url=settings.provider.base_url, pipeline=pipeline)
        agent = Agent(pipeline, provider)
        session_id = options["session_id"]
        interactive = questions is None
        if interactive:
            click.echo(f"concierge chat ({provider.name}, user {user.name}); exit or Ctrl-D to end.", err=True)
        while True:
            question = await _next_question(questions)
            if question is None:
                break
            turn = await _one_turn(agent, user, question, session_id, options)
            session_id = turn.session_id
        if session_id:
            click.echo(f"session: {session_id} (continue with --session {session_id})", err=True)
    finally:
        if provider is not None:
            await provider.aclose()
        pipeline.close()


async def _next_question(questions: list[str] | None) -> str | None:
    if questions is not None:
        return questions.pop(0) if questions else None
    while True:
        try:
            line = await anyio.to_thread.run_sync(input, "> ")
        except EOFError:
            return None
        if line.strip().lower() in EXIT_WORDS:
            return None
        try:
            check_message(line.strip())
        except MessageTooLong as err:
            click.echo(str(err), err=True)
            continue
        if line.strip():
            return line.strip()


async def _one_turn(agent: Agent, user, question: str, session_id: str | None, options: dict[str, Any]) -> Turn:
    as_json = options["as_json"]
    on_event = None if as_json else _progress
    turn = await agent.ask(question, user, session_id=session_id, on_event=on_event, auto_confirm=options["yes"])
    if turn.pending is not None:
        if not as_json:
            _print_turn(turn)
        if not sys.stdin.isatty():
            if not as_json:
                click.echo("Not confirmed: nothing was written (--yes confirms without asking).", err=True)
                return turn
        elif await anyio.to_thread.run_sync(lambda: click.confirm("Write this?", default=False, err=True)):
            turn = await agent.confirm(turn.session_id, user, on_event=on_event)
        else:
            turn = await agent.cancel(turn.session_id, user)
    if as_json:
        click.echo(json.dumps(_json(turn), ensure_ascii=False, indent=2))
    else:
        _print_turn(turn)
    return turn


async def _progress(event: dict[str, Any]) -> None:
    if event["type"] == "tool_end":
        rows = f", {event['row_count']} row(s)" if event["status"] == "ok" else ""
        click.echo(f"  · {event['name']} {event['status']} [{event['result_id']}]{rows}, {event['ms']:.0f} ms",
                   err=True)


def _print_turn(turn: Turn) -> None:
    click.echo(turn.answer)
    for call in turn.calls:
        if call.status in ("refused", "error"):
            click.echo(f"  ! {call.name} {call.status} ({call.code}): {call.message}", err=True)
    if turn.ungrounded:
        click.echo(f"  ungrounded numbers (not found in this turn's results): {', '.join(turn.ungrounded)}",
                   err=True)
    timings = turn.timings
    line = (f"  {turn.steps} model request(s) {sum(timings.model_ms):.0f} ms, {len(timings.tool_ms)} tool call(s) "
            f"{sum(timings.tool_ms):.0f} ms, total {timings.total_ms:.0f} ms")
    if turn.usage.input_tokens or turn.usage.output_tokens:
        line += f"; tokens {turn.usage.input_tokens} in / {turn.usage.output_tokens} out"
        if turn.usage.cost_usd is not None:
            line += f", about ${turn.usage.cost_usd:.4f}"
    click.echo(line, err=True)


def _json(turn: Turn) -> dict[str, Any]:
    data = turn.model_dump(mode="json")
    for call in data["calls"]:
        call["decision"] = call["status"] if call["code"] is None else f"{call['status']}:{call['code']}"
    return data
