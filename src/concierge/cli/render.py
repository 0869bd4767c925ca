"""Plain-text rendering of tool results for the terminal."""

from __future__ import annotations

import json
import unicodedata

import click

from concierge.sources.result import Confirmation, Refusal, Rows, ToolResult


def width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def table(columns: list[str], rows: list[dict]) -> str:
    cells = [[str(r.get(c, "")) if r.get(c) is not None else "" for c in columns] for r in rows]
    widths = [max([width(c)] + [width(row[i]) for row in cells]) for i, c in enumerate(columns)]

    def line(values: list[str]) -> str:
        return "  ".join(v + " " * (w - width(v)) for v, w in zip(values, widths, strict=True)).rstrip()

    return "\n".join([line(columns), line(["-" * w for w in widths]), *(line(r) for r in cells)])


def print_result(result: ToolResult) -> None:
    head = f"[{result.result_id}] {result.tool}: {result.status}"
    if isinstance(result, Rows):
        click.echo(f"{head}, {result.row_count} row(s){' (truncated)' if result.truncated else ''}")
        if result.rows:
            click.echo(table(result.columns, result.shown_rows()))
        totals = result.shown_totals()
        if totals:
            shown = (f"{k} {v:,}" if isinstance(v, int) else f"{k} {v}" for k, v in totals.items())
            click.echo("totals: " + ", ".join(shown))
        if result.summary:
            click.echo("summary: " + json.dumps(result.summary, ensure_ascii=False))
    elif isinstance(result, Confirmation):
        click.echo(f"{head}: nothing written yet; preview:")
        for key, value in result.preview.items():
            click.echo(f"  {key}: {value}")
    else:
        click.echo(f"{head} ({result.code}): {result.text()}")
        if isinstance(result, Refusal) and result.valid:
            click.echo(f"valid: {json.dumps(result.valid, ensure_ascii=False)}")
