"""The restaurant demo: a takeaway's menu, opening hours and the orders its callers place (docs/restaurant.md).

Not loaded unless asked for (`--catalog restaurant`): its tools keep a draft per conversation, which the
chat and the phone channel give (`:_session`), and the farm and POS demos stay what a fresh clone serves.
"""

from __future__ import annotations

from pathlib import Path

from concierge.demo.restaurant import data, tables
from concierge.plugins import Demo, DemoUser

DEMO = Demo(
    name="restaurant",
    catalog=Path(__file__).with_name("catalog.yaml"),
    metadata=tables.metadata,
    tables=tuple(tables.TABLES),
    generate=data.rows,
    users=(
        DemoUser("admin", "admin", "管理者"),
        DemoUser("phone", "phone", "電話注文"),
        DemoUser("counter", "viewer", "店頭(閲覧)"),
    ),
    by_default=False,
)
