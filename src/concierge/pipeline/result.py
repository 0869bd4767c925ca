"""What every tool call returns, and the shaping a tool declares for it.

Totals, changes and percentages are computed here, by the tool, so that no
model ever has to do arithmetic on the rows.
"""

from __future__ import annotations

import secrets
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, Field

from concierge.catalog.model import ChangeSummary, ResultShape
from concierge.errors import Refusal

Status = Literal["ok", "refused", "error", "confirm"]


def new_result_id() -> str:
    return "r_" + secrets.token_hex(5)


class ToolResult(BaseModel):
    result_id: str = Field(default_factory=new_result_id)
    tool: str
    status: Status
    code: Refusal | None = None
    message: str | None = None
    message_ja: str | None = None
    param: str | None = None
    valid: dict[str, Any] | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    columns: list[str] = Field(default_factory=list)
    rows: list[dict[str, Any]] = Field(default_factory=list)
    row_count: int = 0
    truncated: bool = False
    totals: dict[str, Any] = Field(default_factory=dict)
    summary: dict[str, Any] | None = None
    preview: dict[str, Any] | None = None
    confirmation_token: str | None = None
    ai_instruction: str | None = None
    ms: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def is_error(self) -> bool:
        return self.status in ("refused", "error")


def plain(value: Any) -> Any:
    """A JSON-ready version of a database value."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def plain_args(args: dict[str, Any]) -> dict[str, Any]:
    return {k: plain(v) for k, v in args.items()}


def shape(rows: list[dict[str, Any]], spec: ResultShape) -> dict[str, Any]:
    """Rows capped at `max_rows`, plus totals and summaries over *all* rows."""
    totals: dict[str, Any] = {"count": len(rows)}
    for column, how in spec.totals.items():
        values = [r[column] for r in rows if r.get(column) is not None]
        if how == "sum":
            totals[column] = sum(values)
        elif values:
            totals[column] = min(values) if how == "min" else max(values)
    summary = _change_summary(rows, spec.summary) if spec.summary else None
    return {
        "rows": rows[: spec.max_rows],
        "row_count": len(rows),
        "truncated": len(rows) > spec.max_rows,
        "totals": totals,
        "summary": summary,
    }


def _change_summary(rows: list[dict[str, Any]], spec: ChangeSummary) -> dict[str, Any]:
    current = sum(r[spec.current] or 0 for r in rows)
    previous = sum(r[spec.previous] or 0 for r in rows)
    changes = [
        {
            spec.key: r[spec.key],
            "change": (r[spec.current] or 0) - (r[spec.previous] or 0),
            spec.current: r[spec.current] or 0,
            spec.previous: r[spec.previous] or 0,
        }
        for r in rows
    ]
    decreases = sorted((c for c in changes if c["change"] < 0), key=lambda c: (c["change"], str(c[spec.key])))
    increases = sorted((c for c in changes if c["change"] > 0), key=lambda c: (-c["change"], str(c[spec.key])))
    change = current - previous
    return {
        "current_total": current,
        "previous_total": previous,
        "change": change,
        "change_pct": round(change * 100 / previous, 1) if previous else None,
        "top_decreases": decreases[: spec.top],
        "top_increases": increases[: spec.top],
    }
