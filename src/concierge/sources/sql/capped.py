"""A read stopped by the database one row past its result's cap, its rows in the order the statement gives them.

A statement with no LIMIT of its own gets one at its end. Wrapped in a query that limits it instead, its ORDER BY
may be dropped: MariaDB ignores the order of a subquery that has no LIMIT, and would return the first rows
stored, not the newest asked for. A statement that limits itself (or cannot be read) is wrapped: its own LIMIT
keeps its order.
"""

from __future__ import annotations

from functools import lru_cache

from concierge.catalog.model import ResultShape
from concierge.sources.result import capped_sql
from concierge.sources.sql.written import parsed


def capped(statement: str, spec: ResultShape, dialect: str) -> str:
    return capped_sql(statement, spec, wrapped=_limits_itself(statement, dialect))


@lru_cache(maxsize=1024)  # once per statement, not once per read
def _limits_itself(sql: str, dialect: str) -> bool:
    """Whether the outermost query of the statement has a LIMIT, OFFSET or FETCH; True where it cannot be read."""
    exp, trees = parsed((sql,), dialect)
    if trees is None or len(trees) != 1 or not isinstance(trees[0], exp.Query):
        return True
    return any(trees[0].args.get(part) is not None for part in ("limit", "offset", "fetch"))
