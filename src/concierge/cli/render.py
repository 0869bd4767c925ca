"""Plain-text rendering of tool results for the terminal."""

from __future__ import annotations

import json
import unicodedata

import click

from concierge.pipeline.result import Failure, Preview, ToolResult


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
    view = result.view()
    if isinstance(view, Failure):
        click.echo(f"{head} ({view.code}): {view.message}")
        if view.valid:
            click.echo(f"valid: {json.dumps(view.valid, ensure_ascii=False)}")
        return
    if isinstance(view, Preview):
        click.echo(f"{head}: nothing written yet; preview:")
        for key, value in view.fields.items():
            click.echo(f"  {key}: {value}")
        return
    click.echo(f"{head}, {view.row_count} row(s){' (truncated)' if view.truncated else ''}")
    if view.rows:
        click.echo(table(view.columns, view.rows))
    if view.totals:
        shown = (f"{k} {v:,}" if isinstance(v, int) else f"{k} {v}" for k, v in view.totals.items())
        click.echo("totals: " + ", ".join(shown))
    if view.summary:
        click.echo("summary: " + json.dumps(view.summary, ensure_ascii=False))
