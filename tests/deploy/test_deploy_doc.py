"""docs/deploy.md's nginx config proxies the way the tested one does, and nothing links the old deployment.md."""

from __future__ import annotations

import re
from pathlib import Path

from proxy_harness import NGINX_CONF

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "deploy.md"


def _directives(block: str) -> set[str]:
    lines = (" ".join(line.split()) for line in block.splitlines())
    return {line for line in lines if line.startswith("proxy_") and not line.startswith("proxy_temp_path")}


def test_the_documented_nginx_location_has_every_proxy_directive_of_the_tested_one():
    tested = _directives(NGINX_CONF) - {"proxy_pass http://$pool;"}  # the test's pinning map
    nginx_blocks = re.findall(r"```nginx\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    documented = _directives(nginx_blocks[0]) - {"proxy_pass http://concierge;"}
    assert documented == tested
    assert "proxy_buffering off;" in documented  # the chat's event streams pass event by event


def test_no_file_links_the_old_deployment_page():  # CHANGELOG.md keeps its history
    assert not (ROOT / "docs" / "deployment.md").exists()
    files = [*ROOT.glob("README.md"), *ROOT.glob("docs/*.md"), *ROOT.glob("src/**/*.py"), *ROOT.glob("bench/*.md")]
    assert [str(f.relative_to(ROOT)) for f in files if "deployment.md" in f.read_text(encoding="utf-8")] == []
