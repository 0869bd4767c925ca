"""Print how drafted catalogs answer on business schemas nobody here designed: right / honest / wrong.

    .venv/bin/python tests/onboarding/unseen_report.py [--backend sqlite|postgres|both] [--schema NAME] [--full]

For each schema of tests/support/business_schemas and each engine: a fresh database (a temporary
SQLite file, or a PostgreSQL database of a random name on 127.0.0.1:5432, user postgres, dropped at
the end), the schema's data, the catalog `concierge init` would draft, every question asked through
the offline planner; then the counts, and each question not answered right with its calls and answer.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

import business_eval  # noqa: E402
from business_schemas import NAMES, schema  # noqa: E402

PG_SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432"
ANSWER_CHARS = 420


@contextmanager
def database(backend: str) -> Iterator[str]:
    """The URL of a new, empty database on the backend, removed when the block ends."""
    if backend == "sqlite":
        with tempfile.TemporaryDirectory(prefix="unseen_") as folder:
            yield f"sqlite:///{folder}/business.db"
        return
    name = f"unseen_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(f"{PG_SERVER}/postgres", isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
        try:
            yield f"{PG_SERVER}/{name}"
        finally:
            with admin.connect() as conn:
                conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


def _compact(text: str, full: bool) -> str:
    flat = " ⏎ ".join(line.strip() for line in text.strip().splitlines() if line.strip())
    return flat if full or len(flat) <= ANSWER_CHARS else flat[:ANSWER_CHARS] + " …"


def _calls(outcome: business_eval.Outcome) -> str:
    return "; ".join(f"{c.name}({json.dumps(c.args, ensure_ascii=False, default=str)})"
                     + ("" if c.status == "ok" else f" {c.status}") for c in outcome.calls) or "none"


def report(name: str, backend: str, *, full: bool = False) -> dict[business_eval.Verdict, int]:
    module = schema(name)
    with database(backend) as url:
        module.create(url)
        outcomes = business_eval.run(module, url)
    tally = business_eval.counts(outcomes)
    print(f"== {name} on {backend}: right {tally['right']}  honest {tally['honest']}  wrong {tally['wrong']}"
          f"  (of {len(outcomes)})")
    for o in outcomes:
        if o.verdict == "right":
            continue
        q = o.question
        print(f"  [{o.verdict}] {q.id} ({q.kind}): {q.say}")
        print(f"    expected: {', '.join(map(str, o.expected))}"
              + (f" | missing: {', '.join(map(str, o.missing))}" if o.missing else "")
              + (f" | extra: {', '.join(o.extra[:8])}" if o.extra else ""))
        print(f"    calls: {_calls(o)}")
        print(f"    answer: {_compact(o.answer, full)}")
    return tally


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="sqlite")
    parser.add_argument("--schema", choices=NAMES, action="append", help="only this schema (repeatable)")
    parser.add_argument("--full", action="store_true", help="print whole answers")
    args = parser.parse_args(argv)
    backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    totals: dict[business_eval.Verdict, int] = {"right": 0, "honest": 0, "wrong": 0}
    for name in args.schema or NAMES:
        for backend in backends:
            for verdict, n in report(name, backend, full=args.full).items():
                totals[verdict] += n
            print()
    print(f"== all: right {totals['right']}  honest {totals['honest']}  wrong {totals['wrong']}")


if __name__ == "__main__":
    main()
