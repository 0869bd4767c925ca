"""Which tables a write changes and which a catalog's facts read, so that a write keeps the facts it cannot change.

The guard reads values from the data (a menu's items, its categories: `SqlExecutor.facts`) and reads them again
after a write. Most writes cannot change them: a line put in an order is written to the order's table, never the
menu's. A write keeps its catalog's facts only where this is certain:

- every statement of the write is an INSERT, UPDATE, DELETE or MERGE of one named table (a writable CTE counts:
  each of its statements is one), and calls no function of the database's own (`exp.Anonymous`), which may
  write anywhere; or a SELECT of no such function (`SELECT 'end' AS action`), which writes nothing;
- no facts query reads a table it writes, or a view (a view may read any table);
- no trigger or rule is on a table it changes; a table whose foreign key acts on one it changes (ON DELETE
  CASCADE, SET NULL, SET DEFAULT) is changed too, and so are a PostgreSQL table's partitions and parents. The
  database's catalog is read again every `SIDE_EFFECTS_LOOK_S`.

Anything else (a statement sqlglot cannot read, a database this module does not know) reads the facts again, as
every write did before. Table names are compared without schema or quotes, lower case: two tables of one name in
two schemas count as one, which reads the facts again where it need not, never the other way round.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import sqlalchemy as sa

from concierge.errors import DatabaseError
from concierge.storage.database import Database

__all__ = ["SIDE_EFFECTS_LOOK_S", "SideEffects", "tables_read", "tables_written"]

SIDE_EFFECTS_LOOK_S = 60.0  # a trigger made while concierge runs counts within a minute

_DIALECTS = {"sqlite": "sqlite", "postgresql": "postgres", "mysql": "mysql", "mariadb": "mysql", "duckdb": "duckdb"}


@lru_cache(maxsize=1024)  # once per tool, not once per pipeline that runs it
def tables_written(statements: tuple[str, ...], dialect: str) -> frozenset[str] | None:
    """The tables the statements change (lower case, no schema); None where that cannot be told from them."""
    exp, trees = parsed(statements, dialect)
    if trees is None:
        return None
    out: set[str] = set()
    for tree in trees:
        if tree is None or any(True for _ in tree.find_all(exp.Anonymous)):
            return None
        changes = list(tree.find_all(exp.Insert, exp.Update, exp.Delete, exp.Merge))
        if not changes and not isinstance(tree, exp.Select):
            return None
        for change in changes:
            target = change.this.this if isinstance(change, exp.Insert) and isinstance(change.this, exp.Schema) \
                else change.this
            if not isinstance(target, exp.Table) or not target.name:
                return None
            if any(change.args.get(k) for k in ("from", "from_", "using", "tables")) \
                    or any(True for _ in target.find_all(exp.Join)):
                return None  # UPDATE t1 JOIN t2 SET ...: which of them is changed is not read here
            out.add(target.name.lower())
    return frozenset(out)


@lru_cache(maxsize=256)
def tables_read(statements: tuple[str, ...], dialect: str) -> frozenset[str] | None:
    """Every table (or view, or CTE) the statements name; None where one cannot be read."""
    exp, trees = parsed(statements, dialect)
    if trees is None or any(tree is None for tree in trees):
        return None
    return frozenset(t.name.lower() for tree in trees for t in tree.find_all(exp.Table) if t.name)


@lru_cache(maxsize=1024)
def listed_column(query: str, dialect: str) -> tuple[str, str] | None:
    """(table, column) of a query that lists one column of one table (SELECT DISTINCT name FROM staff ...), lower
    case; None for any other query."""
    exp, trees = parsed((query,), dialect)
    if not trees or len(trees) != 1 or not isinstance(trees[0], exp.Select):
        return None
    tree = trees[0]
    tables = list(tree.find_all(exp.Table))
    if len(tree.expressions) != 1 or len(tables) != 1 or not isinstance(tree.expressions[0], exp.Column):
        return None
    return tables[0].name.lower(), tree.expressions[0].name.lower()


@lru_cache(maxsize=1024)
def tables_of(statement: str, dialect: str) -> frozenset[str] | None:
    """The tables one statement reads (`tables_read`), read once per statement."""
    return tables_read((statement,), dialect)


def parsed(statements: Iterable[str], dialect: str) -> tuple:
    """sqlglot's module of expressions, and the trees of the statements (None where a dialect is not known or a
    statement cannot be read; bound parameters such as :item are read as placeholders)."""
    import sqlglot
    from sqlglot import exp

    logging.getLogger("sqlglot").setLevel(logging.ERROR)  # a statement it reads as a bare command: None, said here
    read = _DIALECTS.get(dialect)
    if read is None:
        return exp, None
    trees = []
    try:
        for sql in statements:
            trees += sqlglot.parse(sql, read=read)
    except (sqlglot.errors.SqlglotError, ValueError):
        return exp, None
    return exp, trees


class SideEffects:
    """What else a write of some tables changes: the tables whose foreign keys act on theirs (ON DELETE CASCADE,
    SET NULL, SET DEFAULT), and whether a trigger or a rule on one of them may change any table. Read from the
    database's catalog at most every `SIDE_EFFECTS_LOOK_S`; where the database is not one this knows or cannot be
    asked, anything may change."""

    def __init__(self) -> None:
        self._found: _Effects | None = None
        self._looked = 0.0

    def changed(self, db: Database, written: frozenset[str]) -> frozenset[str] | None:
        """The tables a write of `written` changes, with those its keys act on; None where a trigger or a rule
        on one of them (or a database this does not know) may change any table."""
        if self._found is None or time.monotonic() - self._looked >= SIDE_EFFECTS_LOOK_S:
            try:
                with db.read() as conn:
                    found = _look(conn)
            except (DatabaseError, sa.exc.SQLAlchemyError):  # asked again at the next write
                return None
            self._found, self._looked = found or _Effects(frozenset(), {}, True), time.monotonic()
        effects = self._found
        changed, todo = set(written), list(written)
        while todo:
            changed |= (more := effects.acting.get(todo.pop(), set()) - changed)
            todo += more
        return None if effects.unknown or changed & effects.triggered else frozenset(changed)


@dataclass(frozen=True)
class _Effects:
    triggered: frozenset[str]  # the tables with a trigger or a rule
    acting: dict[str, set[str]]  # by table: the tables whose foreign keys act on it
    unknown: bool = False  # a database this does not know, or could not ask: anything may change


# (tables with a trigger or a rule, (child, parent) of each foreign key with an action), by dialect
_NO_ACTIONS = ("RESTRICT", "NO ACTION")
_LOOKS = {
    "postgresql": (
        "SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal"
        " UNION SELECT c.relname FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class"
        " JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE r.rulename <> '_RETURN' AND n.nspname NOT IN ('pg_catalog', 'information_schema')",
        "SELECT child.relname, parent.relname FROM pg_constraint k JOIN pg_class child ON child.oid = k.conrelid"
        " JOIN pg_class parent ON parent.oid = k.confrelid"
        " WHERE k.contype = 'f' AND (k.confdeltype NOT IN ('a', 'r') OR k.confupdtype NOT IN ('a', 'r'))"
        # a partition or an inheriting table and its parent: a row written to one is read through the other
        " UNION SELECT c.relname, p.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
        " JOIN pg_class p ON p.oid = i.inhparent"
        " UNION SELECT p.relname, c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
        " JOIN pg_class p ON p.oid = i.inhparent",
    ),
    "mysql": (
        "SELECT event_object_table FROM information_schema.triggers WHERE trigger_schema = DATABASE()",
        "SELECT table_name, referenced_table_name FROM information_schema.referential_constraints"
        f" WHERE constraint_schema = DATABASE() AND (delete_rule NOT IN {_NO_ACTIONS}"
        f" OR update_rule NOT IN {_NO_ACTIONS})",
    ),
    "sqlite": ("SELECT tbl_name FROM sqlite_master WHERE type = 'trigger'", None),
    "duckdb": (None, None),  # no triggers; its foreign keys take no actions
}
_LOOKS["mariadb"] = _LOOKS["mysql"]


def _look(conn: sa.Connection) -> _Effects | None:
    dialect = conn.dialect.name
    looks = _LOOKS.get(dialect)
    if looks is None:
        return None
    triggers, keys = looks
    triggered = frozenset(str(r[0]).lower() for r in conn.exec_driver_sql(triggers)) if triggers else frozenset()
    pairs = [(str(c), str(p)) for c, p in conn.exec_driver_sql(keys)] if keys else \
        _sqlite_acting_keys(conn) if dialect == "sqlite" else []
    acting: dict[str, set[str]] = {}
    for child, parent in pairs:
        acting.setdefault(parent.lower(), set()).add(child.lower())
    return _Effects(triggered, acting)


def _sqlite_acting_keys(conn: sa.Connection) -> list[tuple[str, str]]:
    """(child, parent) of each foreign key of a SQLite database with an action (ON DELETE CASCADE, ...)."""
    tables = [r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'table'")]
    out = []
    for table in tables:
        quoted = '"' + table.replace('"', '""') + '"'
        for k in conn.exec_driver_sql(f"PRAGMA foreign_key_list({quoted})").mappings():
            if k["on_update"] not in _NO_ACTIONS or k["on_delete"] not in _NO_ACTIONS:
                out.append((table, k["table"]))
    return out
