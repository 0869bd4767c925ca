"""A first catalog drafted from what a database says about itself (`onboarding.introspect`).

Per table or view, a read tool with optional filters: its key, a `contains` search on its names (a
person's first and last names joined count as one), each low-cardinality text column as an enum whose
values are read from the data, each foreign key, and a from/to range on each date column. A foreign
key is filtered by the key of the row it points at (an integer read after its noun, customer 5 or
受注番号1024, or a code; either found from a name said, through the referenced table's read tool) and,
where that table has a name and at most REF_ENUM_ROWS rows, by that name as the data writes it (the
albums of an artist); the name is joined in next to the key (`columns.display_column`).

Where a table has a date and an amount (its own, quantity × unit price on an order line, or one join
away), an aggregate tool sums and counts them over a period by a chosen entity, a column that names a
thing its rows share (a product of 40 or 4,000 values, ranked and cut to the top ones), or by day or
month. An entity is grouped by its key and shown by its name, so two customers called Frank stay two.
No identifier is ever taken from a parameter: the grouping is `CASE :group_by WHEN 'status' THEN ...
END`. Never a write tool.

Any name the database has is named in the SQL as its dialect quotes it (`columns.Dialect.q`): a
space, a quote, ``%(x)s``, a colon, any script, a reserved word. A column whose name is not a plain
SQL word (``a b``, ``it's``, ``名前``) keeps it in the labels and is given one in words in the result
(``t."a b" AS a_b``), the name answers and the loader read. On SQLite a name with a colon that
begins a word (``a :b``) cannot be written without being read as a parameter: such a table or column
is left out, and the draft's header says so.

Every text drafted here (descriptions, planner intents and extract keys) is listed in the
catalog's `review:` list, so `concierge catalog check` can tell a person what to read.
`write_draft` writes the file with a hash of what was drafted in its header, so a later `init`
never overwrites a file a person has edited.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import yaml

from concierge.onboarding import measures
from concierge.onboarding.columns import (
    Dialect,
    Display,
    amount_columns,
    code_pattern,
    date_columns,
    display_column,
    enum_columns,
    group_columns,
    name_columns,
    plain,
)
from concierge.onboarding.glossary import japanese as glossary_japanese
from concierge.onboarding.glossary import plural
from concierge.onboarding.introspect import Column, ForeignKey, Schema, Table
from concierge.onboarding.naming import (
    Noun,
    concept_words,
    english,
    japanese,
    japanese_forms,
    slug,
    unique_list,
    words,
)

READ_MAX_ROWS = 50
SUMMARY_MAX_ROWS = 100
# A referenced table of at most this many rows is also filtered by its names, read from the data (an enum the
# planner finds said in a request: AC/DC); any table is filtered by its key, found from a name by a lookup.
REF_ENUM_ROWS = 1000
HEADER = "# concierge-draft sha256="


# --- the draft ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Draft:
    name: str
    text: str  # the catalog YAML, without the header
    tools: tuple[str, ...]
    review: tuple[str, ...]
    left_out: tuple[str, ...] = ()  # tables and columns SQLite SQL cannot name (``table``, ``table.column``)

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


@dataclass
class _Join:
    alias: str
    fk: ForeignKey
    table: Table
    source: str = "t"  # the alias of the row whose foreign key it follows (t, or a join one step before)
    owner: Table | None = None  # that row's table, where it is not the tool's


@dataclass
class _Tool:
    """One tool being drafted: its parameters, SQL conditions and planner keys."""

    name: str
    params: dict[str, dict[str, Any]] = field(default_factory=dict)
    where: list[str] = field(default_factory=list)
    ordered: list[list[str]] = field(default_factory=list)
    review: list[str] = field(default_factory=list)

    def param(self, name: str, spec: dict[str, Any], condition: str) -> str:
        base, n = name, 2
        while name in self.params or name.startswith("_"):
            name, n = f"{base}_{n}", n + 1
        self.params[name] = spec
        self.where.append(condition.replace(":{p}", f":{name}"))
        key = f"tools.{self.name}.params.{name}"
        self.review.append(f"{key}.description")
        if "extract" in spec:
            self.review.append(f"{key}.extract")
        return name


class _Drafter:
    def __init__(self, schema: Schema, name: str):
        self.sql = Dialect(schema.dialect)
        schema, self.left_out = _writable(schema, self.sql)
        self.schema = schema
        self.name = name
        self.tables = {t.name: t for t in schema.tables}
        self.result_names = {t.name: _result_names(t) for t in schema.tables}  # table -> column -> its name
        self.tool_names: dict[str, str] = {}  # table -> its read tool
        self.review: list[str] = ["description"]
        used: set[str] = set()
        for t in schema.tables:
            self.tool_names[t.name] = _unique(slug(t.name, "table"), used)
        self.summary_names = {t.name: _unique(f"{self.tool_names[t.name]}_summary", used) for t in schema.tables}
        self.owned: set[str] = set()  # the nouns tables are named by in full (orders, 注文)
        for t in schema.tables:
            noun = Noun.of(t.name, t.comment)
            self.owned.add(noun.many)
            if not noun.partial:
                self.owned.update(noun.japanese_forms)
        self.patterns: dict[tuple[str, str], str | None] = {}
        self.name_params: dict[str, str] = {}  # table -> its name-search parameter

    # the key pattern of a table's column (shared by the foreign keys that point at it)
    def pattern(self, table: Table, column: str) -> str | None:
        key = (table.name, column)
        if key not in self.patterns:
            col = table.column(column)
            self.patterns[key] = code_pattern(col.samples) if col.kind == "text" else None
        return self.patterns[key]

    def noun(self, table: Table) -> Noun:
        return Noun.of(table.name, table.comment).without(self.owned)

    def draft(self) -> Draft:
        tools: dict[str, Any] = {}
        for table in self.schema.tables:  # name parameters first: other tables' lookups point at them
            searches = self.name_searches(table)
            if searches:
                self.name_params[table.name] = searches[0][0]
        for table in self.schema.tables:
            tools[self.tool_names[table.name]] = self.read_tool(table)
            summary = self.summary_tool(table)
            if summary is not None:
                tools[self.summary_names[table.name]] = summary
        listed = ", ".join(t.name for t in self.schema.tables)
        ja_listed = "、".join(Noun.of(t.name, t.comment).ja for t in self.schema.tables)
        body = {
            "catalog": slug(self.name, "business"),
            "description": {
                "ja": f"{self.name} データベース（{ja_listed}）のデータを調べます。",
                "en": f"Look up the {self.name} database: {listed}.",
            },
            "roles": {"admin": {"all_rows": True}, "staff": {"all_rows": True}},
            "tools": tools,
            "review": self.review,
        }
        intro = (f"# Drafted by `concierge init` from the {self.schema.dialect} database {self.schema.database!r}:\n"
                 f"# {len(self.schema.tables)} tables and views, {len(tools)} read tools, no write tool.\n"
                 "# Read it, fix what the draft got wrong, and remove the keys you reviewed from `review:`.\n"
                 "# Writes are declared by a person (docs/catalog.md, \"Declaring a write\").\n")
        if self.left_out:
            intro += ("# Left out, as SQLite SQL cannot name them (a colon that begins a word reads as a :parameter;"
                      " rename them to draft them):\n" + "".join(f"#   {n}\n" for n in self.left_out))
        text = intro + _dump(body)
        return Draft(slug(self.name, "business"), text, tuple(tools), tuple(self.review), self.left_out)

    # --- the read tool of a table ------------------------------------------------------------------
    def read_tool(self, table: Table) -> dict[str, Any]:
        sql, q = self.sql, self.sql.q
        noun = self.noun(table)
        tool = _Tool(self.tool_names[table.name])
        names = self.result_names[table.name]
        select = [_selected(f"t.{q(c.name)}", names[c.name], c.name, q) for c in table.columns]
        joins: list[str] = []
        taken = set(names.values())
        filters: list[str] = []
        if len(table.primary_key) == 1:
            pk = table.column(table.primary_key[0])
            spec = self.key_param(table, pk, noun)
            if spec is not None:
                p = tool.param(slug(pk.name, "key"), spec,
                               f"(:{{p}} IS NULL OR {sql.equals(f't.{q(pk.name)}', pk, '{p}')})")
                filters.append(p)
        for i, (pname, expr, cnoun) in enumerate(self.name_searches(table)):
            spec = {
                "type": "string", "nullable": True, "min_length": 1, "max_length": 100, "match": "contains",
                "description": {"ja": f"{cnoun.ja}の一部", "en": f"part of the {cnoun.one} (any case)"},
            }
            if i == 0:
                spec["extract"] = {"kind": "name", "labels": ["named", "called", cnoun.one, f"{noun.one} {cnoun.one}"]}
            p = tool.param(pname, spec, f"(:{{p}} IS NULL OR LOWER({expr}) LIKE LOWER(:{{p}}) ESCAPE '\\')")
            filters.append(p)
        for col in enum_columns(table):
            cnoun = Noun.of(col.name, col.comment, countable=False)
            spec = {
                "type": "enum", "nullable": True,
                "enum": {"query": self.enum_query(table, col)},
                "description": {"ja": f"{cnoun.ja}（null なら全て）",
                                "en": f"{cnoun.one}, one of the values in the data; null for all"},
                "extract": {"kind": "enum"},
            }
            p = tool.param(slug(col.name, "value"), spec,
                           f"(:{{p}} IS NULL OR {sql.text('t.' + q(col.name), col)} = :{{p}})")
            filters.append(p)
        for n, fk in enumerate(table.foreign_keys, start=1):
            filters += self.fk_filters(tool, table, fk, f"j{n}", select, joins, taken)
        for i, col in enumerate(date_columns(table)):
            filters += self.period(tool, table, col, f"t.{q(col.name)}", extract=i == 0)
        amounts = amount_columns(table)
        order = ", ".join(f"t.{q(c)}" for c in table.primary_key) or "1"
        lines = [f"SELECT {', '.join(select)}", f"FROM {q(table.name)} t", *joins]
        lines += [("WHERE " if i == 0 else "  AND ") + w for i, w in enumerate(tool.where)]
        lines.append(f"ORDER BY {order}")
        result: dict[str, Any] = {"max_rows": READ_MAX_ROWS}
        if amounts:
            result["totals"] = {names[c.name]: "sum" for c in amounts}
        result["labels"] = {names[c.name]: column_label(c.name, c.comment, noun) for c in table.columns}
        for line in select[len(table.columns):]:  # the names joined in next to foreign keys (words: slugs)
            alias = line.rsplit(" AS ", 1)[1].strip('"')
            result["labels"][alias] = column_label(alias, None, noun)
        result.update(measures.formats(self.schema, {names[c.name]: (table, c) for c in table.columns}))
        self.review.append(f"tools.{tool.name}.result.labels")
        comment = english(table.comment)
        totals = f", and the totals of {', '.join(c.name for c in amounts)}" if amounts else ""
        key = f"tools.{tool.name}"
        self.review += [f"{key}.description", *tool.review, f"{key}.intents"]
        ja_filters = "、".join(filters) or "なし"
        out: dict[str, Any] = {
            "description": {
                "ja": f"{noun.ja}を検索します（{'ビュー' if table.is_view else 'テーブル'} {table.name}）。"
                      f"条件はどれも省略できます: {ja_filters}。"
                      f"最大{READ_MAX_ROWS}件を返し、row_count は条件に合う全件数です。",
                "en": f"Find {noun.many} ({'view' if table.is_view else 'table'} {table.name}"
                      f"{': ' + comment if comment else ''}). "
                      f"Every filter is optional: {', '.join(filters) or 'none'}. "
                      f"Returns up to {READ_MAX_ROWS} rows, row_count over all matching rows{totals}.",
            },
            "roles": ["admin", "staff"],
            "params": tool.params,
        }
        if tool.ordered:
            out["ordered"] = tool.ordered
        out["sql"] = "\n".join(lines) + "\n"
        out["result"] = result
        out["intents"] = self.read_intents(noun, table.name in self.name_params)
        return out

    def name_searches(self, table: Table) -> list[tuple[str, str, Noun]]:
        """The `contains` searches on a table's names, the one a name said fills first: (parameter, the SQL of
        the name in the row `t`, the name in words). A person's first and last names joined are one, first."""
        out: list[tuple[str, str, Noun]] = []
        display = display_column(table)
        if display is not None and display.joined:
            taken = {slug(c.name, "column") for c in table.columns}
            full = Noun.of("full_name", None, countable=False)
            out.append((_unique("name", taken), display.sql("t", self.sql), full))
        for col in name_columns(table):
            out.append((slug(col.name, "name"), self.sql.text(f"t.{self.sql.q(col.name)}", col),
                        Noun.of(col.name, col.comment, countable=False)))
        return out

    def fk_filters(self, tool: _Tool, table: Table, fk: ForeignKey, alias: str, select: list[str],
                   joins: list[str], taken: set[str]) -> list[str]:
        """The filters of one foreign key (`ref_filters`), and the name of the row it points at joined in next
        to it where that table has one."""
        ref = self.tables.get(fk.table)
        if ref is None or len(fk.columns) != 1 or fk.referred[0] not in {c.name for c in ref.columns}:
            return []
        display = display_column(ref)
        if display is not None:
            q = self.sql.q
            label = _unique(_joined_name(fk.columns[0], display), taken)
            joins.append(f"LEFT JOIN {q(ref.name)} {alias} ON {alias}.{q(fk.referred[0])} = t.{q(fk.columns[0])}")
            select.append(f"{display.sql(alias, self.sql)} AS {q(label)}")
        return self.ref_filters(tool, table, _Join(alias, fk, ref))

    def ref_filters(self, tool: _Tool, table: Table, j: _Join) -> list[str]:
        """The filters of a foreign key: the key of the row it points at (`key_param`: an integer or a code
        said, or found from a name said), and that row's name as the data writes it, an enum, where its table
        has at most REF_ENUM_ROWS rows (the joined name's SQL, `j.alias`, must be in the FROM)."""
        sql, q = self.sql, self.sql.q
        col, ref = table.column(j.fk.columns[0]), j.table
        rnoun = _ref_noun(col, ref)
        filters = []
        spec = self.key_param(ref, ref.column(j.fk.referred[0]), rnoun, via=col)
        if spec is not None:
            filters.append(tool.param(slug(col.name, "ref"), spec,
                                      f"(:{{p}} IS NULL OR {sql.equals(f't.{q(col.name)}', col, '{p}')})"))
        display = display_column(ref)
        if display is not None and 0 < ref.row_count <= REF_ENUM_ROWS:
            dnoun = Noun.of(display.name, display.comment, countable=False)
            own = dnoun.ja.startswith(rnoun.ja) or dnoun.one.startswith(rnoun.one)  # 得意先名, not 得意先の得意先名
            spec = {
                "type": "enum", "nullable": True,
                "enum": {"query": self.names_query(ref, display)},
                "description": {"ja": f"{dnoun.ja if own else f'{rnoun.ja}の{dnoun.ja}'}（null なら全て）",
                                "en": f"the {dnoun.one if own else f'{rnoun.one} {dnoun.one}'}, one of the values "
                                      "in the data; null for all"},
                "extract": {"kind": "enum"},
            }
            filters.append(tool.param(slug(_stem(col.name), "ref"), spec,
                                      f"(:{{p}} IS NULL OR {display.sql(j.alias, sql)} = :{{p}})"))
        return filters

    def key_param(self, table: Table, key: Column, noun: Noun, via: Column | None = None
                  ) -> dict[str, Any] | None:
        """An exact key (a table's own, or a foreign key `via` pointing at `key` of `table`), read from a
        request where the planner can tell it from other numbers: an integer said after its noun (customer 5,
        受注番号1024), a code by its pattern (C-0012); a foreign key's also found from a name said, through
        `table`'s read tool (`lookup`). A text key of no pattern is only given, never read."""
        own = via or key
        label = f"{noun.one} ({own.name})"
        desc = {"ja": f"{noun.ja}の{own.name}（完全一致）", "en": f"{label}, exact"}
        spec: dict[str, Any]
        if own.kind == "integer":
            spec = {"type": "integer", "nullable": True, "description": desc}
        elif own.kind == "text":
            spec = {"type": "string", "nullable": True, "max_length": 200, "description": desc}
            pattern = self.pattern(table, key.name)
            if not pattern:
                return spec
            spec["pattern"] = pattern
        else:
            return None
        labels, refer = _code_labels(noun, own)
        x: dict[str, Any] = {"kind": "code", "labels": labels, "refer": refer}
        if via is not None and table.name in self.name_params:
            x["lookup"] = {"tool": self.tool_names[table.name], "arg": self.name_params[table.name],
                           "column": self.result_names[table.name].get(key.name, key.name)}
        spec["extract"] = x
        return spec

    def period(self, tool: _Tool, table: Table, col: Column, expr: str, *, extract: bool) -> list[str]:
        """A from/to pair on one date column; the first pair of a tool is what a request's period fills."""
        cnoun = Noun.of(col.name, col.comment, countable=False)
        base = slug(col.name, "date")
        bounds = {"query": self.sql.year_bounds(table.name, col)}
        first = {"type": "date", "nullable": True, "bounds": bounds,
                 "description": {"ja": f"{cnoun.ja}の開始日", "en": f"first day of the {cnoun.one} period, YYYY-MM-DD"}}
        last = {"type": "date", "nullable": True, "bounds": bounds,
                "description": {"ja": f"{cnoun.ja}の終了日（この日を含む）",
                                "en": f"last day of the {cnoun.one} period (inclusive), YYYY-MM-DD"}}
        if extract:
            first["extract"] = {"kind": "date", "part": "start"}
            last["extract"] = {"kind": "date", "part": "end"}
        a = tool.param(f"{base}_from", first, f"(:{{p}} IS NULL OR {self.sql.date_from(expr, col, '{p}')})")
        b = tool.param(f"{base}_to", last, f"(:{{p}} IS NULL OR {self.sql.date_to(expr, col, '{p}')})")
        tool.ordered.append([a, b])
        return [f"{a}/{b}"]

    def enum_query(self, table: Table, col: Column) -> str:
        c = self.sql.text(self.sql.q(col.name), col)
        return f"SELECT DISTINCT {c} FROM {self.sql.q(table.name)} WHERE {self.sql.q(col.name)} IS NOT NULL ORDER BY 1"

    def names_query(self, table: Table, display: Display) -> str:
        """The names of a table's rows, as `display` shows them (a person's names joined), for an enum."""
        if not display.joined:
            return self.enum_query(table, display.columns[0])
        shown = display.sql("r", self.sql)
        return f"SELECT DISTINCT {shown} FROM {self.sql.q(table.name)} r WHERE {shown} <> '' ORDER BY 1"

    def read_intents(self, noun: Noun, named: bool) -> dict[str, Any]:
        """Said to list or count a table's rows: its nouns (the head noun too: customers finds farm_customers),
        counting phrases (how many customers, 顧客は何人), in English and Japanese."""
        keywords = [f"{noun.one} list", f"list of {noun.many}"]
        for many in noun.plurals:
            keywords += [many, *_counting(many)]
        topics = unique_list([noun.one, *noun.heads[:1]])
        examples = [f"How many {noun.many} do we have?", f"Show the {noun.many}"]
        if named:
            examples.append(f"Find the {noun.one} named Smith")
        for ja in noun.japanese_forms:
            keywords += [ja, f"{ja}一覧", f"{ja}の一覧", f"{ja}リスト", *_counting_ja(ja, noun)]
            topics.append(ja)
        if noun.has_japanese:
            examples += [f"{noun.ja}は何件ありますか", f"{noun.ja}の一覧を見せて"]
        return {"keywords": unique_list(keywords), "topics": unique_list(topics), "examples": examples}

    # --- the aggregate tool of a table ----------------------------------------------------------------
    def summary_tool(self, table: Table) -> dict[str, Any] | None:
        """Sums and counts by a chosen entity, column, day or month over a period, where the table has a
        date and an amount: its own, quantity × unit price of an order line that keeps no amount
        (`measures.line_amount`), or one join away (the date of the order an item belongs to; the price of
        the product it is). An amount of the table the date comes from is not summed over this table's rows
        (an order's total would count once per item)."""
        sql, q = self.sql, self.sql.q
        joins = self.joins(table)
        dated = self.dated(table, joins)
        if dated is None:
            return None
        alias, dcol, dtable = dated
        noun = self.noun(table)
        summed = self.measures(table, joins, dtable)
        if not summed:
            return None
        tool = _Tool(self.summary_names[table.name])
        groups, used_joins = self.groups(table, joins)
        date_expr = f"{alias}.{q(dcol.name)}"
        groups["day"] = _Group(sql.day(date_expr, dcol), "日")
        groups["month"] = _Group(sql.month(date_expr, dcol), "月")
        used_joins |= {alias} | {m.alias for m in summed}
        self.period(tool, dtable, dcol, date_expr, extract=True)
        used_joins |= self.summary_filters(tool, table, joins)
        count_col = _unique(slug(noun.many, "rows"), {"group_value"} | {m.name for m in summed}
                            | {slug(m.words, "x") for m in summed})
        _group_by(tool, groups)
        ranks = _rank_by(tool, noun, count_col, summed, groups)
        _top_n(tool, groups)
        shown = "\n".join(f"            WHEN '{v}' THEN {g.shown or g.expr}" for v, g in groups.items())
        keyed = "\n".join(f"            WHEN '{v}' THEN {g.expr}" for v, g in groups.items())
        figures = {ranks[0]: "COUNT(*)", **{m.name: m.sql for m in summed}}
        rank = "\n".join(f"              WHEN :rank_by = '{v}' THEN -COALESCE({f}, 0)" for v, f in figures.items())
        lines = [f"SELECT MIN(CASE :group_by\n{shown}\n       END) AS group_value,",
                 f"       COUNT(*) AS {q(count_col)}, {', '.join(f'{m.sql} AS {q(m.name)}' for m in summed)}",
                 f"FROM {q(table.name)} t"]
        lines += [f"LEFT JOIN {q(j.table.name)} {j.alias} ON {j.alias}.{q(j.fk.referred[0])} = "
                  f"{j.source}.{q(j.fk.columns[0])}"
                  for j in [*joins, *self.further(table, joins)] if j.alias in used_joins]
        lines += [("WHERE " if i == 0 else "  AND ") + w for i, w in enumerate(tool.where)]
        lines += [f"GROUP BY CASE :group_by\n{keyed}\n       END",
                  f"ORDER BY CASE WHEN :rank_by IS NULL AND :top_n >= {SUMMARY_MAX_ROWS} "
                  f"AND :group_by IN ('day', 'month') THEN 0\n{rank}\n"
                  f"              ELSE -COALESCE({summed[0].sql}, 0) END, 1",
                  "LIMIT :top_n"]
        names = ", ".join(m.words for m in summed)
        dnoun = Noun.of(dcol.name, dcol.comment, countable=False)
        key = f"tools.{tool.name}"
        self.review += [f"{key}.description", *tool.review, f"{key}.intents", f"{key}.result.labels"]
        return {
            "description": {
                "ja": f"{noun.ja}の件数と{names}の合計を、{'、'.join(groups)} のどれかごとに集計します"
                      f"（期間は {dnoun.ja}、省略時は全期間）。多い順（日・月は日付順）。",
                "en": f"Count {noun.many} and sum {names} by one of: {', '.join(groups)} (default month), "
                      f"over a period of {dcol.name} (all time when none). Largest first (rank_by: which "
                      f"figure); days and months in order unless ranked or cut to the top ones.",
            },
            "roles": ["admin", "staff"],
            "params": tool.params,
            "ordered": tool.ordered,
            "sql": "\n".join(lines) + "\n",
            "result": {"max_rows": SUMMARY_MAX_ROWS,
                       "totals": {count_col: "sum", **{m.name: "sum" for m in summed}},
                       "labels": {"group_value": {"ja": "区分", "en": "group"},
                                  count_col: _count_label(noun),
                                  **{m.name: m.label for m in summed}},
                       **measures.formats(self.schema, {m.name: m.source for m in summed})},
            "intents": summary_intents(noun, groups, [m.words for m in summed]),
        }

    def measures(self, table: Table, joins: list[_Join], dtable: Table) -> list[_Measure]:
        """What a summary sums: an order line's quantity × unit price where it keeps no amount, then the
        table's additive measures; where it has none, those of a table it points at that records no dates
        (the price of the product an item is)."""
        q = self.sql.q
        taken = {"group_value"}
        out = []
        line = measures.line_amount(table)
        if line is not None:
            expr = line.sql({c.name: f"t.{q(c.name)}" for c in table.columns})
            name = _unique("amount", taken | set(self.result_names[table.name].values()))
            taken.add(name)
            out.append(_Measure(name, f"SUM({expr})", "t", "amount", column_label("amount", None, self.noun(table)),
                                Noun.of("amount", None, countable=False), (table, line.unit_price)))
        amounts = [("t", table, c) for c in amount_columns(table)] or [
            (j.alias, j.table, c) for j in joins if j.table is not dtable and not date_columns(j.table)
            for c in amount_columns(j.table) or (_unit_prices(j.table) if dtable is not table else [])]
        for a, owner, c in amounts:
            name = _unique(self.result_names[owner.name][c.name], taken)
            out.append(_Measure(name, f"SUM({a}.{q(c.name)})", a, " ".join(concept_words(c.name)) or c.name,
                                column_label(c.name, c.comment, self.noun(table)),
                                Noun.of(c.name, c.comment, countable=False), (owner, c)))
        return out

    def joins(self, table: Table) -> list[_Join]:
        out = []
        for n, fk in enumerate(table.foreign_keys, start=1):
            ref = self.tables.get(fk.table)
            if ref is not None and len(fk.columns) == 1 and fk.referred[0] in {c.name for c in ref.columns}:
                out.append(_Join(f"j{n}", fk, ref))
        return out

    @staticmethod
    def dated(table: Table, joins: list[_Join]) -> tuple[str, Column, Table] | None:
        """The date a summary's period is over: the table's own, else that of a table it points at."""
        own = date_columns(table)
        if own:
            return "t", own[0], table
        for j in joins:
            theirs = date_columns(j.table)
            if theirs and j.table.name != table.name:
                return j.alias, theirs[0], j.table
        return None

    def groups(self, table: Table, joins: list[_Join]) -> tuple[dict[str, _Group], set[str]]:
        """What a summary can group by: its low-cardinality columns and those that name a thing its rows share
        (`columns.group_columns`), each named entity a foreign key points at (grouped by its key, shown by its
        name: two customers called Frank are two groups), and the low-cardinality columns of those entities;
        with the joins they need."""
        sql, q = self.sql, self.sql.q
        groups: dict[str, _Group] = {}
        used: set[str] = set()
        for col in [*enum_columns(table), *group_columns(table)]:
            cnoun = Noun.of(col.name, col.comment, countable=False)
            groups[_unique(slug(col.name, "group"), groups)] = _Group(
                sql.text(f"t.{q(col.name)}", col), cnoun.ja if cnoun.has_japanese else None)
        refs_to: dict[str, int] = {}
        for j in joins:
            refs_to[j.table.name] = refs_to.get(j.table.name, 0) + 1
        for j in joins:
            display = display_column(j.table)
            fk = table.column(j.fk.columns[0])
            rnoun = _ref_noun(fk, j.table)
            rja = rnoun.ja if rnoun.has_japanese else None
            label = slug(rnoun.one, "ref") if refs_to[j.table.name] == 1 else slug(_stem(fk.name), "ref")
            if display is not None:  # an entity of no name (an order of an item) is no group a person asks for
                groups[_unique(label, groups)] = _Group(sql.text(f"t.{q(fk.name)}", fk), rja, display.sql(j.alias, sql))
                used.add(j.alias)
            if j.table is table:
                continue
            for col in enum_columns(j.table):
                cnoun = Noun.of(col.name, col.comment, countable=False)
                ja = f"{rja}の{cnoun.ja}" if rja and cnoun.has_japanese else None
                groups[_unique(f"{label}_{slug(col.name, 'group')}", groups)] = _Group(
                    sql.text(f"{j.alias}.{q(col.name)}", col), ja)
                used.add(j.alias)
        for j in self.further(table, joins):  # the customer of the order a line belongs to
            display = display_column(j.table)
            if display is None:
                continue
            fk = (j.owner or table).column(j.fk.columns[0])
            rnoun = _ref_noun(fk, j.table)
            label = slug(rnoun.one, "ref")
            if label in groups:
                label = f"{j.source}_{label}"
            groups[_unique(label, groups)] = _Group(sql.text(f"{j.source}.{q(fk.name)}", fk),
                                                    rnoun.ja if rnoun.has_japanese else None, display.sql(j.alias, sql))
            used |= {j.alias, j.source}
        return _with_heads(groups), used

    def further(self, table: Table, joins: list[_Join]) -> list[_Join]:
        """The named entities one step beyond the tables `table` points at (the customer and the employee of
        the order a line belongs to; the genre of the track it sold), each once, none `table` points at."""
        seen = {table.name} | {j.table.name for j in joins}
        out = []
        for j in joins:
            if j.table is table:
                continue
            for n, fk in enumerate(j.table.foreign_keys, start=1):
                ref = self.tables.get(fk.table)
                if (ref is None or ref.name in seen or len(fk.columns) != 1
                        or fk.referred[0] not in {c.name for c in ref.columns}):
                    continue
                seen.add(ref.name)
                out.append(_Join(f"{j.alias}_{n}", fk, ref, source=j.alias, owner=j.table))
        return out

    def summary_filters(self, tool: _Tool, table: Table, joins: list[_Join]) -> set[str]:
        """A summary's filters: its enums, and each foreign key's (`ref_filters`); the joins they need."""
        sql, q = self.sql, self.sql.q
        for col in enum_columns(table):
            cnoun = Noun.of(col.name, col.comment, countable=False)
            tool.param(slug(col.name, "value"), {
                "type": "enum", "nullable": True, "enum": {"query": self.enum_query(table, col)},
                "description": {"ja": f"{cnoun.ja}（null なら全て）", "en": f"{cnoun.one}; null for all"},
                "extract": {"kind": "enum"},
            }, f"(:{{p}} IS NULL OR {sql.text('t.' + q(col.name), col)} = :{{p}})")
        used = set()
        for j in joins:
            if self.ref_filters(tool, table, j) and display_column(j.table) is not None:
                used.add(j.alias)
        return used


def column_label(name: str, comment: str | None, owner: Noun) -> dict[str, str]:
    """A column in words, for answers: {ja, en} from its comment (a Japanese one; a short English one),
    else the glossary, else its name in words (ordered_at -> ordered at). An `id` alone is the owning
    table's (顧客ID, customer id); a name ending in id is what it points at (customer_id -> 顧客ID). A romaji
    name reads as its Japanese and its English concepts (gokei_kingaku -> 合計金額, total amount)."""
    ws = words(name) or [name]
    concepts = concept_words(name) or ws
    if ws[-1] == "id":
        stem = ws[:-1]
        ja_stem = (glossary_japanese(stem) or (" ".join(stem),))[0] if stem else owner.ja
        en_stem = " ".join(stem) if stem else owner.one
        ja, en = f"{ja_stem}ID", f"{en_stem} id"
    else:
        cnoun = Noun.of(name, comment, countable=False)
        romaji = cnoun.ja if concepts != ws and cnoun.has_japanese else None
        ja = romaji or _ja_suffixed(ws) or (cnoun.ja if cnoun.has_japanese else " ".join(concepts))
        en = " ".join(concepts)
    own_ja, own_en = japanese(comment), english(comment)
    if own_ja:
        ja = own_ja
    if own_en and len(own_en.split()) <= 4:
        en = own_en
    return {"ja": ja, "en": en}


_JA_SUFFIX = {"name": "名", "at": "日時", "on": "日"}  # region_name -> 地域名, ordered_at -> 注文日時


def _ja_suffixed(ws: list[str]) -> str | None:
    """Japanese for `<noun> name` / `<verb>ed at|on`, where the glossary knows the noun."""
    if len(ws) < 2 or ws[-1] not in _JA_SUFFIX:
        return None
    stem = [re.sub(r"(?<=[a-z]{3})ed$", "", w) if ws[-1] != "name" else w for w in ws[:-1]]
    forms = glossary_japanese(stem)
    return forms[0] + _JA_SUFFIX[ws[-1]] if forms else None


@dataclass(frozen=True)
class _Group:
    expr: str  # what rows are grouped by, as SQL text (an entity's key)
    ja: str | None  # its Japanese label, where there is one
    shown: str | None = None  # what a group is shown as, where not `expr` (the entity's name)
    also: tuple[str, ...] = ()  # other words a request groups by it with (country, for billing_country)


@dataclass(frozen=True)
class _Measure:
    """One figure a summary sums."""

    name: str  # its column in the result
    sql: str  # SUM(...)
    alias: str  # the table it is read from (t, or a join's alias)
    words: str  # what it is in English words (unit price, amount)
    label: dict[str, str]  # {ja, en}
    noun: Noun
    source: tuple[Table, Column]  # the column it sums (a line amount: its unit price), for its format


def _count_label(noun: Noun) -> dict[str, str]:
    """How a summary's count is labelled: 受注の件数, or 件数 where the table has no Japanese noun."""
    return {"ja": f"{noun.ja}の件数" if noun.has_japanese else "件数", "en": f"number of {noun.many}"}


_TIME_SYNONYMS = {"daily": "day", "per day": "day", "by day": "day", "each day": "day", "which day": "day",
                  "日別": "day", "日ごと": "day", "毎日": "day", "どの日": "day", "多い日": "day",
                  "monthly": "month", "per month": "month", "by month": "month", "each month": "month",
                  "which month": "month", "月別": "month", "月ごと": "month", "毎月": "month", "どの月": "month",
                  "多い月": "month"}
_COUNT_RANKS = ["most often", "most frequently", "most times", "busiest", "most popular", "most common",
                "件数順", "件数が", "件数の多い", "回数が", "回数の多い"]


def _many(ws: str) -> str:
    parts = ws.split()
    return " ".join([*parts[:-1], plural(parts[-1])])


def _with_heads(groups: dict[str, _Group]) -> dict[str, _Group]:
    """The groups, each of several words also said by its last one (billing_country: by country, top
    countries) where no other group ends in it, or where it is the table's own column and the others are
    columns of what it points at (an invoice's billing country before its customer's country)."""
    heads: dict[str, list[str]] = {}
    for value in groups:
        if "_" in value:
            heads.setdefault(value.rsplit("_", 1)[-1], []).append(value)
    own = {v for v, g in groups.items() if g.expr.startswith("t.") and g.shown is None}
    out = dict(groups)
    for head, values in heads.items():
        if head not in groups and (len(values) == 1 or (values[0] in own and not own & set(values[1:]))):
            out[values[0]] = replace(groups[values[0]], also=(head,))
    return out


def _group_phrases(value: str, group: _Group) -> list[str]:
    """What a request says to group by one value: by customer, per customer, which customer, 顧客別."""
    if value in ("day", "month"):
        return [k for k, v in _TIME_SYNONYMS.items() if v == value]
    out = []
    for ws in (value.replace("_", " "), *group.also):
        out += [f"by {ws}", f"per {ws}", f"each {ws}", f"top {_many(ws)}", f"best {_many(ws)}", f"{ws} ranking",
                f"which {ws}"]
    for ja in japanese_forms(group.ja) if group.ja else ():
        out += [f"{ja}別", f"{ja}ごと", f"どの{ja}", f"多い{ja}", f"{ja}ランキング", ja]
    return out


def _group_by(tool: _Tool, groups: dict[str, _Group]) -> None:
    values = list(groups)
    synonyms = {phrase: value for value, group in reversed(groups.items()) for phrase in _group_phrases(value, group)}
    tool.params["group_by"] = {
        "type": "enum", "default": "month",
        "enum": {"values": values},
        "description": {"ja": f"集計の単位: {'、'.join(values)}（既定 month）",
                        "en": f"what to group by: {', '.join(values)} (default month)"},
        "extract": {"kind": "enum", "synonyms": dict(sorted(synonyms.items(), key=lambda s: values.index(s[1])))},
    }
    tool.review += [f"tools.{tool.name}.params.group_by.description", f"tools.{tool.name}.params.group_by.extract"]


def _rank_by(tool: _Tool, noun: Noun, count_col: str, amounts: list[_Measure],
             groups: dict[str, _Group]) -> list[str]:
    """Which figure ranks the groups: the count (the most orders, most often) or one of the sums (the highest
    order total), each sum by its name in the result. Its values are no words a request says by accident (a
    value said is a value chosen)."""
    count_value = f"count_of_{count_col}"
    values = [count_value, *(m.name for m in amounts)]
    taken = {p for v, g in groups.items() for p in _group_phrases(v, g)}
    synonyms = {p: count_value for p in _COUNT_RANKS}
    for many in noun.plurals:
        synonyms.update({f"most {many}": count_value, f"largest number of {many}": count_value})
    synonyms.update({f"{ja}が": count_value for ja in noun.japanese_forms})
    for m in amounts:
        cw = m.words
        for phrase in (f"highest {cw}", f"largest {cw}", f"biggest {cw}", f"most {cw}", f"top {cw}", f"by {cw}"):
            if phrase not in taken:
                synonyms.setdefault(phrase, m.name)
        for ja in m.noun.japanese_forms:
            synonyms.update({f"{ja}が": m.name, f"{ja}順": m.name, f"{ja}の多い": m.name})
    tool.params["rank_by"] = {
        "type": "enum", "nullable": True,
        "enum": {"values": values},
        "description": {"ja": f"順位を決める値: {'、'.join(values)}（null なら {values[1]}、日・月は日付順）",
                        "en": f"what ranks the groups, largest first: {', '.join(values)} "
                              f"(null: {values[1]}, and days and months in date order)"},
        "extract": {"kind": "enum", "synonyms": synonyms},
    }
    tool.review += [f"tools.{tool.name}.params.rank_by.description", f"tools.{tool.name}.params.rank_by.extract"]
    return values


def _top_n(tool: _Tool, groups: dict[str, _Group]) -> None:
    which = [f"which {v.replace('_', ' ')}" for v in groups]  # which day had ...: the one day
    tool.params["top_n"] = {
        "type": "integer", "default": SUMMARY_MAX_ROWS, "min": 1, "max": SUMMARY_MAX_ROWS,
        "description": {"ja": f"上位何件か（1〜{SUMMARY_MAX_ROWS}）",
                        "en": f"how many groups at most (1..{SUMMARY_MAX_ROWS}); fewer ranks days and months too"},
        "extract": {"kind": "count", "cues": ["top", "best", "トップ", "上位", "ベスト"],
                    "one": ["the most", "the best", "number one", "いちばん", "一番", "最も", *which]},
    }
    tool.review += [f"tools.{tool.name}.params.top_n.description", f"tools.{tool.name}.params.top_n.extract"]


def summary_intents(noun: Noun, groups: dict[str, _Group], amounts: list[str]) -> dict[str, Any]:
    """Said to ask a summary: totals, counts by a group, rankings; `amounts` are its figures in words."""
    keywords = [f"{noun.one} totals", f"{noun.one} summary", f"{noun.many} summary"]
    for many in noun.plurals:
        keywords += [f"total {many}", f"{many} total", f"{many} totals", *_counting(many), f"{many} by",
                     f"{many} per", f"most {many}", f"daily {many}", f"monthly {many}"]
    for value, group in groups.items():
        bare = japanese_forms(group.ja or "")  # a group's noun alone names its own table, not this summary
        keywords += [p for p in _group_phrases(value, group) if not p.startswith("多い") and p not in bare]
    for cw in amounts:
        keywords += [f"total {cw}", f"sum of {cw}", f"{cw} total", f"highest {cw}"]
    topics = [*amounts, "total", "sum", "summary"]
    values = list(groups)
    examples = [f"What were total {noun.many} last month?", f"{noun.many.capitalize()} by month this year",
                f"How many {noun.many} last week?", f"Which day had the most {noun.many}?"]
    if len(values) > 2:
        examples.append(f"Top {plural(values[0].replace('_', ' '))} by {amounts[0]}")
    for ja in noun.japanese_forms or ([] if noun.has_japanese else [noun.ja]):
        keywords += [f"{ja}の合計", f"{ja}合計", f"{ja}の総額", f"{ja}の集計", f"{ja}の月別", f"{ja}の日別",
                     f"月別の{ja}", f"日別の{ja}",
                     f"{ja}が多い", f"{ja}が一番多い", f"{ja}が最も多い", f"{ja}の多い", *_counting_ja(ja, noun)]
    examples += [f"先月の{noun.ja}の合計は？", f"今年の月別の{noun.ja}", f"{noun.ja}が一番多い日は？"]
    if noun.has_japanese:
        keywords += ["合計", "集計", "日別", "月別", "ランキング", "上位", "一番多い"]
    return {"keywords": unique_list(keywords), "topics": unique_list(topics), "examples": examples}


def _counting(many: str) -> list[str]:
    """Phrases that ask how many rows there are (a read tool's and a summary's alike: the read tool
    answers them with its row count, the summary when the request also says how to group)."""
    return [f"how many {many}", f"number of {many}", f"count of {many}"]


def _counting_ja(ja: str, noun: Noun) -> list[str]:
    """Japanese that asks how many rows there are, with the counters the noun is counted in (顧客は何人, 得意先は
    何社, アルバムは何枚)."""
    counted = [f"{ja}は何{c}" for c in unique_list(["件", "人", *noun.counters])]
    return [f"{ja}数", f"{ja}の数", f"{ja}の件数", f"{ja}件数", *counted, f"{ja}はいくつ"]


def _joined_name(fk: str, display: Display) -> str:
    """The result name of the name joined in next to a foreign key: customer_full_name, tokuisaki_mei (not
    tokuisaki_tokuisaki_mei: the name already says whose it is)."""
    stem, name = slug(_stem(fk), "ref"), slug(display.name, "name")
    return name if name.startswith(f"{stem}_") else f"{stem}_{name}"


def _unit_prices(table: Table) -> list[Column]:
    """The unit prices of a table (a product's price): summed over the rows of a line that belongs to a dated
    row and keeps no quantity (an order item of one unit each), each row's amount."""
    return [c for c in table.columns if measures.measure(table, c).role == "unit_price"]


def _ref_noun(fk: Column, ref: Table) -> Noun:
    """What a foreign key points at, in words: the referenced table's noun, or the key's own where it names
    the row otherwise (SupportRepId -> support rep, pointing at employees)."""
    table = Noun.of(ref.name, ref.comment)
    stem = _stem(fk.name)
    if stem == "_".join(words(fk.name)):  # nothing says it is a key of something else (sku, customer)
        return table
    own = Noun.of(stem, None)
    return table if own.one == table.one else own


def _code_labels(noun: Noun, key: Column) -> tuple[list[str], list[str]]:
    """The words said just before a key (customer 5, customer id 5, 顧客番号5, 受注番号1024), and the nouns a
    later request points back at it with (that customer, その顧客)."""
    own = column_label(key.name, key.comment, noun)
    labels = [f"{noun.one} id", f"{noun.one} code", f"{noun.one} number", f"{noun.one} no", noun.one, own["en"]]
    refer = [noun.one]
    if noun.has_japanese:
        labels += [f"{noun.ja}コード", f"{noun.ja}番号", f"{noun.ja}ID", f"{noun.ja}No", noun.ja]
        refer.append(noun.ja)
    if not own["ja"].isascii():
        labels.append(own["ja"])
    return unique_list(labels), unique_list(refer)


_KEY_WORDS = ("id", "code", "no", "key", "fk", "cd", "num", "number")


def _stem(column: str) -> str:
    """customer_id -> customer; storeId -> store; sku -> sku."""
    ws = words(column)
    return "_".join(ws[:-1]) if len(ws) > 1 and ws[-1] in _KEY_WORDS else "_".join(ws) or column


def _unique(name: str, taken) -> str:
    out, n = name, 2
    while out in taken:
        out, n = f"{name}_{n}", n + 1
    if isinstance(taken, set):
        taken.add(out)
    return out


def _result_names(table: Table) -> dict[str, str]:
    """The name each column has in a tool's result: its own where the loader reads it as a column (a plain SQL
    word), else its words (`a b` -> a_b, `%(x)s` -> x_s; `名前` -> column), unique in the table."""
    taken = {c.name for c in table.columns if plain(c.name)}
    return {c.name: c.name if plain(c.name) else _unique(slug(c.name, "column"), taken) for c in table.columns}


def _selected(expr: str, name: str, column: str, q: Callable[[str], str]) -> str:
    """A column of the SELECT list, given its result name where that is not its own."""
    return expr if name == column else f"{expr} AS {q(name)}"


def _writable(schema: Schema, sql: Dialect) -> tuple[Schema, tuple[str, ...]]:
    """The schema without what its dialect's catalog SQL cannot name (`Dialect.writable`), and what that is
    (``table``, ``table.column``): a key or index on a column left out goes with it."""
    gone = {t.name for t in schema.tables if not sql.writable(t.name)}
    left_out = [t.name for t in schema.tables if t.name in gone]
    tables = []
    for t in schema.tables:
        if t.name in gone:
            continue
        lost = {c.name for c in t.columns if not sql.writable(c.name)}
        left_out += [f"{t.name}.{c.name}" for c in t.columns if c.name in lost]
        tables.append(_without(t, lost, gone, sql))
    return replace(schema, tables=tuple(tables)), tuple(left_out)


def _without(table: Table, lost: set[str], gone: set[str], sql: Dialect) -> Table:
    """`table` without its columns `lost`, and without its foreign keys to them or to the tables `gone`."""
    if not lost and not any(fk.table in gone for fk in table.foreign_keys):
        return table
    fks = tuple(fk for fk in table.foreign_keys if fk.table not in gone and not lost & set(fk.columns)
                and all(sql.writable(r) for r in fk.referred))
    return replace(table, columns=tuple(c for c in table.columns if c.name not in lost), foreign_keys=fks,
                   primary_key=() if lost & set(table.primary_key) else table.primary_key,
                   indexes=tuple(ix for ix in table.indexes if not lost & set(ix.columns)))


def draft_catalog(schema: Schema, name: str | None = None) -> Draft:
    """The drafted catalog of a schema; `name` defaults to the database's name."""
    return _Drafter(schema, name or schema.database).draft()


# --- YAML ---------------------------------------------------------------------------------------
class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:  # a parameter's bounds written out, not &id001
        return True


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def _dump(body: dict[str, Any]) -> str:
    return yaml.dump(body, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120, default_flow_style=False)


# --- writing without losing a person's edits -----------------------------------------------------
@dataclass(frozen=True)
class Written:
    path: Path  # where the draft went
    action: Literal["created", "updated", "unchanged", "beside"]  # beside: the file was edited; draft next to it
    kept: Path | None = None  # the edited file left as it was


def with_header(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return f"{HEADER}{digest} (edited files are kept: init then writes its new draft beside)\n" + text


def edited(existing: str) -> bool:
    """Whether a file that `write_draft` wrote has been changed since (or was never a draft)."""
    first, _, rest = existing.partition("\n")
    m = re.match(re.escape(HEADER) + r"([0-9a-f]{64})", first)
    return m is None or hashlib.sha256(rest.encode("utf-8")).hexdigest() != m.group(1)


def write_draft(path: Path, text: str) -> Written:
    """Write a drafted file; where a person edited the file there, write `NAME.draft.EXT` beside it instead."""
    path.parent.mkdir(parents=True, exist_ok=True)
    content = with_header(text)
    if not path.exists():
        path.write_text(content, encoding="utf-8")
        return Written(path, "created")
    existing = path.read_text(encoding="utf-8")
    if not edited(existing):
        if existing == content:
            return Written(path, "unchanged")
        path.write_text(content, encoding="utf-8")
        return Written(path, "updated")
    beside = path.with_name(f"{path.stem}.draft{path.suffix}")
    beside.write_text(content, encoding="utf-8")
    return Written(beside, "beside", kept=path)
