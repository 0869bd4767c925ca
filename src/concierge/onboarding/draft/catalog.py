"""A drafted catalog of a whole schema: every table's read tool and, where it has something to count by,
its summary; the catalog's description, roles and `review:` list; a header that says what was drafted
and what was left out."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from concierge.onboarding.draft.compare_tool import compare_tools
from concierge.onboarding.draft.context import Context
from concierge.onboarding.draft.filters import name_searches
from concierge.onboarding.draft.paths import paths
from concierge.onboarding.draft.read_tool import read_tool
from concierge.onboarding.draft.rollup import Grain, grain
from concierge.onboarding.draft.summary_tool import summary_tool
from concierge.onboarding.draft.writing import dump
from concierge.onboarding.introspect import Schema
from concierge.onboarding.naming import Noun, slug


@dataclass(frozen=True)
class Draft:
    name: str
    text: str  # the catalog YAML, without the header
    tools: tuple[str, ...]
    review: tuple[str, ...]
    left_out: tuple[str, ...] = ()  # tables and columns SQLite SQL cannot name (``table``, ``table.column``)
    rollups: tuple[Grain, ...] = ()  # the summary tables drafted for large tables: `concierge db refresh` builds them

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def draft_catalog(schema: Schema, name: str | None = None) -> Draft:
    """The drafted catalog of a schema; `name` defaults to the database's name."""
    ctx = Context(schema, name or schema.database)
    tools: dict[str, Any] = {}
    for table in ctx.schema.tables:  # name parameters first: other tables' lookups point at them
        searches = name_searches(ctx, table)
        if searches:
            ctx.name_params[table.name] = searches[0][0]
    routes: list[str] = []
    rollups: dict[str, Grain] = {}
    for table in ctx.schema.tables:
        tools[ctx.tool_names[table.name]] = read_tool(ctx, table)
        kept = grain(ctx.schema, table)
        summary = summary_tool(ctx, table, kept)
        if summary is not None:
            tools[ctx.summary_names[table.name]] = summary
        compared = compare_tools(ctx, table, kept)
        tools.update(compared)
        if kept is not None and any("rollup" in t for t in [summary or {}, *compared.values()]):
            rollups[kept.name] = kept
        routes += paths(ctx, table).left_out
    tables = ctx.schema.tables
    ja_listed = "、".join(Noun.of(t.name, t.comment).ja for t in tables)
    body = {
        "catalog": slug(ctx.name, "business"),
        "description": {
            "ja": f"{ctx.name} データベース（{ja_listed}）のデータを調べます。",
            "en": f"Look up the {ctx.name} database: {', '.join(t.name for t in tables)}.",
        },
        "roles": {"admin": {"all_rows": True}, "staff": {"all_rows": True}},
        **({"rollups": {name: g.declaration() for name, g in rollups.items()}} if rollups else {}),
        "tools": tools,
        "review": ctx.review,
    }
    text = _header(ctx, len(tools), routes) + dump(body)
    return Draft(slug(ctx.name, "business"), text, tuple(tools), tuple(ctx.review), ctx.left_out,
                 tuple(rollups.values()))


def _header(ctx: Context, n_tools: int, routes: list[str]) -> str:
    schema = ctx.schema
    intro = (f"# Drafted by `concierge init` from the {schema.dialect} database {schema.database!r}:\n"
             f"# {len(schema.tables)} tables and views, {n_tools} read tools, no write tool.\n"
             "# Read it, fix what the draft got wrong, and remove the keys you reviewed from `review:`.\n"
             "# Writes are declared by a person (docs/catalog.md, \"Declaring a write\").\n")
    if ctx.left_out:
        intro += ("# Left out, as SQLite SQL cannot name them (a colon that begins a word reads as a :parameter;"
                  " rename them to draft them):\n" + "".join(f"#   {n}\n" for n in ctx.left_out))
    if routes:
        intro += ("# Not filtered or grouped by, as two routes of foreign keys reach them (write the tool by hand"
                  " with the route meant):\n" + "".join(f"#   {r}\n" for r in dict.fromkeys(routes)))
    return intro
