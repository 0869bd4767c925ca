"""The first request a planner answers costs no one-time load: e2k's models (English read in katakana, 0.3-1 s)
load as the planner starts where a value is written in katakana, and never where none is (the budget of a request
on a busy machine once ran out on that load alone: 0.8 s of CPU in 6.35 s)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

FIRST_REQUEST = textwrap.dedent("""
    import asyncio, sys
    from concierge.agent.loop import Agent
    from concierge.agent.providers.offline import OfflineProvider
    from concierge.demo.bootstrap import open_pipeline

    domain, url, text = sys.argv[1:]
    pipeline = open_pipeline([domain], url)
    agent = Agent(pipeline, OfflineProvider(pipeline))
    loaded_at_start = "e2k" in sys.modules
    result = asyncio.run(agent.ask(text, pipeline.user("admin")))
    print(loaded_at_start, "e2k" in sys.modules, result.answer)
""")


def _first(tmp_path, domain: str, text: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", FIRST_REQUEST, domain, f"sqlite:///{tmp_path / 'd.db'}", text],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split(maxsplit=2)


def test_a_catalog_with_no_katakana_value_never_loads_the_english_reader(tmp_path):
    at_start, after, answer = _first(tmp_path, "farm", "What is the phone number of customer 0003?")
    assert (at_start, after) == ("False", "False")
    assert "011-987-6543" in answer


def test_a_catalog_with_katakana_values_loads_it_before_the_first_request(tmp_path):
    at_start, _, answer = _first(tmp_path, "pos", "How many orange juices sold last week?")
    assert at_start == "True", "e2k loaded inside the first English request, within its budget"
    assert "オレンジジュース" in answer
