"""The POS demo: store D店's daily sales, 20 products x 62 days (docs/demo-data.md)."""

from __future__ import annotations

from pathlib import Path

from concierge.demo.pos import csv_import, data, tables
from concierge.plugins import Demo, DemoUser

DEMO = Demo(
    name="pos",
    catalog=Path(__file__).with_name("catalog.yaml"),
    metadata=tables.metadata,
    tables=tuple(tables.TABLES),
    generate=lambda: {"pos_sales": data.rows()},
    users=(
        DemoUser("admin", "admin", "管理者"),
        DemoUser("pos_analyst", "analyst", "POSアナリスト"),
    ),
    importers={"pos_sales": csv_import.load},  # the store's POS export (UTF-8 with BOM, Japanese headers)
)
