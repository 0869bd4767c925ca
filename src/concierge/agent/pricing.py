"""An estimate of what a turn cost, from the tokens the provider reported.

Prices are list prices in US dollars per million tokens (input, output) as
published by the vendors; they change, so the figure is an estimate and is
None for a model not listed here (local models, the offline planner).
A dated snapshot is priced as its model ("gpt-4.1-mini-2025-04-14" as "gpt-4.1-mini").
"""

from __future__ import annotations

import re

PER_MILLION: dict[str, tuple[float, float]] = {
    "gpt-5.5": (5.00, 30.00),
    "gpt-5.4": (2.50, 15.00),
    "gpt-5.4-mini": (0.75, 4.50),
    "gpt-5.4-nano": (0.20, 1.25),
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "claude-sonnet-4-6": (3.00, 15.00),
    "claude-sonnet-4-5": (3.00, 15.00),
    "claude-haiku-4-5": (1.00, 5.00),
    "claude-opus-4-5": (5.00, 25.00),
    "gemini-3-flash-preview": (0.50, 3.00),  # ai.google.dev/gemini-api/docs/pricing, 2026-07
    "gemini-3.1-flash": (0.50, 3.00),
    "gemini-3.1-flash-lite": (0.25, 1.50),
    "gemini-2.5-pro": (1.25, 10.00),
    "gemini-2.5-flash": (0.30, 2.50),
    "gemini-2.5-flash-lite": (0.10, 0.40),
}
_SNAPSHOT = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8})$")


def cost_usd(model: str, input_tokens: int, output_tokens: int) -> float | None:
    name = _SNAPSHOT.sub("", model.lower().split("/")[-1])
    price = PER_MILLION.get(name)
    if price is None:
        return None
    return round((input_tokens * price[0] + output_tokens * price[1]) / 1_000_000, 6)
