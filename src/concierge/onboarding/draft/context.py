"""What every drafted tool of one schema reads: the schema as its dialect's SQL can name it, each table's
tool names and result names, the nouns tables are named by, the key patterns, the drafted texts to review;
and `ToolDraft`, one tool being drafted (its parameters, SQL conditions and review keys)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from typing import Any

from concierge.onboarding.columns import Dialect, code_pattern, plain
from concierge.onboarding.introspect import ForeignKey, Schema, Table
from concierge.onboarding.naming import Noun, slug


class Context:
    """The schema-wide facts of one draft, read by the tool builders (`read_tool`, `summary_tool`)."""

    def __init__(self, schema: Schema, name: str):
        self.sql = Dialect(schema.dialect)
        schema, self.left_out = writable(schema, self.sql)
        self.schema = schema
        self.name = name
        self.tables = {t.name: t for t in schema.tables}
        self.result_names = {t.name: result_names(t) for t in schema.tables}  # table -> column -> its name
        self.review: list[str] = ["description"]
        self.notes: list[str] = []  # what the draft's header says was left out, and why
        used: set[str] = set()
        self.tool_names = {t.name: unique(slug(t.name, "table"), used) for t in schema.tables}
        self.summary_names = {t.name: unique(f"{self.tool_names[t.name]}_summary", used) for t in schema.tables}
        self.owned: set[str] = set()  # the nouns tables are named by in full (orders, 注文)
        for t in schema.tables:
            noun = Noun.of(t.name, t.comment)
            self.owned.add(noun.many)
            if not noun.partial:
                self.owned.update(noun.japanese_forms)
        self._patterns: dict[tuple[str, str], str | None] = {}
        self.name_params: dict[str, str] = {}  # table -> its name-search parameter (filled by `catalog`)

    def pattern(self, table: Table, column: str) -> str | None:
        """The key pattern of a table's column (shared by the foreign keys that point at it)."""
        key = (table.name, column)
        if key not in self._patterns:
            col = table.column(column)
            self._patterns[key] = code_pattern(col.samples) if col.kind == "text" else None
        return self._patterns[key]

    def noun(self, table: Table) -> Noun:
        return Noun.of(table.name, table.comment).without(self.owned)

    def referenced(self, fk: ForeignKey) -> Table | None:
        """The table a one-column foreign key points at, where the draft can follow it."""
        ref = self.tables.get(fk.table)
        if ref is None or len(fk.columns) != 1 or fk.referred[0] not in {c.name for c in ref.columns}:
            return None
        return ref


@dataclass
class ToolDraft:
    """One tool being drafted: its parameters, SQL conditions and planner keys."""

    name: str
    params: dict[str, dict[str, Any]] = field(default_factory=dict)
    where: list[str] = field(default_factory=list)
    ordered: list[list[str]] = field(default_factory=list)
    review: list[str] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)

    def param(self, name: str, spec: dict[str, Any], condition: str) -> str:
        """Add a parameter (renamed where its name is taken) and its condition, ``:{p}`` standing for it."""
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


def unique(name: str, taken: Collection[str]) -> str:
    """`name`, or name_2, name_3 ... where it is taken; added to `taken` where that is a set."""
    out, n = name, 2
    while out in taken:
        out, n = f"{name}_{n}", n + 1
    if isinstance(taken, set):
        taken.add(out)
    return out


def result_names(table: Table) -> dict[str, str]:
    """The name each column has in a tool's result: its own where the loader reads it as a column (a plain SQL
    word), else its words (`a b` -> a_b, `%(x)s` -> x_s; `名前` -> column), unique in the table."""
    taken = {c.name for c in table.columns if plain(c.name)}
    return {c.name: c.name if plain(c.name) else unique(slug(c.name, "column"), taken) for c in table.columns}


def selected(expr: str, name: str, column: str, q: Callable[[str], str]) -> str:
    """A column of the SELECT list, given its result name where that is not its own."""
    return expr if name == column else f"{expr} AS {q(name)}"


def writable(schema: Schema, sql: Dialect) -> tuple[Schema, tuple[str, ...]]:
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
