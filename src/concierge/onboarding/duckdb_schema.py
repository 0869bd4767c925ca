"""The schema of a DuckDB file, read from DuckDB's own catalog functions (`duckdb_tables()` and the others).

duckdb-engine's inspector asks PostgreSQL's catalog (pg_collation, regclass), which DuckDB does not
fully have; this answers the same questions as SQLAlchemy's inspector, for the `main` schema.
"""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa

from concierge.storage.database import Database

_TYPES: list[tuple[re.Pattern[str], sa.types.TypeEngine]] = [
    (re.compile(r"U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?\d*"), sa.BigInteger()),
    (re.compile(r"DECIMAL.*|NUMERIC.*"), sa.Numeric()),
    (re.compile(r"DOUBLE|FLOAT|REAL"), sa.Float()),
    (re.compile(r"BOOLEAN"), sa.Boolean()),
    (re.compile(r"DATE"), sa.Date()),
    (re.compile(r"TIMESTAMP.*"), sa.DateTime()),
    (re.compile(r"UUID"), sa.Uuid()),
    (re.compile(r"VARCHAR.*|TEXT|STRING"), sa.String()),
]


def column_type(name: str) -> sa.types.TypeEngine:
    """The SQLAlchemy type of a DuckDB type name (`DECIMAL(12,2)`, `VARCHAR`, ...); NullType for the rest."""
    for pattern, type_ in _TYPES:
        if pattern.fullmatch(name.upper()):
            return type_
    return sa.types.NullType()


class DuckDBInspector:
    """What `introspect` asks of SQLAlchemy's inspector, answered by DuckDB's catalog."""

    def __init__(self, db: Database | sa.Connection):
        self.db = db  # a connection: read in its transaction; a database: in a read of its own

    def _rows(self, sql: str, **values: Any) -> list[sa.Row]:
        if isinstance(self.db, sa.Connection):
            return list(self.db.execute(sa.text(sql), values))
        with self.db.read() as conn:
            return list(conn.execute(sa.text(sql), values))

    def get_table_names(self) -> list[str]:
        return [r[0] for r in self._rows("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' "
                                         "AND NOT temporary ORDER BY 1")]

    def get_view_names(self) -> list[str]:
        return [r[0] for r in self._rows("SELECT view_name FROM duckdb_views() WHERE schema_name = 'main' "
                                         "AND NOT internal AND NOT temporary ORDER BY 1")]

    def get_columns(self, table: str, schema: str | None = None) -> list[dict[str, Any]]:
        rows = self._rows("SELECT column_name, data_type, is_nullable, comment FROM duckdb_columns() WHERE "
                          "schema_name = :s AND table_name = :t ORDER BY column_index", t=table, s=schema or "main")
        return [{"name": name, "type": column_type(kind), "nullable": bool(nullable), "comment": comment}
                for name, kind, nullable, comment in rows]

    def _constraints(self, table: str, kind: str, schema: str | None = None) -> list[sa.Row]:
        return self._rows("SELECT constraint_column_names, referenced_table, referenced_column_names "
                          "FROM duckdb_constraints() WHERE schema_name = :s AND table_name = :t "
                          "AND constraint_type = :k ORDER BY constraint_index", t=table, k=kind, s=schema or "main")

    def get_pk_constraint(self, table: str) -> dict[str, Any]:
        found = self._constraints(table, "PRIMARY KEY")
        return {"constrained_columns": list(found[0][0]) if found else []}

    def get_foreign_keys(self, table: str, schema: str | None = None) -> list[dict[str, Any]]:
        return [{"constrained_columns": list(columns), "referred_table": referred,
                 "referred_columns": list(referred_columns)}
                for columns, referred, referred_columns in self._constraints(table, "FOREIGN KEY", schema)]

    def get_indexes(self, table: str) -> list[dict[str, Any]]:
        rows = self._rows("SELECT index_name, is_unique, expressions FROM duckdb_indexes() "
                          "WHERE schema_name = 'main' AND table_name = :t ORDER BY 1", t=table)
        return [{"name": name, "unique": bool(unique), "column_names": _plain_columns(expressions)}
                for name, unique, expressions in rows]

    def get_table_comment(self, table: str) -> dict[str, Any]:
        found = self._rows("SELECT comment FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = :t "
                           "UNION ALL SELECT comment FROM duckdb_views() WHERE schema_name = 'main' "
                           "AND view_name = :t", t=table)
        return {"text": found[0][0] if found else None}


def _plain_columns(expressions: Any) -> list[str]:
    """The column names of an index's expressions (`['"sale_date"', 'product']`); an expression is left out."""
    items = expressions if isinstance(expressions, list) else re.findall(r"[^\[\],\s]+", str(expressions or ""))
    names = [str(e).strip().strip('"') for e in items]
    return [n for n in names if re.fullmatch(r"\w+", n)]
