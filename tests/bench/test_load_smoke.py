"""bench/load.py still runs: a tiny load against a real `concierge serve`, with no error and no server left."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

LOAD = Path(__file__).resolve().parents[2] / "bench" / "load.py"


def test_a_tiny_load_completes_every_request_without_an_error_and_stops_its_server():
    done = subprocess.run(
        [sys.executable, str(LOAD), "--users", "2", "--turns", "3", "--mcp-clients", "2", "--calls", "3",
         "--duration", "60"],
        capture_output=True, text=True, timeout=120,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert output.rstrip().endswith("errors: 0"), output
    # chat alone, MCP alone, then both at once: every request of every client done
    done_per_row = re.findall(r" (\d+) (turns|calls) ", output)
    assert done_per_row == [("6", "turns"), ("6", "calls"), ("6", "turns"), ("6", "calls")], output
    url = re.search(r"concierge serve on (http://127\.0\.0\.1:\d+)", output)[1]
    with pytest.raises(httpx2.TransportError):
        httpx2.get(f"{url}/api/me", timeout=2)
