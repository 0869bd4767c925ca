"""Summary tables a catalog declares (`rollups:`), built and kept current in the business database.

A rollup holds one row per distinct `group_by` of its table: the sums of `sums` and how many rows it
sums (`source_rows`). `build` fills it from the table and installs triggers that keep it current on
every later INSERT, UPDATE and DELETE, whoever writes (a declared write tool, an import, a person with
psql): row triggers with an upsert on SQLite, statement triggers over transition tables on
PostgreSQL, so a COPY of thousands of rows costs one grouped upsert.

Which rollups may be read is recorded in ``concierge_rollups`` beside them, with the definition each
was built from: a rollup is read only while its record matches the catalog's declaration and all its
triggers are in place and enabled (`current`); anything else reads the base table. A reader asks this in
its own transaction, right before it reads (`ReadCheck`), so that it sees record, triggers and rows as
of one snapshot. A bulk load pauses the triggers and rebuilds the groups it touched (`paused`), in the
caller's transaction, so a failed load leaves table, rollup and triggers as they were.

A rebuild never leaves a reader a window. A rollup built before from the same declaration keeps its
table: its rows are deleted and summed again in the builder's transaction (DELETE + INSERT ... SELECT;
never TRUNCATE, which PostgreSQL does not keep for older snapshots), so every snapshot sees all the old
rows or all the new ones. Otherwise (the first build, another declaration: other columns) the table is
dropped and created anew; a reader whose snapshot predates that commit either finds no matching record
or, on PostgreSQL, a table its snapshot does not know, and reads the base table (`ReadCheck`).

MySQL and MariaDB get no rollups (yet): their triggers fire per row, and TRUNCATE fires none, so a rollup could
drift with nothing to tell. Building one there is refused with what to do; their tools read the base tables.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache

import sqlalchemy as sa

from concierge.catalog.model import Rollup
from concierge.errors import ConfigError
from concierge.storage.database import Database, is_mysql
from concierge.storage.database import rows as driver_rows

RECORDS = "concierge_rollups"
_FORMAT = 1  # bump when the triggers or the table layout change: older builds stop being read
_EVENTS = ("insert", "update", "delete", "truncate")  # SQLite has no TRUNCATE (its DELETE fires the triggers)
_IN_CHUNK = 500

_records = sa.Table(
    RECORDS,
    sa.MetaData(),
    sa.Column("name", sa.String(64), primary_key=True),
    sa.Column("base_table", sa.String(64), nullable=False),
    sa.Column("definition", sa.Text, nullable=False),  # the declaration as JSON: a bulk load rebuilds from it
    sa.Column("fingerprint", sa.String(64), nullable=False),
    sa.Column("built_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("source_rows", sa.BigInteger, nullable=False),  # rows of the table when it was built
)


@dataclass(frozen=True)
class Built:
    name: str
    table: str
    groups: int
    source_rows: int
    seconds: float


def fingerprint(rollup: Rollup) -> str:
    """What a build is recorded against: the declaration and the trigger format."""
    text = json.dumps({"format": _FORMAT, **rollup.model_dump()}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def trigger_names(name: str, dialect: str) -> list[str]:
    events = _EVENTS[:3] if dialect == "sqlite" else _EVENTS
    return [f"{name}_on_{event}" for event in events]


def build(conn: sa.Connection, name: str, rollup: Rollup) -> Built:
    """(Re)build rollup `name` from its table, with its triggers and its record, in `conn`'s transaction:
    in place when it was built from this declaration before, else as a new table (the module's docstring).

    On PostgreSQL the table's writers wait from the start (SHARE ROW EXCLUSIVE: no write falls between the
    sum and the triggers) and its readers never do (nothing here locks the table against them, so a reader
    that holds the rollup and then reads the table cannot deadlock with a build); readers of the rollup wait
    only while a new table replaces it (DROP TABLE)."""
    started = time.perf_counter()
    if is_mysql(conn.dialect):
        raise ConfigError(
            f"rollup {name}: concierge keeps rollups current with triggers on SQLite and PostgreSQL only, not on "
            f"MySQL/MariaDB; remove {name} from the catalog's `rollups:` (its tools then read {rollup.table} "
            "itself, with the same answers), or keep this data on PostgreSQL")
    _check_columns(conn, name, rollup)
    if conn.dialect.name != "sqlite":  # SQLite's writers already wait: the transaction began IMMEDIATE
        conn.execute(sa.text(f"LOCK TABLE {_quoted(conn, rollup.table)} IN SHARE ROW EXCLUSIVE MODE"))
    if _built_from(conn, name, rollup):
        conn.execute(sa.text(f"DELETE FROM {_quoted(conn, name)}"))  # older snapshots keep seeing the old rows
    else:
        _drop_table(conn, name)
        _create_table(conn, name, rollup)
    conn.execute(sa.text(_fill_sql(conn, name, rollup)))
    _put_triggers(conn, name, rollup)
    source_rows = int(conn.scalar(sa.text(f"SELECT COUNT(*) FROM {_quoted(conn, rollup.table)}")) or 0)
    _record(conn, name, rollup, source_rows)
    groups = int(conn.scalar(sa.text(f"SELECT COUNT(*) FROM {_quoted(conn, name)}")) or 0)
    return Built(name, rollup.table, groups, source_rows, time.perf_counter() - started)


def build_all(conn: sa.Connection, rollups: dict[str, Rollup]) -> list[Built]:
    return [build(conn, name, rollup) for name, rollup in rollups.items()]


def build_missing(conn: sa.Connection, rollups: dict[str, Rollup]) -> list[str]:
    """Build the rollups that are not current (missing, or built from another declaration); their names."""
    readable = current(conn, rollups)
    missing = [name for name in rollups if name not in readable]
    for name in missing:
        build(conn, name, rollups[name])
    return missing


def ensure(db: Database, rollups: dict[str, Rollup]) -> list[str]:
    """`build_missing`, taking the write lock only when one is not current."""
    if not rollups:
        return []
    with db.read() as conn:
        if current(conn, rollups) == frozenset(rollups):
            return []
    with db.write() as conn:
        return build_missing(conn, rollups)


def current(conn: sa.Connection, rollups: dict[str, Rollup]) -> frozenset[str]:
    """The declared rollups that may be read: built from this declaration, every trigger in place."""
    if not rollups or not sa.inspect(conn).has_table(RECORDS):
        return frozenset()
    recorded = dict(conn.execute(sa.select(_records.c.name, _records.c.fingerprint)
                                 .where(_records.c.name.in_(list(rollups)))).all())
    wanted = [n for n, r in rollups.items() if recorded.get(n) == fingerprint(r)]
    dialect = conn.dialect.name
    triggers = _existing_triggers(conn, [t for n in wanted for t in trigger_names(n, dialect)])
    return frozenset(n for n in wanted if set(trigger_names(n, dialect)) <= triggers)


class ReadCheck:
    """Whether a reader may read rollup `name` now, asked in the reader's own transaction right before the
    read: one statement that sees the record and the triggers as the read will (`holds`).

    On PostgreSQL it also holds the rollup's lock until the transaction ends (a rebuild cannot replace the
    table before the read), and it refuses a table created after the reader's snapshot: the name resolves
    to the newest table, whose rows such a snapshot cannot see (it would read an empty rollup)."""

    def __init__(self, dialect: sa.Dialect, name: str, rollup: Rollup):
        self.statement = _check_statement(dialect, name, rollup.table)
        triggers = trigger_names(name, dialect.name)
        self.values = {"name": name, "fingerprint": fingerprint(rollup), "base": rollup.table,
                       "rollup": dialect.identifier_preparer.quote(name), "triggers": len(triggers),
                       **{f"t{i}": t for i, t in enumerate(triggers)}}

    def holds(self, db: Database, conn: sa.Connection) -> bool:
        _columns, rows = driver_rows(conn, self.statement, self.values)
        return bool(rows and rows[0][0])


def read_checks(conn: sa.Connection, rollups: dict[str, Rollup]) -> dict[str, ReadCheck]:
    """A `ReadCheck` for each declared rollup that has a record and a table (whether it is current is
    for each read to ask); none while the records table is missing."""
    inspector = sa.inspect(conn)
    if not rollups or not inspector.has_table(RECORDS):
        return {}
    recorded = set(conn.scalars(sa.select(_records.c.name).where(_records.c.name.in_(list(rollups)))))
    return {n: ReadCheck(conn.dialect, n, r) for n, r in rollups.items() if n in recorded and inspector.has_table(n)}


def differences(conn: sa.Connection, name: str, rollup: Rollup) -> int:
    """How many groups of the rollup differ from its table summed anew (0: it is exact)."""
    q = _quoter(conn)
    columns = ", ".join(q(c) for c in [*rollup.group_by, *rollup.sums])
    fresh = (f"SELECT {', '.join(q(c) for c in rollup.group_by)}, "
             f"{', '.join(f'SUM({q(c)})' for c in rollup.sums)} FROM {q(rollup.table)} "
             f"GROUP BY {', '.join(q(c) for c in rollup.group_by)}")
    kept = f"SELECT {columns} FROM {q(name)}"
    total = 0
    for a, b in ((fresh, kept), (kept, fresh)):
        total += int(conn.scalar(sa.text(f"SELECT COUNT(*) FROM ({a} EXCEPT {b}) AS d")) or 0)
    return total


@dataclass
class Touched:
    """What a bulk load wrote: values of a rollup's grouping column (e.g. the days loaded), or everything."""

    values: dict[str, set] = field(default_factory=dict)
    everything: bool = False

    def add(self, column: str, values: Iterable) -> None:
        self.values.setdefault(column, set()).update(values)


@contextmanager
def paused(conn: sa.Connection, table: str) -> Iterator[Touched]:
    """Bulk-write `table` without its rollups' triggers; afterwards, in the same transaction, the groups
    the load touched are summed again (all of them unless the load said which) and the triggers return."""
    kept = _recorded_over(conn, table)
    for name in kept:
        _drop_triggers(conn, name, table)
    touched = Touched()
    yield touched
    for name, rollup in kept.items():
        column = next((c for c in rollup.group_by if c in touched.values), None)
        if touched.everything or column is None:
            conn.execute(sa.text(f"DELETE FROM {_quoted(conn, name)}"))
            conn.execute(sa.text(_fill_sql(conn, name, rollup)))
        else:
            _refill(conn, name, rollup, column, sorted(touched.values[column]))
        _create_triggers(conn, name, rollup)
        source_rows = int(conn.scalar(sa.text(f"SELECT COUNT(*) FROM {_quoted(conn, table)}")) or 0)
        _record(conn, name, rollup, source_rows)


# --- building blocks ---------------------------------------------------------------------------------

def _quoter(conn: sa.Connection):
    return conn.dialect.identifier_preparer.quote


def _quoted(conn: sa.Connection, name: str) -> str:
    return _quoter(conn)(name)


def _check_columns(conn: sa.Connection, name: str, rollup: Rollup) -> None:
    inspector = sa.inspect(conn)
    if not inspector.has_table(rollup.table):
        raise ConfigError(f"rollup {name}: the table {rollup.table!r} does not exist in this database")
    columns = {c["name"]: c for c in inspector.get_columns(rollup.table)}
    for column in [*rollup.group_by, *rollup.sums]:
        if column not in columns:
            raise ConfigError(f"rollup {name}: {rollup.table} has no column {column!r} "
                              f"(it has {', '.join(columns)})")
        if columns[column]["nullable"]:
            raise ConfigError(
                f"rollup {name}: {rollup.table}.{column} may be NULL, and a rollup sums only NOT NULL columns "
                f"(a NULL would make its sums differ from the table's); declare the column NOT NULL first")


def _create_table(conn: sa.Connection, name: str, rollup: Rollup) -> None:
    base = {c["name"]: c["type"] for c in sa.inspect(conn).get_columns(rollup.table)}
    columns = [sa.Column(c, base[c], primary_key=True) for c in rollup.group_by]
    columns += [sa.Column(c, _sum_type(base[c]), nullable=False) for c in rollup.sums]
    columns.append(sa.Column("source_rows", sa.BigInteger, nullable=False))
    table = sa.Table(name, sa.MetaData(), *columns, sqlite_with_rowid=False)
    table.create(conn)


def _sum_type(kind: sa.types.TypeEngine) -> sa.types.TypeEngine:
    return sa.BigInteger() if isinstance(kind, sa.Integer) else kind


def _built_from(conn: sa.Connection, name: str, rollup: Rollup) -> bool:
    """Whether the rollup's table is there with the layout of this declaration, recorded as built from it."""
    inspector = sa.inspect(conn)
    if not inspector.has_table(RECORDS) or not inspector.has_table(name):
        return False
    recorded = conn.scalar(sa.select(_records.c.fingerprint).where(_records.c.name == name))
    columns = {c["name"] for c in inspector.get_columns(name)}
    return recorded == fingerprint(rollup) and columns == {*rollup.group_by, *rollup.sums, "source_rows"}


def _put_triggers(conn: sa.Connection, name: str, rollup: Rollup) -> None:
    """The rollup's triggers on its table as this declaration makes them, enabled. SQLite drops and creates
    them (a reader's snapshot holds the schema as well). PostgreSQL replaces the function and enables or
    creates each trigger, dropping only those left on another table: DROP TRIGGER would lock the table
    against its readers until the transaction ends."""
    if conn.dialect.name == "sqlite":
        _drop_triggers(conn, name, rollup.table)
        _create_triggers(conn, name, rollup)
        return
    q = _quoter(conn)
    function, triggers = _postgres_triggers(conn, name, rollup)
    statement = sa.text("SELECT tgname, tgrelid::regclass::text, tgrelid = to_regclass(:t) FROM pg_trigger "
                        "WHERE NOT tgisinternal AND tgname IN :names").bindparams(sa.bindparam("names", expanding=True))
    present: set[str] = set()
    for trigger, table, on_table in conn.execute(statement, {"t": q(rollup.table), "names": list(triggers)}):
        if on_table:
            present.add(trigger)
        else:  # left on the table the rollup summed before
            conn.exec_driver_sql(f"DROP TRIGGER {q(trigger)} ON {table}")
    conn.exec_driver_sql(function)
    for trigger, create in triggers.items():
        conn.exec_driver_sql(f"ALTER TABLE {q(rollup.table)} ENABLE TRIGGER {q(trigger)}"
                             if trigger in present else create)


@lru_cache(maxsize=256)
def _check_statement(dialect: sa.Dialect, name: str, table: str) -> sa.TextClause:
    """`ReadCheck`'s statement: 1 when the record is of this fingerprint and every trigger is there and
    enabled (and, on PostgreSQL, the rollup is the table this snapshot knows), else 0 or no row."""
    count = len(trigger_names(name, dialect.name))
    names = ", ".join(f":t{i}" for i in range(count))
    record = f"FROM {RECORDS} AS r WHERE r.name = :name AND r.fingerprint = :fingerprint"
    if dialect.name == "sqlite":
        return sa.text(f"SELECT COUNT(*) {record} AND (SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' "
                       f"AND tbl_name = :base AND name IN ({names})) = :triggers")
    held = dialect.identifier_preparer.quote(name)
    return sa.text(
        # pg_class read in this snapshot: no row for a table made after it; the join on the rollup takes its lock
        f"SELECT COUNT(*) FROM {RECORDS} AS r JOIN pg_class AS c ON c.oid = to_regclass(:rollup) "
        f"LEFT JOIN (SELECT 1 FROM {held} LIMIT 1) AS held ON TRUE "
        "WHERE r.name = :name AND r.fingerprint = :fingerprint AND (SELECT COUNT(*) FROM pg_trigger "
        f"WHERE NOT tgisinternal AND tgenabled IN ('O', 'A') AND tgrelid = to_regclass(:base) "
        f"AND tgname IN ({names})) = :triggers")


def _drop_table(conn: sa.Connection, name: str) -> None:
    conn.execute(sa.text(f"DROP TABLE IF EXISTS {_quoted(conn, name)}"))


def _fill_sql(conn: sa.Connection, name: str, rollup: Rollup, where: str = "") -> str:
    q = _quoter(conn)
    groups = ", ".join(q(c) for c in rollup.group_by)
    sums = ", ".join(f"SUM({q(c)})" for c in rollup.sums)
    targets = ", ".join(q(c) for c in [*rollup.group_by, *rollup.sums, "source_rows"])
    return (f"INSERT INTO {q(name)} ({targets}) SELECT {groups}, {sums}, COUNT(*) FROM {q(rollup.table)}"
            f"{where} GROUP BY {groups}")


def _refill(conn: sa.Connection, name: str, rollup: Rollup, column: str, values: list) -> None:
    q = _quoter(conn)
    for start in range(0, len(values), _IN_CHUNK):
        chunk = values[start:start + _IN_CHUNK]
        marks = ", ".join(f":v{i}" for i in range(len(chunk)))
        bound = {f"v{i}": v for i, v in enumerate(chunk)}
        conn.execute(sa.text(f"DELETE FROM {q(name)} WHERE {q(column)} IN ({marks})"), bound)
        conn.execute(sa.text(_fill_sql(conn, name, rollup, f" WHERE {q(column)} IN ({marks})")), bound)


def _record(conn: sa.Connection, name: str, rollup: Rollup, source_rows: int) -> None:
    _records.create(conn, checkfirst=True)
    conn.execute(_records.delete().where(_records.c.name == name))
    conn.execute(_records.insert().values(
        name=name, base_table=rollup.table, definition=rollup.model_dump_json(), fingerprint=fingerprint(rollup),
        built_at=datetime.now(UTC), source_rows=source_rows))


def _recorded_over(conn: sa.Connection, table: str) -> dict[str, Rollup]:
    """The rollups built over `table`, from their records (a bulk load needs no catalog)."""
    if not sa.inspect(conn).has_table(RECORDS):
        return {}
    rows = conn.execute(sa.select(_records.c.name, _records.c.definition)
                        .where(_records.c.base_table == table)).all()
    return {name: Rollup.model_validate_json(definition) for name, definition in rows}


def _existing_triggers(conn: sa.Connection, names: list[str]) -> set[str]:
    if not names:
        return set()
    if conn.dialect.name == "sqlite":
        sql = "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name IN :names"
    else:
        # 'O' and 'A' fire in a normal session; 'D' (DISABLE TRIGGER) and 'R' (replica only) do not
        sql = "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND tgenabled IN ('O', 'A') AND tgname IN :names"
    statement = sa.text(sql).bindparams(sa.bindparam("names", expanding=True))
    return set(conn.scalars(statement, {"names": names}))


def _drop_triggers(conn: sa.Connection, name: str, table: str) -> None:
    q = _quoter(conn)
    for trigger in trigger_names(name, conn.dialect.name):
        if conn.dialect.name == "sqlite":
            conn.execute(sa.text(f"DROP TRIGGER IF EXISTS {q(trigger)}"))
        elif sa.inspect(conn).has_table(table):
            conn.execute(sa.text(f"DROP TRIGGER IF EXISTS {q(trigger)} ON {q(table)}"))
    if conn.dialect.name != "sqlite":
        conn.execute(sa.text(f"DROP FUNCTION IF EXISTS {q(name + '_keep')}()"))


def _create_triggers(conn: sa.Connection, name: str, rollup: Rollup) -> None:
    if conn.dialect.name == "sqlite":
        statements = _sqlite_triggers(conn, name, rollup)
    else:
        function, triggers = _postgres_triggers(conn, name, rollup)
        statements = [function, *triggers.values()]
    for statement in statements:
        conn.exec_driver_sql(statement)


def _sqlite_triggers(conn: sa.Connection, name: str, rollup: Rollup) -> list[str]:
    q = _quoter(conn)
    r, t = q(name), q(rollup.table)
    keys = ", ".join(q(c) for c in rollup.group_by)

    def add(row: str) -> str:
        targets = ", ".join(q(c) for c in [*rollup.group_by, *rollup.sums, "source_rows"])
        values = ", ".join(f"{row}.{q(c)}" for c in [*rollup.group_by, *rollup.sums])
        sets = ", ".join(f"{q(c)} = {q(c)} + excluded.{q(c)}" for c in [*rollup.sums, "source_rows"])
        return f"INSERT INTO {r} ({targets}) VALUES ({values}, 1) ON CONFLICT ({keys}) DO UPDATE SET {sets};"

    def take(row: str) -> str:
        match = " AND ".join(f"{q(c)} = {row}.{q(c)}" for c in rollup.group_by)
        sets = ", ".join(f"{q(c)} = {q(c)} - {row}.{q(c)}" for c in rollup.sums)
        return (f"UPDATE {r} SET {sets}, source_rows = source_rows - 1 WHERE {match}; "
                f"DELETE FROM {r} WHERE {match} AND source_rows = 0;")

    insert, update, delete = trigger_names(name, "sqlite")
    watched = ", ".join(q(c) for c in [*rollup.group_by, *rollup.sums])
    return [
        f"CREATE TRIGGER {q(insert)} AFTER INSERT ON {t} BEGIN {add('NEW')} END",
        f"CREATE TRIGGER {q(update)} AFTER UPDATE OF {watched} ON {t} BEGIN {take('OLD')} {add('NEW')} END",
        f"CREATE TRIGGER {q(delete)} AFTER DELETE ON {t} BEGIN {take('OLD')} END",
    ]


def _postgres_triggers(conn: sa.Connection, name: str, rollup: Rollup) -> tuple[str, dict[str, str]]:
    """The trigger function's CREATE OR REPLACE, and each trigger's CREATE by its name."""
    q = _quoter(conn)
    r, t, function = q(name), q(rollup.table), q(name + "_keep")
    keys = ", ".join(q(c) for c in rollup.group_by)
    grouped = (f"SELECT {keys}, {', '.join(f'SUM({q(c)}) AS {q(c)}' for c in rollup.sums)}, COUNT(*) AS n "
               "FROM {rows} GROUP BY " + keys)
    match = " AND ".join(f"r.{q(c)} = d.{q(c)}" for c in rollup.group_by)
    take = ", ".join(f"{q(c)} = r.{q(c)} - d.{q(c)}" for c in rollup.sums)
    targets = ", ".join(q(c) for c in [*rollup.group_by, *rollup.sums, "source_rows"])
    add = ", ".join(f"{q(c)} = {r}.{q(c)} + excluded.{q(c)}" for c in [*rollup.sums, "source_rows"])
    body = f"""
    BEGIN
      IF TG_OP = 'TRUNCATE' THEN
        DELETE FROM {r};
        RETURN NULL;
      END IF;
      IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE {r} AS r SET {take}, source_rows = r.source_rows - d.n
          FROM ({grouped.format(rows='old_rows')}) AS d WHERE {match};
        DELETE FROM {r} AS r USING (SELECT DISTINCT {keys} FROM old_rows) AS d WHERE {match} AND r.source_rows = 0;
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO {r} ({targets}) {grouped.format(rows='new_rows')}
          ON CONFLICT ({keys}) DO UPDATE SET {add};
      END IF;
      RETURN NULL;
    END"""
    insert, update, delete, truncate = trigger_names(name, "postgresql")
    run = f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
    return f"CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $body${body}$body$", {
        insert: f"CREATE TRIGGER {q(insert)} AFTER INSERT ON {t} REFERENCING NEW TABLE AS new_rows {run}",
        update: f"CREATE TRIGGER {q(update)} AFTER UPDATE ON {t} REFERENCING OLD TABLE AS old_rows "
                f"NEW TABLE AS new_rows {run}",
        delete: f"CREATE TRIGGER {q(delete)} AFTER DELETE ON {t} REFERENCING OLD TABLE AS old_rows {run}",
        truncate: f"CREATE TRIGGER {q(truncate)} AFTER TRUNCATE ON {t} {run}",
    }
