"""After a write, the values the guard read from the data (a shop's items) are read again where the write may have
changed them, and kept where it cannot have: an order written to its own table leaves the items as they were. A
trigger, or a foreign key that acts on another table, counts as a write of what it changes. On SQLite, PostgreSQL
and MariaDB, each with its own catalog of triggers and keys (sources/sql/written.py)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from concierge.demo.bootstrap import open_pipeline
from concierge.pipeline.access import User
from concierge.pipeline.pipeline import Pipeline
from concierge.sources.sql.written import tables_read, tables_written
from concierge.storage import users

ADMIN = User("admin", "admin")

CATALOG = """catalog: shop
description: {ja: 店, en: a shop}
roles:
  admin: {all_rows: true}
tools:
  order_item:
    description: {ja: 注文を入れます, en: order an item}
    mode: write
    roles: [admin]
    params:
      item: &item
        type: enum
        required: true
        description: {ja: 商品, en: the item}
        enum: {query: SELECT name FROM items ORDER BY name}
    sql: INSERT INTO orders (item) SELECT name FROM items WHERE name = :item
  collect:
    description: {ja: 注文を受け取ります, en: collect an order}
    mode: write
    roles: [admin]
    params:
      item: *item
    checks:
      - sql: SELECT 1 FROM orders WHERE item = :item
        message: {ja: 注文にありません, en: was not ordered}
        offer: SELECT item FROM orders ORDER BY id
    sql: DELETE FROM orders WHERE item = :item
  add_item:
    description: {ja: 商品を足します, en: add an item to the shop}
    mode: write
    roles: [admin]
    params:
      name: {type: string, required: true, description: {ja: 商品名, en: its name}}
    sql: INSERT INTO items (name) VALUES (:name)
  special:
    description: {ja: 本日のおすすめ, en: today's special}
    roles: [admin]
    params:
      item:
        type: enum
        required: true
        description: {ja: おすすめ, en: a special}
        enum: {query: SELECT item FROM specials ORDER BY item}
    sql: SELECT item FROM specials WHERE item = :item
"""

KITCHEN = """catalog: kitchen
description: {ja: 厨房, en: the kitchen}
roles:
  admin: {all_rows: true}
tools:
  todays_special:
    description: {ja: 本日のおすすめ, en: today's special}
    roles: [admin]
    params:
      item:
        type: enum
        required: true
        description: {ja: おすすめ, en: a special}
        enum: {query: SELECT item FROM specials ORDER BY item}
    sql: SELECT item FROM specials WHERE item = :item
  drop_item:
    description: {ja: 商品をやめます, en: take an item off the shop}
    mode: write
    roles: [admin]
    params:
      name: {type: string, required: true, description: {ja: 商品名, en: its name}}
    sql: DELETE FROM items WHERE name = :name
"""

TRIGGERS = {  # an order of ケーキ makes it a special
    "sqlite": ["CREATE TRIGGER more AFTER INSERT ON orders WHEN NEW.item = 'ケーキ' "
               "BEGIN INSERT INTO specials (item) VALUES ('ケーキ'); END"],
    "postgresql": ["CREATE FUNCTION more() RETURNS trigger AS $$ BEGIN IF NEW.item = 'ケーキ' THEN "
                   "INSERT INTO specials (item) VALUES ('ケーキ'); END IF; RETURN NEW; END $$ LANGUAGE plpgsql",
                   "CREATE TRIGGER more AFTER INSERT ON orders FOR EACH ROW EXECUTE FUNCTION more()"],
    "mysql": ["CREATE TRIGGER more AFTER INSERT ON orders FOR EACH ROW BEGIN IF NEW.item = 'ケーキ' THEN "
              "INSERT INTO specials (item) VALUES ('ケーキ'); END IF; END"],
}


def _tables(url: str) -> None:
    engine = sa.create_engine(url)
    meta = sa.MetaData()
    sa.Table("items", meta, sa.Column("name", sa.String(40), primary_key=True))
    sa.Table("orders", meta, sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
             sa.Column("item", sa.String(40), nullable=False))
    sa.Table("specials", meta, sa.Column("item", sa.String(40), sa.ForeignKey("items.name", ondelete="CASCADE"),
                                         primary_key=True))
    with engine.begin() as conn:
        meta.create_all(conn)
        conn.execute(sa.text("INSERT INTO items (name) VALUES ('ケーキ'), ('パン'), ('プリン')"))
        conn.execute(sa.text("INSERT INTO specials (item) VALUES ('プリン')"))
    engine.dispose()


@pytest.fixture
def url(any_db_url) -> str:
    _tables(any_db_url)
    return any_db_url


@pytest.fixture
def shop(url, tmp_path):
    (tmp_path / "shop.yaml").write_text(CATALOG, encoding="utf-8")
    (tmp_path / "kitchen.yaml").write_text(KITCHEN, encoding="utf-8")
    pipeline = open_pipeline([str(tmp_path / "shop.yaml"), str(tmp_path / "kitchen.yaml")], url)
    users.add(pipeline.state, ADMIN.name, ADMIN.role)
    yield pipeline
    pipeline.close()


def _items(p: Pipeline) -> list[str]:
    return p.guard_context("order_item").enum_values["SELECT name FROM items ORDER BY name"]


def _behind_its_back(url: str, sql: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text(sql))
    engine.dispose()


def test_a_new_item_is_valid_at_once_after_the_write_that_adds_it(shop):
    assert shop.invoke("order_item", {"item": "ドーナツ"}, ADMIN).status == "refused"
    assert shop.invoke("add_item", {"name": "ドーナツ"}, ADMIN).status == "ok"
    assert shop.invoke("order_item", {"item": "ドーナツ"}, ADMIN).status == "ok"


def test_an_order_written_to_its_own_table_keeps_the_items_read(shop, url):
    """Also where a check of another write reads the orders (what can be collected): the check runs at its call,
    and no value the guard keeps is read from the orders."""
    assert _items(shop) == ["ケーキ", "パン", "プリン"]
    _behind_its_back(url, "INSERT INTO items (name) VALUES ('ワッフル')")  # not seen until the items are read again
    assert shop.invoke("order_item", {"item": "パン"}, ADMIN).status == "ok"
    assert _items(shop) == ["ケーキ", "パン", "プリン"]  # kept: the order cannot have changed them
    assert shop.invoke("add_item", {"name": "ドーナツ"}, ADMIN).status == "ok"
    assert _items(shop) == ["ケーキ", "ドーナツ", "パン", "プリン", "ワッフル"]  # read again


def test_a_trigger_on_the_table_written_counts_as_a_write_of_what_it_changes(shop, url):
    dialect = sa.make_url(url).get_backend_name()
    for sql in TRIGGERS[dialect]:
        _behind_its_back(url, sql)
    assert shop.invoke("special", {"item": "ケーキ"}, ADMIN).status == "refused"
    assert shop.invoke("order_item", {"item": "ケーキ"}, ADMIN).status == "ok"
    assert shop.invoke("special", {"item": "ケーキ"}, ADMIN).status == "ok"


def test_a_key_that_deletes_with_its_row_counts_as_a_write_of_its_table(shop):
    """The kitchen's facts read the specials alone; dropping an item deletes its special by the key."""
    assert shop.invoke("todays_special", {"item": "プリン"}, ADMIN).status == "ok"
    assert shop.invoke("drop_item", {"name": "プリン"}, ADMIN).status == "ok"
    assert shop.invoke("todays_special", {"item": "プリン"}, ADMIN).status == "refused"  # gone with its item


@pytest.mark.parametrize(("statements", "written"), [
    (["INSERT INTO lines (item) SELECT code FROM menu WHERE name = :item "
      "ON CONFLICT (item) DO UPDATE SET n = lines.n + 1"], {"lines"}),  # the menu is only read
    (["UPDATE public.\"Orders\" SET n = 1 WHERE id = :id"], {"orders"}),
    (["WITH gone AS (DELETE FROM a RETURNING *) INSERT INTO b SELECT * FROM gone"], {"a", "b"}),
    (["SELECT 'end' AS action"], set()),
    (["SELECT place_order(:id)"], None),  # a function of the database may write anywhere
    (["UPDATE a SET n = 1 FROM b WHERE a.id = b.id"], None),
    (["CALL place_order(1)"], None),
    (["this is no sql"], None),
])
def test_the_tables_a_write_changes_are_read_from_its_statements(statements, written):
    found = tables_written(tuple(statements), "postgresql")
    assert found == (None if written is None else frozenset(written))


def test_a_database_it_does_not_know_changes_anything():
    assert tables_written(("DELETE FROM a",), "oracle") is None
    assert tables_read(("SELECT name FROM a JOIN b ON a.id = b.id",), "sqlite") == frozenset({"a", "b"})


def _one_catalog(url: str, tmp_path, read_from: str, write_to: str) -> Pipeline:
    """A catalog whose values are read from `read_from` and whose one write adds a name to `write_to`."""
    (tmp_path / "names.yaml").write_text(f"""catalog: names
description: {{ja: 名前, en: names}}
roles:
  admin: {{all_rows: true}}
tools:
  pick:
    description: {{ja: 名前を選びます, en: pick a name}}
    roles: [admin]
    params:
      name:
        type: enum
        required: true
        description: {{ja: 名前, en: a name}}
        enum: {{query: SELECT name FROM {read_from} ORDER BY name}}
    sql: SELECT :name AS name
  add_name:
    description: {{ja: 名前を足します, en: add a name}}
    mode: write
    roles: [admin]
    params:
      name: {{type: string, required: true, description: {{ja: 名前, en: a name}}}}
    sql: INSERT INTO {write_to} (name) VALUES (:name)
""", encoding="utf-8")
    pipeline = open_pipeline([str(tmp_path / "names.yaml")], url)
    users.add(pipeline.state, ADMIN.name, ADMIN.role)
    return pipeline


def _added_is_valid(p: Pipeline) -> bool:
    assert p.invoke("pick", {"name": "ドーナツ"}, ADMIN).status == "refused"
    assert p.invoke("add_name", {"name": "ドーナツ"}, ADMIN).status == "ok"
    return p.invoke("pick", {"name": "ドーナツ"}, ADMIN).status == "ok"


def test_values_read_through_a_view_are_read_again_after_a_write_of_any_table(url, tmp_path):
    _behind_its_back(url, "CREATE VIEW on_sale AS SELECT name FROM items")
    p = _one_catalog(url, tmp_path, read_from="on_sale", write_to="items")
    try:
        assert _added_is_valid(p)
    finally:
        p.close()


@pytest.mark.postgres
def test_a_row_written_to_a_partition_is_read_through_its_parent(pg_url, tmp_path):
    _behind_its_back(pg_url, "CREATE TABLE names (name text)")
    _behind_its_back(pg_url, "CREATE TABLE names_new () INHERITS (names)")
    p = _one_catalog(pg_url, tmp_path, read_from="names", write_to="names_new")
    try:
        assert _added_is_valid(p)
    finally:
        p.close()
