"""Tables: the two demo businesses, and concierge's own state.

The demo tables are what the demo catalogs' SQL reads and writes; a company's
own catalog reads its own tables. The state tables (users, audit,
confirmations, API tokens, conversations) live beside the data in the same
database so that one URL is one deployment.
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

# --- demo: farm -------------------------------------------------------------
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

# --- demo: pos ----------------------------------------------------------------
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
    sa.Index("ix_pos_sales_date_product", "sale_date", "product"),
    # The guard's valid values (SELECT DISTINCT category / product): SQLite reads them from these
    # indexes in a few steps instead of scanning every row (seconds at 10^7 rows).
    sa.Index("ix_pos_sales_category", "category"),
    sa.Index("ix_pos_sales_product", "product"),
)

DEMO_TABLES = {"farm": [farm_customers, farm_sales], "pos": [pos_sales]}

# --- concierge state ---------------------------------------------------------
users = sa.Table(
    "concierge_users",
    metadata,
    sa.Column("name", sa.String(50), primary_key=True),
    sa.Column("role", sa.String(50), nullable=False),
    sa.Column("display_name", sa.String(100), nullable=False),
    sa.Column("password_hash", sa.String(200), nullable=True),
)

audit = sa.Table(
    "concierge_audit",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("user_name", sa.String(50), nullable=False),
    sa.Column("tool", sa.String(100), nullable=False),
    sa.Column("args", sa.Text, nullable=False),
    sa.Column("decision", sa.String(30), nullable=False),
    sa.Column("result_id", sa.String(40), nullable=False),
    sa.Column("rows", sa.Integer, nullable=False),
    sa.Column("ms", sa.Float, nullable=False),
    sa.Column("message", sa.Text, nullable=True),
)

confirmations = sa.Table(
    "concierge_confirmations",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("user_name", sa.String(50), nullable=False),
    sa.Column("tool", sa.String(100), nullable=False),
    sa.Column("args", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
)

api_tokens = sa.Table(
    "concierge_api_tokens",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("user_name", sa.String(50), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("label", sa.String(100), nullable=True),
)

STATE_TABLES = [users, audit, confirmations, api_tokens]

# Conversations of the agent: one row per (user, session id), its messages in order.
conversations = sa.Table(
    "concierge_conversations",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("session_id", sa.String(64), nullable=False),
    sa.Column("user_name", sa.String(50), nullable=False),
    sa.Column("title", sa.String(200), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("pending", sa.Text, nullable=True),  # JSON: the write waiting for a yes, with its token
    sa.UniqueConstraint("user_name", "session_id", name="uq_concierge_conversations_user_session"),
)

conversation_messages = sa.Table(
    "concierge_messages",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("conversation_id", sa.Integer, sa.ForeignKey("concierge_conversations.id", ondelete="CASCADE"),
              nullable=False),
    sa.Column("role", sa.String(20), nullable=False),
    sa.Column("body", sa.Text, nullable=False),  # JSON of one agent.protocol.Message
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_concierge_messages_conversation", "conversation_id", "id"),
)

STATE_TABLES += [conversations, conversation_messages]
