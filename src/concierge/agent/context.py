"""The text a catalog's `rules` add to the newest user message: when to call which tool, and the state of
the conversation the model must not forget (docs/catalog.md, "Rules").

`rules_text` is the declared rules in the user's language. `state_text` reads the catalog's state tool
(the current order) through the one pipeline, for this conversation, and says it in sentences (its
answer templates), then what is still missing (the columns its first row leaves empty). The agent adds
both to the newest user message every turn; the offline planner reads the same tools' intents.

The state read is the agent's own, not a call the user made: it goes through the pipeline as the user
(access and the guard apply, and it is audited), with the audit source `context` followed by the
channel's (``context phone CA…``), so that the audit tells it from the calls the conversation made.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from concierge.catalog.loader import Catalog
from concierge.catalog.model import Rules, Tool
from concierge.pipeline import audit
from concierge.pipeline.access import Session, User
from concierge.pipeline.pipeline import Pipeline
from concierge.sources.result import Rows, ToolResult

CONTEXT = "context"  # the audit source of the agent's reads for the model's context


def rules_text(catalogs: list[Catalog], lang: str) -> str:
    """Every rule of the catalogs, one line each ("" when none declares rules)."""
    lines = [f"- {rule.get(lang)}" for c in catalogs if c.spec.rules for rule in c.spec.rules.when]
    return "\n".join(lines)


def state_text(pipeline: Pipeline, user: User, session: Session | None, lang: str) -> str:
    """The conversation's state from each catalog's `rules.state` tool the user may call ("" when none)."""
    from concierge.planner.answer import render  # the sentences of the tool's answer templates
    from concierge.planner.answer.scene import label

    parts = []
    for rules, tool, result in _states(pipeline, user, session):
        parts.append(render(result, lang, tool, today=pipeline.today(tool.name)))
        rows = result.any_rows()
        first = rows[0] if rows else {}
        missing = [label(tool, k, lang) for k in rules.needs if first.get(k) is None]
        if missing:
            head, joiner = ("未定: ", "、") if lang == "ja" else ("Not yet given: ", ", ")
            parts.append(head + joiner.join(missing))
    return "\n".join(parts)


def state_rows(pipeline: Pipeline, user: User, session: Session | None) -> dict[str, tuple[dict[str, Any], ...]]:
    """The rows of each state tool whose catalog declares `rules.lines` (the order's lines), by tool name: what
    the offline planner edits (「それ2つに」) instead of reading `context`."""
    return {tool.name: tuple(result.rows) for _, tool, result in _states(pipeline, user, session, lines_only=True)
            if isinstance(result, Rows)}


def _states(pipeline: Pipeline, user: User, session: Session | None,
            lines_only: bool = False) -> Iterator[tuple[Rules, Tool, ToolResult]]:
    """Each state tool the user may call, read once (only those of catalogs that declare `rules.lines`)."""
    allowed = {t.name for t in pipeline.tools_for(user)}
    for catalog in pipeline.catalogs:
        rules = catalog.spec.rules
        if rules is None or rules.state is None or rules.state not in allowed or (lines_only and not rules.lines):
            continue
        tool = pipeline.tools[rules.state]
        yield rules, tool, pipeline.invoke(tool.name, {}, user, session=session, source=context_source())


def context_source() -> str:
    """`context`, and the channel the read is made for when it set one (``context phone CA…``)."""
    channel = audit.current_source()
    return f"{CONTEXT} {channel}" if channel else CONTEXT


def context(pipeline: Pipeline, user: User, session: Session | None, lang: str) -> str:
    """Rules and state together, headed, for the newest user message ("" when the catalogs declare none)."""
    rules, state = rules_text(pipeline.catalogs, lang), state_text(pipeline, user, session, lang)
    heads = ("ツールの使い方", "現在の状態") if lang == "ja" else ("When to call which tool", "Current state")
    return "\n\n".join(f"[{head}]\n{text}" for head, text in zip(heads, (rules, state), strict=True) if text)
