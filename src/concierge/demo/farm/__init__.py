"""The farm demo: a customer master and a sales ledger (docs/demo-data.md)."""

from __future__ import annotations

from pathlib import Path

from concierge.demo.farm import data, tables
from concierge.plugins import Demo, DemoUser

DEMO = Demo(
    name="farm",
    catalog=Path(__file__).with_name("catalog.yaml"),
    metadata=tables.metadata,
    tables=tuple(tables.TABLES),
    generate=lambda: {"farm_customers": data.customers(), "farm_sales": data.sales()},
    users=(
        DemoUser("admin", "admin", "管理者"),
        DemoUser("tanaka", "sales_rep", "田中(営業)"),  # customers 0011..0020 only
        DemoUser("suzuki", "viewer", "鈴木(閲覧)"),
    ),
)
