"""The home demo: a household's lights and TV through the SwitchBot cloud API v1.1 (docs/home.md).

It has no database tables: its one source is the web API at ``SWITCHBOT_BASE_URL`` (the real SwitchBot
cloud unless set; `concierge devices simulate` serves a local SIMULATOR). Only its users are installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa

from concierge.plugins import Backend, Demo, DemoUser


@contextmanager
def simulated() -> Iterator[Backend]:
    """A SwitchBot SIMULATOR (every device as it starts), the variables that point the catalog at it, and its reset."""
    from concierge.demo.home.simulator import running

    with running() as simulator:
        yield Backend(simulator.environment(), simulator.store.reset)


DEMO = Demo(
    name="home",
    catalog=Path(__file__).with_name("catalog.yaml"),
    metadata=sa.MetaData(),
    tables=(),
    generate=dict,
    users=(
        DemoUser("admin", "admin", "管理者"),
        DemoUser("hanako", "family", "花子(家族)"),
        DemoUser("guest", "guest", "ゲスト"),
    ),
    by_default=False,  # it needs SWITCHBOT_TOKEN and SWITCHBOT_SECRET (or the simulator's): --catalog home
    backend=simulated,
)
