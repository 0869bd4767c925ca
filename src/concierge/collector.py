"""The garbage collector's thresholds for a process of the `concierge` command.

A request makes tens of thousands of small objects (the words of a message, its spans, the rows read), nearly
all gone when its answer is sent. With Python's default thresholds (700, 10, 10) the collector runs every 700
of them and walks every long-lived object (the catalogs, the lexicon, the dictionary) a few times a second:
6 % of a turn's time in `concierge eval`, and some turns wait 0.1 s for a full collection. Collecting the
young generation every 10,000 new objects, and the older ones more rarely, keeps what a request leaves
behind small (a few MB at most) and takes the collector out of nearly every turn (bench/planner_turns.py).
"""

from __future__ import annotations

import gc

THRESHOLDS = (10_000, 20, 20)  # new objects before a young collection; young collections before an older one


def tune() -> None:
    """Set the thresholds for this process (the `concierge` command calls it as it starts)."""
    gc.set_threshold(*THRESHOLDS)
