"""The restaurant demo's tables: the menu and its options, opening hours, the draft of each call, and orders.

A draft (`restaurant_drafts`, `restaurant_draft_items`) is the order a conversation is putting together,
keyed by the conversation (the pipeline's `:_session`). It is not an order: only `confirm_order` writes
`restaurant_orders` and `restaurant_order_items`, both in the one transaction of a confirmed write, and
removes the draft. A call that drops leaves a draft and no order.
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()
restaurant_menu = sa.Table(
    "restaurant_menu",
    metadata,
    sa.Column("code", sa.String(4), primary_key=True),
    sa.Column("name", sa.String(50), nullable=False, unique=True),
    sa.Column("name_en", sa.String(80), nullable=False),
    sa.Column("category", sa.String(20), nullable=False),
    sa.Column("price", sa.Integer, nullable=False),
    sa.Column("sold_out", sa.Boolean, nullable=False),
    # The name, its readings in hiragana, katakana and romaji, and the English name, for a search that
    # finds からあげ, 唐揚げ, カラアゲ and karaage alike.
    sa.Column("search", sa.String(300), nullable=False),
)

restaurant_options = sa.Table(  # sizes and options of a category's items, with their price delta
    "restaurant_options",
    metadata,
    sa.Column("category", sa.String(20), primary_key=True),
    sa.Column("option", sa.String(20), primary_key=True),
    sa.Column("price_delta", sa.Integer, nullable=False),
)

restaurant_hours = sa.Table(  # one row: when orders can be picked up
    "restaurant_hours",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("opens", sa.String(5), nullable=False),  # HH:MM
    sa.Column("closes", sa.String(5), nullable=False),  # the last pickup, HH:MM
    sa.Column("prep_minutes", sa.Integer, nullable=False),  # the least time from the order to its pickup
)

restaurant_drafts = sa.Table(
    "restaurant_drafts",
    metadata,
    sa.Column("session", sa.String(100), primary_key=True),
    sa.Column("pickup_time", sa.String(5), nullable=True),
)

restaurant_draft_items = sa.Table(
    "restaurant_draft_items",
    metadata,
    sa.Column("session", sa.String(100), primary_key=True),
    sa.Column("item_code", sa.String(4), sa.ForeignKey("restaurant_menu.code"), primary_key=True),
    sa.Column("option", sa.String(20), primary_key=True),  # "" for none
    sa.Column("quantity", sa.Integer, nullable=False),
)

restaurant_orders = sa.Table(
    "restaurant_orders",
    metadata,
    sa.Column("order_number", sa.String(40), primary_key=True),
    sa.Column("ticket", sa.Integer, nullable=False),  # the day's number said to the caller: 1, 2, ...
    sa.Column("session", sa.String(100), nullable=False),  # the conversation that placed it
    sa.Column("caller", sa.String(40), nullable=True),  # the caller's number, or the signed-in user
    sa.Column("order_date", sa.Date, nullable=False),
    sa.Column("pickup_time", sa.String(5), nullable=False),
    sa.Column("total", sa.Integer, nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    # Two orders placed at once cannot share a ticket: the second write collides and is run again.
    sa.UniqueConstraint("order_date", "ticket"),
)

restaurant_order_items = sa.Table(
    "restaurant_order_items",
    metadata,
    sa.Column("order_number", sa.String(40), sa.ForeignKey("restaurant_orders.order_number"), primary_key=True),
    sa.Column("item_code", sa.String(4), sa.ForeignKey("restaurant_menu.code"), primary_key=True),
    sa.Column("option", sa.String(20), primary_key=True),
    sa.Column("quantity", sa.Integer, nullable=False),
    sa.Column("unit_price", sa.Integer, nullable=False),
)

TABLES = [restaurant_menu, restaurant_options, restaurant_hours, restaurant_drafts, restaurant_draft_items,
          restaurant_orders, restaurant_order_items]
