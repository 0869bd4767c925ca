"""The offline planner's time per turn over the repository's case sets, against an anchor checkout.

    git worktree add /tmp/before <commit>
    .venv/bin/python bench/planner_turns.py --before /tmp/before          # two rounds, interleaved

Each case set (`tests/**/*.jsonl` of this checkout, settings folders such as the inn's excluded) is run by
`concierge eval --json` with this checkout's code and with the anchor's (`PYTHONPATH=<before>/src`), one after
the other, twice.
Printed per set and round: the planner's p50 per turn (`provider_ms_p50`: Planner.reply, both passes), the p50
of the whole turn (the tool calls too), and the turns passed, side by side, then the ratio now / anchor. No
figure is asserted anywhere.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import machine  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _run(cases: Path, src: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run([sys.executable, "-m", "concierge", "eval", str(cases), "--json"], capture_output=True,
                         text=True, env=env, cwd=ROOT)
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="a checkout of the anchor commit")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    sets = sorted(p for p in ROOT.glob("tests/**/*.jsonl") if not (p.parent / "concierge.toml").exists())
    print(machine.header())
    print(f"{'set':32} {'round':>5} {'planner p50 now':>16} {'anchor':>8} {'turn p50 now':>13} {'anchor':>8} "
          f"{'passed now':>11} {'anchor':>7} {'planner ratio':>14} {machine.LOAD}")
    for rnd in range(1, args.rounds + 1):
        for cases in sets:
            now, before = _run(cases, ROOT / "src"), _run(cases, args.before / "src")
            ratio = now["provider_ms_p50"] / before["provider_ms_p50"] if before["provider_ms_p50"] else float("nan")
            print(f"{cases.name:32} {rnd:>5} {now['provider_ms_p50']:>14.2f}ms {before['provider_ms_p50']:>6.2f}ms "
                  f"{now['turn_ms_p50']:>11.2f}ms {before['turn_ms_p50']:>6.2f}ms "
                  f"{now['turns_passed']:>5}/{now['turns']:<5} {before['turns_passed']:>7} {ratio:>13.2f}x "
                  f"{machine.load()}", flush=True)


if __name__ == "__main__":
    main()
