"""Running the CLI as a user would, and a catalog of a business of its own (no demo)."""

from __future__ import annotations

from cli_runner import run_cli
from click.testing import Result

SHOP_CATALOG = """\
catalog: shop
description: {ja: 店, en: the shop}
roles:
  staff: {all_rows: true}
  owner: {all_rows: true}
tools:
  count_one:
    description: {ja: 一を数える, en: counts to one}
    roles: [staff, owner]
    sql: SELECT 1 AS one
"""


def concierge(*args: str, stdin: str | None = None) -> Result:
    return run_cli(*args, stdin=stdin)
