"""The offline planner's time against the length of a message: adversarial inputs at 250, 1,000, 4,000 characters.

    .venv/bin/python bench/planner_length.py                       # every catalog and kind, two rounds
    .venv/bin/python bench/planner_length.py --catalog pos --kind ranking --lengths 250,1000,4000
    .venv/bin/python bench/planner_length.py --max-s 3             # skip longer lengths of a kind once one took 3 s

Each demo catalog (farm, pos, restaurant on a fresh SQLite file in a temporary folder; home against the
SwitchBot simulator in a thread) plans messages built from one kind of input, repeated or drawn up to the
length: ranking words (売上ランキング, ランキング + space), Latin letters (a + space), kana, amounts (1万),
times (7時 + space), and a seeded random mix of the catalog's own values read from the data, numbers, dates,
periods and particles. Time is `concierge.planner.plan.build` on a fresh context (no plan cache, no budget:
the planner's own work, as a message that varies its text costs), wall clock, one call per cell; each round
plans other texts (the repeated unit starts further into itself, the mix has another seed), as an attacker
varying the text would.

Interleaved: every cell is timed right after the catalog's anchor (a normal short request, e.g. 先週の売上), so
both see the same load; the whole table is measured twice (--rounds). Printed per cell: ms, the anchor's ms
(median of the round), µs per character, the time as a multiple of the anchor, and the growth exponent from
the previous length (log(t2/t1) / log(n2/n1): 1 is linear, 2 quadratic). No figure is asserted anywhere.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import date
from pathlib import Path

import machine

from concierge.demo.bootstrap import open_pipeline
from concierge.pipeline.pipeline import Pipeline
from concierge.planner.lexicon import Lexicon
from concierge.planner.plan import Context, Memory, build
from concierge.planner.text import normalise

CATALOGS = ("farm", "pos", "restaurant", "home")
TODAY = {"farm": date(2025, 5, 15), "pos": date(2026, 8, 31)}  # the clocks of the eval cases
ANCHORS = {"farm": "先週の売上を教えて", "pos": "先週の売上ランキング", "restaurant": "唐揚げ弁当を2つください",
           "home": "リビングの電気をつけて"}
LENGTHS = (250, 1000, 4000)
SEED = 7
MIX_WORDS = ("先週", "先月", "今月", "昨日", "4月10日", "2025-05-01", "3個", "2つ", "1,500円", "0009", "7時", "18時半",
             "の", "と", "を", "は", "で", "に", "、", "。", " ", "売上", "ランキング", "比べて", "top 3", "and")


Make = Callable[[int, int], str]  # (length, variant) -> a message: each round plans texts it has not seen


def repeated(unit: str) -> Make:
    """The unit over and over, starting `variant` characters into it."""
    return lambda n, variant: (unit * (n // len(unit) + 2))[variant % len(unit):][:n]


def mixed(values: list[str]) -> Make:
    """Values of the catalog's data, numbers, dates and particles, drawn with a seed of the variant."""
    def make(n: int, variant: int) -> str:
        rng, out = random.Random(SEED + variant), ""
        while len(out) < n:
            out += rng.choice(values) if values and rng.random() < 0.4 else rng.choice(MIX_WORDS)
        return out[:n]
    return make


def kinds(values: list[str]) -> dict[str, Make]:
    return {"ranking": repeated("売上ランキング"), "ranking+space": repeated("ランキング "), "latin": repeated("a "),
            "kana": repeated("あいうえおかきくけこ"), "amounts": repeated("1万"), "times": repeated("7時 "),
            "mix": mixed(values)}


class Catalog:
    """One demo catalog's planner, as `Planner` builds a plan, without its cache."""

    def __init__(self, name: str, pipeline: Pipeline):
        self.name, self.pipeline = name, pipeline
        self.lexicon = Lexicon(pipeline.tools)
        facts = pipeline.guard_context()
        self.enum_values = {k: list(v) for k, v in facts.enum_values.items()}
        self.enum_synonyms = {k: dict(v) for k, v in facts.enum_synonyms.items()}
        self.values = [v for vs in self.enum_values.values() for v in vs]
        self.anchor = ANCHORS[name]

    def seconds(self, text: str) -> float:
        ctx = Context(self.lexicon, set(self.pipeline.tools), self.pipeline.today(), dict(self.enum_values),
                      Memory(), enum_synonyms=self.enum_synonyms)
        started = time.perf_counter()
        build(normalise(text), ctx)
        return time.perf_counter() - started


@contextmanager
def opened(names: list[str], folder: Path) -> Iterator[list[Catalog]]:
    with ExitStack() as stack:
        out = []
        for name in names:
            if name == "home":  # its devices are read from the SwitchBot API: the simulator's
                from concierge.demo.home.simulator import running

                simulator = stack.enter_context(running())
                os.environ.update(simulator.environment())
            pipeline = open_pipeline([name], f"sqlite:///{folder / (name + '.db')}", today=TODAY.get(name))
            stack.callback(pipeline.close)
            out.append(Catalog(name, pipeline))
        yield out


def measure(catalog: Catalog, make: Make, variant: int, lengths: list[int], max_s: float
            ) -> list[tuple[int, float | None, float]]:
    """(length, seconds or None when skipped, the anchor's seconds timed just before) per length."""
    out: list[tuple[int, float | None, float]] = []
    slow = False
    for n in lengths:
        anchor = catalog.seconds(catalog.anchor)
        out.append((n, None if slow else catalog.seconds(make(n, variant)), anchor))
        slow = slow or (out[-1][1] or 0) > max_s
    return out


def print_round(number: int, catalog: Catalog, rows: dict[str, list[tuple[int, float | None, float]]]) -> None:
    anchor = statistics.median(a for cells in rows.values() for _, _, a in cells)
    print(f"\nround {number}, {catalog.name}: anchor {catalog.anchor!r} ({len(catalog.anchor)} chars) "
          f"p50 {anchor * 1000:.2f} ms")
    print(f"  {'kind':<14} {'chars':>6} {'ms':>10} {'anchor ms':>10} {'µs/char':>9} {'x anchor':>9} {'growth':>7} "
          f"{machine.LOAD}")
    for kind, cells in rows.items():
        previous: tuple[int, float] | None = None
        for n, seconds, before in cells:
            if seconds is None:
                print(f"  {kind:<14} {n:>6} {'skipped':>10} {before * 1000:>10.2f} {'':>9} {'':>9} {'':>7} "
                      f"{machine.load()}")
                continue
            growth = (f"{math.log(seconds / previous[1]) / math.log(n / previous[0]):>7.2f}"
                      if previous and previous[1] > 0 else f"{'':>7}")
            print(f"  {kind:<14} {n:>6} {seconds * 1000:>10.1f} {before * 1000:>10.2f} {seconds / n * 1e6:>9.1f} "
                  f"{seconds / before:>9.0f} {growth} {machine.load()}")
            previous = (n, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--catalog", action="append", choices=CATALOGS, help="repeatable; default: all four")
    parser.add_argument("--kind", action="append", help="repeatable; default: every kind")
    parser.add_argument("--lengths", default=",".join(map(str, LENGTHS)), help="characters, comma-separated")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--max-s", type=float, default=math.inf,
                        help="skip the longer lengths of a kind once one took longer than this (the old planner)")
    args = parser.parse_args()
    lengths = [int(n) for n in args.lengths.split(",")]
    print(f"planner_length: {machine.header()}")
    with tempfile.TemporaryDirectory() as folder, opened(args.catalog or list(CATALOGS), Path(folder)) as catalogs:
        for catalog in catalogs:  # untimed warm-up: the reading dictionary, the matchers, the regexes
            catalog.seconds(catalog.anchor)
            catalog.seconds(kinds(catalog.values)["mix"](250, 0))
        for number in range(1, args.rounds + 1):
            for catalog in catalogs:
                made = {k: f for k, f in kinds(catalog.values).items() if not args.kind or k in args.kind}
                rows = {kind: measure(catalog, make, number, lengths, args.max_s) for kind, make in made.items()}
                print_round(number, catalog, rows)


if __name__ == "__main__":
    main()
