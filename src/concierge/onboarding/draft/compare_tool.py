"""The comparison tools of a table: for each item (a product, a customer), the sum of an amount over two periods
of its event date (this period and the one before it, or two periods named) and the change, all computed
in SQL; the rows in order of change, the largest fall first, so 「先週から売上が落ちた商品は？」 and "which
products sold more than last month?" are both answered by the rows and their summary (top decreases and
increases). Drafted where a table has an event date (its own, or that of the row it belongs to: an order line's
order), a summed amount of its own and columns that name items: its own (商品名, product), or the name of a row a
foreign key points at (a line's product), or at one step further (the customer of a line's order). One tool per
item, the first named `<table>_compare`, the others `<table>_compare_by_<item>`: a comparison by product is not
one by customer. Modelled on the POS demo's `compare_periods`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from concierge.onboarding import glossary, measures
from concierge.onboarding.columns import amount_columns, display_column, enum_columns, group_columns
from concierge.onboarding.draft import filters
from concierge.onboarding.draft.context import Context, ToolDraft
from concierge.onboarding.draft.dated import period_date
from concierge.onboarding.draft.intents import sales_money
from concierge.onboarding.draft.labels import column_label
from concierge.onboarding.draft.paths import Join, Paths, paths
from concierge.onboarding.draft.rollup import Grain
from concierge.onboarding.introspect import Column, Table
from concierge.onboarding.naming import Noun, concept_words, slug
from concierge.planner import statuses

_ITEM_WORDS = frozenset({"product", "products", "item", "items", "goods", "sku", "article", "merchandise",
                         "customer", "customers", "client", "clients", "menu", "service"})
_ITEM_JA = ("商品", "品名", "品目", "製品", "顧客", "得意先", "取引先", "メニュー", "品番")
COMPARE_MAX_ROWS = 200

KEYWORDS = ["比較", "比べ", "対比", "前週比", "前月比", "前年比", "増減", "落ちた", "落ち込", "下がった", "減った",
            "伸びた", "増えた", "上がった", "compare", "comparison", "dropped", "fell",
            "declined", "grew", "week over week", "month over month", "sold less", "sold more"]


def _names_item(name: str, comment: str | None) -> bool:
    said = f"{name} {comment or ''}"
    return bool(set(concept_words(name)) & _ITEM_WORDS) or any(w in said for w in _ITEM_JA)


@dataclass(frozen=True)
class _Item:
    """What a comparison's rows are: its SQL, its label, the joins it needs, what rows are grouped by."""

    sql: str
    label: dict[str, str]
    joins: tuple[str, ...]
    grouped: str
    word: str  # the tool's name after _compare_by_ (customer)
    said: tuple[str, ...]  # what a request calls the items (customer, customers, 顧客, お客様): the tool's topics
    priced: bool = False  # a row with a price of its own: what is sold (a plant, not the branch that sold it)

    def rank(self) -> tuple[bool, bool, str]:
        """The comparison named `<table>_compare` comes first: of a product (the table's own name, then the rows
        it names in their order), else of what has a price, else by name."""
        named = _names_item(self.word, None)
        return not named, not self.priced, "" if named else self.word


def _items(ctx: Context, table: Table, reached: Paths, date_join: Join | None) -> list[_Item]:
    """The items compared, the table's own column first. A row another table names is grouped by its key too,
    so two customers of one name stay two. A row two steps away is reached through the row the date is of."""
    q = ctx.sql.q
    out: list[_Item] = []
    keys = {c for fk in table.foreign_keys for c in fk.columns}
    for c in [*enum_columns(table), *group_columns(table)]:
        if c.kind == "text" and c.name not in keys and _names_item(c.name, c.comment):
            shown = f"t.{q(c.name)}"
            label = column_label(c.name, c.comment, ctx.noun(table))
            out.append(_Item(shown, label, (), shown, slug(c.name, "item"), _said(Noun.of(c.name, c.comment))))
            break
    for j in reached.all:
        via_date = date_join is not None and j.depth == 2 and j.source == date_join.alias
        if j.depth > 1 and not via_date or j.table is table:
            continue
        display = display_column(j.table)
        if display is None or display.joined:
            continue
        noun = Noun.of(j.table.name, j.table.comment)
        name = f"{j.alias}.{q(display.columns[0].name)}"
        key = f"{j.source}.{q(j.fk.columns[0])}"
        out.append(_Item(_told_apart(ctx, j, display.columns[0].name, key), {"ja": noun.ja, "en": noun.one},
                         tuple(x.sql(q) for x in reached.chain(j)), f"{key}, {name}", slug(noun.one, "item"),
                         _said(noun), bool(measures.money_columns(j.table))))
    return sorted(out, key=_Item.rank)


def _told_apart(ctx: Context, j: Join, column: str, key: str) -> str:
    """A row's name, with its key after it where another row has the same name (佐藤 #1, 佐藤 #2)."""
    q = ctx.sql.q
    name = f"{j.alias}.{q(column)}"
    other = f"SELECT 1 FROM {q(j.table.name)} s WHERE s.{q(column)} = {name} AND s.{q(j.fk.referred[0])} <> {key}"
    return f"CASE WHEN EXISTS ({other}) THEN {ctx.sql.concat(name, repr(' #'), ctx.sql.as_text(key))} ELSE {name} END"


def _said(noun: Noun) -> tuple[str, ...]:
    return tuple(dict.fromkeys([noun.one, noun.many, noun.ja, *glossary.japanese(noun.one.split())]))


def _amount(table: Table) -> Column | None:
    found = amount_columns(table)
    money = [c for c in found if measures.measure(table, c).money and sales_money(c.name, c.comment)]
    return (money or found or [None])[0]  # type: ignore[list-item]


def compare_tools(ctx: Context, table: Table, kept: Grain | None = None) -> dict[str, dict[str, Any]]:
    """The comparisons of `table` by name (the module docstring); none where it has no such shape. Each reads
    the rollup `kept` where that keeps its items."""
    reached = paths(ctx, table, depth=2)
    dated = period_date(table, list(reached.direct))
    amount = _amount(table)
    if dated is None or amount is None:
        return {}
    alias, dcol, dtable = dated
    date_join = next((j for j in reached.direct if j.alias == alias), None)
    out: dict[str, dict[str, Any]] = {}
    for n, item in enumerate(_items(ctx, table, reached, date_join)):
        name = _name(ctx, table, "" if n == 0 else f"_by_{item.word}")
        out[name] = _compare(ctx, table, name, (alias, dcol, dtable), date_join, amount, item, kept)
    return out


def _name(ctx: Context, table: Table, by: str) -> str:
    name = f"{ctx.tool_names[table.name]}_compare{by}"
    while name in ctx.tool_names.values() or name in ctx.summary_names.values():
        name += "_2"
    return name


def _compare(ctx: Context, table: Table, name: str, dated: tuple[str, Column, Table], date_join: Join | None,
             amount: Column, item: _Item, kept: Grain | None) -> dict[str, Any]:
    sql, q = ctx.sql, ctx.sql.q
    alias, dcol, dtable = dated
    item_sql, item_label, grouped = item.sql, item.label, item.grouped
    joins = list(dict.fromkeys([*([date_join.sql(q)] if date_join else []), *item.joins]))
    noun = ctx.noun(table)
    amount_label = column_label(amount.name, amount.comment, noun)
    dnoun = Noun.of(dcol.name, dcol.comment, countable=False)
    date_expr, amt = f"{alias}.{q(dcol.name)}", f"COALESCE(t.{q(amount.name)}, 0)"

    def within(a: str, b: str) -> str:
        return f"{sql.date_from(date_expr, dcol, a)} AND {sql.date_to(date_expr, dcol, b)}"

    bounds = {"query": sql.year_bounds(dtable.name, dcol)}
    params: dict[str, Any] = {}
    for pname, part, before, ja, en in (
            ("cur_start", "start", False, "今期の開始日", "first day of the current period"),
            ("cur_end", "end", False, "今期の終了日（含む）", "last day of the current period"),
            ("prev_start", "start", True, "前期の開始日", "first day of the previous period"),
            ("prev_end", "end", True, "前期の終了日（含む）", "last day of the previous period")):
        extract: dict[str, Any] = {"kind": "date", "part": part, **({"period": "previous"} if before else {})}
        params[pname] = {"type": "date", "required": True, "bounds": bounds,
                        "description": {"ja": f"{ja}（{dnoun.ja}）", "en": f"{en} ({dnoun.one}), YYYY-MM-DD"},
                        "extract": extract}
    cur, prev = within("cur_start", "cur_end"), within("prev_start", "prev_end")
    kinds = ToolDraft(name)  # the rows' status (done, cancelled): the sales compared are those of the done ones
    owners = [(table, "t", None), *([(dtable, alias, ctx.noun(dtable))] if dtable is not table else [])]
    for owner, at, noun_of in owners:  # the rows' own status; an order's lines: the order's status too
        for col in enum_columns(owner):
            if statuses.names_status(col.name, col.comment or ""):
                filters.enum_filter(ctx, kinds, owner, col, at, noun_of)
    params.update(kinds.params)
    only = "".join(f" AND {w}" for w in kinds.where)

    def statement(source: str) -> str:
        return "\n".join([
            f"SELECT {item_sql} AS item,",
            f"       SUM(CASE WHEN {cur} THEN {amt} ELSE 0 END) AS cur_amount,",
            f"       SUM(CASE WHEN {prev} THEN {amt} ELSE 0 END) AS prev_amount,",
            f"       SUM(CASE WHEN {cur} THEN {amt} ELSE 0 END) - SUM(CASE WHEN {prev} THEN {amt} ELSE 0 END)"
            f" AS {q('change')}",  # a word MySQL reserves
            f"FROM {q(source)} t", *joins,
            f"WHERE (({cur}) OR ({prev})) AND {item_sql} IS NOT NULL{only}",
            f"GROUP BY {grouped}",
            "ORDER BY 4, 1"]) + "\n"

    rolled = (kept is not None and alias == "t" and not joins and amount.name in kept.sums
              and kept.keeps(item_sql) and kept.keeps(grouped) and all(kept.keeps(w) for w in kinds.where))
    key = f"tools.{name}"
    ctx.review += [f"{key}.description", *(f"{key}.params.{p}.{k}" for p in params for k in ("description", "extract")
                                           if k in params[p]),
                   f"{key}.intents", f"{key}.result.labels"]
    ja_item, ja_amt, en_item, en_amt = item_label["ja"], amount_label["ja"], item_label["en"], amount_label["en"]
    formats = measures.formats(ctx.schema, {"cur_amount": (table, amount), "prev_amount": (table, amount),
                                            "change": (table, amount)})
    return {
        "description": {
            "ja": f"{noun.ja}の{ja_amt}を{ja_item}ごとに2つの期間（今期と前期、期間は{dnoun.ja}）で比較します。"
                  "両期間の合計と増減を SQL で計算し、減少の大きい順に並べます。",
            "en": f"Compare {en_amt} of {noun.many} by {en_item} between a current and a previous period of "
                  f"{dnoun.one}: both sums and the change, computed in SQL, the largest decrease first.",
        },
        "roles": ["admin", "staff"],
        "params": params,
        "ordered": [["cur_start", "cur_end"], ["prev_start", "prev_end"]],
        "sql": statement(table.name),
        **({"rollup": {"table": kept.name, "sql": statement(kept.name)}} if rolled and kept else {}),
        "result": {
            "max_rows": COMPARE_MAX_ROWS,
            "summary": {"kind": "change", "key": "item", "current": "cur_amount", "previous": "prev_amount",
                        "top": 3},
            "labels": {"item": item_label,
                       "cur_amount": {"ja": f"今期の{ja_amt}", "en": f"current {en_amt}"},
                       "prev_amount": {"ja": f"前期の{ja_amt}", "en": f"previous {en_amt}"},
                       "change": {"ja": "増減", "en": "change"}},
            **formats,
        },
        "answer": {
            "ok": {"ja": f"{{period}}の{ja_amt}の合計は{{summary.current_total}}で、{{period.previous}}の"
                         f"{{summary.previous_total}}から{{summary.change:abs}}"
                         "{summary.change:?+=増えました|-=減りました|0=変わりませんでした}。"
                         f"[減少が大きい{ja_item}は{{summary.top_decreases}}です。]"
                         f"[増加が大きい{ja_item}は{{summary.top_increases}}です。]",
                   "en": f"{en_amt} {{period}} totalled {{summary.current_total}}, "
                         "{summary.change:?+=up|-=down|0=unchanged} {summary.change:abs} from "
                         "{summary.previous_total} {period.previous}.[ Largest decreases: {summary.top_decreases}.]"
                         "[ Largest increases: {summary.top_increases}.]"},
            "item": {"ja": "{item}（{change:signed}）", "en": "{item} ({change:signed})"},
            "empty": {"ja": f"{{period}}と{{period.previous}}の{ja_amt}のデータはありません。",
                      "en": f"There is no {en_amt} {{period}} or {{period.previous}}."},
        },
        "ai_instruction": {"success": "Quote totals and changes from the summary and the rows; do not recompute them."},
        "intents": {
            "keywords": KEYWORDS,
            "topics": list(dict.fromkeys([f"{en_amt} comparison", f"{ja_amt}の比較", "comparison", "比較",
                                          *item.said])),
            "examples": list(dict.fromkeys([
                f"先週から{ja_amt}が落ちた{ja_item}は？", f"先週から売上が落ちた{ja_item}は？",
                f"今月と先月の{ja_item}ごとの{ja_amt}を比較して", f"Which {en_item} sold less than last week?",
                f"Compare {en_amt} by {en_item} this month with last month"])),
        },
    }
