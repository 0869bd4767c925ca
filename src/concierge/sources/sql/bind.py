"""Turn a catalog SQL text into a statement with typed bound parameters, and the values it is given.

Values only ever reach the database as bound parameters; their declared type
decides how they are bound (a date as a date, on SQLite and PostgreSQL alike).
"""

from __future__ import annotations

from functools import lru_cache

import sqlalchemy as sa

from concierge.catalog.model import SQL_PARAM, Tool

_TYPES = {"string": sa.String, "enum": sa.String, "integer": sa.Integer, "date": sa.Date}
_IDENTITY = {"_user": sa.String, "_role": sa.String, "_all_rows": sa.Boolean, "_today": sa.Date}


def bind(tool: Tool, sql: str) -> sa.TextClause:
    kinds = tuple((name, tool.params[name].type if name in tool.params else name) for name in bound_names(sql))
    return _bind(sql, kinds)


@lru_cache(maxsize=1024)
def bound_names(sql: str) -> tuple[str, ...]:
    """The `:named` parameters of a statement, in order, each once."""
    return tuple(dict.fromkeys(SQL_PARAM.findall(sql)))


@lru_cache(maxsize=1024)
def _bind(sql: str, kinds: tuple[tuple[str, str], ...]) -> sa.TextClause:
    params = [sa.bindparam(name, type_=(_TYPES.get(kind) or _IDENTITY.get(kind, sa.String))()) for name, kind in kinds]
    return sa.text(sql).bindparams(*params)


def sql_values(tool: Tool, values: dict) -> dict:
    """The values bound to the SQL: `contains` strings become escaped LIKE patterns."""
    out = dict(values)
    for name, param in tool.params.items():
        if param.match == "contains" and out.get(name) is not None:
            out[name] = "%" + _escape_like(out[name]) + "%"
    return out


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
