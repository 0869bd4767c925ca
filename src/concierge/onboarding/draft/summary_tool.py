"""The summary tool of a table: counts, and sums of its additive measures, by one of its groups (`groups`),
largest first, cut to the top ones (`top_n`); over a period where it has a date (its own, or that of the
row it belongs to: an order line's order), by day or month too. A table of no date is summarised too, where
it has something to group by (customers per country, albums per artist), with no grouping its totals.

What it sums: an order line's quantity × unit price where it keeps no amount (`measures.line_amount`),
then the table's additive measures; where it has none, those of a table it points at that records no
dates (the price of the product an item is). An amount of the table the date comes from is not summed
over this table's rows (an order's total would count once per item). It takes the filters of the read
tool (its enums, yes/no conditions, and the rows its foreign keys reach, up to three steps away)."""

from __future__ import annotations

from typing import Any

from concierge.onboarding import measures
from concierge.onboarding.columns import amount_columns, date_columns, display_column
from concierge.onboarding.draft import filters
from concierge.onboarding.draft.conditions import flag_names, yes_no_columns, yes_no_filter
from concierge.onboarding.draft.context import Context, ToolDraft, unique
from concierge.onboarding.draft.dated import period_date
from concierge.onboarding.draft.groups import SUMMARY_MAX_ROWS, Group, Measure, group_by, groups, rank_by, top_n
from concierge.onboarding.draft.intents import (
    SALES_WORDS,
    UNITS_WORDS,
    of_sales,
    sales_by,
    sales_money,
    summary_intents,
)
from concierge.onboarding.draft.labels import column_label, count_label, in_words
from concierge.onboarding.draft.paths import Join, Paths, paths
from concierge.onboarding.draft.rollup import Grain, statement_where
from concierge.onboarding.introspect import Column, Table
from concierge.onboarding.naming import Noun, concept_words, slug


def summary_tool(ctx: Context, table: Table, kept: Grain | None = None) -> dict[str, Any] | None:
    """The summary of `table` (the module docstring), or None where it has neither a date nor a group; read from
    the rollup `kept` where that can answer it."""
    sql, q = ctx.sql, ctx.sql.q
    reached = paths(ctx, table)
    dated = period_date(table, list(reached.direct))
    dtable = dated[2] if dated else table
    summed = _measures(ctx, table, list(reached.direct), dtable, dated=dated is not None)
    if dated is not None and dtable is table and not summed and _referenced(ctx, table):
        dated = None  # a birth date, a hire date: what a row of a master is, not when something happened
    found = groups(ctx, table, reached)
    if dated is None and not found:
        return None
    noun = ctx.noun(table)
    tool = ToolDraft(ctx.summary_names[table.name])
    needed: set[str] = {a for g in found.values() for a in g.joins} | {m.alias for m in summed}
    if dated is not None:
        alias, dcol, _ = dated
        date_expr = f"{alias}.{q(dcol.name)}"
        found["day"] = Group(sql.day(date_expr, dcol), "日")
        found["month"] = Group(sql.month(date_expr, dcol), "月")
        needed.add(alias)
        filters.period(ctx, tool, dtable, dcol, date_expr, extract=True)
        for other in date_columns(dtable):  # units shipped last month: the period of the ship date, said so
            if other is not dcol and measures.event_date(other):
                filters.period(ctx, tool, dtable, other, f"{alias}.{q(other.name)}", extract=False)
        if dtable is not table:  # an order's lines
            filters.called_off_filter(ctx, tool, dtable, alias, ctx.noun(dtable))
    needed |= _filters(ctx, tool, table, reached)
    count_col = unique(slug(noun.many, "rows"), {"group_value"} | {m.name for m in summed}
                       | {slug(m.words, "x") for m in summed})
    group_by(tool, found, "month" if dated else None)
    ranks = rank_by(tool, noun, count_col, summed, found)
    top_n(tool, found)
    joins = [j for j in reached.all if j.alias in needed]
    key = f"tools.{tool.name}"
    ctx.review += [f"{key}.description", *tool.review, f"{key}.intents", f"{key}.result.labels"]
    flows = _flows(table, dtable, summed, found) if dated else ()
    out: dict[str, Any] = {
        "description": _description(noun, found, summed, dated[1] if dated else None),
        "roles": ["admin", "staff"],
        "params": tool.params,
    }
    if tool.ordered:
        out["ordered"] = tool.ordered
    if tool.checks:
        out["checks"] = tool.checks
    out["sql"] = _sql(ctx, table.name, tool.where, found, summed, joins, ranks, count_col, dated=dated is not None)
    if kept is not None and dated is not None and dated[0] == "t":
        rolled = _over_rollup(ctx, kept, tool.where, found, summed, ranks, count_col)
        if rolled is not None:
            out["rollup"] = rolled
    out["result"] = {"max_rows": SUMMARY_MAX_ROWS,
                     "totals": {count_col: "sum", **{m.name: "sum" for m in summed}},
                     "labels": {"group_value": {"ja": "区分", "en": "group"}, count_col: count_label(noun),
                                **{m.name: m.label for m in summed}},
                     **measures.formats(ctx.schema, {m.name: m.source for m in summed})}
    out["intents"] = summary_intents(noun, found, [m.words for m in summed], dated=dated is not None, flows=flows,
                                     amounts_ja=[m.label["ja"] for m in summed if m.label.get("ja")])
    return out


def _over_rollup(ctx: Context, kept: Grain, where: list[str], found: dict[str, Group], summed: list[Measure],
                 ranks: list[str], count_col: str) -> dict[str, Any] | None:
    """The summary's statement over its table's rollup: the groups and conditions the rollup keeps, its rows
    counted by `source_rows`; None where a figure is not a sum the rollup keeps or it keeps no group."""
    q = ctx.sql.q
    if not summed or any(m.alias != "t" or m.sql != f"SUM(t.{q(m.source[1].name)})"
                         or m.source[1].name not in kept.sums for m in summed):
        return None
    groups = {v: g for v, g in found.items() if not g.joins and kept.keeps(g.expr) and kept.keeps(g.shown or "")}
    conditions = statement_where(kept, where)
    if not groups or conditions is None:
        return None
    sql = _sql(ctx, kept.name, conditions, groups, summed, [], ranks, count_col, dated=True,
               count="SUM(t.source_rows)")
    out: dict[str, Any] = {"table": kept.name, "sql": sql}
    if len(groups) < len(found):
        out["only"] = {"group_by": list(groups)}
    return out


def _sql(ctx: Context, source: str, where: list[str], found: dict[str, Group], summed: list[Measure],
         joins: list[Join], ranks: list[str], count_col: str, *, dated: bool, count: str = "COUNT(*)") -> str:
    """The groups and their figures, ranked; cut to the top `top_n` places, not rows: groups tied at the cut are
    all kept (the most lessons: both instructors with 39, never one of them as if alone)."""
    q = ctx.sql.q
    shown = "\n".join(f"            WHEN '{v}' THEN {g.shown or g.expr}" for v, g in found.items())
    keyed = "\n".join(f"            WHEN '{v}' THEN {g.expr}" for v, g in found.items())
    figures = {ranks[0]: count, **{m.name: m.sql for m in summed}}
    rank = "\n".join(f"              WHEN :rank_by = '{v}' THEN -COALESCE({f}, 0)" for v, f in figures.items())
    sums = "".join(f", {m.sql} AS {q(m.name)}" for m in summed)
    in_dates = f":rank_by IS NULL AND :top_n >= {SUMMARY_MAX_ROWS} AND :group_by IN ('day', 'month')"
    first = summed[0].sql if summed else count
    order = f"CASE WHEN {in_dates} THEN 0\n" if dated else "CASE\n"
    order += f"{rank}\n              ELSE -COALESCE({first}, 0) END"
    if dated:  # days and months listed in order: each its own place
        order += f",\n         CASE WHEN {in_dates} THEN MIN(CASE :group_by\n{shown}\n       END) END"
    lines = [f"SELECT MIN(CASE :group_by\n{shown}\n       END) AS group_value,",
             f"       {count} AS {q(count_col)}{sums},",
             f"       RANK() OVER (ORDER BY {order}) AS {_PLACE}",
             f"FROM {q(source)} t", *(j.sql(q) for j in joins)]
    lines += [("WHERE " if i == 0 else "  AND ") + w for i, w in enumerate(where)]
    lines += [f"GROUP BY CASE :group_by\n{keyed}\n       END"]
    columns = ", ".join(["group_value", q(count_col), *(q(m.name) for m in summed)])
    inner = "\n".join("  " + line for line in "\n".join(lines).split("\n"))
    return f"SELECT {columns}\nFROM (\n{inner}\n) ranked\nWHERE {_PLACE} <= :top_n\nORDER BY {_PLACE}, group_value\n"


_PLACE = "place_in_ranking"  # a group's place, those tied sharing one (RANK)


def _description(noun: Noun, found: dict[str, Group], summed: list[Measure], dcol: Column | None
                 ) -> dict[str, str]:
    names = ", ".join(m.words for m in summed)
    ja_sums = f"と{names}の合計" if summed else ""
    en_sums = f" and sum {names}" if summed else ""
    if dcol is None:
        return {"ja": f"{noun.ja}の件数{ja_sums}を、{'、'.join(found)} のどれかごとに集計します"
                      "（省略時は全体の合計）。多い順。",
                "en": f"Count {noun.many}{en_sums} by one of: {', '.join(found)} (none: the totals of all rows). "
                      "Largest first (rank_by: which figure)."}
    dnoun = Noun.of(dcol.name, dcol.comment, countable=False)
    return {"ja": f"{noun.ja}の件数{ja_sums}を、{'、'.join(found)} のどれかごとに集計します"
                  f"（期間は {dnoun.ja}、省略時は全期間）。多い順（日・月は日付順）。",
            "en": f"Count {noun.many}{en_sums} by one of: {', '.join(found)} (default month), "
                  f"over a period of {in_words(dcol)} (all time when none). Largest first (rank_by: which "
                  f"figure); days and months in order unless ranked or cut to the top ones."}


def _filters(ctx: Context, tool: ToolDraft, table: Table, reached: Paths) -> set[str]:
    """A summary's filters: its enums and yes/no conditions, and those of the rows its foreign keys reach
    (`filters.ref_filters`); the aliases of the joins they need."""
    flags = flag_names(table, ctx.schema.dialect)
    for col in filters.shared_value_columns(table):
        if col.name not in flags:
            filters.enum_filter(ctx, tool, table, col)
    for yn in yes_no_columns(table, ctx.schema.dialect):
        yes_no_filter(ctx, tool, yn)
    used: set[str] = set()
    for j in reached.all:
        display = display_column(j.table)
        if j.depth > 1 and display is None:  # a row of no name two steps away is no filter a person says
            continue
        if filters.ref_filters(ctx, tool, table, j) and display is not None:
            used |= {x.alias for x in reached.chain(j)}
    return used


def _measures(ctx: Context, table: Table, joins: list[Join], dtable: Table, *, dated: bool) -> list[Measure]:
    """What a summary sums (the module docstring)."""
    q = ctx.sql.q
    taken = {"group_value"}
    out = []
    line = measures.line_amount(table)
    if line is not None:
        expr = line.sql({c.name: f"t.{q(c.name)}" for c in table.columns})
        name = unique("amount", taken | set(ctx.result_names[table.name].values()))
        taken.add(name)
        out.append(Measure(name, f"SUM({expr})", "t", "amount", column_label("amount", None, ctx.noun(table)),
                           Noun.of("amount", None, countable=False), (table, line.unit_price)))
    amounts = [("t", table, c) for c in amount_columns(table)]
    if not amounts and dated:
        amounts = [(j.alias, j.table, c) for j in joins if j.table is not dtable and not date_columns(j.table)
                   for c in amount_columns(j.table) or (_unit_prices(j.table) if dtable is not table else [])]
    for a, owner, c in amounts:
        name = unique(ctx.result_names[owner.name][c.name], taken)
        out.append(Measure(name, f"SUM({a}.{q(c.name)})", a, " ".join(concept_words(c.name)) or c.name,
                           column_label(c.name, c.comment, ctx.noun(table)),
                           Noun.of(c.name, c.comment, countable=False), (owner, c)))
    return out


def _unit_prices(table: Table) -> list[Column]:
    """The unit prices of a table (a product's price): summed over the rows of a line that belongs to a dated
    row and keeps no quantity (an order item of one unit each), each row's amount."""
    return [c for c in table.columns if measures.measure(table, c).role == "unit_price"]


def _flows(table: Table, dtable: Table, summed: list[Measure], found: dict[str, Group]) -> tuple[str, ...]:
    """The words for the sales and the units sold (`intents.SALES_WORDS`, `UNITS_WORDS`) that this summary is
    asked by: a table of sales whose money is sales gets the sales words, unless the row its date comes from
    keeps sales money of its own (the invoice, not its lines), and the sales of each of its groups (商品別の
    売上); one that counts pieces, the units words."""
    if not of_sales(table.name, table.comment) and not (dtable is not table and _sells(dtable)):
        return ()  # a line of a sale is a sale too (施術明細 of a 来店), whatever its own name says
    out: tuple[str, ...] = ()
    money = [m for m in summed
             if measures.measure(*m.source).money and sales_money(m.source[1].name, m.source[1].comment)]
    if money and (dtable is table or not _sells(dtable)):
        out += SALES_WORDS
    if money:
        out += tuple(sales_by(found))
    if any(measures.measure(*m.source).role == "quantity" for m in summed):
        out += UNITS_WORDS
    return out


def _referenced(ctx: Context, table: Table) -> bool:
    """Whether another table's foreign key points at `table` (a master: customers, employees, patients)."""
    return any(fk.table == table.name for t in ctx.schema.tables if t is not table for fk in t.foreign_keys)


def _sells(table: Table) -> bool:
    """Whether a table records sales and keeps their money: its own amounts, or a line's quantity × price."""
    if not of_sales(table.name, table.comment):
        return False
    money = [c for c in amount_columns(table)
             if measures.measure(table, c).money and sales_money(c.name, c.comment)]
    return bool(money) or measures.line_amount(table) is not None
