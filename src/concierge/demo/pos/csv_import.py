"""Load a store's POS CSV export (UTF-8 with BOM, Japanese headers) into pos_sales.

Every line is checked; the first bad line is reported with its line number and
column, and then nothing of the file is loaded. Rows for a (store, day) that the
file contains replace the rows already stored for that store and day, so
re-importing an export is safe.

First the fast path, where DuckDB is installed: the file goes to the database's
own loader as it is (PostgreSQL: its bytes through ``COPY``; SQLite: the CSV
reader's records into the staging table by one prepared ``INSERT``), while
DuckDB checks every line, column by column, in a thread (csv_check, strict:
every cell already its value's text). Where the check does not pass the file,
or the table refuses a row, the transaction is rolled back and the file is
read again by the line-by-line path below, which loads what is good in any
form and names the first bad line.

The line-by-line path streams the file in batches of ``BATCH_ROWS`` lines, each checked before the
next is read, so memory stays flat however big the file is; everything happens
in one transaction, so a bad line, or a crash, leaves the table as it was.

- SQLite: the checked rows go to a temporary staging table on disk (keyed by
  line number, no other index), then into pos_sales in one ``INSERT ... SELECT``
  in key order, so that the primary key is appended to instead of updated at
  random.
- PostgreSQL: into an empty table, one ``COPY`` for the whole file, sent while
  the next batch is read; over existing rows, one ``COPY`` into a temporary
  staging table, then one ``DELETE`` of the days it holds and one ``INSERT ...
  SELECT``. A batch whose every cell is already in the table's form is sent as
  the file has it.

Either way the stored rows of the file's (store, day)s are deleted first, and a
line repeating the store, day and product of an earlier line is caught by the
primary key, then located with both line numbers. Secondary indexes are built
once after the rows when the table was empty, and when the file rewrites at
least half of it (``REBUILD_SHARE``). The table's rollups (storage/rollups.py)
are paused meanwhile, then summed again for the file's days.

Checking a batch takes a fast path: each column's distinct raw texts are
checked once (by the same rules as one line at a time, ``_cell``) and kept in a
small cache, and the whole batch is then mapped and compared column by column.
Anything the fast path does not accept (a bad cell, a blank line, a record
spanning several lines) sends that batch through the line-by-line check, which
gives the exact message, line and column.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import date
from itertools import islice
from operator import eq, mul
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from concierge.demo.pos import csv_check, tables
from concierge.errors import DatabaseError, DataImportError
from concierge.storage import rollups
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
KEY = "store, sale_date, product"
BATCH_ROWS = 5_000
_CACHE_MAX = 50_000  # distinct raw texts remembered per column; beyond this the cache starts again
ANALYZE_ROWS = 10_000  # an import at least this big refreshes the table's statistics (sampled: cheap)
REBUILD_SHARE = 0.5  # a file rewriting this share of a table rebuilds its secondary indexes instead
SQLITE_CACHE_KIB = 16 * 1024  # the import's page cache (a fixed size: memory stays flat)
STAGING = "pos_import_staging"
FILE_CHUNK = 1 << 20  # bytes of the file sent to COPY at a time

_DATE = re.compile(r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})")
_NUMBER = re.compile(r"-?\d+")
_CSV_SPECIAL = re.compile(r'[,"\r\n]')


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
    """Checked rows in INSERT_COLUMNS order, the line of each, and the bad line that ended the file, if any.

    ``verbatim``: the batch's records as the file has them, where every cell is already the text a CSV
    reader of the database takes for its value (and the file has no other columns)."""

    columns: list[Sequence[Any]]
    lines: Sequence[int]
    error: DataImportError | None = None
    verbatim: list[list[str]] | None = None

    def __len__(self) -> int:
        return len(self.lines)

    def csv(self, order: Sequence[str]) -> str:
        """The rows as CSV lines, their columns in `order`."""
        if self.verbatim is not None:
            return "\n".join(map(",".join, self.verbatim)) + "\n"
        buffer = io.StringIO()
        at = [INSERT_COLUMNS.index(c) for c in order]
        csv.writer(buffer, lineterminator="\n").writerows(zip(*(self.columns[i] for i in at), strict=True))
        return buffer.getvalue()


@dataclass
class _Stream:
    """The export read batch by batch; each batch is checked before the next is read."""

    path: Path
    batch_rows: int = BATCH_ROWS
    name: str = ""
    index: dict[str, int] = field(default_factory=dict)
    width: int = 0
    _caches: dict[str, dict[str, Any]] = field(default_factory=dict)
    _verbatim: dict[str, set[str]] = field(default_factory=dict)  # raw texts that are their value's CSV text

    @property
    def file_columns(self) -> list[str]:
        """The columns of pos_sales in the order the file has them."""
        return [COLUMNS[h] for h in sorted(self.index, key=self.index.__getitem__)]

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
        self._verbatim = {h: set() for h in COLUMNS}

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
        verbatim = self.width == len(COLUMNS)
        for header, i in self.index.items():
            column, cache = raw[i], self._caches[header]
            distinct = set(column)
            missing = distinct.difference(cache)
            if missing and not self._learn(header, distinct if len(cache) + len(missing) > _CACHE_MAX else missing):
                return None
            # Mapped even where the text is its own value: equal texts become one object, which the
            # driver then encodes once.
            values[COLUMNS[header]] = list(map(cache.__getitem__, column))
            verbatim = verbatim and distinct <= self._verbatim[header]
        if not all(map(eq, values["amount"], map(mul, values["unit_price"], values["quantity"]))):
            return None
        return Batch([values[c] for c in INSERT_COLUMNS], range(start, start + len(cells)),
                     verbatim=cells if verbatim else None)

    def _learn(self, header: str, texts: set[str]) -> bool:
        """Check each new raw text of a column once; False where one is bad (the line-by-line check says where)."""
        cache, verbatim = self._caches[header], self._verbatim[header]
        if len(cache) + len(texts) > _CACHE_MAX:
            cache.clear()
            verbatim.clear()
        try:
            for text in texts:
                value = _cell(self.name, 0, header, text)
                value = value.isoformat() if isinstance(value, date) else value
                cache[text] = value
                if str(value) == text and not _CSV_SPECIAL.search(text):
                    verbatim.add(text)
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
    """The primary key refused the rows: some line repeats the store, day and product of another."""


# The first line (below a bound) repeating the key of an earlier line, and that earlier line, in a table of
# (line, store, sale_date, product).
_FIRST_REPEAT = (
    "SELECT line, first_line FROM (SELECT line, MIN(line) OVER (PARTITION BY {key}) AS first_line FROM {table} "
    "WHERE line < {bound}) AS k WHERE line > first_line ORDER BY line LIMIT 1"
)
_NO_BOUND = 2**62


class _Writer:
    """The rows of a stream into pos_sales inside the caller's transaction, on the driver's own connection.

    ``write`` each batch, ``end`` the stream (False where the rows already repeat a key), then ``store``;
    where anything fails, ``first_repeat`` says which line repeats which."""

    def __init__(self, conn: sa.Connection, stream: _Stream, *, replace: bool):
        self.conn = conn
        self.raw: Any = conn.connection.driver_connection
        self.stream = stream
        self.replace = replace  # the table had rows: delete the stored rows of the file's (store, day)s first
        self.rebuild: list[str] = []  # CREATE INDEX statements to run once the rows are in
        self.days: list[date] = []  # the file's days, where it replaced stored rows (for the rollups)

    def begin(self, stack: ExitStack) -> None:
        raise NotImplementedError

    def write(self, batch: Batch) -> None:
        raise NotImplementedError

    def load_file(self, path: Path, columns: list[str], going: Callable[[], bool]) -> int:
        """The file's records as they are (`columns` the header's), by the database's own reading of them;
        returns how many went in. Stops with _NotClean once `going` says False."""
        raise NotImplementedError

    def end(self) -> bool:
        return True

    def store(self) -> None:
        raise NotImplementedError

    def first_repeat(self, before: int | None) -> tuple[int, int] | None:
        raise NotImplementedError


class _SQLiteWriter(_Writer):
    def begin(self, stack: ExitStack) -> None:
        cursor = self.raw.cursor()
        cursor.execute(f"DROP TABLE IF EXISTS temp.{STAGING}")
        cursor.execute(f"CREATE TEMP TABLE {STAGING} (line INTEGER PRIMARY KEY, store TEXT, sale_date TEXT, "
                       "product TEXT, category TEXT, unit_price INTEGER, quantity INTEGER, amount INTEGER)")
        stack.callback(cursor.execute, f"DROP TABLE IF EXISTS temp.{STAGING}")
        self.cursor = cursor
        self.insert = f"INSERT INTO temp.{STAGING} VALUES (?, ?, ?, ?, ?, ?, ?, ?)"

    def write(self, batch: Batch) -> None:
        self.cursor.executemany(self.insert, zip(batch.lines, *batch.columns, strict=True))

    def load_file(self, path: Path, columns: list[str], going: Callable[[], bool]) -> int:
        # The staging table's INTEGER columns take the numbers' texts as integers; the line is the rowid.
        insert = f"INSERT INTO temp.{STAGING} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
        count = 0
        with path.open(encoding="utf-8-sig", newline="") as handle:
            records = csv.reader(handle)
            next(records)
            while block := list(islice(records, BATCH_ROWS)):
                if not going():
                    raise _NotClean()
                self.cursor.executemany(insert, block)
                count += self.cursor.rowcount
        return count

    def store(self) -> None:
        import sqlite3

        cursor, columns = self.cursor, ", ".join(INSERT_COLUMNS)
        if self.replace:
            staged = cursor.execute(f"SELECT COUNT(*) FROM temp.{STAGING}").fetchone()[0]
            stored = cursor.execute("SELECT COUNT(*) FROM pos_sales").fetchone()[0]
            if staged >= stored * REBUILD_SHARE:
                self.rebuild = _drop_secondary_indexes(self.conn)
            cursor.execute(f"DELETE FROM pos_sales WHERE (store, sale_date) IN "
                           f"(SELECT store, sale_date FROM temp.{STAGING})")
            days = cursor.execute(f"SELECT DISTINCT sale_date FROM temp.{STAGING}").fetchall()
            self.days = [date.fromisoformat(day) for (day,) in days]
        try:
            cursor.execute(f"INSERT INTO pos_sales ({columns}) SELECT {columns} FROM temp.{STAGING} ORDER BY {KEY}")
        except sqlite3.IntegrityError as err:
            raise _Duplicate() from err

    def first_repeat(self, before: int | None) -> tuple[int, int] | None:
        sql = _FIRST_REPEAT.format(key=KEY, table=f"temp.{STAGING}", bound=_NO_BOUND if before is None else before)
        found = self.cursor.execute(sql).fetchone()
        return (found[0], found[1]) if found else None


class _PostgresWriter(_Writer):
    def begin(self, stack: ExitStack) -> None:
        self.cursor = stack.enter_context(self.raw.cursor())
        self.cursor.execute("SAVEPOINT pos_import")
        if self.replace:
            self.cursor.execute(f"CREATE TEMP TABLE {STAGING} (LIKE pos_sales) ON COMMIT DROP")
        self.copy_stack = stack.enter_context(ExitStack())
        self.copy: Any = None  # begun with the first batch, once the header has said the columns' order
        self.repeated = False  # the primary key refused the copy

    def write(self, batch: Batch) -> None:
        import psycopg

        if self.copy is None:
            self.order = self.stream.file_columns
            target = STAGING if self.replace else "pos_sales"
            self.copy = self.copy_stack.enter_context(
                self.cursor.copy(f"COPY {target} ({', '.join(self.order)}) FROM STDIN (FORMAT csv)"))
        try:
            self.copy.write(batch.csv(self.order))
        except psycopg.Error:  # the server ended the copy early: a refused key is named when it is closed
            if not self.end():
                raise _Duplicate() from None
            raise

    def load_file(self, path: Path, columns: list[str], going: Callable[[], bool]) -> int:
        target = STAGING if self.replace else "pos_sales"
        # The file's own bytes where the connection reads UTF-8; its BOM is on the header line, which COPY skips.
        as_bytes = self.raw.info.encoding == "utf-8"
        with path.open("rb") if as_bytes else path.open(encoding="utf-8", newline="") as handle, self.cursor.copy(
                f"COPY {target} ({', '.join(columns)}) FROM STDIN (FORMAT csv, HEADER true)") as copy:
            while chunk := handle.read(FILE_CHUNK):
                if not going():
                    raise _NotClean()
                copy.write(chunk)
        return int(self.cursor.rowcount)

    def end(self) -> bool:
        import psycopg

        try:
            self.copy_stack.close()
        except psycopg.errors.UniqueViolation:
            self.cursor.execute("ROLLBACK TO SAVEPOINT pos_import")
            self.repeated = True
        return not self.repeated

    def store(self) -> None:
        import psycopg

        if not self.replace:
            return
        columns = ", ".join(INSERT_COLUMNS)
        self.cursor.execute(f"ANALYZE {STAGING}")
        self.cursor.execute(f"SELECT (SELECT reltuples FROM pg_class WHERE oid = '{STAGING}'::regclass), "
                            "(SELECT reltuples FROM pg_class WHERE oid = 'pos_sales'::regclass)")
        staged, stored = self.cursor.fetchone()
        if stored >= 0 and staged >= stored * REBUILD_SHARE:  # stored < 0: never analysed, size unknown
            self.rebuild = _drop_secondary_indexes(self.conn)
        self.cursor.execute(f"DELETE FROM pos_sales p USING (SELECT DISTINCT store, sale_date FROM {STAGING}) d "
                            "WHERE p.store = d.store AND p.sale_date = d.sale_date")
        self.days = [day for (day,) in self.cursor.execute(f"SELECT DISTINCT sale_date FROM {STAGING}")]
        try:
            self.cursor.execute(f"INSERT INTO pos_sales ({columns}) SELECT {columns} FROM {STAGING}")
        except psycopg.errors.UniqueViolation:
            self.cursor.execute("ROLLBACK TO SAVEPOINT pos_import")
            self.repeated = True
            raise _Duplicate() from None

    def first_repeat(self, before: int | None) -> tuple[int, int] | None:
        """Where the copy was not refused and the staged rows hold no repeat, None; else the lines read
        again (up to `before`) into a table of keys, and asked."""
        if not self.repeated:
            if not self.replace:
                return None
            self.cursor.execute(f"SELECT 1 FROM {STAGING} GROUP BY {KEY} HAVING COUNT(*) > 1 LIMIT 1")
            if self.cursor.fetchone() is None:
                return None
            self.cursor.execute("ROLLBACK TO SAVEPOINT pos_import")
        keys = "pos_import_keys"
        self.cursor.execute(f"CREATE TEMP TABLE {keys} (line bigint, store text, sale_date date, product text) "
                            "ON COMMIT DROP")
        with self.cursor.copy(f"COPY {keys} (line, {KEY}) FROM STDIN") as copy:
            for batch in _Stream(self.stream.path, self.stream.batch_rows).batches():
                for line, store, day, product in zip(batch.lines, *batch.columns[:3], strict=True):
                    if before is not None and line >= before:
                        break
                    copy.write_row((line, store, day, product))
        self.cursor.execute(_FIRST_REPEAT.format(key=KEY, table=keys, bound=_NO_BOUND if before is None else before))
        found = self.cursor.fetchone()
        return (found[0], found[1]) if found else None


def _drop_secondary_indexes(conn: sa.Connection) -> list[str]:
    """Drop the table's indexes that enforce nothing (those it has, whichever version made them); returns
    the statements that build them again."""
    if conn.dialect.name == "sqlite":
        found = conn.exec_driver_sql(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'pos_sales' "
            "AND sql IS NOT NULL AND sql NOT LIKE 'CREATE UNIQUE%' ORDER BY name").all()
    else:
        found = conn.exec_driver_sql(
            "SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid "
            "WHERE x.indrelid = 'pos_sales'::regclass AND NOT x.indisunique ORDER BY i.relname").all()
    quote = conn.dialect.identifier_preparer.quote
    for name, _ in found:
        conn.exec_driver_sql(f"DROP INDEX {quote(name)}")
    return [sql for _, sql in found]


def load(db: Database, path: Path, *, batch_rows: int = BATCH_ROWS) -> int:
    """Check and load the export in one transaction; returns the number of rows loaded.

    A file that DuckDB's check passes whole (csv_check) goes to the database's own loader as it is, while
    the check runs; any other, or one the table refuses, is read and checked line by line, `batch_rows` at
    a time. The table's rollups are paused meanwhile and summed again for the file's days (all days where
    the table was empty), in the same transaction."""
    columns = csv_check.header_columns(path, COLUMNS) if csv_check.available() else None
    if columns is not None:
        try:
            return _load(db, path, lambda writer: _write_checked(path, columns, writer))
        except _NotClean:
            pass  # rolled back: read line by line, which names the first bad line
    stream = _Stream(path, batch_rows)
    return _load(db, path, lambda writer: _write_all(stream, writer, path), stream)


def _load(db: Database, path: Path, write: Callable[[_Writer], int], stream: _Stream | None = None) -> int:
    with db.write() as conn, ExitStack() as settings:
        if db.is_sqlite:
            _import_cache(conn, settings)
        tables.metadata.create_all(conn, tables=[tables.pos_sales])
        had_rows = conn.execute(sa.select(sa.literal(1)).select_from(tables.pos_sales).limit(1)).first() is not None
        with rollups.paused(conn, "pos_sales") as touched:
            writer = (_SQLiteWriter if db.is_sqlite else _PostgresWriter)(conn, stream or _Stream(path),
                                                                        replace=had_rows)
            if not had_rows:  # an empty table: its secondary indexes are built once, after the rows
                writer.rebuild = _drop_secondary_indexes(conn)
            count = write(writer)
            for statement in writer.rebuild:
                conn.exec_driver_sql(statement)
            if had_rows:
                touched.add("sale_date", writer.days)
            else:
                touched.everything = True
        if count >= ANALYZE_ROWS:  # the planner (SQLite above all) picks indexes by these statistics
            _analyze(conn, db.is_sqlite)
    return count


class _NotClean(Exception):
    """The fast path did not load the file: DuckDB's check did not pass it, or the table refused a row."""


def _write_checked(path: Path, columns: list[str], writer: _Writer) -> int:
    """The file through the database's loader while DuckDB checks it in a thread (it releases the GIL);
    _NotClean where either refuses it, and the caller's transaction is rolled back."""
    with ThreadPoolExecutor(1) as pool:
        checked = pool.submit(csv_check.clean_rows, path, [HEADERS[c] for c in columns], columns)
        try:
            with ExitStack() as stack:
                writer.begin(stack)
                count = writer.load_file(path, columns, lambda: not checked.done() or checked.result() is not None)
                if checked.result() != count:
                    raise _NotClean()
                writer.store()
        except _Duplicate:
            raise _NotClean() from None
        except Exception as err:
            if _is_driver_error(err):
                raise _NotClean() from err
            raise
    return count


def _import_cache(conn: sa.Connection, stack: ExitStack) -> None:
    """SQLite: a bigger page cache for the import's connection (staging, sorting, index builds), until it ends."""
    raw: Any = conn.connection.driver_connection
    kept = raw.execute("PRAGMA cache_size").fetchone()[0]
    raw.execute(f"PRAGMA cache_size = {-SQLITE_CACHE_KIB}")
    stack.callback(raw.execute, f"PRAGMA cache_size = {int(kept)}")


def _write_all(stream: _Stream, writer: _Writer, path: Path) -> int:
    count, error = 0, None
    try:
        with ExitStack() as stack:
            writer.begin(stack)
            try:
                for batch in stream.batches():
                    writer.write(batch)
                    count += len(batch)
                    if batch.error is not None:
                        error = batch.error
                        break
                if writer.end() and error is None:
                    writer.store()
                    return count
            except _Duplicate:
                pass
            repeat = writer.first_repeat(error.line if error is not None else None)
    except Exception as err:  # a driver error on the raw connection (a value too long, ...)
        if isinstance(err, DatabaseError) or not _is_driver_error(err):
            raise
        raise DatabaseError(f"{path}: the import failed: {str(err).strip().splitlines()[0]}") from err
    if repeat is not None:
        line, first = repeat
        raise DataImportError(stream.name, line, "商品名", f"the same store, day and product as line {first}")
    if error is not None:
        raise error
    raise DatabaseError(f"{path}: the table refused the rows")  # not reached: a refusal is a repeated key


def _is_driver_error(err: Exception) -> bool:
    import sqlite3

    import psycopg

    return isinstance(err, sqlite3.Error | psycopg.Error)


def _analyze(conn: sa.Connection, sqlite: bool) -> None:
    raw: Any = conn.connection.driver_connection
    if sqlite:  # a bounded sample per index, as PostgreSQL's ANALYZE takes
        raw.execute("PRAGMA analysis_limit = 1000")
        raw.execute("ANALYZE pos_sales")
        raw.execute("PRAGMA analysis_limit = 0")
    else:
        conn.exec_driver_sql("ANALYZE pos_sales")


def write_csv(rows: Iterable[dict], path: Path) -> None:
    """Write rows of pos_sales the way a store exports them."""
    with path.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(list(COLUMNS))
        for r in rows:
            writer.writerow([r[c].isoformat() if c == "sale_date" else r[c] for c in COLUMNS.values()])


__all__ = ["BATCH_ROWS", "load", "read_csv", "write_csv"]
