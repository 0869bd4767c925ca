"""The filters a drafted tool takes, each an optional parameter bound into its SQL: a table's key, a
`contains` search on its names, its low-cardinality columns as enums read from the data, the rows its
foreign keys point at (by key, and by name where that table is small: the albums of AC/DC, and two steps
away, the tracks of AC/DC through their albums), the rows it is linked to through a link table (by name:
the films of a category), and a from/to period on a date.

A key is read from a request where the planner can tell it from other numbers: an integer said after its
noun (customer 5, 受注番号1024), a text key by its pattern (C-0012, ALFKI); a foreign key's is also found
from a name said, through the referenced table's read tool (`extract.lookup`). A text key whose pattern is
a shape ordinary words can have too (five capital letters: ALFKI, and TOTAL) is checked against the data
when a call returns no row (`checks`), so a word read as a key is said to name no row, never answered
with nothing found."""

from __future__ import annotations

from typing import Any

from concierge.onboarding import glossary
from concierge.onboarding.columns import (
    Display,
    display_column,
    enum_columns,
    group_columns,
    letters_only,
    name_columns,
    repeats,
)
from concierge.onboarding.draft.conditions import event_words, flag_names, void_column
from concierge.onboarding.draft.context import Context, ToolDraft, unique
from concierge.onboarding.draft.labels import code_labels, column_label, key_stem, ref_noun
from concierge.onboarding.draft.paths import Join, Link
from concierge.onboarding.introspect import Column, Table
from concierge.onboarding.measures import event_date
from concierge.onboarding.naming import Noun, slug
from concierge.onboarding.rights import SUMMARY_MIN_ROWS

# A referenced table of at most this many rows is also filtered by its names, read from the data (an enum the
# planner finds said in a request: AC/DC); any table is filtered by its key, found from a name by a lookup.
REF_ENUM_ROWS = 1000


def key_filter(ctx: Context, tool: ToolDraft, table: Table, key: Column, noun: Noun, expr: str,
               via: Column | None = None) -> str | None:
    """The exact key of a row of `table` (its own `key`, or a foreign key `via` pointing at it), compared in
    the SQL as `expr`; None where the key is of no kind a request gives."""
    spec = key_param(ctx, table, key, noun, via=via)
    if spec is None:
        return None
    own = via or key
    name = tool.param(slug(own.name, "ref" if via is not None else "key"), spec,
                      f"(:{{p}} IS NULL OR {ctx.sql.equals(expr, own, '{p}')})")
    pattern = spec.get("pattern")
    if via is not None and pattern and letters_only(pattern):
        tool.checks.append(_known_key(ctx, table, key, noun, name))
    return name


def key_param(ctx: Context, table: Table, key: Column, noun: Noun, via: Column | None = None
              ) -> dict[str, Any] | None:
    """An exact key's parameter, read from a request where it can be told from other numbers (the module
    docstring); a text key of no pattern is only given, never read."""
    own = via or key
    said = column_label(key.name, key.comment, noun)  # 受注番号, order no: never the raw name in an answer
    desc = {"ja": f"{said['ja']}（完全一致）", "en": f"{said['en']}, exact"}
    spec: dict[str, Any]
    if own.kind == "integer":
        spec = {"type": "integer", "nullable": True, "description": desc}
    elif own.kind == "text":
        spec = {"type": "string", "nullable": True, "max_length": 200, "description": desc}
        pattern = ctx.pattern(table, key.name)
        if not pattern:
            return spec
        spec["pattern"] = pattern
    else:
        return None
    labels, refer = code_labels(noun, own)
    x: dict[str, Any] = {"kind": "code", "labels": labels, "refer": refer}
    if via is not None and table.name in ctx.name_params:
        x["lookup"] = {"tool": ctx.tool_names[table.name], "arg": ctx.name_params[table.name],
                       "column": ctx.result_names[table.name].get(key.name, key.name)}
    spec["extract"] = x
    return spec


def _known_key(ctx: Context, table: Table, key: Column, noun: Noun, param: str) -> dict[str, Any]:
    """A check that a key said names a row of `table`, run when the call returns none."""
    q = ctx.sql.q
    return {
        "sql": f"{ctx.sql.select_one()} WHERE {ctx.sql.text_param(param, 200)} IS NULL OR EXISTS "
               f"(SELECT 1 FROM {q(table.name)} r WHERE {ctx.sql.equals(f'r.{q(key.name)}', key, param)})",
        "message": {"ja": f"その{noun.ja}（{key.name}）は見つかりません。",
                    "en": f"No {noun.one} has that {key.name}."},
        "implied_by_rows": True,
    }


def ref_filters(ctx: Context, tool: ToolDraft, table: Table, j: Join) -> list[str]:
    """The filters of the row a join reaches: its key (`key_filter`: an integer or a code said, or found from
    a name said), and its name as the data writes it, an enum, where its table has at most REF_ENUM_ROWS rows
    (the joined name's SQL, `j.alias`, must be in the FROM)."""
    sql, q = ctx.sql, ctx.sql.q
    col, ref = j.key(table), j.table
    rnoun = ref_noun(col, ref)
    filters = []
    found = key_filter(ctx, tool, ref, ref.column(j.fk.referred[0]), rnoun, f"{j.source}.{q(col.name)}", via=col)
    if found:
        filters.append(found)
    display = _enum_display(ref)
    if display is not None:
        spec = _names_enum(ctx, ref, display, rnoun)
        if found and _party(ref):  # two customers both named 佐藤: the name is refused for the key of one
            spec["enum"] |= {"shared_query": shared_names_query(ctx, ref, display, j.fk.referred[0]),
                             "shared_param": found}
        filters.append(tool.param(slug(key_stem(col.name), "ref"), spec,
                                  f"(:{{p}} IS NULL OR {display.sql(j.alias, sql)} = :{{p}})"))
    named = display_column(ref)
    if named is not None:  # the join is in the FROM for its name
        filters += [code_filter(ctx, tool, ref, code, rnoun, f"{j.alias}.{q(code.name)}") for code in _codes(ctx, ref)]
        filters += _ref_enums(ctx, tool, j, named, rnoun)
    return filters


def _ref_enums(ctx: Context, tool: ToolDraft, j: Join, named: Display, rnoun: Noun) -> list[str]:
    """The values the row a join reaches shares with others (`shared_value_columns`), as filters of the rows that
    name it: ハーブの先週の売上 is the sales of the plants of that family, 大阪のお客様の修理 the repairs of the
    customers of that city."""
    ref = j.table
    apart = {c.name for c in named.columns} | flag_names(ref, ctx.schema.dialect)
    return [enum_filter(ctx, tool, ref, c, j.alias, rnoun) for c in shared_value_columns(ref) if c.name not in apart]


def _party(table: Table) -> bool:
    """Whether a table's rows are people or organisations (words/english.toml, [parties])."""
    head = Noun.of(table.name, table.comment).one.split()[-1:]
    return bool(head) and head[0] in glossary.PARTIES


def _codes(ctx: Context, table: Table) -> list[Column]:
    """A table's codes other than its key, of a shape a request can't say by accident (sku_cd SKU-00412, an
    ALFKI): the rows pointing at it are filtered by them too."""
    keys = set(table.primary_key) | {c for fk in table.foreign_keys for c in fk.columns}
    return [c for c in table.columns if c.kind == "text" and c.name not in keys and c.values is None
            and repeats(c, table) is not True and ctx.pattern(table, c.name)]


def code_filter(ctx: Context, tool: ToolDraft, table: Table, code: Column, noun: Noun, expr: str) -> str:
    """The exact code of the row a join reaches (units shipped of SKU-00412: the lines of that SKU)."""
    said = column_label(code.name, code.comment, noun)  # its own words only: "customer 5" stays the key's
    labels = [w for w in dict.fromkeys([said["en"], f"{noun.one} {said['en']}", said["ja"]]) if w]
    spec = {"type": "string", "nullable": True, "max_length": 200, "pattern": ctx.pattern(table, code.name),
            "description": {"ja": f"{said['ja']}（完全一致）", "en": f"{said['en']}, exact"},
            "extract": {"kind": "code", "labels": labels}}
    return tool.param(slug(code.name, "code"), spec, f"(:{{p}} IS NULL OR {ctx.sql.equals(expr, code, '{p}')})")


def link_filter(ctx: Context, tool: ToolDraft, link: Link) -> str | None:
    """The rows a row is linked to through a link table, by their name as the data writes it, an enum, where
    their table has at most REF_ENUM_ROWS rows (the films of the Music category, through film_category); the
    tool's row is `t`. None where they have no name or too many rows."""
    q, ref, col = ctx.sql.q, link.table, link.key()
    display = _enum_display(ref)
    if display is None:
        return None
    match = (f"SELECT 1 FROM {q(link.via.name)} l JOIN {q(ref.name)} r "
             f"ON r.{q(link.other.referred[0])} = l.{q(col.name)} "
             f"WHERE l.{q(link.own.columns[0])} = t.{q(link.own.referred[0])} AND {display.sql('r', ctx.sql)} = :{{p}}")
    return tool.param(slug(key_stem(col.name), "ref"), _names_enum(ctx, ref, display, ref_noun(col, ref)),
                      f"(:{{p}} IS NULL OR EXISTS ({match}))")


def _enum_display(ref: Table) -> Display | None:
    """The name a referenced table's rows are filtered by as an enum: none where it has too many rows."""
    display = display_column(ref)
    return display if display is not None and 0 < ref.row_count <= REF_ENUM_ROWS else None


def _names_enum(ctx: Context, ref: Table, display: Display, rnoun: Noun) -> dict[str, Any]:
    """The parameter of a referenced table's names, its values read from the data."""
    dnoun = Noun.of(display.name, display.comment, countable=False)
    own = dnoun.ja.startswith(rnoun.ja) or dnoun.one.startswith(rnoun.one)  # 得意先名, not 得意先の得意先名
    return {
        "type": "enum", "nullable": True,
        "enum": {"query": names_query(ctx, ref, display)},
        "description": {"ja": f"{dnoun.ja if own else f'{rnoun.ja}の{dnoun.ja}'}（null なら全て）",
                        "en": f"the {dnoun.one if own else f'{rnoun.one} {dnoun.one}'}, one of the values "
                              "in the data; null for all"},
        "extract": {"kind": "enum"},
    }


def enum_filter(ctx: Context, tool: ToolDraft, table: Table, col: Column, alias: str = "t",
                owner: Noun | None = None) -> str:
    """A low-cardinality column as an enum whose values are read from the data when a call is checked; of the
    row a foreign key points at where `owner` is given (the plant's family of a sale)."""
    cnoun = Noun.of(col.name, col.comment, countable=False)
    ja, en = (f"{owner.ja}の{cnoun.ja}", f"{owner.one}'s {cnoun.one}") if owner else (cnoun.ja, cnoun.one)
    spec = {
        "type": "enum", "nullable": True,
        "enum": {"query": enum_query(ctx, table, col)},
        "description": {"ja": f"{ja}（null なら全て）", "en": f"{en}, one of the values in the data; null for all"},
        "extract": {"kind": "enum"},
    }
    name = f"{owner.one} {col.name}" if owner and owner.one not in col.name else col.name
    return tool.param(slug(name, "value"), spec,
                      f"(:{{p}} IS NULL OR {ctx.sql.text(f'{alias}.{ctx.sql.q(col.name)}', col)} = :{{p}})")


def called_off_filter(ctx: Context, tool: ToolDraft, parent: Table, alias: str, owner: Noun) -> str | None:
    """An order's lines filtered by the order's status where its values say an order was called off (キャンセル):
    of the orders that were not cancelled, or of those that were; None where the parent has no such status."""
    status = void_column(parent)
    return enum_filter(ctx, tool, parent, status, alias, owner) if status is not None else None


def shared_value_columns(table: Table) -> list[Column]:
    """The columns a read or a summary filters by as enums read from the data: its enums, and the things its rows
    share beyond them (`group_columns`: a customer's city), seen to repeat (never a code of each row: wh_cd), where
    their values are few (`Column.few`) or the table small enough to read them all (REF_ENUM_ROWS). How many
    customers in Kyoto is the customers of that city, never a search of their names for Kyoto."""
    shared = [c for c in group_columns(table) if (
        len(c.few) < table.row_count if c.few is not None else table.row_count <= REF_ENUM_ROWS and repeats(c, table))]
    return [*enum_columns(table), *shared]


def label_columns(table: Table) -> list[Column]:
    """The column that names or labels the rows of a small table of things, as an enum read from the data: the daily
    rate of the Prius is that car's, the price of ヘッドスパ that menu item's, read as the data writes them. Where the
    table has a name, only a name of few values that no other value of the table shares (a menu item called カラー
    beside the category カラー would narrow カラー系 to the one item); never people's or companies' names, searched
    by a part (田中)."""
    display = display_column(table)
    if display is None or display.joined or table.row_count > REF_ENUM_ROWS or _party(table):
        return []
    col = display.columns[0]
    if name_columns(table):
        others = {v for c in shared_value_columns(table) for v in (c.values or c.few or ())}
        if col.few is None or others & set(col.few):
            return []
    return [col]


def name_searches(ctx: Context, table: Table) -> list[tuple[str, str, Noun]]:
    """The `contains` searches on a table's names, the one a name said fills first: (parameter, the SQL of
    the name in the row `t`, the name in words). A person's first and last names joined are one, first."""
    out: list[tuple[str, str, Noun]] = []
    display = display_column(table)
    if display is not None and display.joined:
        taken = {slug(c.name, "column") for c in table.columns}
        full = Noun.of("full_name", None, countable=False)
        out.append((unique("name", taken), display.sql("t", ctx.sql), full))
    for col in name_columns(table):
        out.append((slug(col.name, "name"), ctx.sql.text(f"t.{ctx.sql.q(col.name)}", col),
                    Noun.of(col.name, col.comment, countable=False)))
    return out


def period(ctx: Context, tool: ToolDraft, table: Table, col: Column, expr: str, *, extract: bool) -> list[str]:
    """A from/to pair on one date column. The tool's default pair (`extract`) is what a request's period
    fills; any other takes it only where the request says one of its event's words (orders shipped last
    month: the shipped date, not the order date)."""
    cnoun = Noun.of(col.name, col.comment, countable=False)
    said_ja = column_label(col.name, col.comment, ctx.noun(table))["ja"]  # 受付日, never received_on
    base = slug(col.name, "date")
    bounds = {"query": ctx.sql.year_bounds(table.name, col)}
    first = {"type": "date", "nullable": True, "bounds": bounds,
             "description": {"ja": f"{said_ja}の開始日", "en": f"first day of the {cnoun.one} period, YYYY-MM-DD"}}
    last = {"type": "date", "nullable": True, "bounds": bounds,
            "description": {"ja": f"{said_ja}の終了日（この日を含む）",
                            "en": f"last day of the {cnoun.one} period (inclusive), YYYY-MM-DD"}}
    event = event_words(col) if event_date(col) else []  # never a birth date
    said = {"event": event} if extract and event else {} if extract else {"words": event}
    if extract or event:
        first["extract"] = {"kind": "date", "part": "start", **said}
        last["extract"] = {"kind": "date", "part": "end", **said}
    a = tool.param(f"{base}_from", first, f"(:{{p}} IS NULL OR {ctx.sql.date_from(expr, col, '{p}')})")
    b = tool.param(f"{base}_to", last, f"(:{{p}} IS NULL OR {ctx.sql.date_to(expr, col, '{p}')})")
    tool.ordered.append([a, b])
    return [f"{a}/{b}"]


def enum_query(ctx: Context, table: Table, col: Column) -> str:
    """The distinct values of a column. On a large table whose index begins with the column, one index probe per
    value (a loose index scan) instead of reading every row: milliseconds, not seconds, at 10^7 rows."""
    c, t = ctx.sql.q(col.name), ctx.sql.q(table.name)
    if table.row_count >= SUMMARY_MIN_ROWS and ctx.schema.dialect in ("sqlite", "postgresql") and _leads(table, col):
        return (f"WITH RECURSIVE v(x) AS (SELECT MIN({c}) FROM {t} UNION ALL "
                f"SELECT (SELECT MIN({c}) FROM {t} WHERE {c} > v.x) FROM v WHERE v.x IS NOT NULL) "
                f"SELECT {ctx.sql.text('x', col)} FROM v WHERE x IS NOT NULL ORDER BY 1")
    return f"SELECT DISTINCT {ctx.sql.text(c, col)} FROM {t} WHERE {c} IS NOT NULL ORDER BY 1"


def _leads(table: Table, col: Column) -> bool:
    """Whether an index of the table (its primary key too) begins with the column."""
    firsts = [ix.columns[0] for ix in table.indexes if ix.columns] + list(table.primary_key[:1])
    return col.name in firsts


def shared_names_query(ctx: Context, table: Table, display: Display, key: str) -> str:
    """The names that more than one row of a table has, each with the key of every row that has it."""
    shown, named = display.sql("r", ctx.sql), display.sql("s", ctx.sql)
    t = ctx.sql.q(table.name)
    return (f"SELECT {shown}, r.{ctx.sql.q(key)} FROM {t} r WHERE {shown} IN "
            f"(SELECT {named} FROM {t} s GROUP BY {named} HAVING COUNT(*) > 1) ORDER BY 1, 2")


def names_query(ctx: Context, table: Table, display: Display) -> str:
    """The names of a table's rows, as `display` shows them (a person's names joined), for an enum."""
    if not display.joined:
        return enum_query(ctx, table, display.columns[0])
    shown = display.sql("r", ctx.sql)
    return f"SELECT DISTINCT {shown} FROM {ctx.sql.q(table.name)} r WHERE {shown} <> '' ORDER BY 1"
