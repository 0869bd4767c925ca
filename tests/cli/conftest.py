"""A project folder as `concierge init` leaves one: concierge.toml beside a catalog of its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_project import SHOP_CATALOG


@pytest.fixture(autouse=True)
def _no_settings_from_the_environment(tmp_path_factory, monkeypatch):
    """The tests here decide every setting (the suite's CONCIERGE_DATABASE would win over any file);
    the embedded default lives in a folder of the test's own."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data")))
    for name in ("CONCIERGE_DATABASE", "CONCIERGE_CONFIG", "CONCIERGE_CATALOGS", "CONCIERGE_WEB_PORT",
                 "CONCIERGE_STATE_DATABASE", "CONCIERGE_PROVIDER", "CONCIERGE_MODEL", "CONCIERGE_TODAY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    """tmp_path/shop, the current folder: concierge.toml (relative paths) and catalogs/shop.yaml."""
    folder = tmp_path / "shop"
    (folder / "catalogs").mkdir(parents=True)
    (folder / "catalogs" / "shop.yaml").write_text(SHOP_CATALOG, encoding="utf-8")
    (folder / "concierge.toml").write_text(
        'name = "shop"\ndatabase = "sqlite:///shop.db"\ncatalogs = ["catalogs/shop.yaml"]\n', encoding="utf-8")
    monkeypatch.chdir(folder)
    return folder
