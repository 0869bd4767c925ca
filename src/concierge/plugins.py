"""Demo businesses as plug-ins: a name, a catalog, tables, a data generator and users.

The core names no demo. A demo is a package that exposes a `Demo` and registers it under the
``concierge.demos`` entry-point group (the shipped demos do so in pyproject.toml); a third
party can ship one the same way. `concierge --catalog NAME` finds a demo's catalog by its name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path

import sqlalchemy as sa

from concierge.errors import ConfigError

ENTRY_POINT_GROUP = "concierge.demos"


@dataclass(frozen=True)
class Backend:
    """A running stand-in for the service a demo's catalog calls: the environment its catalog reads (base URL,
    credentials), and how to put it back as it started (every device as it was), for the next case."""

    environment: dict[str, str]
    reset: Callable[[], None]


@dataclass(frozen=True)
class DemoUser:
    name: str
    role: str
    display_name: str


@dataclass(frozen=True)
class Demo:
    name: str
    catalog: Path  # its catalog YAML (which also declares the demo's clock, `demo_today`)
    metadata: sa.MetaData
    tables: tuple[sa.Table, ...]  # in creation order: a table comes after those it references
    generate: Callable[[], dict[str, list[dict]]]  # table name -> rows
    users: tuple[DemoUser, ...]
    by_default: bool = True  # loaded when the settings name no catalogs (False: it needs credentials first)
    # A local stand-in for the service its catalog calls (a simulator), for the eval: started once a run and put
    # back as it started before each case. None: a database demo.
    backend: Callable[[], AbstractContextManager[Backend]] | None = None
    # Tables whose rows the demo reads from a file of its own format: table -> load(database, path) -> rows
    # (`concierge db import TABLE FILE`); any other table takes a CSV of its columns.
    importers: Mapping[str, Callable[..., int]] = field(default_factory=dict)


@cache
def demos() -> dict[str, Demo]:
    """Every installed demo by name."""
    found: dict[str, Demo] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        demo = point.load()
        if not isinstance(demo, Demo):
            raise ConfigError(f"entry point {point.value} in {ENTRY_POINT_GROUP} is not a concierge.plugins.Demo")
        found[demo.name] = demo
    return dict(sorted(found.items()))


def default_demos() -> list[str]:
    """The demos loaded when the settings name no catalogs: those that run with nothing to configure."""
    return [name for name, d in demos().items() if d.by_default]


def demo(name: str) -> Demo:
    known = demos()
    if name not in known:
        raise ConfigError(f"no demo named {name!r}; installed demos: {', '.join(known) or 'none'}")
    return known[name]
