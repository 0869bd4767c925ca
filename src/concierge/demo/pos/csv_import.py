"""Load a store's POS CSV export (UTF-8 with BOM, Japanese headers) into pos_sales.

Every line is checked; the first bad line is reported with its line number and
column, and then nothing of the file is loaded. Rows for a (store, day) that the
file contains replace the rows already stored for that store and day, so
re-importing an export is safe.

The file is streamed: it is read, checked and written in batches of
``BATCH_ROWS`` lines inside one transaction (SQLite ``executemany``, PostgreSQL
``COPY``), so memory stays flat however big the file is, and a bad line rolls
the whole transaction back. A line repeating the store, day and product of an
earlier line is caught by the table's primary key, then located.

Checking a batch takes a fast path: each column's distinct raw texts are
checked once (by the same rules as one line at a time, ``_cell``) and kept in a
small cache, and the whole batch is then mapped and compared column by column.
Anything the fast path does not accept (a bad cell, a blank line, a record
spanning several lines) sends that batch through the line-by-line check, which
gives the exact message, line and column.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from itertools import islice
from operator import eq, mul
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from concierge.demo.pos import tables
from concierge.errors import DatabaseError, DataImportError
from concierge.storage.database import Database

COLUMNS = {  # CSV header -> column of pos_sales
    "日付": "sale_date",
    "店舗": "store",
    "商品名": "product",
    "カテゴリ": "category",
    "単価": "unit_price",
    "数量": "quantity",
    "売上金額": "amount",
}
HEADERS = {column: header for header, column in COLUMNS.items()}
# The order rows are written in: the primary key first (store, sale_date, product).
INSERT_COLUMNS = ("store", "sale_date", "product", "category", "unit_price", "quantity", "amount")
BATCH_ROWS = 5_000
_CACHE_MAX = 50_000  # distinct raw texts remembered per column; beyond this the cache starts again

_DATE = re.compile(r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})")
_NUMBER = re.compile(r"-?\d+")


def _cell(file: str, line: int, header: str, raw: str):
    text = raw.strip()
    if not text:
        raise DataImportError(file, line, header, "is empty")
    column = COLUMNS[header]
    if column == "sale_date":
        match = _DATE.fullmatch(text)
        try:
            return date(*map(int, match.groups())) if match else date.fromisoformat("bad")
        except ValueError:
            raise DataImportError(file, line, header, f"{text!r} is not a date YYYY-MM-DD") from None
    if column in ("unit_price", "quantity", "amount"):
        number = text.replace(",", "")
        if not _NUMBER.fullmatch(number):
            raise DataImportError(file, line, header, f"{text!r} is not a whole number")
        if int(number) < 0:
            raise DataImportError(file, line, header, f"{text} is negative")
        return int(number)
    return text


def _row(file: str, line: int, cells: list[str], index: dict[str, int], width: int) -> dict:
    """One line checked by itself: its values by column of pos_sales (the reference for the fast path)."""
    if len(cells) != width:
        raise DataImportError(file, line, "(row)", f"{len(cells)} fields, the header has {width}")
    row = {COLUMNS[h]: _cell(file, line, h, cells[i]) for h, i in index.items()}
    if row["amount"] != row["unit_price"] * row["quantity"]:
        raise DataImportError(
            file, line, "売上金額", f"{row['amount']} is not 単価 {row['unit_price']} x 数量 {row['quantity']}",
        )
    return row


def _blank(cells: list[str]) -> bool:
    return not any(c.strip() for c in cells)


@dataclass
class Batch:
    """Checked rows in INSERT_COLUMNS order, the line of each, and the bad line that ended the file, if any."""

    columns: list[Sequence[Any]]
    lines: Sequence[int]
    error: DataImportError | None = None

    def __len__(self) -> int:
        return len(self.lines)

    def rows(self) -> Iterator[tuple]:
        return zip(*self.columns, strict=True)

    def keys(self) -> Iterator[tuple]:
        return zip(self.columns[0], self.columns[1], self.columns[2], strict=True)


@dataclass
class _Stream:
    """The export read batch by batch; each batch is checked before the next is read."""

    path: Path
    batch_rows: int = BATCH_ROWS
    name: str = ""
    index: dict[str, int] = field(default_factory=dict)
    width: int = 0
    _caches: dict[str, dict[str, Any]] = field(default_factory=dict)
    _same: dict[str, set[str]] = field(default_factory=dict)  # raw texts that are their own value

    def batches(self) -> Iterator[Batch]:
        self.name = str(self.path)
        with self.path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle)
            self._header(next(reader, None))
            while True:
                start = reader.line_num + 1
                cells = list(islice(reader, self.batch_rows))
                if not cells:
                    return
                single = reader.line_num - start + 1 == len(cells)  # every record on a line of its own
                batch = self._fast(cells, start) if single else None
                if batch is None:
                    batch = self._slow(cells, self._lines(start, cells, single))
                if batch.error is not None:
                    yield batch
                    return
                if len(batch):
                    yield batch

    def _header(self, header: list[str] | None) -> None:
        if header is None:
            raise DataImportError(self.name, 1, "(header)", "the file is empty")
        header = [h.strip() for h in header]
        missing = [h for h in COLUMNS if h not in header]
        if missing:
            expected = ", ".join(COLUMNS)
            raise DataImportError(
                self.name, 1, "(header)", f"missing column(s) {', '.join(missing)}; expected {expected}",
            )
        self.index = {h: header.index(h) for h in COLUMNS}
        self.width = len(header)
        self._caches = {h: {} for h in COLUMNS}
        self._same = {h: set() for h in COLUMNS}

    @staticmethod
    def _lines(start: int, cells: list[list[str]], single: bool) -> Sequence[int]:
        """The line each record ends on (what csv's line_num says after reading it)."""
        if single:
            return range(start, start + len(cells))
        lines, line = [], start - 1
        for record in cells:
            text = "".join(record)
            line += 1 + text.count("\n") + text.count("\r") - text.count("\r\n")
            lines.append(line)
        return lines

    def _fast(self, cells: list[list[str]], start: int) -> Batch | None:
        """The whole batch checked column by column, or None where any line needs a closer look."""
        if set(map(len, cells)) != {self.width}:
            return None
        raw = list(zip(*cells, strict=True))
        values: dict[str, Sequence[Any]] = {}
        for header, i in self.index.items():
            column, cache, same = raw[i], self._caches[header], self._same[header]
            distinct = set(column)
            missing = distinct.difference(cache)
            if missing and not self._learn(header, distinct if len(cache) + len(missing) > _CACHE_MAX else missing):
                return None
            # A text column whose every text is already clean goes as it is; numbers are compared as ints.
            values[COLUMNS[header]] = column if distinct <= same else list(map(cache.__getitem__, column))
        if not all(map(eq, values["amount"], map(mul, values["unit_price"], values["quantity"]))):
            return None
        return Batch([values[c] for c in INSERT_COLUMNS], range(start, start + len(cells)))

    def _learn(self, header: str, texts: set[str]) -> bool:
        """Check each new raw text of a column once; False where one is bad (the line-by-line check says where)."""
        cache, same = self._caches[header], self._same[header]
        if len(cache) + len(texts) > _CACHE_MAX:
            cache.clear()
            same.clear()
        try:
            for text in texts:
                value = _cell(self.name, 0, header, text)
                value = value.isoformat() if isinstance(value, date) else value
                cache[text] = value
                if value == text:
                    same.add(text)
        except DataImportError:
            return False
        return True

    def _slow(self, cells: list[list[str]], lines: Sequence[int]) -> Batch:
        """Line by line: the rows up to the first bad line, and that line's error."""
        rows: list[tuple] = []
        kept: list[int] = []
        error = None
        for record, line in zip(cells, lines, strict=True):
            if _blank(record):
                continue
            try:
                row = _row(self.name, line, record, self.index, self.width)
            except DataImportError as err:
                error = err
                break
            row["sale_date"] = row["sale_date"].isoformat()
            rows.append(tuple(row[c] for c in INSERT_COLUMNS))
            kept.append(line)
        columns: list[Sequence[Any]] = [list(c) for c in zip(*rows, strict=True)] if rows else [[]] * 7
        return Batch(columns, kept, error)


def read_csv(path: Path) -> list[dict]:
    """The whole file checked and read into memory (for small files; `load` streams)."""
    name = str(path)
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        stream = _Stream(path, name=name)
        stream._header(next(reader, None))
        rows: list[dict] = []
        seen: dict[tuple, int] = {}
        for cells in reader:
            line = reader.line_num
            if _blank(cells):
                continue
            row = _row(name, line, cells, stream.index, stream.width)
            key = (row["store"], row["sale_date"], row["product"])
            if key in seen:
                raise DataImportError(name, line, "商品名", f"the same store, day and product as line {seen[key]}")
            seen[key] = line
            rows.append(row)
    return rows


class _Duplicate(Exception):
    """The primary key refused a batch: some line repeats the store, day and product of another."""


class _Writer:
    """Batches into pos_sales inside the caller's transaction, on the driver's own connection."""

    def __init__(self, conn: sa.Connection, *, replace: bool):
        self.raw: Any = conn.connection.driver_connection
        self.replace = replace  # the table had rows: delete the stored rows of each (store, day) first
        self.cleared: set[tuple[str, str]] = set()

    def write(self, batch: Batch) -> None:
        days: set[tuple[str, str]] = set()
        if self.replace:
            days = set(zip(batch.columns[0], batch.columns[1], strict=True)).difference(self.cleared)
        self._write(batch, sorted(days))
        if days:
            self.cleared.update(days)

    def _write(self, batch: Batch, days: list[tuple[str, str]]) -> None:
        raise NotImplementedError

    def stored(self, batch: Batch) -> set[tuple]:
        """The keys of this batch's (store, day)s already in the table (written by earlier batches)."""
        raise NotImplementedError


class _SQLiteWriter(_Writer):
    def _write(self, batch: Batch, days: list[tuple[str, str]]) -> None:
        import sqlite3

        cursor = self.raw.cursor()
        cursor.execute("SAVEPOINT pos_import_batch")  # a refused batch leaves none of its rows behind
        if days:
            cursor.executemany("DELETE FROM pos_sales WHERE store = ? AND sale_date = ?", days)
        marks = ", ".join("?" for _ in INSERT_COLUMNS)
        try:
            cursor.executemany(f"INSERT INTO pos_sales ({', '.join(INSERT_COLUMNS)}) VALUES ({marks})", batch.rows())
        except sqlite3.IntegrityError as err:
            cursor.execute("ROLLBACK TO SAVEPOINT pos_import_batch")
            raise _Duplicate() from err
        cursor.execute("RELEASE SAVEPOINT pos_import_batch")

    def stored(self, batch: Batch) -> set[tuple]:
        cursor = self.raw.cursor()
        found: set[tuple] = set()
        for store, day in set(zip(batch.columns[0], batch.columns[1], strict=True)):
            cursor.execute("SELECT store, sale_date, product FROM pos_sales WHERE store = ? AND sale_date = ?",
                           (store, day))
            found.update(cursor.fetchall())
        return found


class _PostgresWriter(_Writer):
    def _write(self, batch: Batch, days: list[tuple[str, str]]) -> None:
        import psycopg

        with self.raw.cursor() as cursor:
            cursor.execute("SAVEPOINT pos_import_batch")
            try:
                if days:
                    cursor.execute(
                        "DELETE FROM pos_sales p USING unnest(%s::text[], %s::date[]) AS d(store, day) "
                        "WHERE p.store = d.store AND p.sale_date = d.day",
                        ([s for s, _ in days], [d for _, d in days]),
                    )
                with cursor.copy(f"COPY pos_sales ({', '.join(INSERT_COLUMNS)}) FROM STDIN") as copy:
                    for row in batch.rows():
                        copy.write_row(row)
            except psycopg.errors.UniqueViolation as err:
                cursor.execute("ROLLBACK TO SAVEPOINT pos_import_batch")
                raise _Duplicate() from err
            cursor.execute("RELEASE SAVEPOINT pos_import_batch")

    def stored(self, batch: Batch) -> set[tuple]:
        days = sorted(set(zip(batch.columns[0], batch.columns[1], strict=True)))
        with self.raw.cursor() as cursor:
            cursor.execute(
                "SELECT p.store, p.sale_date::text, p.product FROM pos_sales p "
                "JOIN unnest(%s::text[], %s::date[]) AS d(store, day) ON p.store = d.store AND p.sale_date = d.day",
                ([s for s, _ in days], [d for _, d in days]),
            )
            return set(cursor.fetchall())


def load(db: Database, path: Path, *, batch_rows: int = BATCH_ROWS) -> int:
    """Check and load the export in one transaction; returns the number of rows loaded."""
    stream = _Stream(path, batch_rows)
    with db.write() as conn:
        tables.metadata.create_all(conn, tables=[tables.pos_sales])
        had_rows = conn.execute(sa.select(sa.literal(1)).select_from(tables.pos_sales).limit(1)).first() is not None
        writer = (_SQLiteWriter if db.is_sqlite else _PostgresWriter)(conn, replace=had_rows)
        indexes = [] if had_rows else sorted(tables.pos_sales.indexes, key=lambda i: str(i.name))
        for index in indexes:  # an empty table: its secondary indexes are built once, after the rows
            index.drop(conn)
        count = _write_all(stream, writer, path)
        for index in indexes:
            index.create(conn)
    return count


def _write_all(stream: _Stream, writer: _Writer, path: Path) -> int:
    count = 0
    for batch in stream.batches():
        try:
            writer.write(batch)
        except _Duplicate:
            raise _locate_duplicate(stream, batch, writer) from None
        except Exception as err:  # a driver error on the raw connection (a value too long, ...)
            if isinstance(err, DatabaseError) or not _is_driver_error(err):
                raise
            raise DatabaseError(f"{path}: the import failed: {str(err).strip().splitlines()[0]}") from err
        if batch.error is not None:
            raise batch.error
        count += len(batch)
    return count


def _is_driver_error(err: Exception) -> bool:
    import sqlite3

    import psycopg

    return isinstance(err, sqlite3.Error | psycopg.Error)


def _locate_duplicate(stream: _Stream, batch: Batch, writer: _Writer) -> DataImportError:
    """The first line of the batch that repeats a key, within the batch or of a line written before it."""
    stored = writer.stored(batch)
    here: dict[tuple, int] = {}
    for key, line in zip(batch.keys(), batch.lines, strict=True):
        if key in here or key in stored:
            first = here.get(key) or _first_line_of(stream, key)
            return DataImportError(stream.name, line, "商品名", f"the same store, day and product as line {first}")
        here[key] = line
    return DataImportError(stream.name, batch.lines[0], "(row)", "the table refused these rows")  # not reached


def _first_line_of(stream: _Stream, key: tuple) -> int:
    for batch in _Stream(stream.path, stream.batch_rows).batches():
        for other, line in zip(batch.keys(), batch.lines, strict=True):
            if other == key:
                return line
    return 0


def write_csv(rows: Iterable[dict], path: Path) -> None:
    """Write rows of pos_sales the way a store exports them."""
    with path.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(list(COLUMNS))
        for r in rows:
            writer.writerow([r[c].isoformat() if c == "sale_date" else r[c] for c in COLUMNS.values()])


__all__ = ["BATCH_ROWS", "load", "read_csv", "write_csv"]
