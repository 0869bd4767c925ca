"""The rows a table's row points at through its foreign keys, and through theirs: the customer of an
invoice (one step), the artist of a track's album or the customer of the invoice a line belongs to (two),
the support rep of that customer (three). A drafted tool filters and groups by these rows' names.

Every foreign key of the table is one step (two keys to one table are two routes, each named by its key:
bill_to, ship_to). Beyond that, each table is reached once, by its one shortest route, at most MAX_DEPTH
steps away: a table the table already reaches in fewer steps is not reached again (an order's own sales
rep, not its customer's), and one reached by two routes of the same length is named by their keys where
those differ, else left out, as a reader could not tell which route a request means; the draft's header
says what was left out (`Paths.left_out`).

A link table joins two tables many to many (film_category: the films of a category, the categories of a
film): its two foreign keys, one to each, are its whole primary key, or all its columns but timestamps.
A table reaches the rows of the other through it (`links`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from concierge.onboarding.draft.context import Context
from concierge.onboarding.draft.labels import key_stem, ref_noun
from concierge.onboarding.introspect import Column, ForeignKey, Table
from concierge.onboarding.naming import Noun

MAX_DEPTH = 3


@dataclass(frozen=True)
class Join:
    """One step: the row `table` that the foreign key `fk` of the row `source` (t, or a join before) points at."""

    alias: str
    fk: ForeignKey
    table: Table
    source: str = "t"
    owner: Table | None = None  # the table whose foreign key it follows, where that is not the tool's own
    depth: int = 1
    named_by_key: bool = False  # one of two routes to its table: named by its key (bill_to), not by the table

    def key(self, table: Table) -> Column:
        """The foreign key column it follows (of `owner`, else of the tool's `table`)."""
        return (self.owner or table).column(self.fk.columns[0])

    def sql(self, q: Callable[[str], str]) -> str:
        return (f"LEFT JOIN {q(self.table.name)} {self.alias} ON {self.alias}.{q(self.fk.referred[0])} = "
                f"{self.source}.{q(self.fk.columns[0])}")


@dataclass(frozen=True)
class Paths:
    direct: tuple[Join, ...]  # one step each, every foreign key of the table
    beyond: tuple[Join, ...]  # two steps and more, in the order reached
    left_out: tuple[str, ...] = ()  # routes not followed, in words, for the draft's header

    @property
    def all(self) -> tuple[Join, ...]:
        return (*self.direct, *self.beyond)

    def chain(self, join: Join) -> list[Join]:
        """The joins from the table to `join`, `join` last: what its SQL needs in the FROM."""
        by_alias = {j.alias: j for j in self.all}
        out = [join]
        while out[0].source != "t":
            out.insert(0, by_alias[out[0].source])
        return out


def paths(ctx: Context, table: Table, depth: int = MAX_DEPTH) -> Paths:
    """The rows `table` reaches through foreign keys, at most `depth` steps away."""
    direct = []
    for n, fk in enumerate(table.foreign_keys, start=1):
        ref = ctx.referenced(fk)
        if ref is not None:
            direct.append(Join(f"j{n}", fk, ref))
    counts: dict[str, int] = {}
    for j in direct:
        counts[j.table.name] = counts.get(j.table.name, 0) + 1
    direct = [j if counts[j.table.name] == 1 else _by_key(j) for j in direct]
    seen = {table.name} | {j.table.name for j in direct}
    level = [j for j in direct if j.table is not table]
    beyond: list[Join] = []
    left_out: list[str] = []
    for step in range(2, depth + 1):
        found: dict[str, list[Join]] = {}
        for j in level:
            for n, fk in enumerate(j.table.foreign_keys, start=1):
                ref = ctx.referenced(fk)
                if ref is None or ref is j.table:
                    continue
                if ref.name in seen:  # reached in fewer steps: that route is the one a request means
                    continue
                found.setdefault(ref.name, []).append(Join(f"{j.alias}_{n}", fk, ref, j.alias, j.table, step))
        level = []
        for name, routes in found.items():
            seen.add(name)
            if len(routes) == 1:
                level.append(routes[0])
            elif len({_key_words(r) for r in routes}) == len(routes) and all(_names_other(r) for r in routes):
                level += [_by_key(r) for r in routes]
            else:
                left_out.append(f"{table.name}: {name} through " + " and ".join(
                    f"{r.owner.name if r.owner else table.name}.{r.fk.columns[0]}" for r in routes)
                    + " (two routes of one length)")
        beyond += level
    return Paths(tuple(direct), tuple(beyond), tuple(dict.fromkeys(left_out)))


def _by_key(j: Join) -> Join:
    return Join(j.alias, j.fk, j.table, j.source, j.owner, j.depth, named_by_key=True)


def _key_words(j: Join) -> str:
    return key_stem(j.fk.columns[0])


def _names_other(j: Join) -> bool:
    """Whether the key names its row otherwise than its table does (bill_to_id, support_rep_id)."""
    own = Noun.of(j.table.name, j.table.comment).one
    return j.owner is not None and ref_noun(j.owner.column(j.fk.columns[0]), j.table).one != own


@dataclass(frozen=True)
class Link:
    """The rows `table` that a row of the tool's table is linked to through the link table `via`: its foreign
    key `own` points at the tool's table, `other` at `table`."""

    via: Table
    own: ForeignKey
    other: ForeignKey
    table: Table

    def key(self) -> Column:
        """The link table's column that points at `table` (category_id)."""
        return self.via.column(self.other.columns[0])


def links(ctx: Context, table: Table) -> tuple[Link, ...]:
    """The tables `table` is linked to many to many, each through one link table (the module docstring)."""
    out = []
    for via in ctx.schema.tables:
        if via.is_view or via is table or len(via.foreign_keys) != 2 or not _only_keys(via):
            continue
        refs = [ctx.referenced(fk) for fk in via.foreign_keys]
        ends = [(fk, ref) for fk, ref in zip(via.foreign_keys, refs, strict=True) if ref is table]
        if len(ends) != 1 or None in refs:
            continue
        (own, _), = ends
        other, ref = next((fk, r) for fk, r in zip(via.foreign_keys, refs, strict=True) if fk is not own)
        if ref is not None and ref is not via:
            out.append(Link(via, own, other, ref))
    return tuple(out)


def _only_keys(table: Table) -> bool:
    """Whether a table's two one-column foreign keys are its primary key, or all its columns but timestamps."""
    keys = {fk.columns[0] for fk in table.foreign_keys if len(fk.columns) == 1}
    if len(keys) != 2:
        return False
    rest = [c for c in table.columns if c.name not in keys]
    return set(table.primary_key) == keys or all(c.is_date for c in rest)
