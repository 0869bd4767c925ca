"""`concierge db import TABLE FILE`: a CSV file into one existing table, all or nothing.

The header names the table's columns (in any order; a column left out gets its default or NULL). Each cell
becomes its column's type: whole numbers and amounts may carry thousands separators (1,200), dates are
YYYY-MM-DD, an empty cell is NULL. The first bad cell is reported with its line and column, and then nothing
of the file is loaded: every row goes in in one transaction.
"""

from __future__ import annotations

import csv
import itertools
from collections.abc import Callable, Iterator
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from concierge.errors import ConfigError, DatabaseError, DataImportError
from concierge.storage.database import Database, first_line

BATCH_ROWS = 1_000
_TRUE, _FALSE = {"true", "1", "yes", "t", "y"}, {"false", "0", "no", "f", "n"}


def load(db: Database, table_name: str, path: Path, *, replace: bool = False) -> int:
    """Load `path` into `table_name`; `replace`: delete the table's rows first (in the same transaction).
    Returns the number of rows loaded."""
    file = str(path)
    with db.write() as conn:
        table = _reflected(conn, table_name)
        with path.open(encoding="utf-8-sig", newline="") as handle:
            lines = csv.reader(handle)
            header = next(lines, None)
            if header is None:
                raise DataImportError(file, 1, "(header)", "the file is empty: its first line names the columns")
            columns = _columns(table, [h.strip() for h in header], file)
            if replace:
                conn.execute(table.delete())
            count = 0
            rows = _rows(lines, columns, file)
            while batch := list(itertools.islice(rows, BATCH_ROWS)):
                try:
                    conn.execute(table.insert(), batch)
                except sa.exc.IntegrityError as err:
                    raise DatabaseError(
                        f"{file}: between lines {count + 2} and {count + len(batch) + 1} a row breaks a rule of "
                        f"{table.name} ({first_line(err)}); nothing was loaded. A key the table already has: load "
                        "with --replace to swap its rows"
                    ) from None
                count += len(batch)
    return count


def _reflected(conn: sa.Connection, name: str) -> sa.Table:
    try:
        return sa.Table(name, sa.MetaData(), autoload_with=conn)
    except sa.exc.NoSuchTableError:
        known = ", ".join(sorted(sa.inspect(conn).get_table_names())) or "none"
        raise ConfigError(f"there is no table {name!r} in this database; its tables: {known}") from None


def _columns(table: sa.Table, header: list[str], file: str) -> list[tuple[str, sa.Column]]:
    unknown = [h for h in header if h not in table.c]
    if unknown:
        raise DataImportError(file, 1, unknown[0], f"is not a column of {table.name} "
                              f"(its columns: {', '.join(table.c.keys())})")
    repeated = [h for i, h in enumerate(header) if h in header[:i]]
    if repeated:
        raise DataImportError(file, 1, repeated[0], "is named twice")
    return [(h, table.c[h]) for h in header]


def _rows(lines: Iterator[list[str]], columns: list[tuple[str, sa.Column]], file: str) -> Iterator[dict[str, Any]]:
    readers = [(name, column, _reader(column.type)) for name, column in columns]
    for cells in lines:
        line = lines.line_num  # type: ignore[attr-defined]  # csv.reader's own counter, of the file's lines
        if not any(c.strip() for c in cells):
            continue
        if len(cells) != len(columns):
            raise DataImportError(file, line, "(row)", f"has {len(cells)} cells where the header names {len(columns)}")
        yield {name: _cell(text, column, read, file, line) for (name, column, read), text in zip(readers, cells,
                                                                                                strict=True)}


def _cell(text: str, column: sa.Column, read: Callable[[str], Any], file: str, line: int) -> Any:
    text = text.strip()
    if text == "":
        if not column.nullable and column.default is None and column.server_default is None:
            raise DataImportError(file, line, column.name, "is empty, and the column needs a value")
        return None
    try:
        return read(text)
    except (ValueError, InvalidOperation):
        raise DataImportError(file, line, column.name, f"{text!r} is not {_what(column.type)}") from None


def _boolean(text: str) -> bool:
    if text.lower() in _TRUE:
        return True
    if text.lower() in _FALSE:
        return False
    raise ValueError(text)


def _number(text: str) -> Decimal:
    return Decimal(text.replace(",", ""))


# A column's type: how its cells are read, and what a cell must be (for the message of one that is not).
_CELLS: list[tuple[type | tuple[type, ...], Callable[[str], Any], str]] = [
    (sa.Boolean, _boolean, "true or false"),
    (sa.Integer, lambda text: int(text.replace(",", "")), "a whole number"),
    ((sa.Numeric, sa.Float), _number, "a number"),
    (sa.DateTime, datetime.fromisoformat, "a date and time YYYY-MM-DD HH:MM:SS"),
    (sa.Date, date.fromisoformat, "a date YYYY-MM-DD"),
]


def _reader(kind: sa.types.TypeEngine) -> Callable[[str], Any]:
    return next((read for types, read, _ in _CELLS if isinstance(kind, types)), str)


def _what(kind: sa.types.TypeEngine) -> str:
    return next((what for types, _, what in _CELLS if isinstance(kind, types)), "text")
