"""Settings: concierge.toml, then CONCIERGE_* variables, then flags; where each value came from."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_project import concierge
from mcp import Client, StdioServerParameters

from concierge.errors import ConfigError
from concierge.settings import load_settings


def shown(*args: str) -> dict:
    result = concierge(*args, "config", "show", "--json") if args[:1] == ("--config",) else concierge(
        "config", "show", "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_flag_wins_over_the_environment_which_wins_over_the_file(project, monkeypatch):
    (project / "concierge.toml").write_text(
        'database = "sqlite:///file.db"\ncatalogs = ["pos"]\n[provider]\nname = "openai-chat"\nmodel = "from-file"\n'
        '[web]\nport = 8100\n', encoding="utf-8")
    monkeypatch.setenv("CONCIERGE_MODEL", "from-env")
    monkeypatch.setenv("CONCIERGE_CATALOGS", "farm, pos")

    out = shown("--model", "from-flag")
    values, sources = out["settings"], out["sources"]
    assert (values["database"], sources["database"]) == (f"sqlite:///{project / 'file.db'}",
                                                         f"file {project / 'concierge.toml'}")
    assert (values["provider.name"], values["provider.model"]) == ("openai-chat", "from-flag")
    assert (sources["provider.model"], sources["catalogs"]) == ("flag", "env CONCIERGE_CATALOGS")
    assert values["catalogs"] == ["farm", "pos"]
    assert (values["web.port"], values["web.host"], sources["web.host"]) == (8100, "127.0.0.1", "default")

    monkeypatch.delenv("CONCIERGE_CATALOGS")
    assert shown()["settings"]["catalogs"] == ["pos"] and shown()["settings"]["provider.model"] == "from-env"


def test_the_file_is_found_in_a_parent_folder_and_its_relative_paths_are_its_own(project, monkeypatch):
    deep = project / "reports" / "2026"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    out = shown()
    assert out["file"] == str(project / "concierge.toml")
    assert out["settings"]["database"] == f"sqlite:///{project / 'shop.db'}"
    assert out["settings"]["catalogs"] == [str(project / "catalogs" / "shop.yaml")]
    assert out["settings"]["name"] == "shop"

    listed = concierge("tools", "list")
    assert listed.exit_code == 0, listed.output
    assert "count_one" in listed.output and "get_customers" not in listed.output


def test_config_names_the_file_as_a_flag_or_in_the_environment(project, tmp_path, monkeypatch):
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "settings.toml").write_text('catalogs = ["farm"]\ntoday = 2025-05-01\n', encoding="utf-8")
    out = shown("--config", str(other / "settings.toml"))
    assert (out["settings"]["catalogs"], out["settings"]["today"]) == (["farm"], "2025-05-01")
    assert out["sources"]["today"] == f"file {other / 'settings.toml'}"

    monkeypatch.setenv("CONCIERGE_CONFIG", str(other / "settings.toml"))
    assert shown()["file"] == str(other / "settings.toml")

    missing = concierge("--config", str(tmp_path / "nope.toml"), "config", "show")
    assert missing.exit_code == 2 and f"no settings file {tmp_path / 'nope.toml'}" in missing.output


@pytest.mark.parametrize("text, key", [
    ('databse = "sqlite:///shop.db"\n', "'databse'"),
    ('[web]\nprot = 8000\n', "'web.prot'"),
    ('[webb]\nport = 8000\n', "'webb'"),
])
def test_a_typo_in_the_file_is_an_error_naming_file_and_key(project, text, key):
    (project / "concierge.toml").write_text(text, encoding="utf-8")
    result = concierge("tools", "list")
    assert result.exit_code == 2
    assert f"{project / 'concierge.toml'}: unknown key {key}" in result.output and "Traceback" not in result.output


def test_an_api_key_in_the_file_is_refused_and_not_repeated(project):
    (project / "concierge.toml").write_text('[provider]\nname = "anthropic"\napi_key = "sk-ant-secret-123"\n',
                                            encoding="utf-8")
    result = concierge("config", "show")
    assert result.exit_code == 2
    assert "provider.api_key" in result.output and "ANTHROPIC_API_KEY" in result.output
    assert "environment" in result.output and "sk-ant-secret-123" not in result.output


def test_a_bad_value_says_which_key_and_where_it_came_from(project, monkeypatch):
    monkeypatch.setenv("CONCIERGE_WEB_PORT", "eighty")
    result = concierge("config", "show")
    assert result.exit_code == 2
    assert "web.port" in result.output and "env CONCIERGE_WEB_PORT" in result.output
    (project / "concierge.toml").write_text('[provider]\nname = "opneai"\n', encoding="utf-8")
    monkeypatch.delenv("CONCIERGE_WEB_PORT")
    result = concierge("config", "show")
    assert result.exit_code == 2 and "unknown provider 'opneai'" in result.output


def test_config_show_masks_passwords_and_api_keys(project, monkeypatch):
    (project / "concierge.toml").write_text(
        'database = "postgresql://shop_ro:s3cret-pw@db.example:5432/shop"\n'
        'state_database = "postgresql://concierge:other-pw@db.example/state"\n', encoding="utf-8")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-value-456")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for args in ([], ["--json"]):
        result = concierge("config", "show", *args)
        assert result.exit_code == 0, result.output
        assert "s3cret-pw" not in result.output and "other-pw" not in result.output
        assert "sk-ant-value-456" not in result.output
        assert "postgresql://shop_ro:***@db.example:5432/shop" in result.output
    api_keys = json.loads(result.stdout)["api_keys"]
    assert (api_keys["ANTHROPIC_API_KEY"], api_keys["OPENAI_API_KEY"]) == ("set", "unset")


def test_without_a_file_both_demos_on_the_embedded_database(tmp_path):
    settings = load_settings(environ={}, cwd=tmp_path)
    assert settings.file is None and settings.catalogs == ["farm", "pos"]
    assert settings.database.startswith("sqlite:///") and settings.database.endswith("concierge/concierge.db")
    assert settings.provider.name == "offline" and settings.state_database is None
    assert settings.sources["database"].startswith("default")


def test_every_command_uses_the_settings_catalogs_and_a_flag_overrides(project):
    assert concierge("user", "add", "yamada", "--role", "staff", "--no-password").exit_code == 0
    refused = concierge("invoke", "get_customers", '{"code_customer": "0001"}', "--user", "yamada")
    assert refused.exit_code == 1 and "there is no tool 'get_customers'" in refused.output
    ran = concierge("invoke", "count_one", "--user", "yamada", "--json")
    assert ran.exit_code == 0 and json.loads(ran.stdout)["rows"] == [{"one": 1}]
    only = concierge("invoke", "count_one", "--json")  # no --user, no admin: the only user there is
    assert only.exit_code == 0, only.output
    assert concierge("audit", "--json").stdout.count('"user_name": "yamada"') == 3
    assert concierge("user", "add", "sato", "--role", "owner", "--no-password").exit_code == 0
    which = concierge("invoke", "count_one")
    assert which.exit_code == 2 and "unknown user 'admin'; users: sato, yamada" in which.output
    farm = concierge("invoke", "get_customers", '{"code_customer": "0001"}', "--catalog", "farm", "--json")
    assert farm.exit_code == 0, farm.output
    assert json.loads(farm.stdout)["row_count"] == 1
    assert (project / "shop.db").exists()  # the file's database, beside the file


def test_settings_read_from_the_environment_without_a_file(tmp_path):
    environ = {"CONCIERGE_DATABASE": "sqlite:///rel.db", "CONCIERGE_WEB_ALLOWED_HOSTS": "a.example, b.example",
               "CONCIERGE_WEB_SECURE_COOKIE": "true", "CONCIERGE_TODAY": "2025-05-15", "CONCIERGE_LANG": "ja"}
    settings = load_settings(environ=environ, cwd=tmp_path)
    assert settings.database == f"sqlite:///{tmp_path / 'rel.db'}"
    assert settings.web.allowed_hosts == ("a.example", "b.example") and settings.web.secure_cookie is True
    assert str(settings.today) == "2025-05-15" and settings.lang == "ja"
    with pytest.raises(ConfigError, match="CONCIERGE_WEB_SECURE_COOKIE='maybe': expected true or false"):
        load_settings(environ={"CONCIERGE_WEB_SECURE_COOKIE": "maybe"}, cwd=tmp_path)


@pytest.mark.anyio
async def test_mcp_config_in_a_project_folder_starts_from_any_folder(project, tmp_path):
    unknown = concierge("mcp", "config", "--client", "claude-desktop")
    assert unknown.exit_code == 0 and "the server acts as 'admin', who does not exist yet" in unknown.stderr
    assert concierge("user", "add", "yamada", "--role", "staff", "--no-password").exit_code == 0
    printed = concierge("mcp", "config", "--client", "claude-desktop")  # the only user: yamada
    assert printed.exit_code == 0, printed.output
    assert "warning" not in printed.stderr
    entry = json.loads(printed.stdout)["mcpServers"]["concierge"]
    args = entry["args"]
    assert args[args.index("--user") + 1] == "yamada"
    assert args[args.index("--config") + 1] == str(project / "concierge.toml")
    assert str(project / "catalogs" / "shop.yaml") in args
    assert entry["env"] == {"CONCIERGE_DATABASE": f"sqlite:///{project / 'shop.db'}"}

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    host = StdioServerParameters(command=entry["command"], args=entry["args"], cwd=elsewhere,
                                 env={"PATH": os.environ["PATH"], **entry["env"]})
    async with Client(host) as client:
        listed = await client.list_tools()
        called = await client.call_tool("count_one", {})
    assert [t.name for t in listed.tools] == ["count_one"]
    assert called.structured_content["rows"] == [{"one": 1}]


def test_every_key_and_its_variable_is_documented():
    from concierge.settings import env_variable, keys

    text = (Path(__file__).resolve().parents[2] / "docs" / "settings.md").read_text(encoding="utf-8")
    assert [k for k in keys() if f"| `{k}` | `{env_variable(k)}`" not in text] == []
