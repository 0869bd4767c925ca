"""What a newcomer checks in the first minutes: the version, the page answering a HEAD like a GET, the README's
way to the command and its screenshots, and an install without deprecation warnings."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from pathlib import Path

from cli_runner import run_cli


def test_concierge_says_its_version():
    result = run_cli("--version")
    assert result.exit_code == 0 and result.output.strip() == f"concierge {version('concierge')}"


def test_head_of_the_page_answers_like_get(web):
    _pipeline, client = web
    c = client()
    got, head = c.get("/"), c.head("/")
    assert head.status_code == got.status_code == 200
    assert head.headers["content-type"] == got.headers["content-type"] and head.content == b""


def test_the_readme_says_how_to_reach_the_command_and_shows_the_page():
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text("utf-8")
    assert "source .venv/bin/activate" in readme[: readme.index("## Use your own database")]
    shown = re.findall(r"\]\((docs/screenshots/[^)]+\.png)\)", readme)
    assert len(shown) >= 3 and all((root / path).exists() for path in shown)
    assert "(docs/faq.md)" in readme


def test_the_package_metadata_installs_without_the_deprecated_license_table():
    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text("utf-8"))
    assert isinstance(project["project"]["license"], str)  # PEP 639: the table form fails from 2027-02-18
    assert any(r.startswith("setuptools>=77") for r in project["build-system"]["requires"])
