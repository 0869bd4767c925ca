"""What a newcomer checks in the first minutes: the version, and the page answering a HEAD like a GET."""

from __future__ import annotations

from importlib.metadata import version

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
