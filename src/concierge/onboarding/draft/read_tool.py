"""The read tool of a table or view: its rows, up to READ_MAX_ROWS, with `row_count` and the totals of its
additive measures over every matching row, and filters that are all optional (`filters`): its key, its
names, its enums, its yes/no conditions (`conditions`), the rows its foreign keys point at and those one
step further (the tracks of an artist, through their albums), the rows it is linked to through a link
table (the films of a category), its periods. The name of each row a foreign
key points at is joined in next to the key (an order shows its customer's name)."""

from __future__ import annotations

from typing import Any

from concierge.onboarding import measures
from concierge.onboarding.columns import amount_columns, date_columns, display_column
from concierge.onboarding.draft import filters
from concierge.onboarding.draft.conditions import flag_names, yes_no_columns, yes_no_filter
from concierge.onboarding.draft.context import Context, ToolDraft, selected, unique
from concierge.onboarding.draft.intents import read_intents
from concierge.onboarding.draft.labels import column_label, in_words, joined_name, ref_noun
from concierge.onboarding.draft.paths import Join, links, paths
from concierge.onboarding.introspect import Table
from concierge.onboarding.measures import event_date
from concierge.onboarding.naming import english

READ_MAX_ROWS = 50
READ_DEPTH = 2  # a read tool filters by the rows at most this many steps away (the artist of a track's album)


def read_tool(ctx: Context, table: Table) -> dict[str, Any]:
    q = ctx.sql.q
    noun = ctx.noun(table)
    tool = ToolDraft(ctx.tool_names[table.name])
    names = ctx.result_names[table.name]
    select = [selected(f"t.{q(c.name)}", names[c.name], c.name, q) for c in table.columns]
    joins: dict[str, Join] = {}
    taken = set(names.values())
    found: list[str] = []
    if len(table.primary_key) == 1:
        pk = table.column(table.primary_key[0])
        key = filters.key_filter(ctx, tool, table, pk, noun, f"t.{q(pk.name)}")
        if key:
            found.append(key)
    for i, (pname, expr, cnoun) in enumerate(filters.name_searches(ctx, table)):
        spec: dict[str, Any] = {
            "type": "string", "nullable": True, "min_length": 1, "max_length": 100, "match": "contains",
            "description": {"ja": f"{cnoun.ja}の一部", "en": f"part of the {cnoun.one} (any case)"},
        }
        if i == 0:
            spec["extract"] = {"kind": "name", "labels": ["named", "called", cnoun.one, f"{noun.one} {cnoun.one}"]}
        found.append(tool.param(pname, spec, f"(:{{p}} IS NULL OR LOWER({expr}) LIKE LOWER(:{{p}}) ESCAPE '\\')"))
    flags = flag_names(table, ctx.schema.dialect)
    for col in filters.shared_value_columns(table) + filters.label_columns(table):
        if col.name not in flags:
            found.append(filters.enum_filter(ctx, tool, table, col))
    for yn in yes_no_columns(table, ctx.schema.dialect):
        found.append(yes_no_filter(ctx, tool, yn))
    found += _reached(ctx, tool, table, select, joins, taken)
    for i, col in enumerate(date_columns(table)):
        found += filters.period(ctx, tool, table, col, f"t.{q(col.name)}", extract=i == 0 and event_date(col))
    return _tool(ctx, table, tool, select, list(joins.values()), found)


def _reached(ctx: Context, tool: ToolDraft, table: Table, select: list[str], joins: dict[str, Join],
             taken: set[str]) -> list[str]:
    """The filters of the rows a table's foreign keys reach (`filters.ref_filters`), up to READ_DEPTH steps
    away, with the joins they need; the name of each row one step away joined in next to its key; and the
    names of the rows it is linked to through link tables (`filters.link_filter`)."""
    sql, q = ctx.sql, ctx.sql.q
    found = []
    reached = paths(ctx, table, READ_DEPTH)
    for j in reached.direct:
        display = display_column(j.table)
        if display is not None:
            label = unique(joined_name(j.fk.columns[0], display), taken)
            joins[j.alias] = j
            select.append(f"{display.sql(j.alias, sql)} AS {q(label)}")
        found += filters.ref_filters(ctx, tool, table, j)
        called_off = filters.called_off_filter(ctx, tool, j.table, j.alias, ref_noun(j.key(table), j.table)) \
            if display is None else None
        if called_off is not None:  # an order's lines: the order's row joined for its status
            joins[j.alias] = j
            found.append(called_off)
    for j in reached.beyond:
        if display_column(j.table) is None:  # a row of no name two steps away is no filter a person says
            continue
        joins.update({x.alias: x for x in reached.chain(j)})
        found += filters.ref_filters(ctx, tool, table, j)
    found += [f for f in (filters.link_filter(ctx, tool, link) for link in links(ctx, table)) if f]
    return found


def _tool(ctx: Context, table: Table, tool: ToolDraft, select: list[str], joins: list[Join],
          found: list[str]) -> dict[str, Any]:
    """The read tool's catalog entry, from what `read_tool` gathered."""
    q = ctx.sql.q
    noun = ctx.noun(table)
    names = ctx.result_names[table.name]
    amounts = amount_columns(table)
    order = ", ".join(f"t.{q(c)}" for c in table.primary_key) or "1"
    lines = [f"SELECT {', '.join(select)}", f"FROM {q(table.name)} t", *(j.sql(q) for j in joins)]
    lines += [("WHERE " if i == 0 else "  AND ") + w for i, w in enumerate(tool.where)]
    lines.append(f"ORDER BY {order}")
    result: dict[str, Any] = {"max_rows": READ_MAX_ROWS}
    if amounts:
        result["totals"] = {names[c.name]: "sum" for c in amounts}
    result["labels"] = {names[c.name]: column_label(c.name, c.comment, noun) for c in table.columns}
    for line in select[len(table.columns):]:  # the names joined in next to foreign keys (words: slugs)
        alias = line.rsplit(" AS ", 1)[1].strip('"`')  # unquoted (PostgreSQL's or MySQL's quotes)
        result["labels"][alias] = column_label(alias, None, noun)
    result.update(measures.formats(ctx.schema, {names[c.name]: (table, c) for c in table.columns}))
    ctx.review.append(f"tools.{tool.name}.result.labels")
    comment = english(table.comment)
    totals = f", and the totals of {', '.join(in_words(c) for c in amounts)}" if amounts else ""
    key = f"tools.{tool.name}"
    ctx.review += [f"{key}.description", *tool.review, f"{key}.intents"]
    ja_filters = "、".join(found) or "なし"
    kind = ("ビュー", "view") if table.is_view else ("テーブル", "table")
    out: dict[str, Any] = {
        "description": {
            "ja": f"{noun.ja}を検索します（{kind[0]} {table.name}）。"
                  f"条件はどれも省略できます: {ja_filters}。"
                  f"最大{READ_MAX_ROWS}件を返し、row_count は条件に合う全件数です。",
            "en": f"Find {noun.many} ({kind[1]} {table.name}{': ' + comment if comment else ''}). "
                  f"Every filter is optional: {', '.join(found) or 'none'}. "
                  f"Returns up to {READ_MAX_ROWS} rows, row_count over all matching rows{totals}.",
        },
        "roles": ["admin", "staff"],
        "params": tool.params,
    }
    if tool.ordered:
        out["ordered"] = tool.ordered
    if tool.checks:
        out["checks"] = tool.checks
    out["sql"] = "\n".join(lines) + "\n"
    out["result"] = result
    out["intents"] = read_intents(noun, table.name in ctx.name_params)
    return out
