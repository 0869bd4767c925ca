"""The planner's catalog keys (`intents`, `extract`) are checked when the catalog loads, per file and key."""

from __future__ import annotations

import textwrap

import pytest

from concierge.catalog.loader import load_catalog, parse_catalog
from concierge.catalog.model import CodeExtract, DateExtract
from concierge.errors import CatalogError

CATALOG = """
catalog: shop
description: {ja: 店, en: shop}
roles:
  admin: {all_rows: true}
tools:
  find_customer:
    description: {ja: 顧客, en: customers}
    roles: [admin]
    params:
      name:
        type: string
        description: {ja: 名前, en: name}
        extract: {kind: name}
    sql: SELECT :name AS name
  orders:
    description: {ja: 注文, en: orders}
    roles: [admin]
    params:
      code:
        type: string
        required: true
        pattern: '^\\d{4}$'
        description: {ja: コード, en: code}
        extract: {kind: code, labels: [顧客], lookup: {tool: find_customer, arg: name, column: code}}
      since:
        type: date
        description: {ja: 開始日, en: since}
        extract: {kind: date, part: start}
    sql: SELECT :code AS code, :since AS since
    intents: {keywords: [注文, orders], examples: [0001の注文]}
"""


def problems(text: str) -> list[str]:
    with pytest.raises(CatalogError) as err:
        parse_catalog(textwrap.dedent(text), "shop.yaml")
    return [f"{p.key}: {p.message}" for p in err.value.problems]


def test_a_valid_catalog_loads_with_typed_planner_keys():
    catalog = parse_catalog(CATALOG, "shop.yaml")
    code = catalog.tools["orders"].params["code"].extract
    assert isinstance(code, CodeExtract) and code.lookup.tool == "find_customer"
    assert isinstance(catalog.tools["orders"].params["since"].extract, DateExtract)
    assert catalog.tools["orders"].intents.keywords == ["注文", "orders"]


@pytest.mark.parametrize("old,new,expected", [
    ("extract: {kind: date, part: start}", "extract: {kind: amount}",
     "tools.orders.params.since.extract.kind: amount fills integer parameters, not date"),
    ("extract: {kind: date, part: start}", "extract: {kind: date, part: middle}",
     "tools.orders.params.since.extract.date.part: Input should be 'start', 'end' or 'day'"),
    ("extract: {kind: date, part: start}", "extract: {kind: colour}",
     "tools.orders.params.since.extract: Input tag 'colour' found using 'kind' does not match any of the expected "
     "tags: 'code', 'date', 'enum', 'name', 'amount', 'items', 'count', 'time'"),
    ("lookup: {tool: find_customer, arg: name, column: code}", "lookup: {tool: nowhere, arg: name, column: code}",
     "tools.orders.params.code.extract.lookup.tool: no tool 'nowhere' in this catalog"),
    ("lookup: {tool: find_customer, arg: name, column: code}", "lookup: {tool: find_customer, arg: nom, column: code}",
     "tools.orders.params.code.extract.lookup.arg: find_customer has no parameter 'nom'"),
    ("        extract: {kind: code, labels: [顧客], lookup: {tool: find_customer, arg: name, column: code}}\n", "",
     "tools.orders.params.code.extract: a required parameter of a tool with intents needs extract "
     "(else no plan can call it)"),
    ("        pattern: '^\\d{4}$'\n", "",
     "tools.orders.params.code.extract: a code is found by the parameter's pattern; declare pattern"),
    ("intents: {keywords: [注文, orders], examples: [0001の注文]}", "intents: {keywords: [], examples: [x]}",
     "tools.orders.intents.keywords: List should have at least 1 item after validation, not 0"),
    ("intents: {keywords: [注文, orders], examples: [0001の注文]}", "intents: {keywords: [x], example: [x]}",
     "tools.orders.intents.example: Extra inputs are not permitted"),
])
def test_each_mistake_is_reported_with_its_key(old, new, expected):
    assert old in CATALOG
    assert expected in problems(CATALOG.replace(old, new))


def test_two_parameters_cannot_take_the_same_end_of_a_period():
    text = CATALOG.replace("    sql: SELECT :code AS code, :since AS since", """      from:
        type: date
        description: {ja: 開始日, en: from}
        extract: {kind: date, part: start}
    sql: SELECT :code AS code, :since AS since, :from AS f""")
    assert problems(text) == ["tools.orders.params.from.extract.part: since already takes the current start"]


@pytest.mark.parametrize("name", ["farm", "pos"])
def test_every_demo_tool_says_when_the_planner_chooses_it(name):
    for tool in load_catalog(name).tools.values():
        assert tool.intents and tool.intents.keywords and tool.intents.examples
        assert all(p.extract is not None for p in tool.params.values())


LEVELS = CATALOG + """
  dim:
    description: {ja: 明るさ, en: brightness}
    mode: write
    roles: [admin]
    params:
      code:
        type: string
        required: true
        pattern: '^\\\\d{4}$'
        description: {ja: コード, en: code}
        extract: {kind: code, labels: [顧客]}
      level:
        type: integer
        required: true
        min: 1
        max: 100
        description: {ja: 明るさ, en: level}
        extract: {kind: count, cues: [明るさ], relative: {step: 10, up: [明るく], down: [暗く]}}
        current: {tool: orders, column: since}
    sql: SELECT :code AS code, :level AS level
    intents: {keywords: [明るさ], examples: [もう少し暗く]}
"""


def test_a_level_said_against_the_one_it_has_declares_its_step_words_and_where_it_is_read():
    catalog = parse_catalog(textwrap.dedent(LEVELS), "shop.yaml")
    level = catalog.tools["dim"].params["level"]
    assert level.extract.relative.step == 10 and level.current.tool == "orders"


@pytest.mark.parametrize("old,new,expected", [
    ("current: {tool: orders, column: since}", "current: {tool: nowhere, column: since}",
     "tools.dim.params.level.current.tool: no tool 'nowhere' in this catalog"),
    ("current: {tool: orders, column: since}", "current: {tool: orders, column: brightness}",
     "tools.dim.params.level.current.column: orders has no column 'brightness'"),
    ("current: {tool: orders, column: since}", "current: {tool: dim, column: level}",
     "tools.dim.params.level.current.tool: the present value is read by a read tool"),
    ("relative: {step: 10, up: [明るく], down: [暗く]}", "relative: {step: 0, up: [明るく], down: [暗く]}",
     "tools.dim.params.level.extract.count.relative.step: Input should be greater than or equal to 1"),
])
def test_each_mistake_of_a_level_is_reported_with_its_key(old, new, expected):
    assert old in LEVELS
    assert expected in problems(LEVELS.replace(old, new))
