"""A write waiting for a yes, as the person reads it before saying yes: the catalog's confirmation sentence
(「松本理恵様（0016）に、5/6(火)の販売「かぼちゃ4個」600円を登録します」), each value under its label in the user's
language (money with its currency, a day with its weekday, the customer's name), and a warning when the very
same write was done minutes ago. The same for the web card, the history and the CLI; the phone reads the
sentence aloud."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from concierge.agent.turn import PendingField
from concierge.catalog.model import AmountExtract, Tool
from concierge.language.detect import Lang
from concierge.planner.answer import render
from concierge.planner.answer.scene import label
from concierge.planner.answer.values import as_date, full_day, number
from concierge.sources.result import Confirmation, Money, currency_decimals


def sentence(result: Confirmation, tool: Tool, lang: Lang, today: date) -> str | None:
    """The catalog's own confirmation sentence for this preview (`answer.confirm`), else None."""
    if tool.answer is None or tool.answer.confirm is None:
        return None
    return render(result, lang, tool, today=today).strip() or None


def fields(result: Confirmation, tool: Tool, lang: Lang, currency: str | None) -> list[PendingField]:
    """Each value of the preview under its label, as a person reads it; empty values are left out."""
    money = set(tool.result.money) | {n for n, p in tool.params.items() if isinstance(p.extract, AmountExtract)}
    currency = tool.result.currency or currency
    out = []
    for name, value in result.preview.items():
        if value is None or value == "":
            continue
        out.append(PendingField(name=name, label=label(tool, name, lang), value=_shown(value, name in money,
                                                                                      currency, lang)))
    return out


def warning(result: Confirmation, lang: Lang) -> str | None:
    """What the card says when the same write, with these very values, was done minutes ago."""
    if result.repeats is None:
        return None
    minutes, where = result.repeats.minutes_ago(), result.repeats.result_id
    if lang == "ja":
        return (f"{minutes}分前に、これとまったく同じ内容がすでに書き込まれています（{where}）。"
                "二重登録でないか確かめてから確定してください。")
    return (f"Exactly the same values were written {minutes} minute(s) ago ({where}). Check that this is not a "
            "double entry before you confirm.")


def _shown(value: Any, is_money: bool, currency: str | None, lang: Lang) -> str:
    if isinstance(value, bool):
        return ("はい" if value else "いいえ") if lang == "ja" else ("yes" if value else "no")
    if is_money and isinstance(value, int | float | Decimal):
        decimals = currency_decimals(currency)
        return Money(Decimal(str(value)), currency, 0 if decimals is None else decimals).text()
    if isinstance(value, int | float):
        return number(value)
    day = as_date(value) if isinstance(value, str) and len(value) == 10 else None
    return full_day(day, lang) if day else str(value)
