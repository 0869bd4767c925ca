"""Files as a database: CSV, Excel and Parquet files read into one SQLite file that concierge serves.

`concierge init --file sales.csv --file stock.xlsx` and `concierge db reload` call `load`. Each file
becomes a table named after it (an Excel file: one table per sheet when it has several). DuckDB parses
CSV (strictly: a row with a wrong number of fields is an error with its line) and Parquet; Excel is read
with openpyxl (DuckDB's own Excel reader is an extension it downloads, and concierge runs offline).

Types are inferred from every cell of a column, not a sample: a code with a leading zero (007) keeps the
column text; amounts with separators or a yen sign (1,200 / ¥1,200 / 1,200円) are whole numbers; dates
(2026-08-01, 2026/8/1) are dates. A column whose cells are dates but for one is an error naming that
cell's line and column.

Every file is read and checked before anything is written; then every table is replaced in one SQLite
transaction (DDL included), so a bad file loads nothing and the data already there keeps answering, and a
server that has the database open sees the new data at once.
"""

from __future__ import annotations

import csv
import json
import re
import sqlite3
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, time
from decimal import Decimal
from pathlib import Path
from typing import Any

from concierge.errors import ConfigError, DataImportError

DATABASE_FILE = "concierge-files.db"
MANIFEST_FILE = "concierge-files.json"  # beside the database: the files it was loaded from, for `db reload`
SUFFIXES = (".csv", ".tsv", ".txt", ".xlsx", ".xlsm", ".parquet")

_AMOUNT = re.compile(r"^[¥￥]?\s*(-?)[¥￥]?\s*(\d{1,3}(?:,\d{3})+|\d+)\s*円?$")
_DECIMAL = re.compile(r"^-?(?:\d+\.\d*|\.\d+|\d{1,3}(?:,\d{3})+\.\d+)$")
_JAPANESE = re.compile("[\u3040-\u30ff\u3400-\u9fff\uff66-\uff9f]")  # kana, kanji, half-width kana
_DATE = re.compile(r"^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$")
_DATETIME = re.compile(r"^(\d{4})[-/](\d{1,2})[-/](\d{1,2})[ T](\d{1,2}):(\d{2})(?::(\d{2}))?$")
_CODE = re.compile(r"^0\d+$")


@dataclass
class Table:
    name: str
    file: Path
    columns: list[tuple[str, str]]  # (name, SQLite type)
    rows: list[tuple[Any, ...]]


def load(database: Path, files: Iterable[Path]) -> list[Table]:
    """Read `files` into the SQLite file `database`, replacing the tables they loaded before; all or nothing.
    Writes the manifest beside it. Returns the tables loaded."""
    paths = [Path(f).expanduser().resolve() for f in files]
    if not paths:
        raise ConfigError("no files to load: concierge init --file sales.csv [--file stock.xlsx ...]")
    tables: list[Table] = []
    for path in paths:
        tables += read(path)
    names = [t.name for t in tables]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ConfigError(f"two files make the table {twice[0]!r}; rename one of them")
    before = json.loads(manifest(database).read_text()).get("tables", []) if manifest(database).is_file() else []
    _write(database, tables, drop=[t for t in before if t not in names])
    manifest(database).write_text(json.dumps({"files": [str(p) for p in paths], "tables": names},
                                             ensure_ascii=False, indent=2))
    return tables


def loaded_files(database: Path) -> list[Path]:
    """The files the database was last loaded from (empty when it was not made from files)."""
    path = manifest(database)
    if not path.is_file():
        return []
    return [Path(p) for p in json.loads(path.read_text()).get("files", [])]


def manifest(database: Path) -> Path:
    return database.with_name(MANIFEST_FILE)


def read(path: Path) -> list[Table]:
    if not path.is_file():
        raise ConfigError(f"no file at {path}")
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv", ".txt"):
        header, rows = _read_csv(path)
        return [_typed(_table_name(path), path, header, rows)]
    if suffix in (".xlsx", ".xlsm"):
        return _read_excel(path)
    if suffix == ".parquet":
        return [_read_parquet(path)]
    raise ConfigError(f"{path}: concierge reads {', '.join(SUFFIXES)} files; save it as CSV (UTF-8)")


# --- reading ---------------------------------------------------------------------------------------------
def _needs(package: str) -> None:
    import importlib.util

    if importlib.util.find_spec(package) is None:
        raise ConfigError(f"reading files needs the {package} package: pip install 'concierge[files]'")


def _read_csv(path: Path) -> tuple[list[str], list[tuple[Any, ...]]]:
    _needs("duckdb")
    text = _shift_jis_text(path)
    if text is None:
        return _read_utf8_csv(path, path)
    with tempfile.TemporaryDirectory(prefix="concierge-csv-") as folder:  # DuckDB reads UTF-8 only
        copy = Path(folder) / path.name
        copy.write_text(text, encoding="utf-8", newline="")
        return _read_utf8_csv(copy, path)


def _shift_jis_text(path: Path) -> str | None:
    """None for UTF-8 (a BOM or none); else the text of a Shift_JIS file as Excel on Japanese Windows saves a CSV
    (cp932: its NEC and IBM characters too, ① and 髙), where the whole file reads as that and holds Japanese; else
    the file is refused."""
    data = path.read_bytes()
    try:
        data.decode("utf-8")
        return None
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
    try:
        text = data.decode("cp932")
    except UnicodeDecodeError:
        text = ""
    if _JAPANESE.search(text):
        return text
    raise DataImportError(str(path), line, "(file)", "is neither UTF-8 nor Shift_JIS text; save it as CSV UTF-8")


def _read_utf8_csv(path: Path, named: Path) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The header and rows of a UTF-8 CSV file at `path`; errors name the file given (`named`)."""
    import duckdb

    with path.open(encoding="utf-8-sig", newline="") as handle:
        first = handle.readline()
    delimiter = "\t" if first.count("\t") > first.count(",") else ","
    header = next(csv.reader([first], delimiter=delimiter), [])
    if not any(h.strip() for h in header):
        raise DataImportError(str(named), 1, "(header)", "the file is empty: its first line names the columns")
    header = _column_names(header)
    columns = {f"c{i}": "VARCHAR" for i in range(len(header))}
    connection = duckdb.connect()
    try:
        rows = connection.execute(
            "SELECT * FROM read_csv(?, auto_detect=false, columns=?, skip=1, header=false, delim=?, quote='\"', "
            "escape='\"', strict_mode=true, encoding='utf-8')", [str(path), columns, delimiter]).fetchall()
    except duckdb.Error as err:
        raise _csv_error(named, err, len(header)) from None
    finally:
        connection.close()
    return header, [tuple(r) for r in rows]


def _csv_error(path: Path, err: Exception, width: int) -> DataImportError:
    text = str(err)
    line = re.search(r"CSV Error on Line: (\d+)", text)
    found = re.search(r"Expected Number of Columns: (\d+) Found: (\d+)", text)
    number = int(line.group(1)) if line else 0
    if found:
        count = int(found.group(2))
        column = str(width + 1) if count > width else str(count)
        return DataImportError(str(path), number, column, f"the row has {count} fields where the header names "
                               f"{width} (a comma in a value needs the value in double quotes)")
    detail = next((s for s in text.splitlines() if s.strip() and "Error" not in s), text.splitlines()[0])
    return DataImportError(str(path), number, "(row)", detail.strip())


def _read_excel(path: Path) -> list[Table]:
    _needs("openpyxl")
    import openpyxl

    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as err:  # a broken or encrypted workbook: openpyxl raises many kinds
        raise DataImportError(str(path), 1, "(file)", f"is not a readable Excel workbook ({err})") from None
    try:
        sheets = {s.title: [tuple(_excel_cell(v) for v in row) for row in s.iter_rows(values_only=True)]
                  for s in book.worksheets}
        sheets = {title: cells for title, cells in sheets.items() if cells and any(v is not None for v in cells[0])}
        tables = []
        for title, cells in sheets.items():
            header = _column_names(["" if v is None else str(v) for v in cells[0]])
            rows = [r[:len(header)] + (None,) * (len(header) - len(r)) for r in cells[1:]]
            name = _table_name(path) if len(sheets) == 1 else _slug(f"{path.stem}_{title}")
            tables.append(_typed(name, path, header, rows, sheet=title))
    finally:
        book.close()
    if not tables:
        raise DataImportError(str(path), 1, "(file)", "has no sheet with a header and rows")
    return tables


def _excel_cell(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.date().isoformat() if value.time() == time(0) else value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return None if value is None else str(value)


def _read_parquet(path: Path) -> Table:
    _needs("duckdb")
    import duckdb

    connection = duckdb.connect()
    try:
        result = connection.execute("SELECT * FROM read_parquet(?)", [str(path)])
        kinds = [str(d[1]).upper() for d in result.description]
        header = [d[0] for d in result.description]
        rows = result.fetchall()
    except duckdb.Error as err:
        raise DataImportError(str(path), 1, "(file)", f"is not a readable Parquet file ({str(err).splitlines()[0]})"
                              ) from None
    finally:
        connection.close()
    columns = [(name, _sqlite_type(kind)) for name, kind in zip(header, kinds, strict=True)]
    values = [tuple(_plain(v) for v in row) for row in rows]
    return Table(_table_name(path), path, columns, values)


def _plain(value: Any) -> Any:
    """A Parquet value as SQLite stores it: dates as ISO text, decimals as floats."""
    if isinstance(value, date | datetime):
        return value.isoformat(sep=" ") if isinstance(value, datetime) else value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    return value


def _sqlite_type(duckdb_type: str) -> str:
    if "INT" in duckdb_type:
        return "INTEGER"
    if duckdb_type.startswith(("DECIMAL", "DOUBLE", "FLOAT", "REAL")):
        return "REAL"
    if duckdb_type.startswith("TIMESTAMP"):
        return "DATETIME"
    if duckdb_type == "DATE":
        return "DATE"
    if duckdb_type == "BOOLEAN":
        return "BOOLEAN"
    return "TEXT"


# --- types -------------------------------------------------------------------------------------------------
def _typed(name: str, path: Path, header: list[str], rows: list[tuple[Any, ...]], sheet: str | None = None) -> Table:
    where = f"{path} (sheet {sheet})" if sheet else str(path)
    kept = [(i + 2, r) for i, r in enumerate(rows) if any(v is not None and str(v).strip() for v in r)]
    lines, rows = [line for line, _ in kept], [r for _, r in kept]
    columns: list[tuple[str, str]] = []
    converted: list[list[Any]] = []
    for index, column in enumerate(header):
        cells = [None if r[index] is None or not str(r[index]).strip() else str(r[index]).strip() for r in rows]
        kind, values = _infer(where, column, cells, lines)
        columns.append((column, kind))
        converted.append(values)
    return Table(name, path, columns, [tuple(v) for v in zip(*converted, strict=True)] if converted else [])


def _infer(where: str, column: str, cells: list[str | None], lines: list[int]) -> tuple[str, list[Any]]:
    present = [c for c in cells if c is not None]
    if not present or any(_CODE.match(c) for c in present):
        return "TEXT", cells
    if all(_AMOUNT.match(c) for c in present):
        return "INTEGER", [None if c is None else _amount(c) for c in cells]
    if all(_AMOUNT.match(c) or _DECIMAL.match(c) for c in present):
        return "REAL", [None if c is None else float(c.replace(",", "")) for c in cells]
    for kind, pattern, parse in (("DATE", _DATE, _date), ("DATETIME", _DATETIME, _datetime)):
        dated = [_parsed(parse, c) if pattern.match(c) else None for c in present]
        if all(dated):
            return kind, [None if c is None else _parsed(parse, c) for c in cells]
        if sum(d is not None for d in dated) * 2 > len(present):
            line, bad = next((n, c) for n, c in zip(lines, cells, strict=True)
                             if c is not None and (not pattern.match(c) or _parsed(parse, c) is None))
            raise DataImportError(where, line, column, f"{bad!r} is not a date like the column's other cells "
                                  "(YYYY-MM-DD)")
    return "TEXT", cells


def _amount(text: str) -> int:
    match = _AMOUNT.match(text)
    assert match is not None
    return int(match.group(1) + match.group(2).replace(",", ""))


def _date(text: str) -> str:
    match = _DATE.match(text)
    assert match is not None
    year, month, day = (int(g) for g in match.groups())
    return date(year, month, day).isoformat()


def _datetime(text: str) -> str:
    match = _DATETIME.match(text)
    assert match is not None
    year, month, day, hour, minute, second = (int(g or 0) for g in match.groups())
    return datetime(year, month, day, hour, minute, second).isoformat(sep=" ")


def _parsed(parse: Any, text: str) -> str | None:
    try:
        return str(parse(text))
    except (ValueError, AssertionError):
        return None


# --- names and writing -------------------------------------------------------------------------------------
def _slug(text: str) -> str:
    name = re.sub(r"\W+", "_", text.strip()).strip("_").lower()
    return name if name and not name[0].isdigit() else f"t_{name}"


def _table_name(path: Path) -> str:
    return _slug(path.stem)


def _column_names(header: list[str]) -> list[str]:
    names: list[str] = []
    for index, raw in enumerate(header):
        name = raw.strip() or f"column_{index + 1}"
        while name in names:
            name += "_2"
        names.append(name)
    return names


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _write(database: Path, tables: list[Table], drop: list[str]) -> None:
    database.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(database, isolation_level=None)
    try:
        connection.execute("BEGIN IMMEDIATE")
        try:
            for name in drop + [t.name for t in tables]:
                connection.execute(f"DROP TABLE IF EXISTS {_quote(name)}")
            for table in tables:
                columns = ", ".join(f"{_quote(c)} {kind}" for c, kind in table.columns)
                connection.execute(f"CREATE TABLE {_quote(table.name)} ({columns})")
                marks = ", ".join("?" for _ in table.columns)
                connection.executemany(f"INSERT INTO {_quote(table.name)} VALUES ({marks})", table.rows)
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise
    finally:
        connection.close()
