"""`bench/load.py --replicas 2` still runs: a tiny load through nginx over two servers on PostgreSQL, no error,
and nothing left behind (servers, nginx, the database it made)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest
import sqlalchemy as sa

LOAD = Path(__file__).resolve().parents[2] / "bench" / "load.py"


def test_a_tiny_load_over_two_replicas_completes_without_an_error_and_leaves_nothing(pg_server, nginx_bin):
    auth = pg_server["user"] + (f":{pg_server['password']}" if pg_server["password"] else "")
    server = f"postgresql://{auth}@{pg_server['host']}:{pg_server['port']}/postgres"
    done = subprocess.run(
        [sys.executable, str(LOAD), "--replicas", "2", "--pg-url", server, "--users", "2", "--turns", "3",
         "--mcp-clients", "2", "--calls", "3", "--duration", "60"],
        capture_output=True, text=True, timeout=180,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert output.rstrip().endswith("errors: 0"), output
    done_per_row = re.findall(r" (\d+) (turns|calls) ", output)
    assert done_per_row == [("6", "turns"), ("6", "calls"), ("6", "turns"), ("6", "calls")], output
    found = re.search(r"2 x concierge serve \((http://\S+), (http://\S+)\) behind nginx on (http://\S+) "
                      r"\(fresh demo PostgreSQL \S+/(concierge_load_\w+)\)", output)
    assert found, output
    for url in found.groups()[:3]:
        with pytest.raises(httpx2.TransportError):
            httpx2.get(f"{url}/api/me", timeout=2)
    engine = sa.create_engine(server.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with engine.connect() as conn:
            left = conn.scalar(sa.text("SELECT count(*) FROM pg_database WHERE datname = :name"), {"name": found[4]})
    finally:
        engine.dispose()
    assert left == 0
