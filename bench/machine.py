"""The machine a benchmark's figures are taken on, printed beside them. On shared cores the load average moves
every timing, so each table says the load it was taken under: `machine.header()` above it, and a `load` column
(`machine.LOAD`, `machine.load()`) on every row, read when that row's figures were finished.

    sys.path.insert(0, str(Path(__file__).resolve().parent))   # bench/, where a script run as a file has it
    import machine
    print(machine.header())
    print(f"{'what':10} {'p50 ms':>8} {machine.LOAD}")
    print(f"{name:10} {p50:8.2f} {machine.load()}")
"""

from __future__ import annotations

import os
import sys

LOAD = f"{'load':>5}"  # the heading of the column `load()` fills


def load() -> str:
    """The 1-minute load average now, as a column under `LOAD`."""
    return f"{os.getloadavg()[0]:>5.1f}"


def load_average() -> str:
    """The 1-, 5- and 15-minute load averages now, in words: 'load average 1.3 0.7 0.3 on 2 cores'."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} {five:.1f} {fifteen:.1f} on {os.cpu_count()} cores"


def header() -> str:
    """The line above a table: Python's version, the cores and the load averages."""
    return f"Python {sys.version.split()[0]}, {load_average()}"
