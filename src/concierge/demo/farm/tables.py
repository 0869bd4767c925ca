"""The farm demo's tables: a customer master and a sales ledger."""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()
farm_customers = sa.Table(
    "farm_customers",
    metadata,
    sa.Column("code", sa.String(4), primary_key=True),
    sa.Column("name", sa.String(100), nullable=False),
    sa.Column("address", sa.String(200), nullable=False),
    sa.Column("phone", sa.String(20), nullable=False),
    sa.Column("assigned_to", sa.String(50), nullable=True),
)

farm_sales = sa.Table(
    "farm_sales",
    metadata,
    sa.Column("sales_number", sa.String(64), primary_key=True),
    sa.Column("customer_code", sa.String(4), sa.ForeignKey("farm_customers.code"), nullable=False),
    sa.Column("sale_date", sa.Date, nullable=False),
    sa.Column("products", sa.String(200), nullable=False),
    sa.Column("price", sa.Integer, nullable=False),
    sa.Index("ix_farm_sales_customer_date", "customer_code", "sale_date"),
)

TABLES = [farm_customers, farm_sales]
