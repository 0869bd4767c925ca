"""The POS demo's table: one row per store, day and product."""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()
pos_sales = sa.Table(
    "pos_sales",
    metadata,
    sa.Column("store", sa.String(50), primary_key=True),
    sa.Column("sale_date", sa.Date, primary_key=True),
    sa.Column("product", sa.String(100), primary_key=True),
    sa.Column("category", sa.String(50), nullable=False),
    sa.Column("unit_price", sa.Integer, nullable=False),
    sa.Column("quantity", sa.Integer, nullable=False),
    sa.Column("amount", sa.Integer, nullable=False),
    # Covers the period questions of every store (compare_periods, sales_ranking, daily_sales without a
    # store): each period is one range of this index, read without touching the table.
    sa.Index("ix_pos_sales_date_covering", "sale_date", "product", "category", "amount", "quantity"),
    # The guard's valid values (SELECT DISTINCT category / product): SQLite reads them from these
    # indexes in a few steps instead of scanning every row (seconds at 10^7 rows).
    sa.Index("ix_pos_sales_category", "category"),
    sa.Index("ix_pos_sales_product", "product"),
    # SQLite: the rows kept in the primary key's b-tree itself, one b-tree less to write per row.
    sqlite_with_rowid=False,
)

TABLES = [pos_sales]
