"""`concierge init`: what it finds, what it writes, and that it never overwrites what a person edited."""

from __future__ import annotations

import tomllib

import draft_shop
import pytest
import sqlalchemy as sa
from cli_runner import run_cli

from concierge.catalog.loader import load_catalog
from concierge.cli.init_cmd import settings_url


def _init(*args: str):
    return run_cli("init", *args, catch_exceptions=False)


@pytest.mark.parametrize("url_fixture", ["sqlite_url", pytest.param("pg_url", marks=pytest.mark.postgres),
                                         pytest.param("mysql_url", marks=pytest.mark.mysql)])
def test_init_writes_the_settings_and_a_catalog_that_loads(request, url_fixture, tmp_path):
    url = request.getfixturevalue(url_fixture)
    draft_shop.create(url)
    desk = tmp_path / "shopdesk"
    result = _init("--database", url, "--dir", str(desk), "--name", "shop")
    assert result.exit_code == 0, result.output
    rows = sum(len(r) for r in draft_shop.rows()) + len(draft_shop.REGIONS)
    assert f"Found 3 table(s) and 1 view(s), {rows:,} rows" in result.output
    assert "concierge catalog check" in result.output and "concierge user add" in result.output
    assert 'concierge ask "How many orders do we have?"' in result.output
    settings = tomllib.loads((desk / "concierge.toml").read_text(encoding="utf-8"))
    assert settings["name"] == "shop" and settings["lang"] == "en"
    assert settings["state_database"] == "sqlite:///state.db"  # apart from the business data
    assert settings["catalogs"] == ["catalogs/shop.yaml"]
    assert sa.make_url(settings["database"]).database == sa.make_url(url).database
    catalog = load_catalog(str(desk / "catalogs" / "shop.yaml"))
    assert {"customers", "orders", "orders_summary", "regions", "big_orders"} <= set(catalog.tools)


def test_the_name_defaults_to_the_database_and_a_missing_file_is_an_error(tmp_path):
    url = f"sqlite:///{tmp_path / 'corner_shop.db'}"
    draft_shop.create(url)
    result = _init("--database", url, "--dir", str(tmp_path / "desk"))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "desk" / "catalogs" / "corner_shop.yaml").is_file()
    missing = run_cli(*["init", "--database", f"sqlite:///{tmp_path / 'nope.db'}",
                                        "--dir", str(tmp_path / "x")])
    assert missing.exit_code == 2 and "no SQLite database at" in missing.output
    assert not (tmp_path / "nope.db").exists() and not (tmp_path / "x").exists()


def test_rerunning_init_keeps_an_edited_file_and_updates_an_untouched_one(tmp_path):
    url = f"sqlite:///{tmp_path / 'shop.db'}"
    draft_shop.create(url)
    desk = tmp_path / "desk"
    catalog = desk / "catalogs" / "shop.yaml"
    assert _init("--database", url, "--dir", str(desk)).exit_code == 0
    again = _init("--database", url, "--dir", str(desk))
    assert f"Wrote {catalog} (unchanged)" in again.output

    engine = sa.create_engine(url)  # the schema changes
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE suppliers (id INTEGER PRIMARY KEY, name TEXT)"))
    engine.dispose()
    updated = _init("--database", url, "--dir", str(desk))
    assert f"Wrote {catalog} (updated)" in updated.output
    assert "suppliers" in load_catalog(str(catalog)).tools

    edited = catalog.read_text(encoding="utf-8").replace("Find customers", "Look up our customers")
    catalog.write_text(edited, encoding="utf-8")
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE staff_notes (id INTEGER PRIMARY KEY, title TEXT)"))
    engine.dispose()
    kept = _init("--database", url, "--dir", str(desk))
    beside = desk / "catalogs" / "shop.draft.yaml"
    assert kept.exit_code == 0 and f"Kept {catalog} as you edited it; the new draft is {beside}" in kept.output
    assert catalog.read_text(encoding="utf-8") == edited
    assert "staff_notes" in load_catalog(str(beside)).tools and "staff_notes" not in load_catalog(str(catalog)).tools


def test_the_settings_keep_no_password_and_an_absolute_sqlite_path(tmp_path, monkeypatch):
    assert settings_url("postgresql://shop_ro:secret@db.example/shop") == "postgresql+psycopg://shop_ro@db.example/shop"
    (tmp_path / "shop.db").write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    assert settings_url("sqlite:///shop.db") == f"sqlite:///{tmp_path / 'shop.db'}"
