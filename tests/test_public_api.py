"""The package's public surface: a name removed or renamed here breaks someone's code."""

import subprocess
import sys
import tomllib
from pathlib import Path

import concierge

PUBLIC = [
    "__version__", "Pipeline", "ToolResult", "Rows", "Confirmation", "Refusal", "Failure", "User", "Database",
    "Catalog", "load_catalogs",
    "ConciergeError", "CatalogError", "ConfigError", "DatabaseError", "ProviderError",
    "Provider", "Capabilities", "ModelRequest", "ModelReply", "ToolCall", "Demo",
]


def test_the_public_names_are_exactly_these_and_each_resolves():
    assert sorted(concierge.__all__) == sorted(PUBLIC)
    assert sorted(concierge._EXPORTS) == sorted(set(PUBLIC) - {"__version__"})
    for name in PUBLIC:
        assert getattr(concierge, name) is not None, name


def test_the_version_is_the_one_the_package_is_built_with():
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    assert concierge.__version__ == pyproject["project"]["version"]


def test_an_unknown_name_is_an_attribute_error():
    try:
        concierge.NoSuchThing  # noqa: B018
    except AttributeError as err:
        assert "NoSuchThing" in str(err)
    else:
        raise AssertionError("concierge.NoSuchThing resolved")


def test_importing_the_package_loads_no_database_driver():
    code = "import sys, concierge; print('sqlalchemy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_provider_is_written_against_the_exported_base_class():
    from concierge.agent.providers.offline import OfflineProvider
    from concierge.plugins import Demo

    assert issubclass(OfflineProvider, concierge.Provider)
    assert OfflineProvider.capabilities == concierge.Capabilities(streams=False, reads_context=False, local=True)
    assert concierge.ModelReply(tool_calls=[concierge.ToolCall("c1", "t", {})]).tool_calls[0].name == "t"
    assert concierge.Demo is Demo


def test_the_package_ships_its_type_information():
    """PEP 561: a type checker reads the package's annotations only when `py.typed` is installed beside it."""
    assert (Path(concierge.__file__).parent / "py.typed").is_file()
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in pyproject["tool"]["setuptools"]["package-data"]["concierge"]
