"""The demos made ready where they are opened: a step of the CLI, the eval and the tests, never of the pipeline.

`open_pipeline` is `Pipeline.open` with the demos' data installed into an embedded database that lacks it,
their users added to the state, and the rollups of an older embedded file built.
"""

from __future__ import annotations

from datetime import date

from concierge import demo
from concierge.catalog.loader import Catalog
from concierge.errors import ConfigError
from concierge.pipeline.pipeline import Pipeline
from concierge.storage import rollups
from concierge.storage.database import Database
from concierge.storage.replicas import ReplicaConfig


def prepare(catalogs: list[Catalog], db: Database, state: Database) -> None:
    """Install the demo catalogs' data on an embedded database that lacks it (a server database is set up
    explicitly with `concierge db init`) and add their users."""
    demo.seed_users(state, [c.spec.demo for c in catalogs if c.spec.demo])
    for cat in catalogs:
        if not cat.spec.demo:
            continue
        if not demo.is_installed(db, cat.spec.demo):
            if not db.is_sqlite:
                raise ConfigError(
                    f"the {cat.spec.demo} demo tables are missing in {db}; "
                    f"run: concierge db init --catalog {cat.spec.demo} --database URL"
                )
            demo.install(db, cat.spec.demo, state_db=state)
        elif db.is_sqlite:  # an embedded file from before its catalog declared rollups
            rollups.ensure(db, cat.spec.rollups)


def open_pipeline(catalog_refs: list[str], database: str | None = None, *, state_database: str | None = None,
                  today: date | None = None, use_rollups: bool = True,
                  replicas: ReplicaConfig | None = None) -> Pipeline:
    """`Pipeline.open` with the demos made ready (`prepare`)."""
    return Pipeline.open(catalog_refs, database, state_database=state_database, today=today,
                         use_rollups=use_rollups, prepare=prepare, replicas=replicas)


def demo_users(catalogs: list[Catalog]) -> list[str]:
    """The names of the users that the demo catalogs bring (admin, tanaka, ...)."""
    names = [u.name for c in catalogs if c.spec.demo for u in demo.demo(c.spec.demo).users]
    return list(dict.fromkeys(names))
