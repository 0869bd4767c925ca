"""Load a store's POS CSV export (UTF-8 with BOM, Japanese headers) into pos_sales.

The whole file is checked before anything is written; the first bad row is
reported with its line number and column, and then nothing of the file is
loaded. Rows for a (store, day) that the file contains replace the rows
already stored for that store and day, so re-importing an export is safe.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from datetime import date
from pathlib import Path

from concierge.demo.pos import tables
from concierge.errors import DataImportError
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


def read_csv(path: Path) -> list[dict]:
    name = str(path)
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            raise DataImportError(name, 1, "(header)", "the file is empty")
        header = [h.strip() for h in header]
        missing = [h for h in COLUMNS if h not in header]
        if missing:
            expected = ", ".join(COLUMNS)
            raise DataImportError(name, 1, "(header)", f"missing column(s) {', '.join(missing)}; expected {expected}")
        index = {h: header.index(h) for h in COLUMNS}
        rows: list[dict] = []
        seen: dict[tuple, int] = {}
        for cells in reader:
            line = reader.line_num
            if not any(c.strip() for c in cells):
                continue
            if len(cells) != len(header):
                raise DataImportError(name, line, "(row)", f"{len(cells)} fields, the header has {len(header)}")
            row = {COLUMNS[h]: _cell(name, line, h, cells[i]) for h, i in index.items()}
            if row["amount"] != row["unit_price"] * row["quantity"]:
                raise DataImportError(
                    name, line, "売上金額",
                    f"{row['amount']} is not 単価 {row['unit_price']} x 数量 {row['quantity']}",
                )
            key = (row["store"], row["sale_date"], row["product"])
            if key in seen:
                raise DataImportError(name, line, "商品名", f"the same store, day and product as line {seen[key]}")
            seen[key] = line
            rows.append(row)
    return rows


def _cell(file: str, line: int, header: str, raw: str):
    text = raw.strip()
    if not text:
        raise DataImportError(file, line, header, "is empty")
    column = COLUMNS[header]
    if column == "sale_date":
        match = re.fullmatch(r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})", text)
        try:
            return date(*map(int, match.groups())) if match else date.fromisoformat("bad")
        except ValueError:
            raise DataImportError(file, line, header, f"{text!r} is not a date YYYY-MM-DD") from None
    if column in ("unit_price", "quantity", "amount"):
        number = text.replace(",", "")
        if not re.fullmatch(r"-?\d+", number):
            raise DataImportError(file, line, header, f"{text!r} is not a whole number")
        if int(number) < 0:
            raise DataImportError(file, line, header, f"{text} is negative")
        return int(number)
    return text


def load(db: Database, path: Path) -> int:
    rows = read_csv(path)
    table = tables.pos_sales
    days = {(r["store"], r["sale_date"]) for r in rows}
    with db.write() as conn:
        tables.metadata.create_all(conn, tables=[table])
        for store, day in days:
            conn.execute(table.delete().where(table.c.store == store, table.c.sale_date == day))
        if rows:
            conn.execute(table.insert(), rows)
    return len(rows)


def write_csv(rows: Iterable[dict], path: Path) -> None:
    """Write rows of pos_sales the way a store exports them."""
    with path.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(list(COLUMNS))
        for r in rows:
            writer.writerow([r[c].isoformat() if c == "sale_date" else r[c] for c in COLUMNS.values()])


__all__ = ["load", "read_csv", "write_csv"]
