"""Catalog loading: the demo catalogs are valid, and each kind of mistake is refused precisely."""

from __future__ import annotations

import textwrap

import pytest

from concierge.catalog.loader import load_catalog, load_catalogs, parse_catalog
from concierge.errors import CatalogError

FORMAT_TOOLS = {  # docs/eval-format.md: the contract other tools rely on
    "farm": {
        "get_customers": ["code_customer", "name_str_customer"],
        "get_sales": ["code_customer", "code_sales", "date_sales_begin_str", "date_sales_end_str"],
        "add_sale": ["code_customer", "products", "price", "date_sales_str"],
    },
    "pos": {
        "compare_periods": ["cur_start", "cur_end", "prev_start", "prev_end", "category"],
        "sales_ranking": ["start", "end", "category", "top_n", "order"],
        "daily_sales": ["start", "end", "product", "category"],
    },
}


@pytest.mark.parametrize("name", ["farm", "pos"])
def test_demo_catalogs_declare_exactly_the_contract_tools(name):
    catalog = load_catalog(name)
    assert {t: list(tool.params) for t, tool in catalog.tools.items()} == FORMAT_TOOLS[name]


def test_add_sale_needs_confirmation_and_is_a_write():
    tool = load_catalog("farm").tools["add_sale"]
    assert tool.mode == "write" and tool.confirm


GOOD = """
catalog: shop
description: {ja: 店, en: shop}
roles:
  admin: {all_rows: true}
tools:
  list_items:
    description: {ja: 品目, en: items}
    roles: [admin]
    params:
      kind:
        type: enum
        nullable: true
        enum: {values: [a, b]}
        description: {ja: 種類, en: kind}
    sql: SELECT * FROM items WHERE (:kind IS NULL OR kind = :kind)
"""


def test_a_minimal_catalog_loads():
    catalog = parse_catalog(GOOD, "shop.yaml")
    assert list(catalog.tools) == ["list_items"]


MISTAKES = [
    # (what is changed, the key the problem names, words of the message)
    (("sql: SELECT * FROM items WHERE (:kind IS NULL OR kind = :kind)",
      "sql: SELECT * FROM items WHERE kind = :kinds"), "tools.list_items.sql", ":kinds is not a declared parameter"),
    (("sql: SELECT * FROM items WHERE (:kind IS NULL OR kind = :kind)", "sql: SELECT * FROM items"),
     "tools.list_items.params.kind", "never used"),
    (("type: enum", "type: float"), "tools.list_items.params.kind.type", "Input should be"),
    (("roles: [admin]", "roles: [boss]"), "tools.list_items.roles", "unknown role 'boss'"),
    (("enum: {values: [a, b]}", "enum: {values: [a], query: SELECT 1}"), "tools.list_items.params.kind.enum",
     "either values or a query"),
    (("nullable: true", "nullable: true\n        min: 3"), "tools.list_items.params.kind.min",
     "not a setting of a enum parameter"),
    (("sql: SELECT", "mode: read\n    sql: DELETE FROM items WHERE kind = :kind --"), "tools.list_items.sql",
     "one SELECT"),
    (("description: {ja: 品目, en: items}", "description: {ja: 品目}"), "tools.list_items.description.en",
     "Field required"),
    (("description: {ja: 品目, en: items}", "descripton: {ja: 品目, en: items}"), "tools.list_items.descripton",
     "Extra inputs"),
    (("  list_items:", "  list-items:"), "tools.list-items", "a tool name is letters"),
    (("enum: {values: [a, b]}", "enum: {values: [a, b], synonyms: {x: c}}"),
     "tools.list_items.params.kind.enum.synonyms.x", "'c' is not one of the values"),
    (("roles:\n  admin", "roles:\n  admin: {all_rows: true}\n  admin"), "line", "duplicate key 'admin'"),
]


@pytest.mark.parametrize(("change", "key", "words"), MISTAKES)
def test_each_kind_of_mistake_is_refused_with_file_and_key(change, key, words):
    old, new = change
    assert old in GOOD
    with pytest.raises(CatalogError) as caught:
        parse_catalog(GOOD.replace(old, new, 1), "shop.yaml")
    problems = caught.value.problems
    assert any(p.key.startswith(key) and words in p.message and p.file == "shop.yaml" for p in problems), problems


def test_every_problem_is_reported_at_once():
    broken = GOOD.replace("roles: [admin]", "roles: [boss]").replace("kind = :kind)", "kind = :knd)")
    with pytest.raises(CatalogError) as caught:
        parse_catalog(broken, "shop.yaml")
    keys = [p.key for p in caught.value.problems]
    assert keys == ["tools.list_items.roles", "tools.list_items.sql"]
    assert "unknown role 'boss'" in str(caught.value) and ":knd" in str(caught.value)


def test_a_date_bound_must_be_a_date_or_today():
    text = GOOD.replace(
        "  list_items:",
        textwrap.indent(textwrap.dedent("""\
            when:
              description: {ja: 日, en: day}
              roles: [admin]
              params:
                d: {type: date, bounds: {max: tomorrow}, description: {ja: 日, en: day}}
              sql: SELECT :d
            """), "  ") + "  list_items:",
    )
    with pytest.raises(CatalogError) as caught:
        parse_catalog(text, "shop.yaml")
    assert [p.key for p in caught.value.problems] == ["tools.when.params.d.bounds.max"]


def test_a_tool_declared_twice_across_catalogs_is_refused(tmp_path):
    path = tmp_path / "dup.yaml"
    path.write_text(GOOD.replace("catalog: shop", "catalog: shop2"), encoding="utf-8")
    other = tmp_path / "one.yaml"
    other.write_text(GOOD, encoding="utf-8")
    with pytest.raises(CatalogError, match="also declared in"):
        load_catalogs([str(other), str(path)])


def test_a_missing_catalog_file_names_the_builtins():
    with pytest.raises(CatalogError, match="farm, home, pos"):
        load_catalogs(["nowhere.yaml"])
