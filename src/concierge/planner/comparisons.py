"""A comparison of two periods answers only a request that asks one: 東京倉庫の先月の出荷件数 names the warehouses'
comparison by its topic (倉庫) and its figure, but asks for one month's shipments, never their change."""

from __future__ import annotations

from concierge.catalog.model import Tool
from concierge.planner import words
from concierge.planner.slots import Slots


def asks_change(slots: Slots) -> bool:
    """Whether the request asks how a figure changed (落ちた, compared: `[comparison] change`)."""
    return words.pattern("comparison", "change").search(slots.cue_text) is not None


def unasked(tool: Tool, slots: Slots) -> bool:
    """Whether `tool` compares two periods and the request asks no change and names no two periods."""
    return tool.result.summary is not None and len(slots.dates) < 2 and not asks_change(slots)
