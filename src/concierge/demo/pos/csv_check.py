"""The POS export checked whole by DuckDB, column by column, for the import's fast path (csv_import.load).

The check is strict: it passes a file only where every cell is already its stored value's text (dates
YYYY-MM-DD, whole numbers without separators or leading zeros, no spaces around a cell, no quote or line
break in one), every line is one record of the header's seven columns, and every 売上金額 is 単価 × 数量.
Such a file can go to the database as it is, in the database's own loader. Any other file (or DuckDB not
installed, the `files` extra) is not passed: the line-by-line check reads it, loads what is good in any
form, and names the first bad line.
"""

from __future__ import annotations

import csv
from pathlib import Path

# What Python's str.strip takes off, in RE2's words (braces doubled: the rules are format strings).
_SPACE = r"[\t-\r\x{{1c}}-\x{{20}}\x{{85}}\p{{Z}}]"
_TEXT = f"(length({{c}}) > 0 AND NOT regexp_matches({{c}}, '^{_SPACE}|{_SPACE}$|[\"\\r\\n]'))"
# A number or a date whose text is the one DuckDB writes for its value: no sign, space, separator or zero
# ahead; an INTEGER column's range. Years 0001 to 9999, as Python's dates.
_WHOLE = "(try_cast({c} AS INTEGER) >= 0 AND try_cast({c} AS INTEGER)::VARCHAR = {c})"
_DATE = "(length({c}) = 10 AND {c} >= '0001' AND try_cast({c} AS DATE)::VARCHAR = {c})"
_RULES = {"sale_date": _DATE, "store": _TEXT, "product": _TEXT, "category": _TEXT,
          "unit_price": _WHOLE, "quantity": _WHOLE, "amount": _WHOLE}
_SUM = "try_cast({unit_price} AS BIGINT) * try_cast({quantity} AS BIGINT) = try_cast({amount} AS BIGINT)"
_CHUNK = 1 << 20  # bytes read at a time to count the lines
# A bounded memory (a check needing more fails, and the file is read line by line) and a few cores.
_SETTINGS: dict[str, str | bool | int | float | list[str]] = {"memory_limit": "256MB", "threads": 1}


def available() -> bool:
    try:
        import duckdb  # noqa: F401
    except ImportError:
        return False
    return True


def header_columns(path: Path, columns: dict[str, str]) -> list[str] | None:
    """The table's columns in the file's order, where its header names exactly `columns`' headers; else None."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        try:
            header = next(csv.reader(handle), None)
        except (UnicodeDecodeError, csv.Error):
            return None
    if header is None or len(header) != len(columns) or set(header) != set(columns):
        return None
    return [columns[h] for h in header]


def clean_rows(path: Path, headers: list[str], columns: list[str]) -> int | None:
    """The number of records of a file that passes (`headers` its header, `columns` their table columns);
    None where any cell or line does not."""
    import duckdb

    quoted = {c: '"' + h.replace('"', '""') + '"' for h, c in zip(headers, columns, strict=True)}
    rules = [_RULES[c].format(c=quoted[c]) for c in columns]
    ok = " AND ".join([*rules, _SUM.format(**quoted)])
    sql = (f"SELECT count(*), count(*) FILTER (WHERE ({ok}) IS NOT TRUE) FROM read_csv(?, header = true, "
           "auto_detect = false, columns = ?, delim = ',', quote = '\"', escape = '\"', strict_mode = true, "
           "null_padding = false)")
    try:
        with duckdb.connect(config=_SETTINGS) as conn:
            conn.execute("SET enable_progress_bar = false")
            found = conn.execute(sql, [str(path), {h: "VARCHAR" for h in headers}]).fetchone()
    except duckdb.Error:
        return None
    if found is None or found[1] or _records(path) != found[0]:
        return None
    return int(found[0])


def _records(path: Path) -> int:
    """Lines after the header (one record each, in a file that passes)."""
    lines, last = 0, b"\n"
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            lines += chunk.count(b"\n")
            last = chunk[-1:]
    return lines + (last != b"\n") - 1
